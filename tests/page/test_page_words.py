"""The page's words (locale/<lang>/page.json): every language has every key
with the same fields, and the page opens in the device's language."""
import re

import pytest
import requests

from ovos_memory_service.edge.page.server import PageServer
from ovos_memory_service.edge.page.words import FALLBACK, LANGS, Words, catalog, page_lang


def fields(text: str) -> set:
    return set(re.findall(r"{(\w+)}", text))


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != FALLBACK])
def test_every_language_has_every_key_with_the_same_fields(lang):
    english, other = catalog(FALLBACK), catalog(lang)
    assert set(other) == set(english)
    for key, text in english.items():
        assert fields(other[key]) == fields(text), f"{lang} {key}"
        assert other[key].strip(), f"{lang} {key} is empty"


def test_language_tags_map_to_the_pages_languages():
    assert [page_lang(t) for t in ("pt-BR", "es-MX", "de-AT", "en-GB", "fr-fr", "", None)] == \
        ["pt-pt", "es-es", "de-de", "en-us", "en-us", "en-us", "en-us"]
    assert Words("de-de")("memories.count", n=2) == catalog("de-de")["memories.count"].format(n=2)


@pytest.mark.parametrize("lang", LANGS)
def test_one_of_something_is_said_in_the_singular(lang):
    words = Words(lang)
    for key in ("meta.sources", "memories.count", "notice.forgotten", "context.carries"):
        assert words(key, n=1) == catalog(lang)[key + ".one"].format(n=1)
        assert words(key, n=2) == catalog(lang)[key].format(n=2)
    if lang == "en-us":
        assert words("meta.sources", n=1) == "Learnt from 1 turn"
        assert words("notice.forgotten", n=1) == "1 memory forgotten."


@pytest.mark.parametrize("lang", LANGS)
def test_the_page_opens_in_the_devices_language(make_engine, lang):
    engine = make_engine(embeddings={"enabled": False}, lang=lang, page={"port": 0})
    server = PageServer(engine, engine.config)
    server.start()
    try:
        page = requests.get(f"{server.url}/login")
    finally:
        server.stop()
    assert f'<html lang="{lang}">' in page.text
    assert catalog(lang)["login.heading"].replace("'", "&#039;") in page.text
