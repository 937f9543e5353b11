"""Consecutive user turns: both are stored, and every backend's build still
gives the chat engine alternating turns (real SQLite)."""
import pytest

from tests.helpers import assistant, exchange, roles_contents, scope, store, user

# every built-in backend that shows a verbatim window; none needs an LLM here
MODULES = ["recency", "short-term", "lexical", "local-rag", "default (composite)",
           {"memory_module": "longterm", "longterm": {"api_url": ""}}]


def history_part(messages):
    """The turns of a build before the utterance, without system/developer blocks."""
    return [(m.role, m.content) for m in messages[:-1] if m.role not in ("system", "developer")]


def assert_alternates(messages, utterance):
    assert (messages[-1].role, messages[-1].content) == ("user", utterance)
    roles = [r for r, _ in history_part(messages)]
    assert not roles or (roles[0] == "user" and roles[-1] == "assistant"), roles
    assert all(a != b for a, b in zip(roles, roles[1:])), roles
    users = [m.content for m in messages if m.role == "user"]
    assert users.count(utterance) == 1, users


def configure(engine, module, persona_id):
    if isinstance(module, str) and module.startswith("default"):
        return scope()
    if isinstance(module, dict):
        name = module["memory_module"]
        engine.configure_persona(persona_id, name, module[name])
    else:
        engine.configure_persona(persona_id, module, {})
    return scope(persona=persona_id)


def test_an_unanswered_user_turn_is_kept_when_the_next_one_arrives(engine):
    sc = scope()
    first = store(engine, sc, user("turn on the lights"))
    second = store(engine, sc, user("what time is it"), assistant("five o'clock"))
    assert first["stored"] == 1 and second["stored"] == 2
    history = engine.get_history(sc)
    assert roles_contents(history) == [("user", "turn on the lights"), ("user", "what time is it"),
                                       ("assistant", "five o'clock")]
    assert [m.id for m in history] == first["ids"] + second["ids"]


def test_user_turns_in_one_request_are_all_kept(engine):
    sc = scope()
    reply = store(engine, sc, user("one"), user("two"), assistant("three"))
    assert reply["stored"] == 3
    assert [m.content for m in engine.get_history(sc)] == ["one", "two", "three"]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m if isinstance(m, str) else m["memory_module"])
def test_builds_merge_consecutive_user_turns_and_never_dangle(engine, module):
    sc = configure(engine, module, "p-" + (module if isinstance(module, str) else module["memory_module"]))
    exchange(engine, sc, "hello", "hi there")
    # ovos-persona 0.9.0a25: every utterance is stored before the build; the LLM
    # was down for the first one, so no reply was spoken
    store(engine, sc, user("set a timer"))
    store(engine, sc, user("for ten minutes"))
    built = engine.build_context(sc, "for ten minutes").messages
    assert_alternates(built, "for ten minutes")
    assert history_part(built) == [("user", "hello"), ("assistant", "hi there")]
    # the answer arrives: the two user turns are one exchange for the chat engine
    store(engine, sc, assistant("timer set for ten minutes"))
    built = engine.build_context(sc, "thanks").messages
    assert_alternates(built, "thanks")
    assert history_part(built) == [("user", "hello"), ("assistant", "hi there"),
                                   ("user", "set a timer\nfor ten minutes"),
                                   ("assistant", "timer set for ten minutes")]
    # ovos-persona 0.9.0a35 builds before it stores: a stored unanswered turn is not shown dangling
    store(engine, sc, user("and another one"))
    built = engine.build_context(sc, "are you there?").messages
    assert_alternates(built, "are you there?")
    assert history_part(built)[-1] == ("assistant", "timer set for ten minutes")
