"""Finding the per-language resources under ``locale/<lang>/``."""
from functools import lru_cache
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Tuple


@lru_cache(maxsize=None)  # asked on every turn (fact rules, words): no disk each time
def locale_dir() -> Path:
    """``locale/`` inside the installed package, or at the top of a checkout."""
    here = Path(__file__).resolve().parent.parent  # the package's folder
    for candidate in (here / "locale", here.parent / "locale"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("the locale/ folder of ovos-memory-service is missing")


@lru_cache(maxsize=64)
def match_lang(lang: str) -> Optional[str]:
    """The locale folder for a language tag: exact (en-US -> en-us), else the
    first with the same primary language (pt-BR -> pt-pt)."""
    if not lang:
        return None
    lang = lang.lower().replace("_", "-")
    folders = sorted(p.name for p in locale_dir().iterdir() if p.is_dir())
    if lang in folders:
        return lang
    primary = lang.split("-")[0]
    return next((f for f in folders if f.split("-")[0] == primary), None)


def is_english(lang: str) -> bool:
    """English, or no language given (English is the service's default)."""
    return not lang or lang.lower().startswith("en")


def read_list(path: Path) -> list:
    """Lines of a resource file, without blanks and # comments."""
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def read_pairs(path: Path) -> List[Tuple[List[str], List[str]]]:
    """The ``a, b: c, d`` lines of a resource file (topics.list, facts/asked.list):
    for each, the words before the colon and the words after it, lowercased."""
    def words(part: str) -> List[str]:
        return [w.strip().lower() for w in part.split(",") if w.strip()]
    return [(words(before), words(after)) for before, _, after in (line.partition(":") for line in read_list(path))]


@lru_cache(maxsize=64)
def word_list(lang: str, name: str) -> FrozenSet[str]:
    """The lowercased words of ``locale/<lang>/<name>.list`` (none if missing)."""
    folder = match_lang(lang)
    path = locale_dir() / folder / f"{name}.list" if folder else None
    return frozenset(w.lower() for w in read_list(path)) if path and path.exists() else frozenset()


DEFAULT_FACTS_HEADER = "Known facts about the user:"


@lru_cache(maxsize=64)
def facts_header(lang: str) -> str:
    """``locale/<lang>/facts_header.txt``: the heading of the facts block in the
    conversation's language (English when the language has none)."""
    folder = match_lang(lang) if lang else None
    path = locale_dir() / folder / "facts_header.txt" if folder else None
    lines = read_list(path) if path and path.exists() else []
    return lines[0] if lines else DEFAULT_FACTS_HEADER


def stop_words(lang: str) -> FrozenSet[str]:
    """Words keyword recall leaves out: they match everything and find nothing."""
    return word_list(lang, "stopwords")


def acknowledgements(lang: str) -> FrozenSet[str]:
    """Words that say nothing on their own ("okay", "thanks", "vale")."""
    return word_list(lang, "acknowledgements")


@lru_cache(maxsize=32)
def topics(lang: str) -> Dict[str, Tuple[str, ...]]:
    """``locale/<lang>/topics.list``: a word that names a topic ("pet") -> the
    topic's other names ("pets", "animal") and the words that say it is being
    talked about ("dog", "cat"...). One way only: "cat" does not lead back to
    "pet", nor to "dog"."""
    folder = match_lang(lang)
    path = locale_dir() / folder / "topics.list" if folder else None
    if path is None or not path.exists():
        return {}
    found: Dict[str, Tuple[str, ...]] = {}
    for names, words in read_pairs(path):
        for head in names:
            others = tuple(n for n in names if n != head)
            found[head] = tuple(dict.fromkeys(found.get(head, ()) + others + tuple(words)))
    return found
