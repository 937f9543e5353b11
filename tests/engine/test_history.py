"""Storing turns: normalization, retries, conversations, pauses (real SQLite)."""

from ovos_memory_service.common.wire import parse_messages
from tests.helpers import Clock, assistant, exchange, roles_contents, scope, store, user


def test_exchange_is_stored_and_read_back_in_order(engine):
    sc = scope()
    reply = exchange(engine, sc, "hello there", "hi! how can I help?")
    assert reply["stored"] == 2 and len(set(reply["ids"])) == 2
    history = engine.get_history(sc)
    assert roles_contents(history) == [("user", "hello there"), ("assistant", "hi! how can I help?")]
    assert [m.id for m in history] == reply["ids"]


def test_leading_orphan_assistant_is_dropped(engine):
    sc = scope()
    reply = store(engine, sc, assistant("left over"), user("hi"), assistant("hello"))
    assert reply["stored"] == 2
    assert roles_contents(engine.get_history(sc)) == [("user", "hi"), ("assistant", "hello")]


def test_single_assistant_turn_opening_a_conversation_is_dropped(engine):
    sc = scope()
    assert store(engine, sc, assistant("good morning"))["stored"] == 0
    assert engine.get_history(sc) == []


def test_consecutive_assistant_turns_are_merged(engine):
    sc = scope()
    first = store(engine, sc, user("tell me a joke"), assistant("why did the chicken"))
    second = store(engine, sc, assistant("cross the road?"))
    assert second["ids"] == [first["ids"][1]]
    assert roles_contents(engine.get_history(sc))[-1] == ("assistant", "why did the chicken\ncross the road?")


def test_both_recording_styles_give_the_same_history(make_engine, tmp_path):
    engine = make_engine()
    per_exchange, per_turn = scope(session="a"), scope(session="b")
    turns = [("what is the weather", "sunny"), ("and tomorrow", "rain"), ("thanks", "you're welcome")]
    for question, answer in turns:
        exchange(engine, per_exchange, question, answer)          # ovos-persona 0.9.0a35
        store(engine, per_turn, user(question))                   # ovos-persona 0.9.0a25
        store(engine, per_turn, assistant(answer))
    assert roles_contents(engine.get_history(per_exchange)) == roles_contents(engine.get_history(per_turn))


def test_caller_data_is_not_mutated(engine):
    messages = [user("  padded  "), assistant("reply")]
    snapshot = [dict(m) for m in messages]
    engine.update_history(scope(), parse_messages(messages))
    assert messages == snapshot


def test_retry_with_same_request_id_is_stored_once(engine):
    sc = scope()
    first = store(engine, sc, user("yes"), assistant("done"), request_id="r-1")
    again = store(engine, sc, user("yes"), assistant("done"), request_id="r-1")
    assert again == first
    assert len(engine.get_history(sc)) == 2


def test_same_content_under_new_request_ids_is_stored_each_time(engine):
    sc = scope()
    store(engine, sc, user("yes"), assistant("ok"), request_id="r-1")
    store(engine, sc, user("yes"), assistant("ok"), request_id="r-2")
    assert len(engine.get_history(sc)) == 4


def test_tool_turns_are_kept_in_history(engine):
    sc = scope()
    call = {"id": "c1", "name": "weather", "arguments": {"city": "Porto"}}
    store(engine, sc, user("weather in Porto?"), assistant("", tool_calls=[call]),
          {"role": "tool", "content": "18C", "tool_call_id": "c1", "name": "weather"},
          assistant("It is 18 degrees."))
    history = engine.get_history(sc)
    assert [m.role for m in history] == ["user", "assistant", "tool", "assistant"]
    assert history[1].tool_calls == [call] and history[2].tool_call_id == "c1"


def test_history_get_limit_returns_the_newest(engine):
    sc = scope()
    for i in range(6):
        exchange(engine, sc, f"question {i}", f"answer {i}")
    assert [m.content for m in engine.get_history(sc, 3)] == ["answer 4", "question 5", "answer 5"]


def test_session_timeout_starts_a_new_conversation(engine):
    engine.clock = clock = Clock()
    sc = scope()
    exchange(engine, sc, "my cat is called Tom", "nice name")
    clock.advance(engine.config["session_timeout_minutes"] * 60 - 1)
    assert [m.content for m in engine.get_history(sc)] == ["my cat is called Tom", "nice name"]
    clock.advance(2)
    assert engine.get_history(sc) == []
    context = engine.build_context(sc, "what is my cat called")
    assert {m.role for m in context.messages[:-1]} == {"system"}  # recalled, not verbatim
    assert "Tom" in " ".join(m.content for m in context.messages[:-1])
    exchange(engine, sc, "hello again", "hi")
    assert roles_contents(engine.get_history(sc)) == [("user", "hello again"), ("assistant", "hi")]


def test_new_session_empties_the_window_and_keeps_memories(engine):
    sc = scope()
    exchange(engine, sc, "my sister lives in Berlin", "good to know")
    conversation = engine.new_conversation(sc)
    assert isinstance(conversation, str) and conversation
    assert engine.get_history(sc) == []
    engine.wait_idle()  # the fact learnt from the turn too
    recalled = [m.content for m in engine.recall(sc, "sister Berlin")]
    assert set(recalled[:2]) == {"my sister lives in Berlin", "Sister lives in Berlin"}  # the turn and its fact


def test_imported_messages_keep_their_time_and_name(engine):
    sc = scope()
    store(engine, sc, user("I adopted a puppy", name="Caroline", created_at="2023-05-08T13:56:00Z"),
          assistant("congratulations", name="Melanie", created_at="2023-05-08T13:57:00"))
    items = engine.recall(sc, "puppy", kinds=["turn"])
    assert items[0].to_wire()["created_at"].startswith("2023-05-08T13:56:00")
    assert items[0].name == "Caroline"


def test_pause_stores_nothing_and_lasts_across_restart(make_engine):
    engine = make_engine()
    sc = scope()
    exchange(engine, sc, "before the pause", "ok")
    assert engine.pause(sc, "user", True) is True
    assert store(engine, sc, user("secret")) == {"stored": 0, "ids": [], "paused": True}
    engine.close()
    engine = make_engine()
    assert store(engine, sc, user("still secret"))["paused"] is True
    assert [m.content for m in engine.get_history(sc)] == ["before the pause", "ok"]
    assert engine.pause(sc, "user", False) is False
    assert store(engine, sc, user("now stored"))["stored"] == 1


def test_a_retry_of_an_update_stored_before_the_pause_is_answered_with_its_ids(engine):
    """The client's first try timed out though the daemon stored it; the user
    paused, then the retry came: it was stored, so the reply says so (a
    'paused' reply made the persona drop the turn from its local window)."""
    sc = scope()
    first = store(engine, sc, user("my name is Ana"), assistant("hello Ana"), request_id="r-1")
    engine.pause(sc, "session", True)
    assert store(engine, sc, user("my name is Ana"), assistant("hello Ana"), request_id="r-1") == first
    assert store(engine, sc, user("secret"), request_id="r-2")["paused"] is True


def test_an_update_that_reached_the_daemon_before_the_pause_is_stored(engine):
    """Said before "stop remembering", but still waiting (for background work
    to yield) when the pause was set: it was said before the pause, so it is
    kept; an update that reaches the daemon after the pause is not."""
    import time
    sc = scope()
    received = time.time()
    engine.pause(sc, "session", True)
    assert engine.update_history(sc, parse_messages([user("my name is Ana")]), received_at=received)["stored"] == 1
    assert engine.update_history(sc, parse_messages([user("a secret")]))["paused"] is True
    assert [m.content for m in engine.get_history(sc)] == ["my name is Ana"]


def test_session_pause_leaves_other_sessions_recording(engine):
    paused, other = scope(session="kitchen"), scope(session="bedroom")
    engine.pause(paused, "session", True)
    assert store(engine, paused, user("x"))["stored"] == 0
    assert store(engine, other, user("y"))["stored"] == 1
