"""recency, ovos-persona's short-term default, and choosing a backend per persona."""
import time

import pytest

from tests.helpers import assistant, exchange, roles_contents, scope, store, user


def talk(engine, sc, n):
    for i in range(n):
        exchange(engine, sc, f"question {i}", f"answer {i}")


def test_recency_defaults_keep_ten_messages(make_engine):
    engine = make_engine(memory_module="ovos-memory-plugin-recency")
    sc = scope()
    talk(engine, sc, 8)
    messages = engine.build_context(sc, "next").messages
    assert len(messages) == 11 and messages[0].content == "question 3"
    assert messages[-1].content == "next"


def test_recency_max_history_zero_is_unbounded_and_system_prompt_leads(make_engine):
    engine = make_engine(memory_module="recency", recency={"max_history": 0, "system_prompt": "Be brief."})
    sc = scope()
    talk(engine, sc, 20)
    messages = engine.build_context(sc, "next").messages
    assert messages[0].role == "system" and messages[0].content == "Be brief."
    assert len(messages) == 42


def test_recency_window_never_opens_on_an_assistant_turn(make_engine):
    engine = make_engine(memory_module="recency", recency={"max_history": 3})
    sc = scope()
    talk(engine, sc, 3)
    assert roles_contents(engine.build_context(sc, "next").messages) == [
        ("user", "question 2"), ("assistant", "answer 2"), ("user", "next")]


def test_recency_max_age_drops_old_turns(make_engine):
    engine = make_engine(memory_module="recency", recency={"max_age": 1})
    sc = scope()
    store(engine, sc, user("old question", created_at=_iso(time.time() - 5)),
          assistant("old answer", created_at=_iso(time.time() - 5)))
    exchange(engine, sc, "new question", "new answer")
    assert roles_contents(engine.build_context(sc, "next").messages) == [
        ("user", "new question"), ("assistant", "new answer"), ("user", "next")]


def _iso(epoch):
    from ovos_memory_service.common.wire import iso_time
    return iso_time(epoch)


def test_short_term_default_of_ovos_persona_keeps_five(make_engine):
    engine = make_engine(memory_module="ovos-agents-short-term-memory-plugin")
    sc = scope()
    talk(engine, sc, 4)
    messages = engine.build_context(sc, "next").messages
    # the five newest are [a1, q2, a2, q3, a3]: the orphan answer a1 is dropped
    assert roles_contents(messages) == [("user", "question 2"), ("assistant", "answer 2"),
                                        ("user", "question 3"), ("assistant", "answer 3"), ("user", "next")]
    assert engine.get_history(sc)[0].content == "answer 1"  # history.get gives the raw window


def test_backend_names_long_and_short(engine):
    for name in ("recency", "ovos-memory-plugin-recency", "lexical", "ovos-memory-plugin-lexical",
                 "short-term", "ovos-agents-short-term-memory-plugin"):
        engine.configure_persona("p", name, {})
    with pytest.raises(ValueError, match="unknown memory_module"):
        engine.configure_persona("p", "no-such-memory-plugin", {})


def test_persona_from_config_and_runtime_configuration(make_engine):
    engine = make_engine(personas={"butler": {"memory_module": "recency",
                                              "ovos-memory-plugin-recency": {"max_history": 2}}})
    sc = scope(persona="butler")
    talk(engine, sc, 3)
    assert len(engine.build_context(sc, "next").messages) == 3
    engine.configure_persona("butler", "ovos-memory-plugin-recency", {"max_history": 4})
    assert len(engine.build_context(sc, "next").messages) == 5
    engine.close()
    # a runtime configuration lasts across restarts
    engine = make_engine()
    assert len(engine.build_context(sc, "next").messages) == 5


def test_personas_keep_separate_histories(engine):
    a, b = scope(persona="a"), scope(persona="b")
    exchange(engine, a, "I am talking to A", "I am A")
    exchange(engine, b, "I am talking to B", "I am B")
    assert [m.content for m in engine.get_history(a)] == ["I am talking to A", "I am A"]
    assert [m.content for m in engine.get_history(b)] == ["I am talking to B", "I am B"]
    assert sorted(m.content for m in engine.recall(a, "talking", threshold=0)) == ["I am A", "I am talking to A"]


def test_turns_can_be_shared_across_personas(make_engine):
    engine = make_engine(share_turns_across_personas=True)
    exchange(engine, scope(persona="a"), "my bike is red", "nice")
    assert engine.recall(scope(persona="b"), "bike")[0].content == "my bike is red"


def test_third_party_plugin_runs_inside_the_engine(make_engine, tmp_path, monkeypatch):
    from tests.plugin_fixture import PLUGIN_NAME, install_plugin
    monkeypatch.syspath_prepend(str(install_plugin(tmp_path / "site")))
    engine = make_engine(memory_module=PLUGIN_NAME, **{PLUGIN_NAME: {"system_prompt": "Hi."}})
    sc = scope()
    exchange(engine, sc, "remember the milk", "sure")
    engine.wait_idle()  # the plugin hears the turns after the reply
    messages = engine.build_context(sc, "what should I buy?").messages
    assert roles_contents(messages) == [("system", "Hi. seen=2"), ("user", "remember the milk"),
                                        ("assistant", "sure"), ("user", "what should I buy?")]
    assert engine.get_history(sc)[0].content == "remember the milk"  # still in the service's store


def test_the_persona_side_plugin_is_never_loaded_inside_the_daemon(engine):
    with pytest.raises(ValueError, match="connects a persona"):
        engine.configure_persona("p", "ovos-memory-service-plugin", {})


def test_every_built_in_backend_has_a_name_and_a_block_reader():
    """The names a persona JSON may give (common/blocks.py) are the backends there are."""
    from ovos_memory_service.backends import BUILTIN
    from ovos_memory_service.common.blocks import BUILTIN_NAMES, ENTRY_POINT_NAMES, check_block
    assert set(BUILTIN) == set(BUILTIN_NAMES) == set(ENTRY_POINT_NAMES.values())
    for name in BUILTIN_NAMES:
        check_block(name, {})  # an empty block is every backend's defaults
        with pytest.raises(ValueError, match=f"the {name} block must be an object"):
            check_block(name, [])
