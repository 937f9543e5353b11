"""No input can break a user's memory, and every failure answers clearly
(issue 13): timestamps, ids and text, context, nesting and frame size, raw
websocket frames, storage errors, and the repair of a store that already holds
a bad value. A real bus and the real daemon; raw frames go straight to the bus.
"""
import errno
import json
import os
import sqlite3
import subprocess
import uuid
from pathlib import Path

import pytest
import websocket

SURROGATE = "\ud800"
BAD_TIMES = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "1969-12-31T23:59:59Z",
             "2101-01-01T00:00:00Z"]


class RawBus:
    """A websocket client of our own: sends any frame, even ones
    ovos-bus-client refuses to build, and waits for a reply by request_id."""

    def __init__(self, port: int):
        self.ws = websocket.create_connection(f"ws://127.0.0.1:{port}/core", timeout=30,
                                              skip_utf8_validation=True)
        self.early = []  # (type, data) of replies read while waiting for another

    def send_frame(self, frame, opcode=websocket.ABNF.OPCODE_TEXT):
        self.ws.send(frame, opcode=opcode)

    def send(self, msg_type: str, data=None, context=None, **fields) -> str:
        """Send a request (``data``/``context`` as given, any JSON); its request_id."""
        request_id = uuid.uuid4().hex
        if isinstance(data, dict):
            data = {"request_id": request_id, **data}
        self.send_frame(json.dumps({"type": msg_type, "data": data, "context": context, **fields}))
        return request_id

    def wait_reply(self, msg_type: str, request_id=None, timeout: float = 15) -> dict:
        """The data of the next reply to ``msg_type`` carrying ``request_id``
        (None: a reply with no request_id). Raises TimeoutError."""
        wanted = lambda reply_type, data: (reply_type == f"{msg_type}.response"  # noqa: E731
                                           and isinstance(data, dict) and data.get("request_id") == request_id)
        for entry in self.early:  # replies come in any order
            if wanted(*entry):
                self.early.remove(entry)
                return entry[1]
        self.ws.settimeout(timeout)
        while True:
            try:
                _, frame = self.ws.recv_data()
            except websocket.WebSocketTimeoutException:
                raise TimeoutError(f"no reply to {msg_type} within {timeout} s")
            try:
                message = json.loads(frame.decode("utf-8"))
            except (ValueError, RecursionError):  # raw garbage, echoed by the bus
                continue
            if not isinstance(message, dict) or not str(message.get("type")).endswith(".response"):
                continue
            if wanted(message["type"], message.get("data")):
                return message["data"]
            self.early.append((message["type"], message.get("data")))

    def request(self, msg_type: str, data=None, context=None, timeout: float = 15, **fields) -> dict:
        request_id = self.send(msg_type, data, context, **fields)
        return self.wait_reply(msg_type, request_id if isinstance(data, dict) else None, timeout)

    def close(self):
        self.ws.close()


@pytest.fixture
def raw(stack):
    bus = RawBus(stack.port)
    yield bus
    bus.close()


def new_id(prefix="v"):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def code_of(reply: dict):
    return None if reply.get("ok") else reply["error"]["code"]


def session_ctx(session_id: str, **session) -> dict:
    return {"session": {"session_id": session_id, **session}}


def assert_scope_healthy(stack, session_id: str, user_id: str = None):
    """Every read of the scope works (a poisoned value makes them fail)."""
    data = {"user_id": user_id} if user_id else {}
    for msg_type, extra in (("memory.history.get", {}), ("memory.list", {}),
                            ("memory.recall", {"query": "anything at all"}),
                            ("memory.context.build", {"utterance": "hello"}),
                            ("memory.stats", {})):
        stack.ok(msg_type, {**data, **extra}, session_id=session_id)
    user = user_id or session_id
    stack.ok("memory.admin.export", {"filter": {"user_id": user}})
    stack.ok("memory.admin.overview", {"filter": {"user_id": user}})
    stack.ok("memory.admin.overview", {})


# --------------------------------------------------------------- timestamps
@pytest.mark.stack
@pytest.mark.parametrize("when", BAD_TIMES)
def test_out_of_range_created_at_is_refused_and_stores_nothing(stack, when):
    session = new_id()
    reply = stack.request("memory.history.update", {"messages": [
        {"role": "user", "content": "an old story", "created_at": when},
        {"role": "assistant", "content": "indeed", "created_at": when}]}, session_id=session)
    assert code_of(reply) == "invalid_request", reply
    assert "created_at" in reply["error"]["message"]
    assert stack.ok("memory.history.get", {}, session_id=session)["messages"] == []
    assert stack.ok("memory.list", {}, session_id=session)["total"] == 0
    assert_scope_healthy(stack, session)


@pytest.mark.stack
def test_created_at_is_normalised_to_utc(stack):
    session = new_id()
    stack.ok("memory.history.update", {"messages": [
        {"role": "user", "content": "new year", "created_at": "2024-01-01T10:00:00+14:00"}]},
        session_id=session)
    records = stack.ok("memory.admin.export", {"filter": {"session_id": session}})["records"]
    assert records[0]["created_at"] == "2023-12-31T20:00:00.000Z"


@pytest.mark.stack
@pytest.mark.parametrize("when", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"])
def test_import_of_a_record_out_of_range_is_refused(stack, when):
    user = new_id("u")
    record = {"id": new_id("m"), "kind": "fact", "user_id": user, "session_id": "default",
              "content": "born long ago", "created_at": "2020-01-01T00:00:00Z", "updated_at": when}
    reply = stack.request("memory.admin.import", {"records": [record]})
    assert code_of(reply) == "invalid_request", reply
    reply = stack.request("memory.admin.import", {"records": [{**record, "created_at": when}]})
    assert code_of(reply) == "invalid_request", reply
    assert stack.ok("memory.admin.overview", {"filter": {"user_id": user}})["users"] == []
    stack.ok("memory.admin.overview", {})


# ------------------------------------------------------------ ids and text
@pytest.mark.stack
@pytest.mark.parametrize("field", ["user_id", "session_id", "persona_id"])
@pytest.mark.parametrize("bad", [SURROGATE, "a\x01b", "a\x7fb", "a\x85b", "x" * 101])
def test_bad_ids_are_invalid_requests(raw, field, bad):
    reply = raw.request("memory.remember", {"content": "I like tea", field: bad})
    assert code_of(reply) == "invalid_request", reply
    context = {"user_id": {"user_id": bad}, "session_id": session_ctx(bad),
               "persona_id": session_ctx(new_id(), persona_id=bad)}[field]
    reply = raw.request("memory.history.get", {}, context)
    assert code_of(reply) == "invalid_request", reply


@pytest.mark.stack
@pytest.mark.parametrize("bad", [SURROGATE, "r\x00", "r\x1b[31m"])
def test_bad_request_ids_get_an_error_reply(raw, bad):
    """The reply cannot echo such an id; it still comes, without it."""
    raw.send_frame(json.dumps({"type": "memory.stats", "data": {"request_id": bad}, "context": {}}))
    reply = raw.wait_reply("memory.stats", None if bad == SURROGATE else bad)
    assert code_of(reply) == "invalid_request", reply


@pytest.mark.stack
@pytest.mark.parametrize("msg_type,data", [
    ("memory.history.update", {"messages": [{"role": "user", "content": f"hi {SURROGATE}"}]}),
    ("memory.history.update", {"messages": [{"role": "user", "content": "hi", "name": SURROGATE}]}),
    ("memory.history.update", {"messages": [{"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "name": "search", "arguments": {"q": SURROGATE}}]}]}),
    ("memory.context.build", {"utterance": SURROGATE + "hello"}),
    ("memory.recall", {"query": "tea " + SURROGATE}),
    ("memory.remember", {"content": "I like " + SURROGATE}),
    ("memory.forget", {"query": SURROGATE, "dry_run": True}),
    ("memory.persona.configure", {"persona_id": "p1", "memory_module": "recency",
                                  "config": {"system_prompt": SURROGATE}}),
])
def test_lone_surrogates_in_text_are_invalid_requests(stack, raw, msg_type, data):
    session = new_id()
    reply = raw.request(msg_type, data, session_ctx(session))
    assert code_of(reply) == "invalid_request", reply
    assert stack.ok("memory.list", {}, session_id=session)["total"] == 0
    assert_scope_healthy(stack, session)


# ------------------------------------------------------------------ context
@pytest.mark.stack
@pytest.mark.parametrize("context", ["alice", "", [], [1, 2], 5, 0, True,
                                     {"session": "s1"}, {"session": []}, {"session": 7}])
def test_a_context_that_is_not_an_object_is_refused(stack, raw, context):
    before = stack.ok("memory.list", {}, session_id="default")["total"]
    reply = raw.request("memory.remember", {"content": f"context test {uuid.uuid4().hex}"}, context)
    assert code_of(reply) == "invalid_request", reply
    reply = raw.request("memory.forget", {"all": True, "dry_run": True}, context)
    assert code_of(reply) == "invalid_request", reply
    assert stack.ok("memory.list", {}, session_id="default")["total"] == before


@pytest.mark.stack
def test_null_session_and_null_scope_are_absent(stack, raw):
    reply = raw.request("memory.list", {"user_id": new_id("u")}, {"session": None})
    assert reply["ok"] is True, reply
    reply = raw.request("memory.list", {"scope": None}, session_ctx(new_id()))
    assert reply["ok"] is True, reply
    reply = raw.request("memory.recall", {"query": "tea", "scope": None}, session_ctx(new_id()))
    assert reply["ok"] is True, reply
    reply = raw.request("memory.stats", {}, None)
    assert reply["ok"] is True, reply


# ------------------------------------------------- nesting depth and frames
def nested(depth: int):
    value = "bottom"
    for _ in range(depth):
        value = {"x": value}
    return value


@pytest.mark.stack
def test_deeply_nested_context_or_data_gets_an_error_reply(stack, raw):
    reply = raw.request("memory.stats", {}, {"session": {"session_id": new_id()}, "deep": nested(600)})
    assert code_of(reply) == "invalid_request", reply
    reply = raw.request("memory.history.update", {"messages": [{"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "name": "f", "arguments": nested(600)}]}]}, session_ctx(new_id()))
    assert code_of(reply) == "invalid_request", reply
    stack.ok("memory.stats", {})


def deep_frame(msg_type: str, request_id: str, depth: int, shape: str = "dict") -> str:
    """A request whose context holds a value nested ``depth`` levels deep,
    written out (json.dumps itself gives up at about 1000 levels)."""
    opening, closing = {"dict": ('{"x": ', "}"), "list": ("[", "]")}[shape]
    deep = opening * depth + "1" + closing * depth
    return (f'{{"type": "{msg_type}", "data": {{"request_id": "{request_id}"}}, '
            f'"context": {{"session": {{"session_id": "{new_id()}"}}, "deep": {deep}}}}}')


@pytest.mark.stack
@pytest.mark.parametrize("depth,shape", [(700, "dict"), (1500, "dict"), (5000, "list"), (200_000, "list")])
def test_a_context_nested_far_deeper_gets_an_error_reply(stack, raw, depth, shape):
    """Issue 37: such a frame got no reply at all. Python's JSON decoder
    recurses, and past the interpreter's recursion limit (1000 frames, less
    the receiving thread's own depth) it raised RecursionError, and the frame
    was dropped as "not JSON" before its type or request_id were read."""
    request_id = uuid.uuid4().hex
    raw.send_frame(deep_frame("memory.stats", request_id, depth, shape))
    reply = raw.wait_reply("memory.stats", request_id)
    assert code_of(reply) == "invalid_request", reply
    assert "nest" in reply["error"]["message"]
    stack.ok("memory.stats", {})


@pytest.mark.stack
def test_a_huge_frame_is_refused_and_others_are_answered(stack, raw):
    session = new_id()
    request_id = raw.send("memory.history.update", {"messages": [
        {"role": "user", "content": "x" * (9 * 1024 * 1024 + 512 * 1024)}]}, session_ctx(session))
    stack.ok("memory.stats", {}, session_id=new_id())  # another client, answered meanwhile
    assert code_of(raw.wait_reply("memory.history.update", request_id)) == "too_large"
    assert stack.ok("memory.list", {}, session_id=session)["total"] == 0


@pytest.mark.stack
def test_a_frame_over_the_frame_limit_leaves_the_service_answering(stack):
    sender = RawBus(stack.port)
    try:
        sender.send("memory.remember", {"content": "y" * (17 * 1024 * 1024)}, {})
    except (websocket.WebSocketException, OSError):
        pass  # the bus may close the sender's connection
    finally:
        sender.close()
    stack.ok("memory.stats", {})


@pytest.mark.stack
def test_binary_frames_never_disconnect_the_service(stack, raw):
    """ovos-messagebus forwards a binary frame as text: invalid UTF-8 used to
    make the daemon drop its connection (5 s without answers)."""
    for frame in (b"\xff\xfe", b"\x80abc", b"{\"type\": \"memory.stats\", \"data\": {}}\xff"):
        raw.send_frame(frame, opcode=websocket.ABNF.OPCODE_BINARY)
    raw.send_frame("{not json at all", opcode=websocket.ABNF.OPCODE_TEXT)
    raw.send_frame(json.dumps(["a", "list"]))
    raw.send_frame(json.dumps({"type": 5, "data": {}}))
    raw.send_frame('{"type": "memory.stats", "data": {}, "context": ' + "[" * 5000 + "]" * 5000 + "}")
    sent = [raw.send("memory.stats", {}, {}) for _ in range(10)]
    for request_id in sent:
        assert raw.wait_reply("memory.stats", request_id)["ok"] is True  # lost for good before


# ------------------------------------------------------ codes, not internal
@pytest.mark.stack
@pytest.mark.parametrize("given", [{"user_id": SURROGATE}, {"user_id": 5}, "alice", ["user_id"],
                                   {"user_id": "u", "kind": "fact"}, {"session_id": {"a": 1}}, 7, True])
def test_admin_overview_with_an_odd_filter(raw, given):
    reply = raw.request("memory.admin.overview", {"filter": given})
    assert code_of(reply) == "invalid_request", reply


@pytest.mark.stack
@pytest.mark.parametrize("data", [
    {"persona_id": {"name": "Ada", "solvers": ["x"]}, "memory_module": "recency"},
    {"persona_id": ["ada"], "memory_module": "recency"},
    {"persona_id": "ada", "memory_module": {"name": "recency"}},
    {"persona_id": "ada", "memory_module": "recency", "config": ["max_history", 5]},
    {"persona_id": "ada", "memory_module": "recency", "config": "max_history"},
])
def test_persona_configure_with_objects_where_ids_belong(raw, data):
    reply = raw.request("memory.persona.configure", data)
    assert code_of(reply) == "invalid_request", reply


@pytest.mark.stack
@pytest.mark.parametrize("msg_type,data", [
    ("memory.list", {"limit": 1.5}), ("memory.list", {"offset": "3"}), ("memory.list", {"kinds": {}}),
    ("memory.list", {"kinds": [["fact"]]}), ("memory.list", {"scope": ["user"]}),
    ("memory.recall", {"query": "x", "threshold": float("nan")}),
    ("memory.recall", {"query": "x", "kinds": [None]}),
    ("memory.forget", {"ids": [{"id": "x"}]}), ("memory.forget", {"all": "yes"}),
    ("memory.admin.export", {"limit": -1}), ("memory.admin.import", {"records": [["x"]]}),
    ("memory.admin.import", {"records": [{"id": "a", "kind": "fact", "user_id": "u", "session_id": "s",
                                          "content": "c", "created_at": 12345}]}),
    ("memory.admin.import", {"records": [{"id": "conf-1", "kind": "fact", "user_id": "u", "session_id": "s",
                                          "content": "c", "created_at": "2024-01-01T00:00:00Z",
                                          "confidence": 7}]}),
    ("memory.history.update", {"messages": [{"role": "user", "content": "x", "created_at": "2024-13-45"}]}),
    ("memory.history.update", {"messages": [{"role": "user", "content": "x", "created_at": "9" * 5000}]}),
])
def test_malformed_fields_get_invalid_request(raw, msg_type, data):
    reply = raw.request(msg_type, data, session_ctx(new_id()))
    assert code_of(reply) == "invalid_request", reply


@pytest.mark.stack
def test_data_that_is_not_an_object(raw):
    for data in ("text", [1], 3, ""):
        raw.send_frame(json.dumps({"type": "memory.stats", "data": data, "context": {}}))
        assert code_of(raw.wait_reply("memory.stats", None)) == "invalid_request"


# ----------------------------------------------------------- forgetting news
@pytest.mark.stack
def test_forgetting_is_announced_with_ids_only(stack, raw):
    session = new_id()
    secret = f"my locker code is {uuid.uuid4().hex[:6]}"
    ids = stack.ok("memory.history.update", {"messages": [{"role": "user", "content": secret}]},
                   session_id=session)["ids"]
    stack.ok("memory.forget", {"ids": ids}, session_id=session)
    raw.ws.settimeout(10)
    while True:
        message = json.loads(raw.ws.recv_data()[1])
        if message["type"] == "memory.forgotten" and message["data"].get("user_id") == session:
            break
    assert message["data"] == {"user_id": session, "ids": ids}
    assert secret not in json.dumps(message)


# ------------------------------------------------------------ storage errors
@pytest.fixture
def small_disk(tmp_path):
    """A 24 MiB tmpfs for the service's store (CI runs as root)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(mount)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {result.stderr.strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=True)


def fill(directory: Path) -> Path:
    """Write a file until the file system is full; returns it."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 1):  # then the last bytes of the last block
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError as e:
                assert e.errno == errno.ENOSPC, e
    finally:
        os.close(fd)
    return filler


@pytest.mark.stack
def test_a_full_disk_answers_unavailable_and_recovers(tmp_path, small_disk):
    from tests.sandbox import Stack
    stack = Stack(tmp_path / "stack", {"data_dir": str(small_disk / "memory")})
    try:
        stack.start_service()
        session = new_id()
        kept = stack.ok("memory.history.update", {"messages": [
            {"role": "user", "content": "my bike is blue"}, {"role": "assistant", "content": "nice"}]},
            session_id=session)["ids"]
        stack.ok("memory.admin.compact", {})  # an empty WAL: the next write needs new space
        filler = fill(small_disk)
        big = [{"role": "user", "content": f"line {i} " + "z" * 30000} for i in range(40)]
        reply = stack.request("memory.history.update", {"request_id": "full-1", "messages": big},
                              session_id=session)
        assert code_of(reply) == "unavailable", reply
        assert "disk is full" in reply["error"]["message"]
        reply = stack.request("memory.remember", {"content": "I live in Porto " + "w" * 30000},
                              session_id=session)
        assert code_of(reply) == "unavailable", reply
        health = stack.ok("memory.stats", {}, session_id=session)
        assert "disk is full" in health["storage_error"]["message"]
        assert health["storage_error"]["at"].endswith("Z")
        history = stack.ok("memory.history.get", {}, session_id=session)["messages"]
        assert [m["id"] for m in history] == kept
        filler.unlink()
        stored = stack.ok("memory.history.update", {"request_id": "full-1", "messages": big},
                          session_id=session)
        assert stored["stored"] == 40
        assert stack.ok("memory.stats", {}, session_id=session)["storage_error"] is None
        history = stack.ok("memory.history.get", {"limit": 100}, session_id=session)["messages"]
        assert [m["id"] for m in history] == kept + stored["ids"]
        stack.restart_service()
        history = stack.ok("memory.history.get", {"limit": 100}, session_id=session)["messages"]
        assert [m["id"] for m in history] == kept + stored["ids"]
    finally:
        stack.close()


# ------------------------------------------------- repairing a poisoned store
def test_migration_repairs_times_out_of_range(make_engine, tmp_path):
    from tests.helpers import exchange, scope
    engine = make_engine(embeddings={"enabled": False})
    alice = scope("alice", "s1")
    ids = exchange(engine, alice, "I keep bees", "how sweet")["ids"]
    fact = engine.remember(alice, "my favourite colour is green")
    engine.close()
    db_path = tmp_path / "memory" / "memory.db"
    conn = sqlite3.connect(db_path)
    conn.execute("UPDATE memories SET created_at = -62135596800.0 WHERE id = ?", [ids[0]])
    conn.execute("UPDATE memories SET created_at = 253402300799.0, updated_at = 9e999 WHERE id = ?", [ids[1]])
    conn.execute("UPDATE memories SET created_at = 'soon', updated_at = -1e308 WHERE id = ?", [fact])
    conn.execute("UPDATE conversations SET started_at = -62135596800.0, updated_at = 9e999")
    # a store written before this migration existed
    conn.execute("DELETE FROM _sqlite_migrations WHERE name LIKE 'm006%'")
    conn.commit()
    conn.close()

    engine = make_engine(embeddings={"enabled": False})
    assert [m.id for m in engine.get_history(alice, 10)] == ids
    assert {m.id for m in engine.list(alice)[0]} == {*ids, fact}
    assert [m.to_wire() for m in engine.recall(alice, "bees")]
    assert len(engine.export(user_id="alice")["records"]) == 3
    assert engine.overview()["users"][0]["total"] == 3
    for item in engine.list(alice)[0]:
        assert "1970-01-01" <= item.to_wire()["created_at"] <= "2101"
