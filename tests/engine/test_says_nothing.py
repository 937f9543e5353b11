"""A memory that says nothing on its own ("Okay.", "¡Qué bien!") never comes
before a memory that says something, in any language, whichever model
compares the meanings (issue 16: personal facts first)."""
import json
import re
from pathlib import Path

import pytest

from ovos_memory_service.common.resources import locale_dir, read_list, stop_words
from ovos_memory_service.common.words import says_nothing
from tests.helpers import exchange, scope

FACTS = Path(__file__).resolve().parents[2] / "benchmarks" / "personal_facts"
LANGS = ["en-us", "pt-pt", "es-es", "de-de"]


@pytest.mark.parametrize("model", ["", "google/universal-sentence-encoder-multilingual-3"])
@pytest.mark.parametrize("lang", LANGS)
def test_a_reply_that_says_nothing_never_comes_before_the_fact(make_engine, model, lang):
    """The personal-facts set: each fact is told and acknowledged ("Vale."),
    then asked back by a paraphrase; in what recall returns, every
    acknowledgement comes after every memory that says something."""
    facts = json.loads((FACTS / f"{lang}.json").read_text(encoding="utf-8"))["facts"]
    engine = make_engine(embeddings={"model": model})
    sc = scope(lang=lang)
    for fact in facts:
        exchange(engine, sc, fact["fact"], fact["reply"])
    engine.wait_idle(timeout=120)
    replies, seen = {fact["reply"] for fact in facts}, 0
    for fact in facts:
        found = [item.content for item in engine.recall(scope(session="s2", lang=lang), fact["question"],
                                                        limit=50, threshold=0)]
        acknowledged = [content in replies for content in found]
        assert acknowledged == sorted(acknowledged), (fact["question"], found)
        seen += any(acknowledged)
    assert seen, "no recall returned an acknowledgement: nothing was checked"


@pytest.mark.parametrize("text, lang", [
    ("Okay.", "en-us"), ("Got it, thanks!", "en-us"), ("Sounds good.", "en-us"), ("Nice.", "en-us"),
    ("Vale.", "es-es"), ("¡Qué bien!", "es-es"), ("De acuerdo.", "es-es"), ("Apuntado.", "es-es"),
    ("Está bem.", "pt-pt"), ("Combinado!", "pt-pt"), ("Alles klar.", "de-de"), ("Klingt gut.", "de-de"),
    ("Notiert.", "de-de")])
def test_acknowledgements_say_nothing(text, lang):
    assert says_nothing(text, lang)


@pytest.mark.parametrize("text, lang", [
    ("Okay, my dog is called Rex.", "en-us"), ("Yes, in Lisbon.", "en-us"), ("I'm allergic to nuts.", "en-us"),
    ("Vale, mañana a las diez.", "es-es"), ("Está bem, vou ao Porto.", "pt-pt"), ("Alles klar, bis Montag.", "de-de"),
    ("Rex", "en-us"), ("42", "en-us")])
def test_a_word_of_its_own_says_something(text, lang):
    assert not says_nothing(text, lang)


@pytest.mark.parametrize("lang", LANGS)
def test_acknowledgements_list_format(lang):
    """One lowercase word a line (a phrase is its words: "de acuerdo" is
    "acuerdo" after the stop word "de"), none twice, none a stop word."""
    words = read_list(locale_dir() / lang / "acknowledgements.list")
    assert words and len(words) == len(set(words))
    assert all(re.fullmatch(r"\w+", w) and w == w.lower() for w in words), words
    assert not set(words) & stop_words(lang)
