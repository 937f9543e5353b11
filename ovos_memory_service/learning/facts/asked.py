"""What a question asks for, in the fact model's slots.

"what's my trade" shares no word with "Works as welder", and the meanings of
short texts sit too close to tell them apart, but the fact's slot says what it
is about ("occupation"), and a question's words say which slots it asks for:
``locale/<lang>/facts/asked.list`` lists them for the user's own slots
("occupation, employer: job, trade, living..."), and a relative named by the
words of ``family.facts`` after a word of its ``family`` line ("my sister", "a
minha mulher") asks for that relative's slots (``family.sister``), not the
user's own.
"""
import re
from functools import lru_cache
from typing import Dict, FrozenSet, Optional, Tuple

from ovos_memory_service.common.resources import locale_dir, match_lang, read_list
from ovos_memory_service.learning.facts.extract import load_language

WORD = re.compile(r"[^\W\d_][\w'-]*")
RELATIVES = ("relation", "kin", "kins", "person")  # the maps of family.facts that name a relative


@lru_cache(maxsize=16)
def _asked(folder: str) -> Dict[str, Tuple[str, ...]]:
    """asked.list: a word of a question -> the slots it asks for ("family" -> the words a relative follows)."""
    path = locale_dir() / folder / "facts" / "asked.list"
    found: Dict[str, Tuple[str, ...]] = {}
    for line in read_list(path) if path.exists() else []:
        slots, _, words = line.partition(":")
        for word in (w.strip().lower() for w in words.split(",") if w.strip()):
            found[word] = found.get(word, ()) + tuple(s.strip() for s in slots.split(",") if s.strip())
    return found


@lru_cache(maxsize=16)
def _relatives(folder: str) -> Tuple[Tuple[re.Pattern, str], ...]:
    """(a relative's words after a word of the ``family`` line, their key) from
    the maps of family.facts, longest words first."""
    language = load_language(folder)
    keys: Dict[str, str] = {}
    for _, _, _, rule, maps in language.compiled if language else ():
        if rule.family == "family":
            for name in RELATIVES:
                keys.update(maps.get(name, {}))
    before = sorted((w for w, slots in _asked(folder).items() if "family" in slots), key=len, reverse=True)
    if not before:
        return ()
    lead = r"(?<!\w)(?:%s)\s+" % "|".join(map(re.escape, before))
    return tuple((re.compile(lead + r"\s+".join(map(re.escape, words.split())) + r"(?!\w)"), key)
                 for words, key in sorted(keys.items(), key=lambda item: -len(item[0])))


@lru_cache(maxsize=256)
def asked_slots(text: str, lang: str) -> FrozenSet[str]:
    """The slots (or their beginnings: ``family.sister``) ``text`` asks for."""
    folder = match_lang(lang)
    if not folder:
        return frozenset()
    said = text.lower()
    own = _asked(folder)
    slots = {slot for word in WORD.findall(said) for slot in own.get(word, ()) if slot != "family"}
    relatives = {f"family.{key}" for pattern, key in _relatives(folder) if pattern.search(said)}
    if relatives:  # "where does my sister live": her home, not the user's; "my sister": all of hers
        return frozenset(f"{relative}.*.{slot}" for relative in relatives for slot in slots) or frozenset(relatives)
    return frozenset(slots)


def answers(slot: Optional[str], asked: FrozenSet[str]) -> Optional[bool]:
    """Whether a fact of ``slot`` is what a question asking for ``asked`` wants:
    None when either is unknown, False for a fact about someone else than the
    relative asked about (the user's own job, for "what does my sister do")."""
    if not slot or not asked:
        return None
    if any(_fits(slot, a) for a in asked):
        return True
    return False if any(a.startswith("family.") for a in asked) else None


def _fits(slot: str, asked: str) -> bool:
    """``family.sister.*.residence`` fits family.sister.residence and family.sister.ana.residence."""
    if ".*." in asked:
        person, attribute = asked.split(".*.")
        return slot.startswith(person + ".") and slot.endswith("." + attribute)
    return slot == asked or slot.startswith(asked + ".")
