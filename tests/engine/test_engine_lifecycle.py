"""What the engine starts, it waits for and stops: a wait that runs out says
so, and closing the engine ends every thread it started."""
import threading

import pytest

from tests.helpers import exchange, scope


def test_a_wait_for_the_background_work_raises_when_the_work_is_not_done(engine):
    """Otherwise a test that asserts something did not happen passes without the work having run."""
    sc = scope()
    with engine.store.transaction():  # the workers cannot take what is not committed
        exchange(engine, sc, "My dog is called Rex", "Cute")
        with pytest.raises(TimeoutError, match="background work"):
            engine.wait_idle(timeout=0.5)
    engine.wait_idle()  # committed: done in time, and nothing to say


def test_closing_the_engine_ends_every_thread_it_started(make_engine):
    before = set(threading.enumerate())
    engine = make_engine()
    sc = scope()
    exchange(engine, sc, "My sister lives in Lisbon", "Nice city")
    engine.wait_idle()
    assert engine.build_context(sc, "where does my sister live?").memories  # the composite's members ran
    assert engine.recall(sc, "where does my sister live?")  # reranked, in English
    engine.close()
    left = [t.name for t in threading.enumerate() if t not in before and t.is_alive()]
    assert left == [], f"threads left running after close: {left}"


def test_the_configuration_is_held_in_one_place_and_a_reload_changes_it_there(make_engine):
    from ovos_memory_service.common.config import build_config
    engine = make_engine()
    held = engine.config
    assert engine.reader.config is held and engine.personas.config is held and engine.background.facts.config is held
    engine.reload(build_config({**held, "recall_facts_limit": 7, "share_facts_across_personas": False}))
    assert engine.config is held and held["recall_facts_limit"] == 7
    assert engine.reader.config["recall_facts_limit"] == 7 and not engine.personas.share_facts()
