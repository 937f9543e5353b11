"""Forms, the lookup that asked.py uses to find which listed words a word is a
form of, finds exactly what comparing it with every word (``another_form``) finds."""
import pytest

from ovos_memory_service.common.resources import locale_dir, read_pairs
from ovos_memory_service.common.words import Forms, another_form, keywords, misread

LANGS = ["en-us", "pt-pt", "es-es", "de-de"]


def listed(lang: str):
    path = locale_dir() / lang / "facts" / "asked.list"
    return list(dict.fromkeys(w for _, words in read_pairs(path) for w in words))


def probes(lang: str, words):
    """Every listed word with up to three letters more or fewer, and the words
    of the language's fact sentences."""
    made = {w + tail for w in words for tail in ("", "s", "n", "es", "en", "ram", "x")}
    made |= {w[:-k] for w in words for k in (1, 2, 3) if len(w) > k}
    for path in (locale_dir() / lang / "facts").glob("*.facts"):
        made |= set(keywords(path.read_text(), lang))
    return sorted(made)


@pytest.mark.parametrize("lang", LANGS)
def test_forms_finds_what_another_form_finds(lang):
    words = listed(lang)
    forms = Forms(words)
    checked = 0
    for word in probes(lang, words):
        expected = [of for of in words if another_form(word, of)]
        assert forms.of(word) == expected, word
        checked += bool(expected)
    assert checked > len(words)  # most probes are forms of some listed word


def test_a_word_is_a_form_of_listed_words_only():
    forms = Forms(["wohne", "mora", "work", "vive"])
    assert forms.of("wohnt") == ["wohne"]
    assert forms.of("moram") == ["mora"]
    assert forms.of("workout") == []
    assert forms.of("viven") == ["vive"]
    assert forms.of("car") == []


@pytest.mark.parametrize("word,of", [("roof", "root"), ("group", "grow"), ("play", "plan"), ("place", "plan"),
                                     ("early", "ears"), ("herum", "herz")])
def test_a_word_whose_last_consonant_differs_is_another_word(word, of):
    assert not another_form(word, of)
    assert Forms([of]).of(word) == []


@pytest.mark.parametrize("word,of", [("mudam", "mudar"), ("andam", "andar"), ("trabalhava", "trabalhar"),
                                     ("wohnt", "wohne"), ("vivo", "vive"), ("lives", "live")])
def test_a_verbs_ending_is_still_its_form(word, of):
    assert another_form(word, of)
    assert Forms([of]).of(word) == [of]


@pytest.mark.parametrize("text,term,other_word", [
    ("mi gata solo me hace caso a mí", "casó", True),   # written with accents: "caso" is "caso"
    ("mi hermano se caso en mayo", "casó", False),      # written without any: speech-to-text dropped them
    ("a minha avo faz anos em março", "avó", False),    # a cedilla or a tilde is no sign of written accents
    ("me gusta la musica de Málaga", "música", False),  # nor is a name's
    ("Tú nunca me haces caso", "casó", True),           # but a sentence's first word's is
])
def test_a_word_without_its_accent_is_another_word_only_where_accents_are_written(text, term, other_word):
    assert misread(text, [term]) is other_word
