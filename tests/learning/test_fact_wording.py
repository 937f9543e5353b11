"""Facts read back in the listener's language where the fact model knows the
slot (the rule packs' @text templates), else as they were said."""
import uuid

import pytest

from ovos_memory_service.learning.facts.wording import read_back
from tests.helpers import scope


def test_an_english_residence_fact_reads_in_portuguese():
    assert read_back("Lives in Porto", "residence", "Porto", "pt-pt") == "Mora em Porto"
    assert read_back("Lives in Porto", "residence", "Porto", "de-de") == "Wohnt in Porto"
    assert read_back("Lives in Porto", "residence", "Porto", "en-us") == "Lives in Porto"


def test_a_fact_worded_in_the_listeners_language_is_read_as_said():
    assert read_back("Mudou-se para o Porto", "residence", "Porto", "pt-pt") == "Mudou-se para o Porto"
    assert read_back("Mora no Porto", "residence", "Porto", "pt-pt") == "Mora no Porto"
    # said by the person (memory.remember keeps their words) and understood in that language
    assert read_back("I live in Porto", "residence", "Porto", "en-us") == "I live in Porto"
    assert read_back("Eu moro no Porto", "residence", "Porto", "pt-pt") == "Eu moro no Porto"
    assert read_back("I live in Porto", "residence", "Porto", "pt-pt") == "Mora em Porto"


def test_slots_with_map_words_take_the_listeners_word():
    assert read_back("Has a dog called Rex", "pet.dog.name", "Rex", "de-de") == "Hund heißt Rex"


def test_without_a_slot_or_a_pack_the_fact_is_read_as_said():
    assert read_back("Keeps the keys in the blue bowl", None, None, "pt-pt") == "Keeps the keys in the blue bowl"
    assert read_back("Lives in Porto", "residence", "Porto", "xx-xx") == "Lives in Porto"
    assert read_back("Lives in Porto", "no.such.slot", "Porto", "pt-pt") == "Lives in Porto"


ovoscope = pytest.importorskip("ovoscope")


@pytest.fixture(scope="module")
def voice(tmp_path_factory):
    from ovos_memory_service.edge.skill import SKILL_ID, MemorySkill
    from tests.voice.test_skill import Voice, intent_pipeline
    with intent_pipeline(tmp_path_factory, ["pt-PT"]) as (minicroft, engine, config):
        skill = MemorySkill(bus=minicroft.bus, skill_id=SKILL_ID, engine=engine, config=config,
                            wait_for_speech=False)
        yield Voice(minicroft, engine, skill)
        skill.default_shutdown()


def learnt_in_english(engine, me):
    """ "I live in Porto" said in an English session; the rule-based extractor
    learns the fact in the background, worded by the English rules."""
    from tests.helpers import eventually, exchange
    exchange(engine, scope(user=me, session="kitchen", lang="en-us"), "I live in Porto", "Nice city!")

    def learnt():
        items, _ = engine.list(scope(user=me), ("fact",), 10, 0, "all")
        return [i.content for i in items]
    assert eventually(learnt) == ["Lives in Porto"]


def test_a_portuguese_listener_hears_an_english_learnt_fact_in_portuguese(voice):
    me = f"u-{uuid.uuid4().hex[:8]}"
    learnt_in_english(voice.engine, me)
    heard = voice.say("o que te lembras sobre mim", "pt-pt", me)
    assert heard.dialogs == ["remembered.list"], heard.text
    assert "Mora em Porto" in heard.text and "Lives in" not in heard.text
    heard = voice.say("o que sabes sobre porto", "pt-pt", me)
    assert "Mora em Porto" in heard.text, heard.text
    # in English it is read as it was learnt
    assert "Lives in Porto" in voice.say("what do you remember about me", "en-us", me).text
    # what is stored is unchanged
    items, _ = voice.engine.list(scope(user=me), ("fact",), 10, 0, "all")
    assert [i.content for i in items] == ["Lives in Porto"]


def test_what_was_said_about_work_and_a_sister_is_remembered_about_me(voice):
    """Said as speech-to-text gives it, in conversation; "what do you remember
    about me" reads the facts learnt from it (facts only), names capitalised."""
    from tests.helpers import eventually, exchange
    me = f"u-{uuid.uuid4().hex[:8]}"
    for said in ("i work as a nurse at the children's hospital", "my sister lives in berlin"):
        exchange(voice.engine, scope(user=me, session="kitchen", lang="en-us"), said, "Okay.")
    eventually(lambda: len(voice.engine.list(scope(user=me), ("fact",), 10, 0, "all")[0]) == 2)
    heard = voice.say("what do you remember about me", "en-us", me)
    assert heard.dialogs == ["remembered.list"], heard.text
    assert "Works as nurse at the children's hospital" in heard.text and "Sister lives in Berlin" in heard.text
    heard = voice.say("o que te lembras sobre mim", "pt-pt", me)
    assert "Irmã mora em Berlin" in heard.text, heard.text
