"""What a question asks for, in the fact model's slots.

"what's my trade" shares no word with "Works as welder", and the meanings of
short texts sit too close to tell them apart, but the fact's slot says what it
is about ("occupation"), and a question's words say which slots it asks for:
``locale/<lang>/facts/asked.list`` lists them for the user's own slots
("occupation, employer: job, trade, living...", each word in its other forms
too: "lives"). Someone named after a word of its ``family`` line ("my sister",
"a minha mulher", "the dog": the words of the relatives' maps of
``family.facts`` and the animals' of ``pets.facts``), or by a word of its
``bare`` line alone ("mom"), is the subject the question asks about: it asks
for that subject's slots (``family.sister``), and a fact about anyone else,
the user included, is no answer to it, unless the question names the user too
(its ``self`` line: "where did I live when my son was born"). So is someone
asked about by the name the user gave them ("where does Rita live", when a
fact says "Sister Rita lives in Porto": ``names_of``). A question that
asks of its subject a topic no slot holds ("what car does my sister drive") is
not answered by the subject's other facts either: they are about her, not
what was asked.
"""
import re
from functools import lru_cache
from typing import Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from ovos_memory_service.common.resources import locale_dir, match_lang, read_pairs, stop_words
from ovos_memory_service.common.words import Forms, bare, keywords, topical, writes_accents
from ovos_memory_service.learning.facts.extract import before_relative, is_number_word, joined, load_language

WORD = re.compile(r"[^\W\d_][\w'-]*")
# one or two words and a comma at the start: a name ("tom, my brother, ..."), a word that
# leads in ("well, my son ...", "yesterday, my son ...")
LEADING = re.compile(r"^(?:[^\W\d_][\w'-]*\s+)?[^\W\d_][\w'-]*\s*,\s*")
# the maps that name a subject: (rule family, map names, the slots' beginning)
SUBJECTS = (("family", ("relation", "kin", "kins", "person"), "family"), ("pets", ("animal",), "pet"))
# one person under other words ("my wife" may have been told as "tasha and i got married"), and a
# group and its members ("my kids" as "my son eli"; "my daughter" as "i have two children", but
# never as "my son")
PARTNERS = ("wife", "husband", "partner", "spouse", "girlfriend", "boyfriend", "fiance")
GROUPS = {"children": ("son", "daughter", "stepson", "stepdaughter", "baby"), "parents": ("mother", "father"),
          "siblings": ("sister", "brother"),
          "in-laws": ("mother", "father"), "grandparents": ("grandmother", "grandfather"),
          "grandchildren": ("granddaughter", "grandson")}
# an animal asked for by its kind is any animal of it ("what bird do I have": the budgie)
PET_KINDS = {"bird": ("bird", "parrot")}


def _also() -> Dict[str, Tuple[str, ...]]:
    """A relation's key -> the keys a question naming it asks for."""
    also = {**{key: PARTNERS for key in PARTNERS}, **{group: (group, *members) for group, members in GROUPS.items()}}
    for group, members in GROUPS.items():
        for member in members:
            also[member] = (*also.get(member, (member,)), group)
    return also


ALSO = _also()
SELF = "self"  # in the slots asked for: the question names the user too
US = "us"  # words that say the user with others ("we"): a statement that says them is the user's too
BARE = "bare"  # a relative named with no word before ("where does mom live")
# in a question, words before a relative the user may have ("do i have a sister", "hab ich
# geschwister"): as "my" before one, the relative is whom the question asks about
ANY = "any"
OR = "or"  # in a question, a word before a second relative or animal, beside a first ("a cat or a dog")
ME = "me"  # words that say the user as an object ("reminds me", "dá-me", "gibt mir")
# a place asked for ("what country"): a relative's home or origin ("em que país está a minha irmã"),
# but of the user's own nothing in particular ("como é que nos deslocamos na cidade")
PLACE, PLACES = "place", {"residence", "origin"}
# of the user's own slots, those (by their first part) a fact of which may tell what a question
# asking for one of them wants, though not of its slot ("what do I do" told by what one studies;
# "how do I get to work" by the car one drives, but "what car do I drive" not by the tram)
MAY_ANSWER = {
    "occupation": {"employer", "business", "studies", "plan", "transport"},
    "employer": {"occupation", "business", "transport"},
    "business": {"occupation", "employer"}, "studies": {"plan", "trip"},  # "vou de erasmus para bolonha"
    "residence": {"origin", "household", "plan"}, "origin": {"residence"}, "household": {"residence"},
    "transport": {"vehicle", "residence", "employer"}, "trip": {"plan"}, "plan": {"trip", "vehicle"},
    "health": {"allergy", "intolerance", "diet"}, "allergy": {"intolerance", "health", "diet"},
    "intolerance": {"allergy", "health", "diet"}, "diet": {"allergy", "intolerance", "health", "dislikes"},
    "exercise": {"hobby", "team", "skill"}, "hobby": {"exercise", "skill", "team"}, "team": {"exercise"},
    "skill": {"hobby", "exercise", "studies"}, "dislikes": {"diet"}, "birthday": {"age"}, "age": {"birthday"},
    "food": {"likes", "dislikes", "diet"},
}
# a topic named by one word takes more than a question about it asks: "school" takes what one
# studies, though "where did I go to school" is not told by "I'm training to be a nurse"
TOPIC_MAY_ANSWER = {"school": {"studies"}}
# and less where two topics meet: "work" is not what one studies ("school" takes that), though
# "what do I do" may be told by it
TOPIC_APART = {"occupation": {"studies"}}
EVERYTHING = "all"  # words that ask all that is known ("tell me about my sister")
KIN = "kin"  # words that name the whole family ("my family", "a família"): every relative's fact
NOT_KIN = ("friend", "colleague", "neighbour", "boss", "flatmate", "ex")  # people of family.facts, not family
COMPANY = "company"  # words that ask who ("with whom do I go swimming"): someone the user named
TOGETHER = "together"  # words that say the user did something with someone ("me and", "eu e o")
AGE = "age"  # the last part of a slot that holds an age ("pet.dog.age"): a number may tell it
UNHELD = "?"  # the attribute of a subject's that no slot holds ("family.sister.*.?": her car)
# in the slots asked for: a word after "my", "the" that the lists know neither as asked nor as
# anyone ("my significant other", "die kleine", "la yaya"): maybe someone whose facts are asked
SOMEONE = "someone"
# words that look like another form of one that asks, and are another word ("parte" of "parti"): they ask nothing
NONE = "none"
AMOUNT = "amount"  # words that ask a quantity ("how many miles"): a number tells it (``asks_amount``)
MEASURE = "measure"  # a unit, money or a span of time ("miles", "earn", "hora"): what an amount asked is in
MEDICINE = "medicine"  # words that ask which medicine one takes ("what pills am i on"), or name one taken
DRUG = "drug"  # words that name a medicine, never in a question of what one takes ("insulin", "estatinas")
TAKEN = "taken"  # words that say a medicine is taken, without naming it ("take", "nehme")
SLOTLESS = {ANY, OR, ME, MEDICINE, DRUG, TAKEN}  # lines read as words alone (``_says``), asking no slot


@lru_cache(maxsize=16)
def _asked(folder: str) -> Dict[str, Tuple[str, ...]]:
    """asked.list: a word of a question -> the slots it asks for ("family" -> the words a subject follows);
    a word of the ``none`` line asks none, and is listed so that it is no form of another."""
    path = locale_dir() / folder / "facts" / "asked.list"
    found: Dict[str, Tuple[str, ...]] = {}
    for slots, words in read_pairs(path) if path.exists() else []:
        for word in words:
            found[word] = found.get(word, ()) + tuple(slot for slot in slots if slot != NONE)
    return found


@lru_cache(maxsize=16)
def _apart(folder: str) -> Tuple[Tuple[re.Pattern, Tuple[str, ...]], ...]:
    """asked.list's entries of two words apart ("where ... from"): a regex of each, and its slots."""
    return tuple((re.compile(r"(?<!\w)%s(?!\w).*(?<!\w)%s(?!\w)" % tuple(
        re.escape(w.strip()) for w in word.split("..."))), slots)
        for word, slots in _asked(folder).items() if word.count("...") == 1)


@lru_cache(maxsize=16)
def _subjects(folder: str, asking: bool = False
              ) -> Tuple[Optional[re.Pattern], Dict[str, Set[str]], Optional[re.Pattern]]:
    """A regex of a subject's words after a word of the ``family`` line (or, ``asking``
    a question, of the ``any`` line), or of the ``bare`` line alone (the words in its group 1 or 2), the words ->
    the beginnings of their slots
    (``family.sister``, ``pet.dog``; the German "Freund" is a friend and a boyfriend),
    and a regex of those after a ``family`` word and followed by a name (its groups)."""
    language = load_language(folder)
    before = _marked_words(folder, ("family",))
    prefixes: Dict[str, Set[str]] = {}
    for _, _, _, rule, maps in language.compiled if language and before else ():
        for family, names, prefix in SUBJECTS:
            if rule.family == family:
                kinds = ALSO if prefix == "family" else PET_KINDS
                for name in names:
                    for words, key in maps.get(name, {}).items():
                        prefixes.setdefault(words, set()).update(f"{prefix}.{other}" for other in kinds.get(key, (key,)))
    if not prefixes:
        return None, {}, None
    words = sorted(prefixes, key=len, reverse=True)
    # the words of the "bare" line name a relative with no word before ("mom", "Oma")
    bare = sorted((w for w, slots in _asked(folder).items() if BARE in slots and w in prefixes), key=len, reverse=True)
    before_words = before_relative(language.lists["articles"], before)
    if asking:  # "do i have", "hab ich", "or", and an article or none: "do i have a sister", "hab ich geschwister"
        before_words = r"(?:%s|%s)" % (before_words, before_relative((), _marked_words(folder, (ANY, OR)),
                                                                     language.lists["indefinite"]))
    subject_words = "|".join(r"\s+".join(map(re.escape, w.split())) for w in words)
    pattern = r"(?<!\w)(?:%s\s+(%s)|(%s))(?!\w)" % (before_words, subject_words, "|".join(map(re.escape, bare)) or "(?!)")
    followed = r"(?<!\w)%s\s+(%s)\s+([^\W\d_][\w'-]*)" % (before_words, subject_words)
    return re.compile(pattern), prefixes, re.compile(followed)


@lru_cache(maxsize=16)
def _of_others(folder: str) -> FrozenSet[str]:
    """What the rules learn of a relative or an animal: the last part of their
    slots ("residence" of ``family.{kin}.residence``)."""
    language = load_language(folder)
    return frozenset(rule.slot.split(".")[-1] for _, _, _, rule, _ in (language.compiled if language else ())
                     if rule.slot.split(".")[0] in ("family", "pet"))


def names_of(facts: Iterable[Tuple[Optional[str], Optional[str]]], lang: str,
             said: Iterable[str] = ()) -> Tuple[Tuple[str, str], ...]:
    """The names the user gave relatives and animals in ``facts`` ((slot, value)
    pairs) and in what they ``said``, each word with the subject it names:
    ("rita", "family.sister.rita") from ``family.sister.rita.residence``, ("rex",
    "pet.dog") from ``pet.dog.name`` valued "Rex", ("micha", "family.friend.micha")
    from "mit meinem kumpel micha fahr ich nach wacken". Sorted, so that
    ``asked_slots`` knows a question it has read."""
    folder = match_lang(lang)
    _, prefixes, followed = _subjects(folder) if folder else (None, {}, None)
    language = load_language(folder) if followed is not None else None
    # a name set apart by commas is read as said bare ("o meu marido, o rui, ...": "o meu marido rui")
    found = {(name.lower(), f"{prefix}.{name.lower()}") for text in said if followed is not None
             for words, name in followed.findall(joined(text, language).lower()) if name not in language.nonnames
             for prefix in prefixes[" ".join(words.split())]}
    for slot, value in facts:
        parts = (slot or "").split(".")
        if parts[0] == "family" and len(parts) == 4:
            found |= {(w, ".".join(parts[:3])) for w in keywords(parts[2], lang)}
        elif parts[0] in ("family", "pet") and len(parts) == 3 and parts[2] == "name" and value:
            found |= {(w, f"{parts[0]}.{kind}") for w in keywords(value, lang)
                      for kind in (ALSO.get(parts[1], (parts[1],)) if parts[0] == "family" else (parts[1],))}
    return tuple(sorted(found))


@lru_cache(maxsize=256)
def asked_slots(text: str, lang: str, names: Tuple[Tuple[str, str], ...] = ()) -> FrozenSet[str]:
    """The slots (or their beginnings: ``family.sister``) ``text`` asks for;
    ``names``: the user's (``names_of``)."""
    folder = match_lang(lang)
    if not folder:
        return frozenset()
    said = text.lower()
    own = _asked(folder)
    words = WORD.findall(said)
    # a word asks in any of its forms; two or three words together ("de onde", "auf die welt")
    # as the list writes them, and then their words ask nothing of their own ("get to work" is
    # how one gets there, not the job), and two apart ("where ... from")
    # ("do i have" only before the relative alone: "i" in "do i have the same job as my sister" still
    # says the user)
    runs = [(i, n) for n in (2, 3) for i in range(len(words) - n + 1) if " ".join(words[i:i + n]) in own
            and (own[" ".join(words[i:i + n])] != (ANY,) or (i == 0 and _someone_alone(words[n:], folder)))]
    inside = {i + k for i, n in runs for k in range(n)}
    plain = not writes_accents(text)  # speech-to-text that drops accents: "profissao" is "profissão"
    asked = {slot for i, word in enumerate(words) if i not in inside for slot in _word_slots(word, folder, plain)}
    asked |= {slot for i, n in runs for slot in own[" ".join(words[i:i + n])]}
    asked |= {slot for pattern, slots in _apart(folder) if pattern.search(said) for slot in slots}
    slots = asked - {"family", BARE, SELF, US, EVERYTHING, PLACE, COMPANY, TOGETHER, AMOUNT, MEASURE} - SLOTLESS
    if COMPANY in asked and not slots:  # "which friend joins me fishing" asks who, not about a friend
        return frozenset((COMPANY,))   # ("who lives with me" asks of a household)
    named, subjects = _named(said, folder, asking=True)
    # a name the user gave someone ("rita", "rita's"), not a word that asks something ("Will", "June")
    owners = set(words) | {owner(w) for w in words}
    by_name = {(w, subject) for w, subject in names if w in owners and not _word_slots(w, folder, plain)}
    subjects |= {subject for _, subject in by_name}
    if not subjects:
        return frozenset(slots | {SOMEONE}) if slots and _unknown_after_family(words, folder, plain) else frozenset(slots)
    slots |= PLACES if PLACE in asked else set()
    # "where does my sister live": her home, not the user's; "my sister": all of hers;
    # "what car does my sister drive" (a topic's word no slot holds): none of hers answers;
    # "my dog rex": all of his
    held = {w for m in named for w in WORD.findall(m.group(0))} | {w for w, _ in by_name}
    other = [w for w in keywords(said, lang) if w not in held and not _word_slots(w, folder, plain)]
    # what the rules never learn of a relative ("what car does my sister drive") is unheld too
    # (a slot asked of anyone's, "family.*.household", is asked of theirs: "family.wife.*.household")
    attributes = {s.split(".*.")[-1] for s in slots if s.split(".")[-1] in _of_others(folder)}
    attributes = attributes or ({UNHELD} if slots or set(other) & topical(lang) else set())
    if not attributes and not named and EVERYTHING not in asked:
        return frozenset(slots)  # a name alone ("der kleine max"): a name may be more than one person's
    about = {f"{subject}.*.{slot}" for subject in subjects for slot in attributes} or subjects
    return frozenset(about | slots | {SELF}) if SELF in asked else frozenset(about)


def _someone_alone(words: List[str], folder: str) -> bool:
    """``words`` are a relative's or an animal's, after stop words or none ("any brothers", "a dog";
    not "a dog allergy")."""
    stops = stop_words(folder)
    while words and words[0] in stops:
        words = words[1:]
    return " ".join(words) in _subjects(folder)[1]


def _unknown_after_family(words: List[str], folder: str, plain: bool = False) -> bool:
    """A word after one that names a relative ("my", "die", "la") asks for no slot and
    is no stop word: someone the lists do not know ("my significant other")."""
    family, stops = _marked_words(folder, ("family",)), stop_words(folder)
    return any(word in family and following not in stops and not _word_slots(owner(following), folder, plain)
               for word, following in zip(words, words[1:]))


def owner(word: str) -> str:
    """``word`` without the 's of an owner ("rita's" -> "rita")."""
    return word[:-2] if word.endswith("'s") else word


def names_someone(text: str, lang: str) -> bool:
    """``text`` names a relative, a friend or an animal of the user's ("my buddy
    marcus"), or someone beside the user (asked.list's ``together`` line: "eu e o tiago")."""
    folder = match_lang(lang)
    if not folder:
        return False
    said, pattern, together = text.lower(), _subjects(folder)[0], _together(folder)
    return bool(pattern and pattern.search(said)) or bool(together and together.search(said))


def about_another(text: str, asked: FrozenSet[str], lang: str) -> bool:
    """``text`` is about someone else than the user, named as its subject ("my older
    sister kim plays tennis"), while ``asked`` is of the user's own and no one else's
    ("sport"); not when it says the user beside them ("me and my brother", "ich und mein bruder")
    or the user ("i", "we", "ich")."""
    folder = match_lang(lang)
    if not folder or _asked_subjects(asked) or KIN in asked:
        return False
    said, pattern, together = text.lower().strip(), _subjects(folder)[0], _together(folder)
    # the subject first, or after a name or a word that leads in (``LEADING``: "O Rui, o meu marido, é...")
    first = pattern and (pattern.match(said) or pattern.match(LEADING.sub("", said, count=1)))
    person = first and any(p.startswith("family.") for p in _named(first.group(0), folder)[1])
    return bool(person) and not (together and together.search(said)) \
        and not _marked_words(folder, (SELF, US)) & set(WORD.findall(said))


@lru_cache(maxsize=64)
def _marked_words(folder: str, marks: Tuple[str, ...]) -> FrozenSet[str]:
    """asked.list's words of the lines ``marks`` head: ``self`` and ``us`` for the user
    ("i", "we"), ``family`` for the words before a relative ("my", "die")."""
    return frozenset(w for w, slots in _asked(folder).items() if set(marks) & set(slots))


def names_a_person(text: str, lang: str) -> bool:
    """``text`` has a word for a relative or a friend ("wife", "pareja", "Freundin"),
    as asked.py knows them: a topic about them, not about the user's own things."""
    folder = match_lang(lang)
    prefixes = _subjects(folder)[1] if folder else {}
    return any(p.startswith("family.") for w in WORD.findall(text.lower()) for p in prefixes.get(w, ()))


@lru_cache(maxsize=16)
def _together(folder: str) -> Optional[re.Pattern]:
    """A regex of asked.list's ``together`` words ("me and", "eu e o")."""
    words = sorted((w for w, slots in _asked(folder).items() if TOGETHER in slots), key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:%s)(?!\w)" % "|".join(map(re.escape, words))) if words else None


def says_attribute(text: str, slot: str, lang: str) -> bool:
    """``text`` says what ``slot`` holds, in a word that asks for it ("lives" for a
    residence), or for an age in a number ("unser dackel waldi ist schon vierzehn")."""
    words = keywords(text, lang)
    if (slot == AGE or slot.endswith("." + AGE)) and any(is_number_word(w, lang) for w in words):
        return True
    return any(says_slot(w, slot, lang) for w in words)


def says_slot(word: str, slot: str, lang: str) -> bool:
    """``word`` is one that asks for ``slot`` ("vive" for ``family.sister.residence``):
    a statement that says it tells that slot, in whatever words its fact is written."""
    folder = match_lang(lang)
    return bool(folder) and any(slot == s or slot.endswith("." + s) for s in _word_slots(word, folder))


@lru_cache(maxsize=8192)
def _word_slots(word: str, folder: str, plain: bool = False) -> Tuple[str, ...]:
    """The slots ``word`` asks for: its own, or those of the words it is another
    form of ("moram" of "mora", "wohnt" of "wohne", "viven" of "vive"); cached, as a
    statement's words are looked up again and again."""
    own = _asked(folder)
    listed = [word] if word in own else _forms(folder).of(word)
    if not listed and plain and word not in _subjects(folder)[1]:
        # in a text written without accents, a word without its own ("profissao"), unless the
        # word names someone as it is ("pais", parents, is no "país")
        listed = list(_unaccented(folder).get(word, ()))
    # the words of the lines read as words alone ask nothing ("what pills is my mom on": what she
    # takes no slot holds; "micha" is no form of "mich")
    return tuple(slot for w in listed for slot in own[w] if slot not in SLOTLESS)


@lru_cache(maxsize=16)
def _unaccented(folder: str) -> Dict[str, Tuple[str, ...]]:
    """asked.list's words by their letters without accents ("profissao" -> "profissão"); not
    those with an umlaut, which speech-to-text keeps ("schon" is no "schön")."""
    found: Dict[str, Tuple[str, ...]] = {}
    for word in _asked(folder):
        if not set("äöü") & set(word):
            found[bare(word)] = found.get(bare(word), ()) + (word,)
    return found


@lru_cache(maxsize=16)
def _forms(folder: str) -> Forms:
    return Forms(list(_asked(folder)))


def asks_unheld(asked: FrozenSet[str]) -> bool:
    """The question asks something of its subject that no slot holds ("what car does my sister drive")."""
    return any(a.endswith(".*." + UNHELD) for a in asked)


def asks_amount(text: str, lang: str) -> bool:
    """``text`` asks a quantity in a unit, money or time (asked.list's ``amount`` and
    ``measure`` words: "how many miles do i run", "wie viel verdiene ich"), which only a
    number tells; not "how many languages" or "how much do i like jazz", which a statement may
    tell by naming or saying, nor a count of people or animals."""
    folder = match_lang(lang)
    if not folder or not (_says(text, folder, AMOUNT) and _says(text, folder, MEASURE)):
        return False
    prefixes = _subjects(folder)[1]
    return not any(p.startswith(("family.", "pet")) for w in WORD.findall(text.lower())
                   for p in prefixes.get(w, ()))


def asks_medicine(text: str, asked: FrozenSet[str], lang: str) -> bool:
    """``text`` asks which medicine the user takes (asked.list's ``medicine`` words: "what
    pills am i on", "welche tabletten nehme ich"), which only a statement that says one tells
    (``tells_medicine``), not one of a condition ("i'm diabetic"); not when what it asks
    (``asked``: its slots) is more than their health ("what medicine am i allergic to",
    "what pills is my mom on"), unless it says it is taken ("what pills do i take for my allergies")."""
    folder = match_lang(lang)
    return bool(folder) and _says(text, folder, MEDICINE) and (
        all(a.startswith("health.") for a in asked) or (_says(text, folder, TAKEN) and not _asked_subjects(asked)))


def says_me(text: str, lang: str) -> bool:
    """``text`` says the user as an object (asked.list's ``me`` line: "my wife reminds me", "dá-me")."""
    folder = match_lang(lang)
    return bool(folder) and _says(text, folder, ME)


def tells_medicine(text: str, asked: FrozenSet[str], lang: str) -> Optional[bool]:
    """Whether ``text`` tells which medicine is taken: True when it names one (a word of
    asked.list's ``medicine`` or ``drug`` lines: "i take a blood thinner", "me pincho
    insulina"), None when it only says one is taken or used ("I'm on lithium": its name
    is in no list), False when it says neither ("i'm diabetic"); one the user is allergic to
    tells only a question that asks an allergy (``asked``, its slots)."""
    folder = match_lang(lang)
    if not folder:
        return None
    if _says(text, folder, MEDICINE, DRUG):
        if says_attribute(text, "allergy", lang):  # one the user is allergic to: asked ("which medicine
            return None if {"allergy", "intolerance"} & asked else False  # can't i take"), or not taken
        return True
    return None if _says(text, folder, TAKEN) else False


def _says(text: str, folder: str, *marks: str) -> bool:
    """``text`` says a word of asked.list's lines ``marks`` as it is written there; in a text
    written without accents, without them."""
    plain = not writes_accents(text)
    said = " ".join(WORD.findall(text.lower()))
    return bool(_marked_pattern(folder, marks, plain).search(bare(said) if plain else said))


@lru_cache(maxsize=64)
def _marked_pattern(folder: str, marks: Tuple[str, ...], plain: bool) -> re.Pattern:
    words = sorted((bare(w) if plain else w for w in _marked_words(folder, marks)), key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:%s)(?!\w)" % "|".join(map(re.escape, words)) if words else r"(?!)")


def says_number(text: str, lang: str) -> bool:
    """``text`` says a number, in digits or in words ("five", "vinte e dois"), or "one" in
    an article before a unit, money or time ("a mile", "uma hora"); not in an article
    elsewhere ("in einer kneipe", "tenho um salão")."""
    folder = match_lang(lang)
    language = load_language(folder) if folder else None
    articles = set(language.lists["indefinite"]) if language else set()
    measures = _marked_words(folder, (MEASURE,)) if folder else frozenset()
    words = WORD.findall(text.lower())
    return any(c.isdigit() for c in text) or any(
        (is_number_word(w, lang) and w not in articles) or (w in articles and after in measures)
        for w, after in zip(words, words[1:] + [""]))


def asks_ages(asked: FrozenSet[str]) -> bool:
    """The question asks an age only, the user's or another's the lists know ("how old
    is rufus", "how old am i", not "quantos anos tem o rui"): something a number tells."""
    return bool(asked) and all(a == AGE or a.endswith("." + AGE) for a in asked)


def tells_of(text: str, asked: FrozenSet[str], names: Iterable[str], lang: str) -> bool:
    """``text`` names someone the question asks about: by a name it asks (``names``,
    "felix"), or by their word ("my sister" of ``family.sister``, "o cão" of ``pet.dog``)."""
    folder = match_lang(lang)
    said = text.lower()
    if set(names) & set(WORD.findall(said)):
        return True
    subjects = _asked_subjects(asked)
    return bool(folder) and any(s == p or s.startswith(p + ".") or p.startswith(s + ".")
                                for s in subjects for p in _named(said, folder)[1])


def _named(said: str, folder: str, asking: bool = False):
    """The subject words a lowercase text names ("my sister", "Oma": ``_subjects``' matches)
    and the beginnings of their slots (``family.sister``)."""
    pattern, prefixes, _ = _subjects(folder, asking)
    named = list(pattern.finditer(said)) if pattern else []
    if asking and all(m.group(0).split()[0] in _marked_words(folder, (OR,)) for m in named):
        named = []  # "is a cat or a dog better": no one asked
    return named, {p for m in named for p in prefixes[" ".join((m.group(1) or m.group(2)).split())]}


def answers(slot: Optional[str], asked: FrozenSet[str], topic: bool = False) -> Optional[bool]:
    """Whether a fact of ``slot`` is what a question asking for ``asked`` wants:
    None when either is unknown; False for a fact about anyone else than the
    subject asked about (a daughter's name for "what's my sister called", the
    user's own job for "what does my sister do"). ``topic``: ``asked`` is a topic
    named by one word, and a relative's fact is no part of the user's own
    ("trabalho" is not "o meu marido é mecânico")."""
    if not slot or not asked:
        return None
    if any(_fits(slot, a) for a in asked):
        return True
    subjects = _asked_subjects(asked)
    if not subjects:  # the user's own: a fact of theirs of an unrelated slot is no answer ("pet": an allergy)
        if slot.startswith("family."):  # a relative's is theirs ("what's my job": "my wife is a vet"), unless
            return None if SOMEONE in asked and not topic else False  # the question may be about them
        return None if slot.startswith("pet") or any(related(slot, a, topic) for a in asked) else False
    if SELF in asked or slot == "pet":  # "pet": an animal told by its kind, not its slot
        return None
    if asks_unheld(asked) or of_another(slot, asked):
        return False  # what is known of the subject, or of anyone else, is not what was asked
    # another of the subject's: no answer, unless it may tell the one asked, or names them
    # when their name is asked ("Husband Marcus teaches chemistry")
    wanted = {a.split(".*.")[1] for a in asked if ".*." in a}
    if not wanted or any(related(slot.split(".")[-1], w) for w in wanted) or \
            ("name" in wanted and len(slot.split(".")) > 3):
        return None
    return False


def of_another(slot: str, asked: FrozenSet[str]) -> bool:
    """The question asks about a relative or an animal, and a fact of ``slot`` is about someone else."""
    subjects = _asked_subjects(asked)
    return bool(subjects) and SELF not in asked and not any(_of_subject(slot, s) for s in subjects)


def _asked_subjects(asked: FrozenSet[str]) -> Set[str]:
    """The relatives and animals a question asks about (``family.sister``, ``pet.dog``)."""
    return {a.split(".*.")[0] for a in asked if a.startswith(("family.", "pet."))}


def related(slot: str, asked: str, topic: bool = False) -> bool:
    """Whether a fact of ``slot`` may tell what a question asking ``asked`` wants
    (``MAY_ANSWER``), or belongs to a topic named by one word (``TOPIC_MAY_ANSWER`` too,
    ``TOPIC_APART`` not)."""
    first, wanted = slot.split(".")[0], asked.split(".")[0]
    if topic:
        return first == wanted or first in TOPIC_MAY_ANSWER.get(wanted, ()) or \
            first in MAY_ANSWER.get(wanted, set()) - TOPIC_APART.get(wanted, set())
    return first == wanted or first in MAY_ANSWER.get(wanted, ())


def _fits(slot: str, asked: str) -> bool:
    """``family.sister.*.residence`` fits family.sister.residence and family.sister.ana.residence;
    ``family.sister.ana.*.residence`` fits family.sister.ana.residence and family.sister.residence."""
    if asked == KIN:
        return slot.startswith("family.") and slot.split(".")[1] not in NOT_KIN
    if ".*." in asked:
        subject, attribute = asked.split(".*.")
        return _of_subject(slot, subject) and slot.endswith("." + attribute)
    return slot == asked or slot.startswith(asked + ".")


def _of_subject(slot: str, subject: str) -> bool:
    """A fact of ``slot`` is about ``subject`` (``family.sister``, ``family.sister.ana``):
    what was said of "my sister", unnamed, is said of the sister named Ana too."""
    parts = subject.split(".")
    return slot.startswith(subject + ".") or (
        len(parts) == 3 and parts[0] == "family" and slot.count(".") == 2 and slot.startswith(".".join(parts[:2]) + "."))
