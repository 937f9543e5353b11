"""The page's words in the four languages of the voice commands:
``locale/<lang>/page.json``, one flat object of key -> text with ``{name}``
fields. The device's language is the default; a person may switch."""
import json
from functools import lru_cache
from typing import Dict

from ovos_memory_service.common.resources import locale_dir, match_lang

LANGS = ("en-us", "pt-pt", "es-es", "de-de")
# each language named in itself, for the switch
LANG_NAMES = {"en-us": "English", "pt-pt": "Português", "es-es": "Español", "de-de": "Deutsch"}
FALLBACK = "en-us"


def page_lang(tag) -> str:
    """One of LANGS for a language tag (en-US -> en-us, pt-BR -> pt-pt); English otherwise."""
    if not isinstance(tag, str) or not tag:
        return FALLBACK
    lang = match_lang(tag)
    return lang if lang in LANGS else FALLBACK


@lru_cache(maxsize=None)
def catalog(lang: str) -> Dict[str, str]:
    with open(locale_dir() / lang / "page.json", encoding="utf-8") as f:
        return json.load(f)


class Words:
    """``words("key", name=value)``: the text in one language (English for a
    key a catalog lacks, the key itself if none has it); with ``n=1``, the
    key's singular ``<key>.one`` where the catalogs have one."""

    def __init__(self, lang: str):
        self.lang = page_lang(lang)
        self._mine, self._fallback = catalog(self.lang), catalog(FALLBACK)

    def __call__(self, key: str, **fields) -> str:
        if fields.get("n") == 1 and f"{key}.one" in self._fallback:  # "1 memory", not "1 memories"
            key = f"{key}.one"
        text = self._mine.get(key) or self._fallback.get(key) or key
        return text.format(**fields) if fields else text

    def kind(self, kind: str) -> str:
        return self(f"kind.{kind}")
