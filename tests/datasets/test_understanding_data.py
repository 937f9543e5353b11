"""The understanding set (benchmarks/understanding/<lang>.json) and the sets written
blind after it (benchmarks/understanding/blind/<set>/<lang>.json) are well formed.

Data only: no engine, no process. What benchmarks/understanding.py relies on and
the rules benchmarks/understanding/README.md states: per language at least 8
scenarios, half dev and half test; per scenario 12 facts, each answered by a
reply that says nothing, between 6 and 10 small-talk exchanges whose replies do
say things; one question per fact that shares no content word and no word stem
with it; 6 one-word topics naming facts of the scenario; 4 questions about
things never said.

Content words are the project's own: ``keywords()`` of ovos_memory_service.words
(lower case, the stop words of locale/<lang>/stopwords.list and one-letter words
left out). Two content words share a stem (``same_stem``) when, after removing
accents and writing ß as ss, they begin with the same 4 letters, or with the same
3 when the shorter has only 3 or 4 letters (work/working, Hund/Hunde,
trabalho/trabalhar, moro/morar, vivo/viver, cat/cats), or when one ends with
the other (of 4 or more letters: the head of a compound, Frau/Ehefrau,
juego/videojuego, Allergie/Nussallergie) or holds it anywhere (of 5 or more
letters).
"""
import json
import re
import unicodedata
from pathlib import Path

import pytest

from ovos_memory_service.common.words import keywords, says_nothing

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "benchmarks" / "understanding"
LANGS = ("en-us", "pt-pt", "es-es", "de-de")
FACTS, TOPICS, NEVER_SAID = 12, 6, 4
MIN_SMALL_TALK, MAX_SMALL_TALK = 6, 10
MIN_SCENARIOS = 8
# sets written blind later (benchmarks/understanding/blind/README.md): test scenarios only, 3 a language
BLIND = sorted(p for p in (DATA / "blind").iterdir() if p.is_dir())
SETS = [(folder, lang) for folder in [DATA, *BLIND] for lang in LANGS]
SET_IDS = [f"{folder.name}-{lang}" for folder, lang in SETS]
FACT_ID = re.compile(r"^[a-z][a-z0-9_]*$")


def load(lang, folder=DATA):
    with open(folder / f"{lang}.json", encoding="utf-8") as f:
        return json.load(f)


def fold(word: str) -> str:
    word = word.lower().replace("ß", "ss")
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def same_stem(a: str, b: str) -> bool:
    """The simple stem rule of the README (see the module docstring)."""
    a, b = fold(a), fold(b)
    if a == b:
        return True
    shorter = min(len(a), len(b))
    common = 0
    for x, y in zip(a, b):
        if x != y:
            break
        common += 1
    need = 3 if shorter <= 4 else 4
    short, long_ = sorted((a, b), key=len)
    inside = (shorter >= 4 and long_.endswith(short)) or (shorter >= 5 and short in long_)
    return shorter >= 3 and (common >= need or inside)


def shared_words(question: str, fact: str, lang: str) -> list:
    """(question word, fact word) pairs that are the same word or share a stem."""
    return [(q, f) for q in keywords(question, lang) for f in keywords(fact, lang) if same_stem(q, f)]


def facts_of(scenario):
    return {e["fact"]: e["user"] for e in scenario["exchanges"] if "fact" in e}


def test_stem_rule():
    for a, b in [("work", "working"), ("Hund", "Hunde"), ("trabalho", "trabalhar"), ("moro", "morar"),
                 ("vivo", "viver"), ("cat", "cats"), ("heiße", "heißt"), ("música", "musica"),
                 ("Straße", "strasse"), ("lives", "live"),
                 ("Allergie", "Nussallergie"), ("fleisch", "Schweinefleisch"), ("Frau", "Ehefrau"),
                 ("juego", "videojuego")]:
        assert same_stem(a, b), (a, b)
    for a, b in [("nurse", "hospital"), ("dog", "pet"), ("cello", "instrument"), ("irmã", "mora"),
                 ("sister", "sibling"), ("hermana", "vive"), ("onde", "Tondela")]:
        assert not same_stem(a, b), (a, b)
    assert shared_words("what do I do for a living", "I've been a plumber for ten years", "en-us") == []
    assert shared_words("where do i live", "we live in Leeds", "en-us") == [("live", "live")]


@pytest.mark.parametrize("folder,lang", SETS, ids=SET_IDS)
def test_schema(folder, lang):
    data = load(lang, folder)
    assert set(data) == {"lang", "scenarios"}
    assert data["lang"] == lang
    for scenario in data["scenarios"]:
        where = scenario.get("id")
        assert set(scenario) <= {"id", "split", "note", "exchanges", "questions", "topics", "never_said"}, where
        assert {"id", "split", "exchanges", "questions", "topics", "never_said"} <= set(scenario), where
        assert isinstance(scenario["id"], str) and scenario["id"].startswith(lang + "-"), where
        assert scenario["split"] in ("dev", "test"), where
        for exchange in scenario["exchanges"]:
            assert set(exchange) <= {"user", "assistant", "fact"} and {"user", "assistant"} <= set(exchange), exchange
            for side in ("user", "assistant"):
                text = exchange[side]
                assert isinstance(text, str) and text and text.strip() == text and "  " not in text, exchange
            if "fact" in exchange:
                assert FACT_ID.match(exchange["fact"]), exchange
        for q in scenario["questions"]:
            assert set(q) <= {"fact", "question", "note"} and {"fact", "question"} <= set(q), q
            assert isinstance(q["question"], str) and q["question"].strip() == q["question"] and q["question"], q
        for t in scenario["topics"]:
            assert set(t) <= {"topic", "facts", "note"} and {"topic", "facts"} <= set(t), t
            assert isinstance(t["facts"], list), t
        assert all(isinstance(n, str) and n.strip() == n and n for n in scenario["never_said"]), where


@pytest.mark.parametrize("folder,lang", SETS, ids=SET_IDS)
def test_splits_and_counts(folder, lang):
    scenarios = load(lang, folder)["scenarios"]
    splits = [s["split"] for s in scenarios]
    if folder == DATA:
        assert len(scenarios) >= MIN_SCENARIOS
        assert splits.count("dev") == splits.count("test"), "half dev, half test"
    else:
        assert len(scenarios) == 3 and set(splits) == {"test"}, "a blind set: 3 test scenarios"
    ids = [s["id"] for s in scenarios]
    assert len(ids) == len(set(ids))
    for scenario in scenarios:
        where = scenario["id"]
        facts = [e["fact"] for e in scenario["exchanges"] if "fact" in e]
        small_talk = [e for e in scenario["exchanges"] if "fact" not in e]
        assert len(facts) == FACTS and len(set(facts)) == FACTS, f"{where}: 12 distinct facts"
        assert MIN_SMALL_TALK <= len(small_talk) <= MAX_SMALL_TALK, f"{where}: {len(small_talk)} small-talk exchanges"
        assert len(scenario["questions"]) == FACTS, where
        assert len(scenario["topics"]) == TOPICS, where
        assert len(scenario["never_said"]) == NEVER_SAID, where


@pytest.mark.parametrize("folder,lang", SETS, ids=SET_IDS)
def test_facts_between_small_talk(folder, lang):
    """Facts are interleaved with small talk: the conversation neither opens with a
    run of facts nor keeps all the small talk at one end."""
    for scenario in load(lang, folder)["scenarios"]:
        kinds = ["f" if "fact" in e else "s" for e in scenario["exchanges"]]
        pattern = "".join(kinds)
        assert "ffff" not in pattern, f"{scenario['id']}: four facts in a row ({pattern})"
        assert pattern.find("s") < pattern.find("f") + 4 and "s" in pattern[len(pattern) // 2:], \
            f"{scenario['id']}: small talk only at one end ({pattern})"


@pytest.mark.parametrize("folder,lang", SETS, ids=SET_IDS)
def test_replies(folder, lang):
    """A fact is answered by a reply that says nothing on its own (the project's
    acknowledgements.list), and the replies vary; small talk is answered by a
    reply that does say something."""
    for scenario in load(lang, folder)["scenarios"]:
        fact_replies = [e["assistant"] for e in scenario["exchanges"] if "fact" in e]
        for reply in fact_replies:
            assert says_nothing(reply, lang), f"{scenario['id']}: {reply!r} says something"
        assert len(set(fact_replies)) >= 3, f"{scenario['id']}: vary the acknowledgements"
        for e in scenario["exchanges"]:
            if "fact" not in e:
                assert not says_nothing(e["assistant"], lang), f"{scenario['id']}: {e['assistant']!r} says nothing"


@pytest.mark.parametrize("folder,lang", SETS, ids=SET_IDS)
def test_speech_to_text_style(folder, lang):
    """Many user turns lower case without final punctuation, some properly cased."""
    for scenario in load(lang, folder)["scenarios"]:
        users = [e["user"] for e in scenario["exchanges"]]
        raw = [u for u in users if u == u.lower() and not u[-1] in ".?!"]
        assert len(raw) >= len(users) // 3, f"{scenario['id']}: too few speech-to-text style turns"
        assert len(raw) < len(users), f"{scenario['id']}: no properly cased turn"


@pytest.mark.parametrize("folder,lang", SETS, ids=SET_IDS)
def test_questions_share_no_word_with_their_fact(folder, lang):
    for scenario in load(lang, folder)["scenarios"]:
        facts = facts_of(scenario)
        asked = [q["fact"] for q in scenario["questions"]]
        assert sorted(asked) == sorted(facts), f"{scenario['id']}: one question per fact"
        for q in scenario["questions"]:
            shared = shared_words(q["question"], facts[q["fact"]], lang)
            assert not shared, f"{scenario['id']} {q['question']!r} shares {shared} with {facts[q['fact']]!r}"
            assert keywords(q["question"], lang), f"{scenario['id']} {q['question']!r}: no content word at all"


@pytest.mark.parametrize("folder,lang", SETS, ids=SET_IDS)
def test_topics(folder, lang):
    for scenario in load(lang, folder)["scenarios"]:
        where = scenario["id"]
        facts = facts_of(scenario)
        words = [t["topic"] for t in scenario["topics"]]
        assert len(set(words)) == TOPICS, f"{where}: topics repeat"
        seen = set()
        for t in scenario["topics"]:
            assert re.fullmatch(r"\w+", t["topic"]) and t["topic"] == t["topic"].lower(), \
                f"{where}: {t['topic']!r} is not one lower-case word"
            assert keywords(t["topic"], lang) == [t["topic"]], f"{where}: {t['topic']!r} is a stop word"
            assert 1 <= len(t["facts"]) <= 2, f"{where} {t['topic']}: one or two facts"
            unknown = set(t["facts"]) - set(facts)
            assert not unknown, f"{where} {t['topic']}: no such fact {unknown}"
            twice = seen & set(t["facts"])
            assert not twice, f"{where}: {twice} in two topics"
            seen |= set(t["facts"])


@pytest.mark.parametrize("folder,lang", SETS, ids=SET_IDS)
def test_never_said(folder, lang):
    for scenario in load(lang, folder)["scenarios"]:
        questions = {q["question"] for q in scenario["questions"]}
        assert len(set(scenario["never_said"])) == NEVER_SAID, scenario["id"]
        assert not questions & set(scenario["never_said"]), scenario["id"]
        for n in scenario["never_said"]:
            assert keywords(n, lang), f"{scenario['id']} {n!r}: no content word at all"


@pytest.mark.parametrize("folder,lang", SETS, ids=SET_IDS)
def test_sentences_are_fresh(folder, lang):
    """No fact is stated twice in a language, no user turn repeats within a
    scenario, and no user turn is copied from the project's other benchmark sets."""
    scenarios = load(lang, folder)["scenarios"]
    facts = [e["user"] for s in scenarios for e in s["exchanges"] if "fact" in e]
    assert len(facts) == len(set(facts)), "a fact is stated twice"
    for scenario in scenarios:
        said = [e["user"] for e in scenario["exchanges"]]
        assert len(said) == len(set(said)), f"{scenario['id']}: a user turn repeats"
    users = [e["user"] for s in scenarios for e in s["exchanges"]]
    others = set()
    for path in (ROOT / "benchmarks").rglob("*.json"):
        # blind sets were written apart from each other: two may ask the same small talk
        if path.parent != folder and not (folder in BLIND and path.parent in BLIND):
            others |= set(re.findall(r'"([^"\\]{20,})"', path.read_text(encoding="utf-8")))
    norm = {o.lower().rstrip(".?!") for o in others}
    copied = [u for u in users if u.lower().rstrip(".?!") in norm]
    assert not copied, copied


def test_scenario_ids_unique_across_languages():
    ids = [s["id"] for folder, lang in SETS for s in load(lang, folder)["scenarios"]]
    assert len(ids) == len(set(ids))
