"""Each language's voice files parse, say the same things, and every intent's
examples match that intent (and no other) in padacioso."""
import re
from pathlib import Path

import pytest
from padacioso import IntentContainer

from ovos_memory_service.edge.skill import forget_all_request
from tests.helpers import padacioso_in_threads

LOCALE = Path(__file__).resolve().parents[2] / "locale"
SKILL = Path(__file__).resolve().parents[2] / "ovos_memory_service" / "edge" / "skill.py"
LANGS = ("en-us", "pt-pt", "es-es", "de-de")
# padacioso scores "forget all {count} memories about {topic}" as high as "forget {topic}",
# so either may win: the skill's "forget <topic>" hands such an utterance on (edge/skill.py)
HANDED_ON = {"forget.topic.all": "forget.topic"}
SAMPLES = {"topic": "the garden", "fact": "my sister lives in lisbon", "count": "7"}


def files(lang, folder, ext):
    return {p.stem: p for p in (LOCALE / lang / folder).glob(f"*.{ext}")}


def lines(path):
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def slots(text):
    return set(re.findall(r"{(\w+)}", text))


def test_the_skill_uses_only_files_that_exist():
    source = SKILL.read_text()
    intents = set(re.findall(r'intent_handler\("([\w.]+)\.intent"\)', source))
    assert intents == set(files("en-us", "intents", "intent"))
    spoken = set(re.findall(r'"([a-z]+(?:\.[a-z]+)+)"', source)) - {f"{i}.intent" for i in intents}
    dialogs = set(files("en-us", "dialog", "dialog"))
    # every dialog name the code mentions exists ("forget.topic.confirm" + ".one" included)
    assert {d for d in spoken if not d.startswith("ovos")} <= dialogs | {"ovos-memory-service.openvoiceos"}
    assert {f"{d}.one" for d in ("forget.topic.confirm", "forget.topic.done")} <= dialogs


@pytest.mark.parametrize("lang", LANGS[1:])
def test_every_language_has_every_file(lang):
    for folder, ext in (("intents", "intent"), ("dialog", "dialog")):
        assert set(files(lang, folder, ext)) == set(files("en-us", folder, ext)), (lang, folder)


@pytest.mark.parametrize("lang", LANGS)
def test_dialogs_fill_the_same_slots_in_every_language(lang):
    for name, path in files(lang, "dialog", "dialog").items():
        english = set.union(*(slots(t) for t in lines(files("en-us", "dialog", "dialog")[name])))
        assert lines(path), (lang, name)
        for text in lines(path):
            assert slots(text) == english, (lang, name, text)
            assert text.count("{") == text.count("}")


@pytest.mark.parametrize("lang", LANGS)
def test_intents_use_the_english_entities(lang):
    for name, path in files(lang, "intents", "intent").items():
        english = set.union(*(slots(t) for t in lines(files("en-us", "intents", "intent")[name])))
        assert len(lines(path)) >= 5, (lang, name)
        for text in lines(path):
            assert slots(text) == english and text == text.lower(), (lang, name, text)


@pytest.fixture
def padacioso_threads():
    restore = padacioso_in_threads()  # a process pool would fork this test process
    yield
    restore()


@pytest.mark.parametrize("lang", LANGS)
def test_every_example_matches_its_own_intent(lang, padacioso_threads):
    container = IntentContainer()
    for name, path in files(lang, "intents", "intent").items():
        container.add_intent(name, lines(path))
    for name, path in files(lang, "intents", "intent").items():
        for text in lines(path):
            utterance = text.format(**SAMPLES)
            match = container.calc_intent(utterance)
            assert match["conf"] >= 0.95, (lang, utterance, match)  # padatious/padacioso "high"
            if name in HANDED_ON and match["name"] == HANDED_ON[name]:
                assert forget_all_request(utterance, lang) == (7, SAMPLES["topic"]), (lang, utterance)
                continue
            assert match["name"] == name, (lang, utterance, match)
            for entity in slots(text):
                assert match["entities"][entity] == SAMPLES[entity], (lang, utterance, match)
