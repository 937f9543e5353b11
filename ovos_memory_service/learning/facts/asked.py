"""What a question asks for, in the fact model's slots.

"what's my trade" shares no word with "Works as welder", and the meanings of
short texts sit too close to tell them apart, but the fact's slot says what it
is about ("occupation"), and a question's words say which slots it asks for:
``locale/<lang>/facts/asked.list`` lists them for the user's own slots
("occupation, employer: job, trade, living..."). Someone named after a word of
its ``family`` line ("my sister", "a minha mulher", "my dog": the words of the
relatives' maps of ``family.facts`` and the animals' of ``pets.facts``) is the
subject the question asks about: it asks for that subject's slots
(``family.sister``), and a fact about anyone else, the user included, is no
answer to it.
"""
import re
from functools import lru_cache
from typing import Dict, FrozenSet, Optional, Tuple

from ovos_memory_service.common.resources import locale_dir, match_lang, read_list
from ovos_memory_service.learning.facts.extract import load_language

WORD = re.compile(r"[^\W\d_][\w'-]*")
# the maps that name a subject: (rule family, map names, the slots' beginning)
SUBJECTS = (("family", ("relation", "kin", "kins", "person"), "family"), ("pets", ("animal",), "pet"))
# one person under other words: "my wife" may have been told as "tasha and i got married"
ALSO = {"wife": ("spouse", "partner"), "husband": ("spouse", "partner"),
        "partner": ("spouse", "wife", "husband", "girlfriend", "boyfriend", "fiance"),
        "girlfriend": ("partner", "fiance"), "boyfriend": ("partner", "fiance"), "fiance": ("partner",),
        "son": ("children",), "daughter": ("children",), "mother": ("parents",), "father": ("parents",),
        "grandson": ("grandchildren",), "granddaughter": ("grandchildren",),
        "grandmother": ("grandparents",), "grandfather": ("grandparents",)}


@lru_cache(maxsize=16)
def _asked(folder: str) -> Dict[str, Tuple[str, ...]]:
    """asked.list: a word of a question -> the slots it asks for ("family" -> the words a subject follows)."""
    path = locale_dir() / folder / "facts" / "asked.list"
    found: Dict[str, Tuple[str, ...]] = {}
    for line in read_list(path) if path.exists() else []:
        slots, _, words = line.partition(":")
        for word in (w.strip().lower() for w in words.split(",") if w.strip()):
            found[word] = found.get(word, ()) + tuple(s.strip() for s in slots.split(",") if s.strip())
    return found


@lru_cache(maxsize=16)
def _subjects(folder: str) -> Tuple[Optional[re.Pattern], Dict[str, str]]:
    """A regex of a subject's words after a word of the ``family`` line (the
    words in its group 1), and the words -> the beginning of their slots
    (``family.sister``, ``pet.dog``)."""
    language = load_language(folder)
    before = sorted((w for w, slots in _asked(folder).items() if "family" in slots), key=len, reverse=True)
    prefixes: Dict[str, str] = {}
    for _, _, _, rule, maps in language.compiled if language and before else ():
        for family, names, prefix in SUBJECTS:
            if rule.family == family:
                for name in names:
                    prefixes.update({words: f"{prefix}.{key}" for words, key in maps.get(name, {}).items()})
    if not prefixes:
        return None, {}
    words = sorted(prefixes, key=len, reverse=True)
    pattern = r"(?<!\w)(?:%s)\s+(%s)(?!\w)" % ("|".join(map(re.escape, before)),
                                               "|".join(r"\s+".join(map(re.escape, w.split())) for w in words))
    return re.compile(pattern), prefixes


@lru_cache(maxsize=256)
def asked_slots(text: str, lang: str) -> FrozenSet[str]:
    """The slots (or their beginnings: ``family.sister``) ``text`` asks for."""
    folder = match_lang(lang)
    if not folder:
        return frozenset()
    said = text.lower()
    own = _asked(folder)
    slots = {slot for word in WORD.findall(said) for slot in own.get(word, ()) if slot != "family"}
    pattern, prefixes = _subjects(folder)
    subjects = {prefixes[" ".join(m.group(1).split())] for m in pattern.finditer(said)} if pattern else set()
    subjects |= {f"family.{other}" for prefix in subjects if prefix.startswith("family.")
                 for other in ALSO.get(prefix.split(".")[1], ())}
    if subjects:  # "where does my sister live": her home, not the user's; "my sister": all of hers
        return frozenset(f"{subject}.*.{slot}" for subject in subjects for slot in slots) or frozenset(subjects)
    return frozenset(slots)


def answers(slot: Optional[str], asked: FrozenSet[str]) -> Optional[bool]:
    """Whether a fact of ``slot`` is what a question asking for ``asked`` wants:
    None when either is unknown; False for a fact about anyone else than the
    subject asked about (a daughter's name for "what's my sister called", the
    user's own job for "what does my sister do")."""
    if not slot or not asked:
        return None
    if any(_fits(slot, a) for a in asked):
        return True
    about_someone = any(a.startswith(("family.", "pet.")) for a in asked)
    return False if about_someone and slot != "pet" else None  # "pet": an animal told by its kind, not its slot


def _fits(slot: str, asked: str) -> bool:
    """``family.sister.*.residence`` fits family.sister.residence and family.sister.ana.residence."""
    if ".*." in asked:
        subject, attribute = asked.split(".*.")
        return slot.startswith(subject + ".") and slot.endswith("." + attribute)
    return slot == asked or slot.startswith(asked + ".")
