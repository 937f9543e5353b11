"""Facts about the user from one exchange, by an LLM (the ``entity`` backend's
extraction). The reply is read defensively: every JSON array in it (alone,
inside prose or markdown, several on separate lines, as ovos-memory-plugins
reads them), one cut short by ``max_tokens``, JSON objects inside prose, or a
bullet or numbered list (``- ``, ``1. ``, ``1) ``, ``[1] ``). Every fact must be
grounded in the exchange, and keeps the model's wording ("User is a pilot");
what survives goes through the same fact model as the rule-based extractor's
facts."""
import json
import re
from functools import lru_cache
from typing import Dict, List, Optional, Tuple

from ovos_memory_service.learning.facts.extract import extract_facts, load_language
from ovos_memory_service.learning.facts.model import Fact
from ovos_memory_service.common.resources import stop_words
from ovos_memory_service.learning.summaries import language_name

DEFAULT_EXTRACTION_PROMPT = """\
Read this exchange between a user and a voice assistant. List the lasting facts the user states \
about themselves: name, age, birthday, home, origin, job, employer, family, pets, diet, allergies, \
likes, dislikes, skills, languages, goals. Skip small talk, questions, hypotheticals, other \
people's plans, and anything the assistant said that the user did not confirm.

Exchange:
{exchange}

Answer with a JSON array and nothing else, one object per fact:
{"statement": "<a short statement in {language}, e.g. Lives in Porto>", \
"kind": "fact" or "preference" or "skill", "slot": "<one of: {slots}; or null>", \
"value": "<the value as the user said it, or null>", \
"negated": <true when the user says it is no longer true>}
Answer [] when there is nothing to keep."""

FENCE = re.compile(r"```(?:json)?\s*(.*?)(?:```|$)", re.S | re.I)
OBJECT = re.compile(r"\{[^{}]*\}")
BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)]|\[\d+\])\s+")
SUBJECT = re.compile(r"^(?:the\s+)?user(?:'s)?\s+", re.I)   # "User lives in Porto": grounded without it
STRING = re.compile(r'\s*("(?:[^"\\]|\\.)*")\s*(?:,|$)')   # a complete item of an array of strings cut short
MAX_SCANNED = 16384     # leading characters of a reply searched for JSON arrays (as the seed)
MAX_FAILED_DECODES = 64
JSONISH = re.compile(r'^[\[\]{}]|"\s*:')   # pieces of JSON cut short are not statements
WORD = re.compile(r"\w{3,}")
MAX_STATEMENT = 200
MAX_WORDS = 12      # content words in a statement: longer ones are rambling, not a fact


@lru_cache(maxsize=1)
def slot_catalog() -> Dict[str, Tuple[str, bool]]:
    """The fact model's slots as the rules know them: slot -> (kind, multi).
    Slots with a placeholder ("family.{relation}.name") accept any word there."""
    language = load_language("en-us")
    return {rule.slot: (rule.kind, rule.multi) for rule in language.rules} if language else {}


def _slot_info(slot: str) -> Optional[Tuple[str, bool]]:
    for pattern, info in slot_catalog().items():
        regex = re.sub(r"\\\{\w+\\\}", r"[a-z_]+", re.escape(pattern))
        if re.fullmatch(regex, slot):
            return info
    return None


def prompt(template: Optional[str], exchange: str, lang: str) -> List[dict]:
    """The extraction request. A template written for the seed (``str.format``,
    ``{{`` for a brace) is formatted; one with bare braces (ours has JSON in it)
    has its placeholders replaced."""
    values = {"exchange": exchange, "language": language_name(lang), "slots": ", ".join(slot_catalog())}
    template = template or DEFAULT_EXTRACTION_PROMPT
    try:
        text = template.format(**values)
    except (KeyError, IndexError, ValueError):
        text = template
        for key, value in values.items():
            text = text.replace("{" + key + "}", value)
    return [{"role": "user", "content": text}]


def _arrays(text: str) -> Tuple[list, bool]:
    """Every top-level JSON array in ``text``, in order, as the seed finds them,
    with the complete strings of one cut short; (their fact items, whether any
    array of facts or an empty one was found). Arrays of numbers ("[1] ...")
    are list markers, not facts."""
    text = text[:MAX_SCANNED]
    decoder = json.JSONDecoder()
    items, found, pos, failed = [], False, 0, 0
    while (start := text.find("[", pos)) != -1:
        try:
            data, pos = decoder.raw_decode(text, start)
        except (RecursionError, ValueError):
            failed += 1
            if failed >= MAX_FAILED_DECODES:
                break
            strings, at = [], start + 1
            while (match := STRING.match(text, at)) is not None:  # ["a", "b", "c   (max_tokens)
                strings.append(json.loads(match.group(1)))
                at = match.end()
            if strings:
                items += strings
                found = True
            pos = start + 1
            continue
        if not isinstance(data, list):
            continue
        facts = [item for item in data if isinstance(item, (str, dict))]
        if facts or not data:
            items += facts
            found = True
    return items, found


def parse(reply: str) -> Optional[list]:
    """The items of a reply (objects or strings); [] for an explicit "nothing"
    ("[]" or the seed's "NONE"); None when nothing in it can be read."""
    fenced = FENCE.search(reply)
    text = (fenced.group(1) if fenced else reply).strip()
    if text.strip(" .").upper() == "NONE":
        return []
    try:
        data = json.loads(text)
    except (RecursionError, ValueError):
        data = None
    if isinstance(data, dict):
        data = data.get("facts", [data])
    if isinstance(data, list):
        return data
    items, found = _arrays(reply)
    if found:
        return items
    objects = []
    for match in OBJECT.findall(text):  # complete objects of a cut or chatty reply
        try:
            objects.append(json.loads(match))
        except ValueError:
            continue
    if objects:
        return objects
    # one fact per line, "- ", "1. " or "[1] " or nothing; grounding drops the chatter
    lines = [BULLET.sub("", line).strip() for line in text.splitlines()]
    lines = [line for line in lines if line and line.upper() != "NONE" and not line.endswith(":")
             and not JSONISH.search(line)]
    return lines or None


def _grounded(words: str, said: str, lang: str) -> bool:
    """The value, or most content words of a statement, are in what was said
    (words compared on their first four letters: "cycles" was "cycling")."""
    said = said.casefold()
    if words.casefold() in said:
        return True
    ignore = stop_words(lang)
    heard = {w[:4] for w in WORD.findall(said)}
    content = [w for w in WORD.findall(words.casefold()) if w not in ignore]
    return bool(content) and len(content) <= MAX_WORDS and \
        sum(w[:4] in heard for w in content) * 2 >= len(content)


def _rules_slot(statement: str, said: str, lang: str):
    """The slot the rule-based extractor finds in what was said for the value
    this statement names ("User lives in Lisbon": residence, Lisbon), so that
    the model's fact and the rules' are one fact, updated and retracted as one."""
    words = set(WORD.findall(statement.casefold()))
    for line in said.splitlines():
        for found in extract_facts(line, lang):
            value = set(WORD.findall(found.value.casefold()))
            if value and value <= words and not found.negated:
                return found
    return None


def to_facts(items: list, said: str, lang: str, sources: List[str]) -> List[Fact]:
    """Facts from parsed items, in the model's words; ``said`` is the
    exchange's text, without speaker labels."""
    facts = []
    for item in items:
        if isinstance(item, str):
            item = {"statement": item}
        if not isinstance(item, dict):
            continue
        statement = item.get("statement") or item.get("fact") or item.get("text")
        if not isinstance(statement, str) or not statement.strip() or len(statement) > MAX_STATEMENT:
            continue
        statement = statement.strip()
        bare = SUBJECT.sub("", statement.rstrip("."))  # "User is a pilot": "is a pilot" was said
        slot, value = item.get("slot"), item.get("value")
        info = _slot_info(slot.strip().lower()) if isinstance(slot, str) else None
        if info and isinstance(value, str) and value.strip():
            if not _grounded(value.strip(), said, lang):
                continue  # the model made it up
            kind, multi = info
            facts.append(Fact(kind=kind, content=statement, slot=slot.strip().lower(), value=value.strip(),
                              multi=multi, negated=item.get("negated") is True, sources=sources,
                              extractor="llm"))
        elif _grounded(bare, said, lang):
            kind = item.get("kind") if item.get("kind") in ("fact", "preference", "skill") else "fact"
            ruled = _rules_slot(bare, said, lang) if item.get("negated") is not True else None
            if ruled is not None:
                facts.append(Fact(kind=ruled.kind, content=statement, slot=ruled.slot, value=ruled.value,
                                  multi=ruled.multi, sources=sources, extractor="llm"))
            else:
                facts.append(Fact(kind=kind, content=statement, sources=sources, extractor="llm"))
    return facts
