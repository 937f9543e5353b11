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


# ---------------------------------------------------------------- retries over the real bus
def update(stack, session, request_id, *messages):
    return stack.ok("memory.history.update", {"messages": list(messages), "request_id": request_id},
                    session_id=session)


def history(stack, session):
    return [(m["role"], m["content"]) for m in stack.ok("memory.history.get", {}, session_id=session)["messages"]]


@pytest.mark.stack
def test_a_retry_of_a_kept_update_answers_its_ids_and_stores_nothing_new(stack):
    first = update(stack, "retry-kept", "r-1", user("remind me to water the plants"), assistant("will do"))
    again = update(stack, "retry-kept", "r-1", user("remind me to water the plants"), assistant("will do"))
    assert (again["stored"], again["ids"]) == (2, first["ids"]) and "forgotten" not in again
    assert history(stack, "retry-kept") == [("user", "remind me to water the plants"), ("assistant", "will do")]


@pytest.mark.stack
def test_a_retry_after_its_turns_were_forgotten_neither_resurrects_nor_claims_them(stack):
    session = "retry-forgotten"
    first = update(stack, session, "r-1", user("my locker code is 4417"), assistant("noted"))
    assert stack.ok("memory.forget", {"ids": first["ids"]}, session_id=session)["forgotten"] == 2
    again = update(stack, session, "r-1", user("my locker code is 4417"), assistant("noted"))
    assert (again["stored"], again["ids"], again["forgotten"]) == (0, [], 2)
    assert history(stack, session) == []
    assert stack.ok("memory.recall", {"query": "locker code 4417", "threshold": 0},
                    session_id=session)["memories"] == []


@pytest.mark.stack
def test_a_retry_after_part_of_it_was_forgotten_answers_what_is_left(stack):
    session = "retry-partly"
    first = update(stack, session, "r-1", user("I hate my neighbour"), assistant("that sounds hard"))
    stack.ok("memory.forget", {"ids": first["ids"][:1]}, session_id=session)
    again = update(stack, session, "r-1", user("I hate my neighbour"), assistant("that sounds hard"))
    assert (again["stored"], again["ids"], again["forgotten"]) == (1, first["ids"][1:], 1)
    assert [content for _, content in history(stack, session)] == ["that sounds hard"]
    # a new request with the same words is a new turn, stored again
    fresh = update(stack, session, "r-2", user("I hate my neighbour"))
    assert fresh["stored"] == 1 and fresh["ids"][0] not in first["ids"]
