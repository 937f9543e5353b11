"""Facts about the user from one first-person utterance, without an LLM.

The language knowledge lives in ``locale/<lang>/facts/``: one ``<family>.facts``
file per slot family (the format is described at the top of each file) and
word lists that guard and trim the matches (``boundaries``, ``fillers``,
``questions``, ``hypothetical``, ``reported``, ``articles``, ``trailing``,
``reject``; ``.list`` files). This module only reads and applies them:

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
  "i don't like {value}".
"""
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Optional

from ovos_memory_service.resources import locale_dir, match_lang, read_list

KINDS = ("fact", "preference", "skill")
LISTS = ("boundaries", "fillers", "questions", "hypothetical", "reported",
         "articles", "trailing", "reject")
FLAGS = {"yes": True, "no": False}
TRIM = " \t'\"“”‘’«».,!?;:…-"
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
    patterns: list = field(default_factory=list)   # (source, negated)


@dataclass
class Language:
    boundary: str                                   # regex of a clause boundary
    lists: Dict[str, list]
    rules: List[Rule]
    maps: Dict[str, Dict[str, str]]                 # map name -> {word: key}
    compiled: list = field(default_factory=list)    # (specificity, regex, negated, rule)


def _words_regex(words) -> str:
    words = sorted(words, key=len, reverse=True)
    return "|".join(r"\s+".join(map(re.escape, w.split())) for w in words)


def _split_alternatives(body: str) -> list:
    return [a.strip().lower() for a in body.split("|")]


def compile_pattern(source: str, maps: dict, boundary: str):
    """A pattern line as (regex, specificity)."""
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
        if name == "value":
            parts.append(r"(?P<value>(?:(?!%s).)+?)" % boundary)
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
        value_last = name == "value"
    if source.count("{value}") > 1:
        raise PatternError("{value} may appear only once in a pattern")
    # a value at the end runs to the clause boundary; anything else ends at a word's end
    end = r"(?=%s|\s*$)" % boundary if value_last else r"(?!\w)"
    return re.compile("".join(parts) + end, re.IGNORECASE), specificity


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
                table = maps.setdefault(head[0], {})
                for word in _split_alternatives(words):
                    table[word] = head[1] if len(head) == 2 else word
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
            elif key == "words" and arg.isdigit():
                rule.words = int(arg)
            elif key == "reject":
                rule.reject = frozenset(_split_alternatives(arg))
            else:
                fail(number, "unknown or malformed directive @%s" % key)
        elif rule is None:
            fail(number, "pattern before the first @slot")
        else:
            negated = line.startswith("!")
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
    boundary = r"(?:\s*[,;:()\"“”«»]|\s+[-–—]\s|\s+(?:%s)(?!\w))" % words
    lang = Language(boundary=boundary, lists=lists, rules=[], maps={})
    for path in sorted(base.glob("*.facts")):
        rules, maps = parse_facts(path, path.stem, boundary)
        for rule in rules:
            for source, negated, number in rule.patterns:
                try:
                    regex, specificity = compile_pattern(source, maps, boundary)
                except (PatternError, re.error) as e:
                    raise PatternError("%s:%d: %s" % (path, number, e))
                lang.compiled.append((specificity, regex, negated, rule, maps))
        lang.rules += rules
    lang.compiled.sort(key=lambda c: -c[0])
    return lang


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


def _clean(raw: str, lang: Language, rule: Rule):
    """(value, phrase): the value without leading articles, trailing fillers and
    punctuation, and the same with its articles kept ("the Beatles"); None
    when the value is not acceptable."""
    words = raw.strip(TRIM).split()
    trailing = sorted((t.split() for t in lang.lists["trailing"]), key=len, reverse=True)
    trimmed = True
    while trimmed:
        trimmed = False
        for t in trailing:
            if len(words) > len(t) and [w.lower().strip(TRIM) for w in words[-len(t):]] == t:
                words, trimmed = words[:-len(t)], True
    phrase = " ".join(words).strip(TRIM)
    while len(words) > 1 and words[0].lower() in lang.lists["articles"]:
        words.pop(0)
    value = " ".join(words).strip(TRIM)
    low = value.lower()
    if (not value or low in lang.lists["reject"] or low in rule.reject
            or low.split()[0] in rule.reject or len(words) > rule.words):
        return None
    if rule.digits is not None and bool(re.search(r"\d", value)) != rule.digits:
        return None
    return value, phrase


def _fact(match, negated: bool, rule: Rule, maps: dict, lang: Language) -> Optional[ExtractedFact]:
    said = {k[2:]: v for k, v in match.groupdict().items() if k.startswith("m_")}
    keys = {k: maps[k].get(re.sub(r"\s+", " ", v.lower()), v.lower()) for k, v in said.items()}
    if "value" in match.groupdict():
        cleaned = _clean(match.group("value"), lang, rule)
        if cleaned is None:
            return None
        said["value"], said["phrase"] = cleaned
    value = rule.value.format(**said).strip()
    said.setdefault("phrase", value)
    text = (rule.not_text if negated else rule.text).format(**{**said, "value": value})
    return ExtractedFact(slot=rule.slot.format(**keys), value=value, kind=rule.kind,
                         multi=rule.multi, negated=negated, family=rule.family,
                         text=text[:1].upper() + text[1:])


def extract_facts(text: str, lang: str) -> List[ExtractedFact]:
    """The facts the user states about themselves in one utterance."""
    folder = match_lang(lang) if text else None
    language = load_language(folder) if folder else None
    if language is None:
        return []
    filler_run, questions, anywhere, at_start = _guards(folder)
    boundary = re.compile(language.boundary, re.IGNORECASE)
    facts, seen = [], set()
    for sentence, question in _sentences(text):
        starts = _clause_starts(sentence, boundary, filler_run)
        if (question or (questions and questions.match(sentence, starts[0]))
                or (anywhere and anywhere.search(sentence))
                or (at_start and any(at_start.match(sentence, s) for s in starts))):
            continue
        for start in starts:
            for _, regex, negated, rule, maps in language.compiled:
                match = regex.match(sentence, start)
                fact = match and _fact(match, negated, rule, maps, language)
                if fact:
                    key = (fact.slot, fact.value.lower(), fact.negated)
                    if key not in seen:
                        seen.add(key)
                        facts.append(fact)
                    break
    return facts


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
