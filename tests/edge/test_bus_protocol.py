"""docs/protocol.md end to end: a real ovos-messagebus and the real service process.

The module shares one bus and one service; each test uses its own session or
user ids so tests do not see each other's memories.
"""
import json
import time
import uuid

import pytest
from ovos_bus_client import Message

from tests.sandbox import verified

pytestmark = pytest.mark.stack
REQUEST_TYPES = ["memory.context.build", "memory.history.update", "memory.history.get",
                 "memory.recall", "memory.list", "memory.remember", "memory.forget",
                 "memory.pause", "memory.resume", "memory.session.new",
                 "memory.persona.configure", "memory.stats"]


def new_session():
    return f"sess-{uuid.uuid4().hex[:8]}"


def talk(stack, session, question, answer, **data):
    return stack.ok("memory.history.update", {**data, "messages": [
        {"role": "user", "content": question}, {"role": "assistant", "content": answer}]},
        session_id=session)


def test_readiness_answers_on_the_bus(stack):
    reply = stack.bus.wait_for_response(Message("mycroft.memory.is_alive"), timeout=5)
    assert reply.data["status"] is True
    reply = stack.bus.wait_for_response(Message("mycroft.memory.is_ready"), timeout=5)
    assert reply.data["status"] is True


def test_update_then_build_then_get(stack):
    session = new_session()
    stored = talk(stack, session, "My daughter is called Lia", "What a lovely name")
    assert stored["stored"] == 2 and len(stored["ids"]) == 2
    built = stack.ok("memory.context.build", {"utterance": "  how old is Lia?  "}, session_id=session)
    assert [(m["role"], m["content"]) for m in built["messages"] if m["role"] != "system"] == [
        ("user", "My daughter is called Lia"), ("assistant", "What a lovely name"),
        ("user", "how old is Lia?")]
    history = stack.ok("memory.history.get", {}, session_id=session)["messages"]
    assert [m["id"] for m in history] == stored["ids"]
    assert all(m["created_at"].endswith("Z") for m in history)


def test_build_is_read_only_and_repeatable(stack):
    session = new_session()
    talk(stack, session, "I planted tomatoes", "nice")
    first = stack.ok("memory.context.build", {"utterance": "tomatoes?"}, session_id=session)
    second = stack.ok("memory.context.build", {"utterance": "tomatoes?"}, session_id=session)
    assert first["messages"] == second["messages"]
    assert len(stack.ok("memory.history.get", {}, session_id=session)["messages"]) == 2


def test_request_id_is_echoed_and_retry_stored_once(stack):
    session = new_session()
    data = {"request_id": "retry-1", "messages": [{"role": "user", "content": "yes"}]}
    first = stack.ok("memory.history.update", data, session_id=session)
    again = stack.ok("memory.history.update", data, session_id=session)
    assert first["request_id"] == "retry-1" and again["ids"] == first["ids"]
    stack.ok("memory.history.update", {"messages": [{"role": "assistant", "content": "ok"}]},
             session_id=session)
    stack.ok("memory.history.update", {"messages": [{"role": "user", "content": "yes"}]},
             session_id=session)
    history = stack.ok("memory.history.get", {}, session_id=session)["messages"]
    assert [m["content"] for m in history] == ["yes", "ok", "yes"]


def test_reply_to_a_request_without_request_id(stack):
    reply = stack.bus.wait_for_response(Message("memory.stats", {}, {}), timeout=5)
    assert reply.data["ok"] is True and "request_id" not in reply.data


def test_sessions_users_and_personas_are_isolated(stack):
    a, b = new_session(), new_session()
    talk(stack, a, "the wifi password is hunter2", "noted")
    # another session is another user unless configured: nothing of a's is visible
    built = stack.ok("memory.context.build", {"utterance": "what is the wifi password"}, session_id=b)
    assert "hunter2" not in str(built) and built["memories"] == []
    assert stack.ok("memory.recall", {"query": "wifi password"}, session_id=b)["memories"] == []
    # the same user in another session recalls it, but never as verbatim history
    same_user = {"user_id": a}
    # a named user's memories need level 3
    built = stack.ok("memory.context.build", {"utterance": "what is the wifi password", **same_user},
                     session=verified(b))
    assert [m["role"] for m in built["messages"]] == ["system", "user"]
    assert "hunter2" in built["messages"][0]["content"]
    assert stack.ok("memory.history.get", same_user, session_id=b)["messages"] == []
    # two personas of one user and session keep separate histories and recall
    talk(stack, a, "ahoy, my parrot is Polly", "arr", persona_id="pirate")
    default_view = stack.ok("memory.history.get", {}, session_id=a)["messages"]
    assert "Polly" not in str(default_view)
    pirate_view = stack.ok("memory.history.get", {"persona_id": "pirate"}, session_id=a)["messages"]
    assert [m["content"] for m in pirate_view] == ["ahoy, my parrot is Polly", "arr"]
    recalled = stack.ok("memory.recall", {"query": "parrot Polly"}, session_id=a)["memories"]
    assert "Polly" not in str(recalled)


def test_two_users_on_one_session_are_isolated(stack):
    session = new_session()
    stack.ok("memory.remember", {"content": "My locker code is 4471", "user_id": "ana"}, session_id=session)
    assert stack.ok("memory.recall", {"query": "locker code", "user_id": "rui"},
                    session_id=session)["memories"] == []
    assert stack.ok("memory.list", {"user_id": "rui"}, session_id=session)["total"] == 0
    found = stack.ok("memory.recall", {"query": "locker code", "user_id": "ana"}, session_id=session)
    assert found["memories"][0]["content"] == "My locker code is 4471"


def test_user_from_context_and_persona_from_session(stack):
    session = new_session()
    stack.ok("memory.remember", {"content": "I play the cello"}, session_id=session, user_id="marta")
    found = stack.ok("memory.recall", {"query": "cello", "user_id": "marta"})["memories"]
    assert found[0]["content"] == "I play the cello" and found[0]["session_id"] == session
    stack.ok("memory.history.update", {"messages": [{"role": "user", "content": "hi captain"}]},
             session={"session_id": session, "persona_id": "captain"})
    assert stack.ok("memory.history.get", {"persona_id": "captain"}, session_id=session)["messages"]


def test_recall_items_have_the_documented_shape(stack):
    session = new_session()
    talk(stack, session, "We visited the Douro valley in October", "Beautiful in autumn")
    memories = stack.ok("memory.recall", {"query": "Douro valley trip", "limit": 3},
                        session_id=session)["memories"]
    item = memories[0]
    assert set(item) == {"id", "content", "kind", "score", "rank_score", "created_at",
                         "session_id", "persona_id", "auth_level"}
    assert item["kind"] == "turn" and 0 < item["score"] <= 1 and item["session_id"] == session
    none = stack.ok("memory.recall", {"query": "Douro", "kinds": ["fact"]}, session_id=session)
    assert none["memories"] == []


def test_remember_list_forget_cycle(stack):
    session = new_session()
    first = stack.ok("memory.remember", {"content": "I'm vegetarian"}, session_id=session)["id"]
    assert stack.ok("memory.remember", {"content": "i'm vegetarian."}, session_id=session)["id"] == first
    pref = stack.ok("memory.remember", {"content": "Call me Jo", "kind": "preference"},
                    session_id=session)["id"]
    listed = stack.ok("memory.list", {}, session_id=session)
    assert listed["total"] == 2 and {m["id"] for m in listed["memories"]} == {first, pref}
    dry = stack.ok("memory.forget", {"ids": [first], "dry_run": True}, session_id=session)
    assert dry["forgotten"] == 1 and dry["memories"][0]["content"] == "I'm vegetarian"
    assert stack.ok("memory.list", {}, session_id=session)["total"] == 2
    done = stack.ok("memory.forget", {"query": "vegetarian"}, session_id=session)
    assert done["ids"] == [first]
    everything = stack.ok("memory.forget", {"all": True}, session_id=session)
    assert everything["ids"] == [pref]
    assert stack.ok("memory.list", {}, session_id=session)["total"] == 0


def test_pause_and_resume(stack):
    session = new_session()
    assert stack.ok("memory.pause", {}, session_id=session)["paused"] is True
    reply = talk(stack, session, "do not store this", "ok")
    assert reply["stored"] == 0 and reply["ids"] == [] and reply["paused"] is True
    assert stack.ok("memory.stats", {}, session_id=session)["paused"] is True
    assert stack.ok("memory.resume", {}, session_id=session)["paused"] is False
    assert talk(stack, session, "store this", "ok")["stored"] == 2


def test_session_new_empties_the_window(stack):
    session = new_session()
    talk(stack, session, "my car is a blue Fiat", "noted")
    conversation = stack.ok("memory.session.new", {}, session_id=session)["conversation_id"]
    assert isinstance(conversation, str)
    assert stack.ok("memory.history.get", {}, session_id=session)["messages"] == []
    built = stack.ok("memory.context.build", {"utterance": "what colour is my car"}, session_id=session)
    assert "blue Fiat" in built["messages"][0]["content"]


def test_persona_configure_selects_the_backend(stack):
    session = new_session()
    reply = stack.ok("memory.persona.configure", {
        "persona_id": "terse", "memory_module": "ovos-memory-plugin-recency",
        "config": {"max_history": 2, "system_prompt": "Answer in one word."}}, session_id=session)
    assert reply["persona_id"] == "terse"
    for i in range(3):
        talk(stack, session, f"q{i}", f"a{i}", persona_id="terse")
    built = stack.ok("memory.context.build", {"utterance": "next", "persona_id": "terse"},
                     session_id=session)
    assert [m["content"] for m in built["messages"]] == ["Answer in one word.", "q2", "a2", "next"]
    bad = stack.request("memory.persona.configure", {"persona_id": "x", "memory_module": "nope"})
    assert bad["ok"] is False and bad["error"]["code"] == "invalid_request"


def test_stats_counts_and_health(stack):
    session = new_session()
    talk(stack, session, "hello", "hi")
    stats = stack.ok("memory.stats", {}, session_id=session)
    assert stats["counts"]["turn"] == 2 and stats["counts"]["fact"] == 0
    assert stats["memory_module"] == "composite"
    assert stats["semantic_recall"] is True and stats["embedding_model"].endswith("all-MiniLM-L6-v2")
    assert stats["pending_jobs"] >= 0 and stats["last_background_error"] is None


BAD_REQUESTS = [
    ("memory.context.build", {}, "invalid_request"),
    ("memory.context.build", {"utterance": "   "}, "invalid_request"),
    ("memory.context.build", {"utterance": 42}, "invalid_request"),
    ("memory.context.build", {"utterance": "x" * 40000}, "too_large"),
    ("memory.context.build", {"utterance": "hi", "request_id": 7}, "invalid_request"),
    ("memory.context.build", {"utterance": "hi", "request_id": "r" * 129}, "invalid_request"),
    ("memory.context.build", {"utterance": "hi", "session_id": ""}, "invalid_request"),
    ("memory.context.build", {"utterance": "hi", "user_id": "a\nb"}, "invalid_request"),
    ("memory.context.build", {"utterance": "hi", "persona_id": "p" * 101}, "invalid_request"),
    ("memory.context.build", {"utterance": "hi", "user_id": ["x"]}, "invalid_request"),
    ("memory.history.update", {}, "invalid_request"),
    ("memory.history.update", {"messages": []}, "invalid_request"),
    ("memory.history.update", {"messages": "hello"}, "invalid_request"),
    ("memory.history.update", {"messages": [{"role": "robot", "content": "x"}]}, "invalid_request"),
    ("memory.history.update", {"messages": [{"role": "user"}]}, "invalid_request"),
    ("memory.history.update", {"messages": [{"role": "user", "content": None}]}, "invalid_request"),
    ("memory.history.update", {"messages": [None]}, "invalid_request"),
    ("memory.history.update", {"messages": [{"role": "user", "content": "x", "created_at": "yesterday"}]},
     "invalid_request"),
    ("memory.history.update", {"messages": [{"role": "user", "content": "x" * 33000}]}, "too_large"),
    ("memory.history.update", {"messages": [{"role": "user", "content": "x"}] * 101}, "too_large"),
    ("memory.history.update", {"messages": [{"role": "user", "content": "x", "tool_calls": "no"}]},
     "invalid_request"),
    ("memory.history.get", {"limit": 0}, "invalid_request"),
    ("memory.history.get", {"limit": "5"}, "invalid_request"),
    ("memory.recall", {}, "invalid_request"),
    ("memory.recall", {"query": "x", "limit": 51}, "invalid_request"),
    ("memory.recall", {"query": "x", "threshold": 1.5}, "invalid_request"),
    ("memory.recall", {"query": "x", "kinds": ["secrets"]}, "invalid_request"),
    ("memory.recall", {"query": "x", "scope": "galaxy"}, "invalid_request"),
    ("memory.list", {"limit": 201}, "invalid_request"),
    ("memory.list", {"offset": -1}, "invalid_request"),
    ("memory.remember", {}, "invalid_request"),
    ("memory.remember", {"content": "x", "kind": "turn"}, "invalid_request"),
    ("memory.forget", {}, "invalid_request"),
    ("memory.forget", {"ids": ["a"], "all": True}, "invalid_request"),
    ("memory.forget", {"ids": "a"}, "invalid_request"),
    ("memory.forget", {"ids": [1]}, "invalid_request"),
    ("memory.forget", {"all": "yes"}, "invalid_request"),
    ("memory.forget", {"all": True, "dry_run": "no"}, "invalid_request"),
    ("memory.pause", {"scope": "world"}, "invalid_request"),
    ("memory.persona.configure", {"memory_module": "recency"}, "invalid_request"),
    ("memory.persona.configure", {"persona_id": "p", "memory_module": "recency", "config": []},
     "invalid_request"),
    ("memory.persona.configure", {"persona_id": "p", "memory_module": "lexical",
                                  "config": {"inject_mode": "shout"}}, "invalid_request"),
]


@pytest.mark.parametrize("msg_type,data,code", BAD_REQUESTS)
def test_bad_input_gets_a_clear_error_and_changes_nothing(stack, msg_type, data, code):
    session = new_session()
    reply = stack.request(msg_type, data, session_id=session)
    assert reply["ok"] is False and reply["error"]["code"] == code, reply
    assert reply["error"]["message"]
    assert stack.ok("memory.stats", {}, session_id=session)["counts"]["turn"] == 0


def test_junk_messages_always_get_exactly_one_reply(stack):
    """Raw websocket frames, as a client in any language could send them."""
    replies = []
    stack.bus.on("memory.recall.response", lambda m: replies.append(m.data))
    junk = [None, [], "junk", 42, {"query": {"nested": True}}]
    for data in junk:
        stack.bus.client.send(json.dumps({"type": "memory.recall", "data": data,
                                          "context": {"session": "not a session"}}))
    stack.bus.client.send("{not json")
    deadline = time.monotonic() + 5
    while len(replies) < len(junk) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    assert len(replies) == len(junk) and all(r["ok"] is False for r in replies)
    assert all(r["error"]["code"] == "invalid_request" for r in replies)
    assert stack.ok("memory.stats", {})["ok"] is True  # and the service keeps answering


def test_every_request_type_answers(stack):
    session = new_session()
    minimal = {"memory.context.build": {"utterance": "hi"},
               "memory.history.update": {"messages": [{"role": "user", "content": "hi"}]},
               "memory.recall": {"query": "hi"}, "memory.remember": {"content": "I like tea"},
               "memory.forget": {"all": True, "dry_run": True},
               "memory.persona.configure": {"persona_id": "p1", "memory_module": "recency"}}
    for msg_type in REQUEST_TYPES:
        reply = stack.ok(msg_type, {"request_id": f"id-{msg_type}", **minimal.get(msg_type, {})},
                         session_id=session)
        assert reply["request_id"] == f"id-{msg_type}"
