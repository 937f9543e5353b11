"""The searchable words of a text, in its language: what keyword recall and
relevance look for, and whether a text says anything on its own (stop words,
acknowledgements and topic words from locale/<lang>/)."""
import re
from typing import Dict, List, Sequence, Tuple

from ovos_memory_service.common.resources import acknowledgements, stop_words, topics

TOKEN = re.compile(r"\w+", re.UNICODE)


def keywords(text: str, lang: str) -> List[str]:
    """The searchable words of ``text``: lowercased, stop words and
    one-letter words out, each once, in order."""
    stops = stop_words(lang)
    words = []
    for raw in re.split(r"\s+", text.lower()):
        if raw.strip("?!.,;:\"()") in stops:
            continue
        for token in TOKEN.findall(raw):
            if (len(token) > 1 or token.isdigit()) and token not in stops and token not in words:
                words.append(token)
    return words


def says_nothing(text: str, lang: str) -> bool:
    """A text that says nothing on its own: only acknowledgements, thanks,
    greetings and stop words ("Okay.", "Got it, thanks!", "¡Qué bien!").
    A reply like that means something only after what it answers."""
    nothing = acknowledgements(lang)
    return all(word in nothing for word in keywords(text, lang))


def topic_words(words: Sequence[str], lang: str) -> Dict[str, Tuple[str, ...]]:
    """keyword -> the words of its topic (topics.list), for keywords that name one."""
    known = topics(lang)
    return {w: known[w] for w in words if w in known}
