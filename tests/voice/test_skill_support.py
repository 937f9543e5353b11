"""What the engine offers the voice skill: its own lines stay out of memory,
"forget that" finds the last exchange, and commands see every persona."""
from tests.helpers import assistant, exchange, scope, store, user


def contents(items):
    return [i.content for i in items]


def test_a_spoken_read_back_is_not_stored(engine):
    sc = scope(persona="helper")
    exchange(engine, sc, "I like jazz", "Nice.")
    engine.exclude_turn(sc, "assistant", "I remember that you like jazz.")
    # ovos-persona 0.9.0a25 records every spoken line, the skill's included
    store(engine, sc, assistant("I remember that you like jazz."))
    history = engine.get_history(sc, 10)
    assert [m.content for m in history] == ["I like jazz", "Nice."]


def test_a_command_already_stored_is_removed(engine):
    sc = scope(persona="helper")
    exchange(engine, sc, "my sister is Ana", "Noted.")
    store(engine, sc, user("What do you remember about me?"))
    engine.exclude_turn(sc, "user", "what do you remember about me")
    assert [m.content for m in engine.get_history(sc, 10)] == ["my sister is Ana", "Noted."]


def test_exclusion_is_per_session(engine):
    here, there = scope(session="s1"), scope(session="s2")
    exchange(engine, there, "hello", "hi")
    engine.exclude_turn(here, "assistant", "Okay.")
    store(engine, there, user("and then?"), assistant("Okay."))
    assert "Okay." in [m.content for m in engine.get_history(there, 10)]


def test_last_exchange_spans_personas_of_the_session(engine):
    exchange(engine, scope(persona="a"), "first question", "first answer")
    exchange(engine, scope(persona="b"), "my code is 4711", "Got it.")
    exchange(engine, scope(session="other"), "elsewhere", "yes")
    assert contents(engine.last_exchange(scope())) == ["my code is 4711", "Got it."]


def test_where_all_lists_every_persona_of_the_user_only(engine):
    exchange(engine, scope(persona="a"), "alpha words", "ok")
    exchange(engine, scope(persona="b"), "beta words", "ok")
    exchange(engine, scope(user="bob", persona="a"), "bob words", "ok")
    items, total = engine.list(scope(), kinds=["turn"], where="all", limit=50)
    assert set(contents(items)) == {"alpha words", "ok", "beta words"} and total == 4
