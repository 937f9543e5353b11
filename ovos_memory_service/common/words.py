"""The searchable words of a text, in its language: what keyword recall and
relevance look for, and whether a text says anything on its own (stop words,
acknowledgements and topic words from locale/<lang>/)."""
import re
import unicodedata
from functools import lru_cache
from typing import Dict, FrozenSet, List, Sequence, Tuple

from ovos_memory_service.common.resources import acknowledgements, locale_dir, stop_words, topics

TOKEN = re.compile(r"\w+", re.UNICODE)


def keywords(text: str, lang: str) -> List[str]:
    """The searchable words of ``text``: lowercased, stop words and
    one-letter words out, each once, in order."""
    return list(_keywords(text, lang))


@lru_cache(maxsize=4096)  # a build reads the query's and each compared memory's several times
def _keywords(text: str, lang: str) -> Tuple[str, ...]:
    stops = stop_words(lang)
    words = []
    for raw in re.split(r"\s+", text.lower()):
        if raw.strip("?!.,;:\"()") in stops:
            continue
        for token in TOKEN.findall(raw):
            if (len(token) > 1 or token.isdigit()) and token not in stops and token not in words:
                words.append(token)
    return tuple(words)


@lru_cache(maxsize=1)
def any_languages_stop_words() -> FrozenSet[str]:
    """The stop words of every language: a word that says nothing in one of
    them ("meu", "die") may be said to a device set to another."""
    return frozenset(w for folder in locale_dir().iterdir() if (folder / "stopwords.list").exists()
                     for w in stop_words(folder.name))


def says_nothing(text: str, lang: str) -> bool:
    """A text that says nothing on its own: only acknowledgements, thanks,
    greetings and stop words ("Okay.", "Got it, thanks!", "¡Qué bien!").
    A reply like that means something only after what it answers."""
    nothing = acknowledgements(lang)
    return all(word in nothing for word in keywords(text, lang))


@lru_cache(maxsize=32)
def topical(lang: str) -> FrozenSet[str]:
    """Every word of ``lang``'s topic lexicon, heads and members: words that name a topic
    or something of one ("car", "Golf", "asma"), unlike a name ("Rex")."""
    return frozenset(w for head, words in topics(lang).items() for w in (head, *words))


def topic_words(words: Sequence[str], lang: str) -> Dict[str, Tuple[str, ...]]:
    """keyword -> the words of its topic (topics.list), for keywords that name one."""
    known = topics(lang)
    return {w: known[w] for w in words if w in known}


def another_form(word: str, of: str) -> bool:
    """``word`` is ``of`` with at most two letters more, or its last one changed (in a
    word of five letters or more, or a vowel): a verb's or a noun's ending ("wohnt" of
    "wohne", "moram" of "mora", "andam" of "andar", "lives" of "live", "automóveis" of
    "automóvel"), not another word ("workout" is no form of "work", "roof" of "root",
    "group" of "grow": in four letters the last one is too much of the word)."""
    return word == of or any(word.startswith(stem) and 0 < len(word) - len(stem) <= 2 for stem in _stems(of))


def _stems(of: str) -> Tuple[str, ...]:
    """What another form of ``of`` begins with (``another_form``)."""
    if len(of) < 4:
        return ()
    return (of, of[:-1]) if len(of) >= 5 or of[-1] in VOWELS else (of,)


VOWELS = set("aeiouáéíóúâêôãõà")


class Forms:
    """Which of a long list of words a word is ``another_form`` of, found by
    looking up its stems rather than by comparing it with each word."""

    def __init__(self, words: Sequence[str]):
        self._place = {w: i for i, w in reversed(list(enumerate(words)))}
        self._by_stem: Dict[str, List[str]] = {}
        for of in self._place:
            # another_form's rule: one of the word's stems followed by one or two letters
            for stem in set(_stems(of)):
                self._by_stem.setdefault(stem, []).append(of)

    def of(self, word: str) -> List[str]:
        """The listed words ``word`` is a form of, in the list's order."""
        found = {*self._by_stem.get(word[:-1], ()), *self._by_stem.get(word[:-2], ())}
        if word in self._place:
            found.add(word)
        return sorted(found, key=self._place.__getitem__)


# acute, grave, circumflex: a text that has them writes accents (an umlaut, a tilde, a cedilla
# tell nothing of that: German writes "Mütter" whatever drops accents)
WRITTEN_ACCENTS = {"\u0301", "\u0300", "\u0302"}


def bare(word: str) -> str:
    """``word`` without its accents."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def _same_stem(a: str, b: str) -> bool:
    """Two words the search takes for one ("carne", "carnes"): one begins the other, a suffix apart."""
    short, long = sorted((a, b), key=len)
    return a == b or (len(short) >= 4 and long.startswith(short) and len(long) - len(short) <= 3)


def writes_accents(text: str) -> bool:
    """``text`` writes a word that is not a name with an acute, grave or circumflex accent
    (speech-to-text that drops them writes none; a tilde or a cedilla tell nothing of that)."""
    written = TOKEN.findall(text)
    # a capital past the text's first word is a name's ("Málaga"), unless all is in capitals
    names = () if text.isupper() else {token for token in written[1:] if token[:1].isupper()}
    return any(WRITTEN_ACCENTS & set(unicodedata.normalize("NFD", token)) for token in written if token not in names)


def misread(text: str, terms: Sequence[str]) -> bool:
    """The search folds accents away (speech-to-text often drops them), so it finds
    ``terms`` in ``text`` through a word that only differs from one of them by an
    accent ("carné", a licence, for "carne", meat). True when that is the only way
    ``text`` has any of them. A word written without accents still matches when the
    text writes no other word with an acute, grave or circumflex accent (speech-to-text
    that drops them; a name's, "Málaga", or a tilde or cedilla tell nothing of that),
    not when it does: "me hace caso a mí" is not "se casó"."""
    if text.isascii():
        return False
    bare_terms = [(bare(t), t) for t in terms]
    written = TOKEN.findall(text)
    accents = writes_accents(text)
    misread_one = False
    for token in {token.lower() for token in written}:
        unaccented = bare(token)
        for bare_term, term in bare_terms:
            if _same_stem(unaccented, bare_term):
                if _same_stem(token, term) or not accents:
                    return False
                misread_one = True
    return misread_one
