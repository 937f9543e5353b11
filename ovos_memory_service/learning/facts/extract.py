"""Facts about the user from one first-person utterance, without an LLM.

The language knowledge lives in ``locale/<lang>/facts/``: one ``<family>.facts``
file per slot family (the format is described at the top of each file) and
word lists that guard and trim the matches (``boundaries``, ``fillers``,
``questions``, ``hypothetical``, ``reported``, ``articles``, ``trailing``,
``relative``, ``cuts``, ``reject``, ``nonnames``, ``numbers``), read a clause
as spoken (``spoken``, ``inverted``, ``dropped``) and write them
(``particles``, ``indefinite``, ``definite``, ``casing``; ``.list`` files).
This module only reads and applies them:

- the utterance is cut into sentences; a sentence that is a question, a
  hypothetical or reported speech gives nothing;
- a pattern must match at the start of a clause (the sentence start, or after
  a boundary such as "," or " and "), once leading fillers ("well", "oh") are
  skipped, so "John lives in Paris" never matches "i live in {value}";
- ``{value}`` captures up to the next clause boundary; articles, trailing
  fillers and punctuation are trimmed, and a value that is too long, a bare
  pronoun or on the block's reject list is dropped;
- each clause gives at most one fact, from its most specific matching pattern
  (more literal text wins), so "i don't like {value} any more" beats
  "i don't like {value}"; a pattern whose captures are not acceptable lets the
  next one try;
- besides ``{value}``, a pattern may capture a person's ``{name}`` ("my
  brother {name} is a {value}": up to three words, none of them a function
  word or on ``nonnames``), a ``{detail}`` the statement keeps ("at the
  children's hospital") and a ``{gap}`` it does not ("seit {gap} in"), or
  words ``{about}`` what follows ("we have a {about} {animal}": "one-eyed",
  "old grey"; at most two, none a function word: "a friend with a dog" is no
  dog of one's own).

Speech-to-text gives everything in lowercase, so the statement is written
with the capitals the language puts on names (``@case`` of a block, below);
what arrives with any capital is kept as it was written:
- ``name`` (people's and pets' names, and ``{name}``): each word capitalised,
  except the particles of ``particles.list`` inside a name ("Rio de Janeiro",
  "Frankfurt am Main", "Trás-os-Montes");
- ``place`` (where someone lives or comes from): as ``name``, unless said
  after an indefinite article (``indefinite.list``): "a small flat" is a
  description;
- ``org`` (employers, and every ``{detail}``): as ``name`` only when said
  bare ("at Google", "en Valencia"); after an article or a contraction of one
  (``indefinite.list``, ``definite.list``: "the", "no", "im") it is a
  description ("at the children's hospital", "no hospital");
- ``noun`` (occupations), and descriptions: common nouns, left as said,
  except in a language whose ``casing.list`` says ``nouns`` (German): there
  the last word of each run of words that are not function words is a noun and
  takes a capital ("leitende Ärztin im städtischen Klinikum").
Map words ({relation}, {animal}) are written as the map in the file writes them.
"""
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ovos_number_parser import extract_number

from ovos_memory_service.common.resources import locale_dir, match_lang, read_list, read_pairs, stop_words
from ovos_memory_service.common.words import bare, topical

KINDS = ("fact", "preference", "skill")
LISTS = ("boundaries", "fillers", "questions", "hypothetical", "reported",
         "articles", "trailing", "reject", "nonnames", "particles", "indefinite", "definite", "casing",
         "numbers", "months", "relative", "cuts", "spoken", "inverted", "dropped", "mine", "carried", "times")
CASES = ("name", "place", "org", "noun")
FREE = ("value", "name", "detail", "gap", "about")  # what a pattern captures besides map words
FREE_WORDS = {"name": 3, "gap": 4, "detail": 7, "about": 2}  # longest capture, in words
FLAGS = {"yes": True, "no": False}
TRIM = " \t'\"“”‘’«».,!?;:…-"
JOINERS = frozenset(("and", "e", "y", "und"))  # "forty and two"... "cinquenta e três", "sesenta y uno"
# {placeholder}, (alternatives), [optional alternatives], * (rest of a word), spaces, literal text
TOKEN = re.compile(r"\{(\w+)\}|\(([^()]*)\)|\[([^\[\]]*)\]|(\*)|(\s+)|([^\s{}()\[\]*]+)")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


class PatternError(ValueError):
    """A pattern file that cannot be read: the message names the file and line."""


@dataclass(frozen=True)
class ExtractedFact:
    slot: str
    value: str
    kind: str
    multi: bool
    negated: bool
    family: str
    text: str
    # the words that named the relative it is about ("a minha mulher sandra"): the next
    # clause, if it leaves its subject out ("e é enfermeira"), is read with them
    subject: str = field(default="", compare=False)


@dataclass
class Rule:
    family: str
    slot: str
    kind: str = "fact"
    multi: bool = False
    text: str = ""
    not_text: str = ""
    value: str = "{value}"
    words: int = 6
    reject: frozenset = frozenset()
    digits: Optional[bool] = None
    number: bool = False                            # the value says one number, written in digits
    case: str = ""                                  # how the value is written (CASES); "": as said
    head: Optional[re.Pattern] = None               # the value must hold a word of these lists (@head)
    place: Optional[re.Pattern] = None              # the {detail} must hold a word of these lists (@place)
    bare_name: bool = False                         # @name bare: a one-word name, no topic's word
    patterns: list = field(default_factory=list)   # (source, negated)


@dataclass
class Language:
    code: str                                       # the locale folder: "pt-pt"
    boundary: str                                   # regex of a clause boundary
    lists: Dict[str, list]
    rules: List[Rule]
    maps: Dict[str, Dict[str, str]]                 # map name -> {word: key}
    compiled: list = field(default_factory=list)    # (specificity, regex, negated, rule)
    trailing: list = field(default_factory=list)    # regexes of what a value may end with
    relative: Optional[re.Pattern] = None           # a word that opens a relative clause in a value
    spoken: Dict[str, str] = field(default_factory=dict)  # a spoken form -> as patterns write it
    spoken_regex: Optional[re.Pattern] = None       # the spoken forms, as words
    carried: Dict[str, str] = field(default_factory=dict)  # a pronoun for a relative named before -> what it says
    inverted: Optional[re.Pattern] = None           # a verb-second clause: what comes first, the verb, the subject
    function_words: frozenset = frozenset()         # articles, particles, the language's stop words
    article_words: frozenset = frozenset()          # articles and their contractions ("no", "im")
    nonnames: frozenset = frozenset()               # words that are never a person's name
    nonname_endings: tuple = ()                     # endings of words that are never a name ("-mente")
    ending_names: frozenset = frozenset()           # names that end so all the same ("+kimberly")
    set_apart: tuple = ()                           # a relative and their name between commas (``_set_apart``)
    relative_lead: Optional[re.Pattern] = None      # a clause that opens with a relative ("my dad", "o meu pai")
    plural_kin: frozenset = frozenset()             # several relatives ("parents", "mom and dad": the kins maps)


class WordMap(dict):
    """A map: each word (lowercase) -> its key; ``written``: the word as the
    file writes it ("Schwester"), which is how a statement writes it, or as
    it writes it after ``>`` ("knit > knitting": "i knit" is "knitting")."""

    def __init__(self):
        super().__init__()
        self.written = {}


def _words_regex(words) -> str:
    words = sorted(words, key=len, reverse=True)
    return "|".join(r"\s+".join(map(re.escape, w.split())) for w in words)


def _split_alternatives(body: str) -> list:
    return [a.strip().lower() for a in body.split("|")]


def compile_pattern(source: str, maps: dict, boundary: str):
    """A pattern line as (regex, specificity)."""
    body, specificity, free_last = _pattern_body(source, maps, boundary)
    # between patterns of equal literal text, the one with more parts is the more specific
    specificity += 0.01 * len(re.findall(r"\{\w+\}|\([^()]*\)|(?<![\w'])[^\s{}()\[\]*]+", source))
    # a capture at the end runs to the clause boundary; anything else ends at a word's end
    end = r"(?=%s|\s*$)" % boundary if free_last else r"(?!\w)"
    return re.compile(body + end, re.IGNORECASE), specificity


def _pattern_body(source: str, maps: dict, boundary: str):
    """(regex text, specificity, whether it ends with a capture) of a pattern line."""
    parts, specificity, value_last, skip_space = [], 0, False, False
    for m in TOKEN.finditer(source.lower()):
        name, alts, optional, star, space, literal = m.groups()
        if space is not None:
            if not skip_space:
                parts.append(r"\s+")
            skip_space = False
            continue
        skip_space = False
        if optional is not None:
            body = "(?:%s)" % _words_regex(_split_alternatives(optional))
            if parts and parts[-1] == r"\s+":          # " [really] love": the space goes inside
                parts[-1] = r"(?:\s+%s)?" % body
            elif source[m.end():m.end() + 1].isspace():  # "[well] i": idem, on the right
                parts.append(r"(?:%s\s+)?" % body)
                skip_space = True
            else:                                       # inside a word: "favo[u]rite"
                parts.append(body + "?")
            continue
        if name in FREE:
            parts.append(r"(?P<%s>(?:(?!%s).)+?)" % (name, boundary))
        elif name is not None:
            if name not in maps:
                raise PatternError("unknown placeholder {%s}" % name)
            parts.append(r"(?P<m_%s>%s)" % (name, _words_regex(maps[name])))
            specificity += 4
        elif alts is not None:
            choices = _split_alternatives(alts)
            parts.append("(?:%s)" % _words_regex(choices))
            specificity += min(len(c) for c in choices)
        elif star is not None:
            parts.append(r"\w*")
        else:
            parts.append(re.escape(literal))
            specificity += len(literal)
        value_last = name in FREE
    for name in FREE:
        if source.count("{%s}" % name) > 1:
            raise PatternError("{%s} may appear only once in a pattern" % name)
    return "".join(parts), specificity, value_last


def parse_facts(path: Path, family: str, boundary: str):
    """The rules and maps of one ``<family>.facts`` file (see its header)."""
    rules, maps, rule = [], {}, None

    def fail(number, message):
        raise PatternError("%s:%d: %s" % (path, number, message))

    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@"):
            key, _, arg = line[1:].partition(" ")
            arg = arg.strip()
            if key == "map":
                head, eq, words = arg.partition("=")
                head = head.split()
                if not eq or len(head) not in (1, 2) or not words.strip():
                    fail(number, "a map is '@map NAME [KEY] = word | word'")
                table = maps.setdefault(head[0], WordMap())
                for entry in words.split("|"):
                    said, _, shown = (part.strip() for part in entry.partition(">"))
                    word = said.lower()
                    table[word] = head[1] if len(head) == 2 else word
                    table.written.setdefault(word, shown or said)
            elif key == "slot":
                rule = Rule(family=family, slot=arg)
                rules.append(rule)
            elif rule is None:
                fail(number, "@%s before the first @slot" % key)
            elif key in ("text", "value"):
                setattr(rule, key, arg)
            elif key == "not-text":
                rule.not_text = arg
            elif key == "kind" and arg in KINDS:
                rule.kind = arg
            elif key == "multi" and arg in FLAGS:
                rule.multi = FLAGS[arg]
            elif key == "digits" and arg in FLAGS:
                rule.digits = FLAGS[arg]
            elif key == "number" and arg in FLAGS:
                rule.number = FLAGS[arg]
            elif key == "words" and arg.isdigit():
                rule.words = int(arg)
            elif key == "case" and arg in CASES:
                rule.case = arg
            elif key in ("head", "place") and arg and all((path.parent / (a + ".list")).exists()
                                                          for a in arg.split()):
                setattr(rule, key, _head_regex(tuple(path.parent / (a + ".list") for a in arg.split())))
            elif key == "name" and arg == "bare":
                rule.bare_name = True
            elif key == "reject":
                rule.reject = frozenset(_split_alternatives(arg))
            else:
                fail(number, "unknown or malformed directive @%s" % key)
        elif rule is None:
            fail(number, "pattern before the first @slot")
        else:
            negated = line.startswith("!")
            inside = _inside_a_group(line)
            if inside:
                fail(number, "%s inside (...) or [...] would be read as text" % inside)
            rule.patterns.append((line.lstrip("!").strip(), negated, number))
    for rule in rules:
        if not rule.patterns or not rule.text:
            fail(0, "@slot %s needs @text and at least one pattern" % rule.slot)
        if any(neg for _, neg, _ in rule.patterns) and not rule.not_text:
            fail(0, "@slot %s has ! patterns but no @not-text" % rule.slot)
        needed = set(PLACEHOLDER.findall(rule.slot + rule.text + rule.not_text + rule.value))
        needed -= {"phrase"}
        for source, _, number in rule.patterns:
            missing = needed - set(PLACEHOLDER.findall(source))
            if missing:
                fail(number, "pattern lacks {%s}" % "}, {".join(sorted(missing)))
    return rules, maps


def _inside_a_group(line: str) -> Optional[str]:
    """A placeholder or a bracket inside a group of alternatives, which the
    pattern syntax has no way to read: the first found, else None."""
    depth = 0
    for found in re.finditer(r"[()\[\]]|\{\w+\}", line):
        token = found.group()
        if token in "([":
            if depth:
                return token
            depth += 1
        elif token in ")]":
            depth = max(0, depth - 1)
        elif depth:
            return token
    return None


@lru_cache(maxsize=32)
def _head_regex(paths: Tuple[Path, ...]) -> re.Pattern:
    """A word of the lists, or (a list word of five letters or more) the end of
    a compound: "Taxifahrer" holds "fahrer"; searched in text without accents
    (``bare``), as the words are, since typing often drops them ("fruteria")."""
    words = [bare(w.lower()) for path in paths for w in read_list(path)]
    long, short = [w for w in words if len(w) >= 5], [w for w in words if len(w) < 5]
    parts = ([r"\w*(?:%s)" % _words_regex(long)] if long else []) + (
        ["(?:%s)" % _words_regex(short)] if short else [])
    return re.compile(r"(?<!\w)(?:%s)(?!\w)" % "|".join(parts or ["(?!)"]), re.IGNORECASE)


def _trailing_regex(line: str, boundary: str) -> re.Pattern:
    """A ``trailing.list`` line (the pattern syntax, without captures) at the end of a value."""
    body, _, _ = _pattern_body(line, {}, boundary)
    return re.compile(r"(?:^|\s+)(?:%s)[\s%s]*$" % (body, re.escape(TRIM)), re.IGNORECASE)


@lru_cache(maxsize=16)
def load_language(folder: str) -> Optional[Language]:
    base = locale_dir() / folder / "facts"
    if not base.is_dir():
        return None
    lists = {}
    for name in LISTS:
        path = base / (name + ".list")
        lists[name] = [w.lower() for w in read_list(path)] if path.exists() else []
    words = _words_regex(lists["boundaries"]) or "(?!)"
    # "vinte e três", "treinta y uno": a conjunction after a number's tens joins, it ends nothing
    joined = "".join(r"(?<!\b%s)" % re.escape(w) for w in lists["numbers"])
    boundary = r"(?:\s*[,;:()\"“”«»]|\s+[-–—]\s|%s\s+(?:%s)(?!\w))" % (joined, words)
    articles = frozenset(lists["articles"] + lists["definite"] + lists["indefinite"])
    function = articles | frozenset(lists["particles"]) | stop_words(folder)
    spoken = dict((w.strip() for w in line.split(">", 1)) for line in lists["spoken"])
    carried = {w.strip(): said.strip() for w, _, said in (line.partition(">") for line in lists["carried"])}
    lang = Language(code=folder, boundary=boundary, lists=lists, rules=[], maps={},
                    trailing=[_trailing_regex(t, boundary) for t in lists["trailing"]],
                    relative=_word_list_regex(lists["relative"], False),
                    spoken=spoken, spoken_regex=_word_list_regex(list(spoken), False), carried=carried,
                    inverted=re.compile(r"((?:[^\W\d_][\w'-]*\s+){1,5}?)([^\W\d_][\w'-]*)\s+(%s)\s+(?=\w)"
                                        % _words_regex(lists["inverted"]), re.IGNORECASE) if lists["inverted"] else None,
                    function_words=function, article_words=articles,
                    nonnames=function | frozenset([w for w in lists["nonnames"] if w[:1] not in "-+"]
                                                  + lists["fillers"] + lists["boundaries"]
                                                  + lists["questions"] + lists["reject"]),
                    nonname_endings=tuple(w[1:] for w in lists["nonnames"] if w.startswith("-")),
                    ending_names=frozenset(w[1:] for w in lists["nonnames"] if w.startswith("+")))
    relatives = set()
    for path in sorted(base.glob("*.facts")):
        rules, maps = parse_facts(path, path.stem, boundary)
        relatives.update(w for name in RELATIVE_MAPS for w in maps.get(name, {}))
        lang.plural_kin |= set(maps.get("kins", {}))
        for rule in rules:
            for source, negated, number in rule.patterns:
                try:
                    regex, specificity = compile_pattern(source, maps, boundary)
                except (PatternError, re.error) as e:
                    raise PatternError("%s:%d: %s" % (path, number, e))
                lang.compiled.append((specificity, regex, negated, rule, maps))
        lang.rules += rules
        lang.nonnames |= {w for table in maps.values() for words in table for w in words.split()}
    lang.compiled.sort(key=lambda c: -c[0])
    lang.set_apart, lang.relative_lead = _set_apart(base, relatives, lists)
    return lang


# the maps that name a relative or an animal ("my sister", "o gato")
RELATIVE_MAPS = ("relation", "kin", "kins", "person", "animal")
# a name and a comma, an article before it or not ("a Inês,", "tom,")
NAME_SET_APART = r"(?:(?:%s)\s+)?(?P<name>[^\W\d_][\w'-]*)\s*,\s*"


def _set_apart(base: Path, relatives: set, lists: Dict[str, list]):
    """Regexes of a sentence that starts with a relative and their name set apart by
    commas, the name second ("my brother, tom, ...") or first ("O Rui, o meu marido, ..."),
    and of a clause that starts with a relative: the relative's words after one of
    asked.list's ``family`` line ("my") and maybe an article before it ("o meu")."""
    path = base / "asked.list"
    before = [w for slots, words in (read_pairs(path) if path.exists() else []) if "family" in slots for w in words]
    if not before or not relatives:
        return (), None
    name = NAME_SET_APART % (_words_regex(lists["articles"]) or "(?!)")
    kin = r"(?P<kin>%s\s+(?:%s))" % (before_relative(lists["articles"], before), _words_regex(relatives))
    return tuple(re.compile(pattern, re.IGNORECASE) for pattern in (r"%s\s*,\s*%s" % (kin, name),
                                                                     name + kin + r"\s*,\s*")), \
        re.compile(kin + r"(?!\w)", re.IGNORECASE)  # "my dad's retired" too


def before_relative(articles, before, then=()) -> str:
    """A regex of a word before a relative (asked.list's ``family`` line: "my", "die"),
    an article before it or not ("o meu marido": Portuguese puts one; not "da minha"),
    and a word of ``then`` after it or not ("have a", of "do i have a sister")."""
    after = r"(?:\s+(?:%s))?" % _words_regex(then) if then else ""
    return r"(?:(?:%s)\s+)?(?:%s)%s" % (_words_regex(articles) or "(?!)", _words_regex(before), after)


def _a_name(word: str, sentence: str, lang: Language) -> bool:
    """``word``, set apart by commas beside a relative or bare before a verb, is their name:
    no word the lists know (an interjection, "claro"), no adverb ("infelizmente", not
    "Clemente"), no number, no topic's word ("the nurse", "my son birthday"; "Mercedes"
    capitalised is a name where only names are), and capitalised when the sentence is
    written with capitals ("My son, however, ...")."""
    lower = word.lower()
    names_only = word[:1].isupper() and "nouns" not in lang.lists["casing"]
    cased = any(c.isupper() for c in sentence)
    return bool(_person_name(word, lang)) and not _an_adverb(lower, lang) and not is_number_word(lower, lang.code) \
        and (names_only or lower not in topical(lang.code)) and (word[:1].isupper() or not cased)


def _an_adverb(word: str, lang: Language) -> bool:
    """``word`` ends as the language's adverbs do ("-mente", "-ly") after four letters or more,
    and is no name that ends so ("kimberly")."""
    return word not in lang.ending_names and \
        any(word.endswith(ending) and len(word) - len(ending) >= 4 for ending in lang.nonname_endings)


def joined(sentence: str, lang: Language) -> str:
    """``sentence`` with a relative and their name set apart at its start said as the
    patterns say them ("my brother tom works at the mill"); a word that is no name
    ("well, my brother, ...", "my son, meanwhile, ...") is left as it was."""
    for regex in lang.set_apart:
        found = regex.match(sentence)
        if found and _a_name(found.group("name"), sentence, lang):
            return f"{found.group('kin')} {found.group('name')} {sentence[found.end():]}"
    return sentence


def _word_list_regex(words, anchored: bool):
    if not words:
        return None
    body = r"(?:%s)(?!\w)" % _words_regex(words)
    return re.compile(body if anchored else r"(?<!\w)" + body, re.IGNORECASE)


@lru_cache(maxsize=16)
def _guards(folder: str):
    lists = load_language(folder).lists
    fillers = _word_list_regex(lists["fillers"], True)
    filler_run = re.compile(r"(?:%s[\s,!]*)*" % fillers.pattern, re.IGNORECASE) if fillers else None
    markers = lists["hypothetical"] + lists["reported"]
    anywhere = _word_list_regex([w for w in markers if not w.startswith("^")], False)
    at_start = _word_list_regex([w[1:].strip() for w in markers if w.startswith("^")], True)
    return filler_run, _word_list_regex(lists["questions"], True), anywhere, at_start


@lru_cache(maxsize=16)
def _time_lead(folder: str):
    """A regex of times.list's phrases that open a clause ("en marzo", "last year"), and a comma after."""
    times = _word_list_regex(load_language(folder).lists["times"], True)
    return re.compile(r"%s[\s,]*" % times.pattern, re.IGNORECASE) if times else None


def _sentences(text: str):
    """(sentence, is_question); a '.' after a digit does not end a sentence ("am 5. Mai")."""
    text = re.sub(r"[’‘`´]", "'", text)
    for piece in re.split(r"(?<=[!?…])|(?<=[^\d\s]\.)(?=\s)|\n", text):
        stripped = piece.strip()
        if re.search(r"\w", stripped):
            question = stripped.rstrip(" .!…").endswith("?") or "¿" in stripped
            yield re.sub(r"\s+", " ", stripped.strip("¿¡.!?… ")), question


def _clause_starts(sentence: str, boundary, filler_run) -> List[int]:
    """Where each clause begins, after its leading spaces and fillers."""
    starts = []
    for start in [0] + [m.end() for m in boundary.finditer(sentence)]:
        while start < len(sentence) and sentence[start].isspace():
            start += 1
        starts.append(filler_run.match(sentence, start).end() if filler_run else start)
    return starts


def _trim(raw: str, lang: Language) -> str:
    """``raw`` without a relative clause ("laguna de duero que está aquí al
    lado"), trailing fillers, time phrases ("last spring", "há dois anos") and
    punctuation; at least one word stays."""
    text = raw.strip(TRIM)
    opens = lang.relative.search(text) if lang.relative else None
    if opens and opens.start() > 0 and text[opens.end():].strip():
        text = text[:opens.start()].strip(TRIM)
    while True:  # the longest trailing phrase first: "two years ago", not "years ago"
        starts = [found.start() for found in (regex.search(text) for regex in lang.trailing)
                  if found and found.start() > 0]
        if not starts:
            return text
        text = text[:min(starts)].strip(TRIM)


def _clean(raw: str, lang: Language, rule: Rule):
    """(value, phrase): the value without leading articles, trailing fillers and
    punctuation, and the same with its articles kept ("the Beatles"); None
    when the value is not acceptable."""
    words = _trim(raw, lang).split()
    # too long: cut before a place's preposition ("panadería en el barrio de la rondilla")
    cut = next((i for i, w in enumerate(words) if i and w.lower() in lang.lists["cuts"]), None)
    if len(words) > rule.words and cut:
        words = _trim(" ".join(words[:cut]), lang).split()
    phrase = " ".join(words).strip(TRIM)
    while len(words) > 1 and words[0].lower() in lang.lists["articles"]:
        words.pop(0)
    value = " ".join(words).strip(TRIM)
    low = value.lower()
    if (not value or low in lang.lists["reject"] or low in lang.function_words or low in rule.reject
            or low.split()[0] in rule.reject or len(words) > rule.words):
        return None
    if rule.digits is not None and bool(re.search(r"\d", value)) != rule.digits:
        return None
    if rule.head is not None and not rule.head.search(bare(value)):
        return None
    if rule.number:
        number = said_number(value, lang)
        return None if number is None else (str(number), str(number))
    return value, phrase


@lru_cache(maxsize=4096)
def is_number_word(word: str, lang: str) -> bool:
    """``word`` is a number, in digits or in words of ``lang`` ("14", "vierzehn");
    remembered, as ovos-number-parser takes about 20 µs a word and recall asks it of
    every word of every memory compared for an amount ("how many miles do i run")."""
    return word.isdigit() or extract_number(word, lang=lang) not in (False, None)


def said_number(value: str, lang: Language) -> Optional[int]:
    """The one whole number ``value`` says, in digits or in words ("cinquenta
    e três", "im November zwanzig"), its other words being function words or
    months; None when it says none, or more than one, or anything else
    ("five minutes")."""
    words = [w.strip(TRIM) for w in value.lower().split()]
    is_number = [is_number_word(w, lang.code) for w in words]
    runs, run = [], []
    for i, word in enumerate(words):
        joins = word in JOINERS and run and i + 1 < len(words) and is_number[i + 1]
        if is_number[i] or joins:
            run.append(word)
            continue
        if run:
            runs.append(run)
            run = []
        if word not in lang.function_words and word not in lang.lists["months"]:
            return None
    runs += [run] if run else []
    if len(runs) != 1:
        return None
    number = extract_number(" ".join(runs[0]), lang=lang.code)
    return int(number) if number and float(number).is_integer() else None


def _capitalised(word: str) -> str:
    """ "o'brien" -> "O'Brien", "mary's" -> "Mary's"."""
    if re.match(r"^\w'\w", word):
        return word[0].upper() + "'" + word[2].upper() + word[3:]
    return word[:1].upper() + word[1:]


def capitalise_name(text: str, lang: Language) -> str:
    """Each word (and each part of a hyphenated word) capitalised, except the
    particles inside a name: "Rio de Janeiro", "Trás-os-Montes"."""
    particles = set(lang.lists["particles"])
    return " ".join("-".join(piece if (i or j) and piece.lower() in particles else _capitalised(piece)
                             for j, piece in enumerate(word.split("-")))
                    for i, word in enumerate(text.split()))


def _as_nouns(text: str, lang: Language) -> str:
    """A common-noun phrase: as said, but where the language capitalises nouns
    (``casing.list``: nouns), the last word of each run of words that are not
    function words takes a capital ("leitende Ärztin im städtischen Klinikum")."""
    if "nouns" not in lang.lists["casing"]:
        return text
    words = text.split()

    def content(word):
        return word[:1].isalpha() and word.lower() not in lang.function_words
    return " ".join(_capitalised(w) if content(w) and (i + 1 == len(words) or not content(words[i + 1])) else w
                    for i, w in enumerate(words))


def _written(text: str, case: str, lead: str, lang: Language) -> str:
    """``text`` with the capitals its ``case`` gives it (see the module's
    docstring); ``lead``: the word said right before it (an article?)."""
    if not case or not text or any(c.isupper() for c in text):
        return text
    described = {"name": (), "place": lang.lists["indefinite"],
                 "org": lang.lists["indefinite"] + lang.lists["definite"]}.get(case)
    if described is not None and lead not in described:
        return capitalise_name(text, lang)
    return _as_nouns(text, lang)


def _word_before(match, group: str) -> str:
    before = match.string[:match.start(group)].split()
    return before[-1].lower().strip(TRIM) if before else ""


def _person_name(raw: str, lang: Language) -> Optional[str]:
    """A person's name as captured ("tom", "a ana"): up to three words, none of
    them a function word, filler, ``nonnames`` word, possessive ("kevin's") or
    single letter; None if it is not one."""
    words = raw.strip(TRIM).split()
    while len(words) > 1 and words[0].lower() in lang.lists["articles"]:
        words.pop(0)
    if not words or len(words) > FREE_WORDS["name"]:
        return None
    for word in words:
        if word.lower() in lang.nonnames or not re.fullmatch(r"[^\W\d_][\w'.-]+", word) or word.endswith("'s"):
            return None
    return " ".join(words)


def _fact(match, negated: bool, rule: Rule, maps: dict, lang: Language) -> Optional[ExtractedFact]:
    groups = match.groupdict()
    said = {k[2:]: re.sub(r"\s+", " ", v.lower()) for k, v in groups.items() if k.startswith("m_")}
    keys = {k: maps[k].get(v, v) for k, v in said.items()}
    said = {k: maps[k].written.get(v, v) for k, v in said.items()}  # as the file writes them
    if groups.get("value") is not None:
        cleaned = _clean(groups["value"], lang, rule)
        if cleaned is None:
            return None
        value, phrase = cleaned
        lead = phrase.split()[0].lower() if len(phrase.split()) > len(value.split()) else _word_before(match, "value")
        cased = _written(value, rule.case, lead, lang)
        said["value"] = cased
        said["phrase"] = phrase[:len(phrase) - len(value)] + cased if phrase.endswith(value) else phrase
    if groups.get("name") is not None:
        name = _person_name(groups["name"], lang)
        if name is None or not _names_someone(name, groups["name"], match.string, rule, lang):
            return None
        said["name"] = _written(name, "name", "", lang)
        keys["name"] = re.sub(r"[\s.]+", "_", name.lower()).strip("_")
    if groups.get("detail") is not None:
        detail = _trim(groups["detail"], lang)
        words = detail.split()
        if not words or len(words) > FREE_WORDS["detail"] or detail.lower() in lang.lists["reject"]:
            return None  # "at it" is no workplace: the pattern without a detail applies
        if rule.place is not None and not rule.place.search(bare(detail)):
            return None
        if _trim("x %s %s" % (_word_before(match, "detail"), detail), lang) == "x":
            return None  # "for ten years" is a time, not a detail: the next pattern trims it
        lead = words[0].lower() if words[0].lower() in lang.article_words else _word_before(match, "detail")
        said["detail"] = _written(detail, "org", lead, lang)
    if groups.get("gap") is not None and len(groups["gap"].split()) > FREE_WORDS["gap"]:
        return None
    if groups.get("about") is not None:
        about = groups["about"].lower().split()
        if len(about) > FREE_WORDS["about"] or any(w in lang.function_words for w in about):
            return None
    value = rule.value.format(**said).strip()
    said.setdefault("phrase", value)
    text = (rule.not_text if negated else rule.text).format(**{**said, "value": value})
    slot = rule.slot.format(**keys)
    return ExtractedFact(slot=slot, value=value, kind=rule.kind,
                         multi=rule.multi, negated=negated, family=rule.family,
                         text=text[:1].upper() + text[1:], subject=_subject(match, slot, value))


def _names_someone(name: str, said: str, sentence: str, rule: Rule, lang: Language) -> bool:
    """``name`` (captured as ``said``) names someone: no adverb in lowercase ("my son mostly
    lives in chicago"; "Kimberly" written, "kimberly" listed are names) and, bare before a verb
    (``@name bare``), one word that ``_a_name`` takes ("mein vater der arzt ist", "my son birthday ...")."""
    if _an_adverb(name.lower(), lang) and not name[:1].isupper():
        return False
    return not rule.bare_name or (len(said.split()) == 1 and _a_name(name, sentence, lang))


def _subject(match, slot: str, value: str) -> str:
    """The words of ``match`` that named the relative a fact of ``slot`` is about,
    with their name ("a minha mulher" of "a minha mulher chama-se sandra", and "sandra")."""
    word = next((g for g in ("m_relation", "m_person", "m_kin") if match.groupdict().get(g)), None)
    if not slot.startswith("family.") or word is None:
        return ""
    name = match.group("name") if match.groupdict().get("name") else value if slot.endswith(".name") else ""
    return " ".join(f"{match.string[match.start():match.end(word)]} {name}".split())


def _written_out(text: str, lang: Language) -> str:
    """``text`` with its spoken forms as the patterns write them (``spoken``:
    "ich hab nen hund" -> "ich habe einen hund")."""
    if lang.spoken_regex is None:
        return text
    return lang.spoken_regex.sub(lambda m: lang.spoken[m.group(0).lower()], text)


def _subject_first(sentence: str, start: int, lang: Language, boundary: re.Pattern) -> List[str]:
    """A verb-second clause at ``start`` ("seit zwei jahren wohne ich in
    radebeul") with its subject first, as the patterns say it: what came first
    after the clause ("ich wohne in radebeul seit zwei jahren": a participle's
    place, "aufgewachsen bin ich in annaberg"), then right after the verb."""
    found = lang.inverted.match(sentence, start) if lang.inverted else None
    if not found:  # a subordinate clause ("wenn ich ...") reads "ich wenn ...": no pattern says that
        return []
    front, verb, subject = (found.group(i).strip() for i in (1, 2, 3))
    end = boundary.search(sentence, found.end())
    rest, after = (sentence[found.end():end.start()], sentence[end.start():]) if end else (sentence[found.end():], "")
    return [f"{subject} {verb} {rest} {front}{after}", f"{subject} {verb} {front} {rest}{after}"]


def _other_readings(sentence: str, start: int, lang: Language, boundary: re.Pattern,
                    dropped: bool = True) -> List[str]:
    """The clause at ``start`` as the patterns may say it: subject first (``_subject_first``),
    or with the subject speech left out ("moved to denver last year": ``dropped``)."""
    left_out = [f"{subject} {sentence[start:]}" for subject in lang.lists["dropped"]] if dropped else []
    return _subject_first(sentence, start, lang, boundary) + left_out


def _mine(clause: str, subject: str, lang: Language) -> bool:
    """``clause`` opens with a verb form only the speaker says after ``subject`` (``mine``:
    "bin", "am"; "live" after "my mom", not after "my parents": ``*`` in the list)."""
    first = clause.split()[0].lower() if clause.split() else ""
    several = any(f" {subject.lower()}".endswith(f" {kin}") for kin in lang.plural_kin)
    return first in lang.lists["mine"] or (not several and "*" + first in lang.lists["mine"])


def _carried(subject: str, clause: str, lang: Language) -> List[str]:
    """``clause`` read with the relative the clause before named (``subject``), in
    place of a pronoun that stands for them (``carried``: "and she's a nurse") or
    where it leaves them out ("e é enfermeira", "und ist Tierärztin")."""
    if not subject:
        return []
    first, _, rest = clause.partition(" ")
    if first.lower() in lang.carried:
        clause = f"{lang.carried[first.lower()]} {rest}".strip()
    return [f"{subject} {clause}"]


def _reading_fact(reading: str, clause: str, lang: Language) -> Optional[ExtractedFact]:
    """The fact of another reading of ``clause``, unless its value took the
    subject put first ("i it doesn't agree with me") or, the subject put back,
    the clause's own verb: "Rui, my brother, cooks for a living" is no "i
    {value} for a living", whose verb no pattern reads."""
    fact = _clause_fact(_written_out(reading, lang), 0, lang)
    if fact is None:
        return None
    first = fact.value.lower().split()[0]
    verb = _written_out(clause, lang).lower().split()[0]
    if first in lang.lists["dropped"] or (reading.endswith(clause) and first == verb):
        return None
    return fact


def _clause_fact(sentence: str, start: int, lang: Language) -> Optional[ExtractedFact]:
    """The fact of the most specific pattern that matches at ``start`` and takes its captures."""
    for _, regex, negated, rule, maps in lang.compiled:
        match = regex.match(sentence, start)
        fact = match and _fact(match, negated, rule, maps, lang)
        if fact:
            return fact
    return None


def extract_facts(text: str, lang: str) -> List[ExtractedFact]:
    """The facts the user states about themselves in one utterance."""
    folder = match_lang(lang) if text else None
    language = load_language(folder) if folder else None
    if language is None:
        return []
    filler_run, questions, anywhere, at_start = _guards(folder)
    time_lead = _time_lead(folder)
    boundary = re.compile(language.boundary, re.IGNORECASE)
    facts, seen = [], set()
    for sentence, question in _sentences(_written_out(text, language)):
        sentence = joined(sentence, language)
        starts = _clause_starts(sentence, boundary, filler_run)
        ends = starts[1:] + [len(sentence)]
        if (question or (questions and questions.match(sentence, starts[0]))
                or (anywhere and anywhere.search(sentence))
                or (at_start and any(at_start.match(sentence, s) for s in starts))):
            continue
        subject = ""
        for start, end in zip(starts, ends):
            fact = _fact_at(sentence, start, subject, language, boundary)
            after = time_lead.match(sentence, start) if time_lead and not fact else None
            if after:  # a clause that opens with when ("en marzo me operaron de la rodilla")
                fact = _fact_at(sentence, after.end(), subject, language, boundary)
            # a clause about a relative that taught nothing still says whom the next one is about,
            # and a word alone leaves it so: "my dad retired and then moved to florida" is his move
            lead = language.relative_lead.match(sentence, start) if language.relative_lead and not fact else None
            if fact:
                subject = fact.subject
            elif lead:
                subject = lead.group("kin")
            elif len(sentence[start:end].split()) > 1:
                subject = ""
            if fact and (fact.slot, fact.value.lower(), fact.negated) not in seen:
                seen.add((fact.slot, fact.value.lower(), fact.negated))
                facts.append(fact)
    return facts


def _fact_at(sentence: str, start: int, subject: str, language: Language, boundary) -> Optional[ExtractedFact]:
    """The fact of the clause that begins at ``start``, read as it is or in the other ways
    the language allows: the subject carried from the clause before, or else the speaker's
    left out where no subject is carried or the verb is one only the speaker says ("und
    wurde am Knie operiert" after "meine Frau ist Krankenschwester" is hers; "bin Lehrer" is
    the speaker's)."""
    return _clause_fact(sentence, start, language) or next(
        (f for f in (_reading_fact(r, sentence[start:], language)
                     for r in _carried(subject, sentence[start:], language)
                     + _other_readings(sentence, start, language, boundary,
                                       dropped=not subject or _mine(sentence[start:], subject, language))) if f), None)


@lru_cache(maxsize=4096)  # asked of every user turn compared with a question
def is_question(text: str, lang: str) -> bool:
    """Every sentence of ``text`` asks something ("what do i do for a living"):
    it ends with "?" or starts with a question word of ``lang``."""
    folder = match_lang(lang) if text else None
    language = load_language(folder) if folder else None
    if language is None:
        return text.rstrip().endswith("?")
    filler_run, questions, _, _ = _guards(folder)
    boundary = re.compile(language.boundary, re.IGNORECASE)
    sentences = list(_sentences(text))
    return bool(sentences) and all(
        question or bool(questions and questions.match(sentence, _clause_starts(sentence, boundary, filler_run)[0]))
        for sentence, question in sentences)
