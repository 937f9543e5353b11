"""The topic lexicons (locale/<lang>/topics.list) parse, and keep to their format:
``head words: member words``, comma-separated, lower case, one-way."""
import re
from pathlib import Path

import pytest

from tests.helpers import exchange, scope

LOCALE = Path(__file__).resolve().parent.parent / "locale"
LANGS = ["en-us", "pt-pt", "es-es", "de-de"]
WORD = re.compile(r"^\w+$", re.UNICODE)
MAX_HEADS = 12
MAX_MEMBERS = 400


def parse(lang):
    path = LOCALE / lang / "topics.list"
    assert path.exists(), f"{path} is missing"
    lines = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        assert line.count(":") == 1, f"{lang}:{number}: one ':' between heads and members"
        heads, members = (part.split(",") for part in line.split(":"))
        heads = [h.strip() for h in heads]
        members = [m.strip() for m in members]
        lines.append((number, heads, members))
    return path, lines


@pytest.mark.parametrize("lang", LANGS)
def test_topics_list_format(lang):
    path, lines = parse(lang)
    assert path.read_text(encoding="utf-8").lstrip().startswith("#"), "a comment header explains the file"
    assert len(lines) >= 20, f"{lang}: only {len(lines)} topic lines"
    seen_heads = {}
    for number, heads, members in lines:
        where = f"{lang}:{number}"
        for word in heads + members:
            assert word, f"{where}: an empty word (stray comma?)"
            assert word == word.lower(), f"{where}: {word!r} is not lower case"
            assert WORD.match(word), f"{where}: {word!r} is not one word the search tokenizer keeps whole"
        # a topic's names, singular and plural ("job", "jobs", "occupation", "profession"...)
        assert 1 <= len(heads) <= MAX_HEADS, f"{where}: {len(heads)} heads"
        # a topic is shown by many concrete words (hundreds of occupations), each a term
        # of the keyword search a head starts: bounded so that one query stays cheap
        assert 10 <= len(members) <= MAX_MEMBERS, f"{where}: {len(members)} members"
        assert len(set(heads)) == len(heads), f"{where}: a head is repeated"
        assert len(set(members)) == len(members), f"{where}: a member is repeated"
        assert not set(heads) & set(members), f"{where}: {set(heads) & set(members)} both head and member"
        for head in heads:
            assert head not in seen_heads, f"{where}: head {head!r} already heads line {seen_heads[head]}"
            seen_heads[head] = number


@pytest.mark.parametrize("lang", LANGS)
def test_no_stop_words(lang):
    stops = {w.strip().lower() for w in (LOCALE / lang / "stopwords.list").read_text(encoding="utf-8").splitlines()
             if w.strip() and not w.startswith("#")}
    for number, heads, members in parse(lang)[1]:
        assert not (set(heads) | set(members)) & stops, f"{lang}:{number}: stop words {(set(heads) | set(members)) & stops}"


@pytest.mark.parametrize("lang", LANGS)
def test_a_head_leads_to_the_other_heads_of_its_line(lang):
    """resources.topics() reads each file: a head leads to the other heads of
    its line (one topic's names, "wohnt" and "lebt") and to its members."""
    from ovos_memory_service.resources import topics
    topics.cache_clear()
    known = topics(lang)
    for _, heads, members in parse(lang)[1]:
        for head in heads:
            assert set(known[head]) == set(heads) - {head} | set(members)


@pytest.mark.parametrize("model", ["", "google/universal-sentence-encoder-multilingual-3"])
@pytest.mark.parametrize("question, answer", [
    # "lebt" and "wohnt" both say "lives": asked with one, the memory that says
    # the other comes above a neighbour found through the topic's words ("Nachbarn")
    ("wo lebt der Mann meiner Schwester", "Mein Schwager Jens wohnt in Leipzig."),
    # "Frau" and "Mann" also say wife and husband: the wedding line finds them
    ("mit wem bin ich verheiratet", "Meine Frau heißt Katrin."),
])
def test_a_german_relative_is_found_by_a_topics_other_names(make_engine, model, question, answer):
    """Asked about a relative in other words than were said, recall puts the
    memory that answers first, whichever model compares the meanings."""
    engine = make_engine(embeddings={"model": model})
    sc = scope(lang="de-de")
    exchange(engine, sc, "Mein Schwager Jens wohnt in Leipzig.", "Notiert.")
    exchange(engine, sc, "Samstags spiele ich Tennis mit meinem Nachbarn.", "Klingt gut.")
    exchange(engine, sc, "Meine Frau heißt Katrin.", "Okay.")
    assert engine.wait_idle(timeout=120)
    found = engine.recall(scope(session="s2", lang="de-de"), question, threshold=0)
    assert found[0].content == answer, [i.content for i in found]
