"""The text a memory is searched by, computed in Python for PostgreSQL.

Two tsvectors per memory (table ``memory_text``):

- ``search`` ranks keyword recall: PostgreSQL's own parser and the snowball
  stemmer of the memory's language (``ts_config``, from the session's lang:
  :func:`ts_config`), over the speaker's name (weight B), the text (A) and
  the turn before it (C), diacritics folded first as SQLite's
  ``remove_diacritics 2`` does. ts_rank_cd's weights {D, C, B, A} =
  {0, 0.4, 0.5, 1.0} are SQLite's bm25 column weights (name 0.5, content 1.0,
  context 0.4).
- ``terms`` is the evidence of relevance (``coverage``): the memory's own
  text cut into exactly the tokens SQLite's FTS5 index holds (``porter
  unicode61 remove_diacritics 2``, the tokenizer of Python's own sqlite3
  module, run on an in-memory table), with their positions, so that a word
  matches the same memories on both stores and coverage is the same number.
  A word is a phrase of its tokens (``'don' <-> 't'`` for "don't"), as FTS5
  reads a quoted word. Limits of tsvector that FTS5 has not (content beyond
  16,383 tokens, or a word repeated 256 times, loses positions, which only
  phrases of several tokens use; a token longer than 2,046 bytes is left
  out) are far beyond a spoken turn.
"""
import unicodedata
from typing import Iterable, List, Optional, Sequence

from ovos_memory_service.store.tokens import Fts5Tokenizer

# ts_rank_cd weights {D, C, B, A}: context C, name B, content A (SQLite's bm25 weights)
RANK_WEIGHTS = "{0, 0.4, 0.5, 1.0}"
# ts_rank_cd normalization 1: divided by 1 + log(document length), as bm25 favours short documents
RANK_NORMALIZATION = 1

# OVOS language (the part before "-") -> PostgreSQL text search configuration
CONFIGS = {
    "ar": "arabic", "ca": "catalan", "da": "danish", "de": "german", "el": "greek", "en": "english",
    "es": "spanish", "eu": "basque", "fi": "finnish", "fr": "french", "ga": "irish", "hi": "hindi",
    "hu": "hungarian", "hy": "armenian", "id": "indonesian", "it": "italian", "lt": "lithuanian",
    "nb": "norwegian", "ne": "nepali", "nl": "dutch", "nn": "norwegian", "no": "norwegian",
    "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian", "sv": "swedish",
    "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}
SIMPLE = "simple"
MAX_LEXEME_BYTES = 2046
MAX_POSITION = 16383


def ts_config(lang: Optional[str], available: Iterable[str]) -> str:
    """The text search configuration for an OVOS lang ("pt-pt" -> "portuguese"),
    among those the server has; "simple" (no stemming) otherwise."""
    name = CONFIGS.get((lang or "").lower().replace("_", "-").split("-")[0], SIMPLE)
    return name if name in available else SIMPLE


def fold(text: Optional[str]) -> str:
    """Text without diacritics ("café" -> "cafe"), as FTS5's remove_diacritics."""
    if not text:
        return ""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _quote(lexeme: str) -> str:
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


class Fts5Tokens(Fts5Tokenizer):
    """FTS5's tokens as PostgreSQL's tsvector and tsquery literals."""

    def tsvector(self, texts: Sequence[str]) -> List[str]:
        """Each text as a tsvector literal of its FTS5 tokens."""
        literals = []
        for tokens in self.positions(texts):
            literals.append(" ".join(
                _quote(term) + ":" + ",".join(str(min(p + 1, MAX_POSITION)) for p in sorted(spots)[:256])
                for term, spots in sorted(tokens.items()) if len(term.encode()) <= MAX_LEXEME_BYTES))
        return literals

    def phrase(self, word: str) -> Optional[str]:
        """A word as a tsquery literal matching what FTS5's ``"word"`` matches
        (None: it has no token, and matches nothing)."""
        return self.any_of([word])

    def any_of(self, words: Sequence[str]) -> Optional[str]:
        """``"a" OR "b"`` as a tsquery literal (None: no word has a token)."""
        phrases = []
        for tokens in self.positions(words):
            ordered = sorted(((p, t) for t, spots in tokens.items() for p in spots))
            if ordered and all(len(t.encode()) <= MAX_LEXEME_BYTES for _, t in ordered):
                phrases.append("(" + " <-> ".join(_quote(t) for _, t in ordered) + ")")
        return " | ".join(phrases) or None
