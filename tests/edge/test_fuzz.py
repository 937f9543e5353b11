"""Fuzzing the bus edge (issue 13): thousands of seeded requests over every
``memory.*`` type, with malformed data and context, sent over a real bus to
the real daemon. Every request gets exactly one reply with a documented
code (never ``internal``), no scope is poisoned, and the daemon keeps answering.
"""
import json
import os
import random
import time
import uuid
from collections import Counter

import pytest
import websocket

from ovos_memory_service.common.client import MAX_FRAME_BYTES
from ovos_memory_service.edge.handlers import HANDLERS
from tests.edge.test_validation import RawBus

pytestmark = pytest.mark.stack
SEED = int(os.environ.get("MEMORY_FUZZ_SEED", "1313"))  # another seed explores further
REQUESTS = int(os.environ.get("MEMORY_FUZZ_REQUESTS", "3000"))  # the README figure: 34,000
IN_FLIGHT = 8
REPLY_TIMEOUT_S = 60
ERROR_CODES = {"invalid_request", "not_found", "too_large", "unavailable"}
# rare: these rebuild or rewrite the whole store
WEIGHTS = {"memory.admin.reindex": 0.05, "memory.admin.compact": 0.05, "memory.pause": 0.3,
           "memory.admin.import": 0.6, "memory.forget": 0.7}

USERS = ["fz-ann", "fz-bob", "fz-cy", "default"]
SESSIONS = ["default", "fz-s1", "fz-s2", "fz-s3"]
PERSONAS = ["fz-p1", "fz-p2"]
MODULES = ["recency", "lexical", "composite", "local-rag", "longterm", "entity",
           "ovos-memory-plugin-lexical", "ovos-persona-memory-service", "nope", ""]
ODD_TEXT = ["", " ", "\ud800", "a\udfffb", "\x00", "\x1b[2J", "line\nbreak", "\u202e", "\x85",
            "é" * 50, "🙂" * 20, "| [ ] ( ) { }", "{name}", "%s%n", "' OR 1=1 --", "NEAR(a b)",
            "\"unbalanced", "*", "x" * 40_000]
GOOD_TIMES = ["2024-05-01T10:00:00Z", "2024-05-01T10:00:00+02:00", "2030-01-01T00:00:00",
              "1970-01-01T00:00:00Z", "2100-12-31T23:59:59Z"]
BAD_TIMES = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "1970-01-01T00:00:00+01:00",
             "2100-12-31T23:59:59-14:00", "2024-02-30T00:00:00", "yesterday", "", "9" * 100,
             12345, 1.5e300, True, [], {}]


class RequestMaker:
    """A seeded generator of requests: mostly plausible, often malformed."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, options):
        return self.rng.choice(options)

    def garbage(self, depth: int = 0):
        """Any JSON value, sometimes huge or deep."""
        roll = self.rng.random()
        if roll < 0.02:
            return nested(self.pick([33, 40, 600]))
        if roll < 0.04:
            return "y" * self.pick([70_000, 300_000, 1_000_000])
        choices = [None, True, False, 0, -1, 2**63, -2**70, 1e308, -0.5, float("nan"), float("inf"),
                   self.pick(ODD_TEXT), "fact", "user", [], {}, self.rng.randint(-5, 500)]
        if depth < 3:
            choices += [[self.garbage(depth + 1) for _ in range(self.rng.randint(1, 3))],
                        {self.pick(["a", "kind", "id", "\ud800", ""]): self.garbage(depth + 1)}]
        return self.pick(choices)

    def text(self) -> object:
        if self.chance(0.75):
            return self.pick(["I live in Porto", "my dog is called Rex", "what is my dog's name",
                              "I like green tea", "where do I live", "remind me about trains",
                              f"note {self.rng.randint(0, 99)}"])
        return self.pick(ODD_TEXT) if self.chance(0.8) else self.garbage()

    def ident(self, pool) -> object:
        if self.chance(0.85):
            return self.pick(pool)
        return self.pick(["", "x" * 101, "\ud800", "a\x01", "a\x7f", "\x85", 5, None, ["fz-ann"],
                          {"id": "fz-ann"}, True, "ok-" + self.pick(["é", "🙂", "日本"])])

    def kinds(self):
        return self.pick([None, ["fact"], ["turn", "summary"], "preference", ["secret"], [], [None],
                          [["fact"]], {"fact": 1}, ["fact"] * 3, self.garbage()])

    def small_int(self, high: int):
        return self.pick([None, 1, 5, high, high + 1, 0, -1, 1.5, "5", True, 10**20, self.garbage()])

    def message(self) -> object:
        if self.chance(0.05):
            return self.garbage()
        msg = {"role": self.pick(["user", "assistant", "user", "assistant", "system", "tool",
                                  "robot", None, 3]),
               "content": self.text()}
        if self.chance(0.25):
            msg["created_at"] = self.pick(GOOD_TIMES + BAD_TIMES)
        if self.chance(0.1):
            msg["name"] = self.pick(["Ada", "\ud800", 7, "n" * 300, None])
        if self.chance(0.08):
            msg["tool_calls"] = self.pick([[{"id": "c1", "name": "search", "arguments": {"q": "x"}}],
                                           "calls", [{"id": 1}], [{"id": "c", "name": "n",
                                                                   "arguments": nested(40)}]])
        if self.chance(0.05):
            msg["tool_call_id"] = self.pick(["c1", 5, "\ud800"])
        return msg

    def record(self) -> object:
        if self.chance(0.1):
            return self.garbage()
        kind = self.pick(["fact", "turn", "summary", "preference", "bogus"])
        rec = {"id": f"fz-rec-{self.rng.randint(0, 400)}", "kind": kind, "user_id": self.ident(USERS),
               "session_id": self.ident(SESSIONS), "persona_id": self.pick([None, "fz-p1", 5]),
               "content": self.text(), "created_at": self.pick(GOOD_TIMES + BAD_TIMES)}
        if kind == "turn":
            rec.update(role=self.pick(["user", "assistant", "system"]),
                       conversation_id=self.pick(["fz-conv-1", "fz-conv-2", None]))
        for key in ("updated_at", "sources", "status", "confidence", "slot", "tool_calls"):
            if self.chance(0.15):
                rec[key] = self.pick(GOOD_TIMES + BAD_TIMES) if key == "updated_at" else self.garbage()
        return rec

    def filter(self):
        return self.pick([None, {}, {"user_id": self.ident(USERS)}, {"session_id": self.ident(SESSIONS)},
                          {"persona_id": self.ident(PERSONAS)}, {"kind": "fact"}, "fz-ann", ["user_id"],
                          self.garbage()])

    def fields(self, msg_type: str) -> dict:
        """The request's own fields, plausible first."""
        pick, text = self.pick, self.text
        where = lambda: pick([None, "user", "session", "all", "galaxy", ["user"], 1])  # noqa: E731
        if msg_type == "memory.context.build":
            return {"utterance": text()}
        if msg_type == "memory.history.update":
            count = pick([1, 1, 2, 2, 3, 5, 0, 101])
            return {"messages": [self.message() for _ in range(count)] if self.chance(0.95)
                    else self.garbage()}
        if msg_type == "memory.history.get":
            return {"limit": self.small_int(10_000)}
        if msg_type == "memory.recall":
            return {"query": text(), "limit": self.small_int(50), "kinds": self.kinds(), "scope": where(),
                    "threshold": pick([None, 0, 0.3, 1, 1.2, -0.1, "0.5", float("nan")])}
        if msg_type == "memory.list":
            return {"kinds": self.kinds(), "limit": self.small_int(200), "offset": self.small_int(10**9),
                    "scope": where()}
        if msg_type == "memory.remember":
            return {"content": text(), "kind": pick([None, "fact", "preference", "skill", "attribute",
                                                     "turn", ["fact"], 5])}
        if msg_type == "memory.forget":
            how = pick([{"ids": pick([[f"fz-rec-{self.rng.randint(0, 400)}"], [], "id", [5], ["\ud800"],
                                      ["x" * 200]])},
                        {"query": text()}, {"all": pick([True, "yes", 1])}, {}, {"ids": ["a"], "all": True}])
            return {**how, "dry_run": pick([True, True, False, "no", None]), "scope": where(),
                    "kinds": self.kinds() if self.chance(0.3) else None}
        if msg_type in ("memory.pause", "memory.resume"):
            return {"scope": where()}
        if msg_type == "memory.persona.configure":
            config = pick([{}, None, {"max_history": self.small_int(50)}, {"inject_mode": pick(
                ["system", "user", "tool", "nope", 3])}, {"scope": pick(["global", "session", ["x"], {}])},
                {"system_prompt": text()}, {"retrieval": self.garbage()}, "config", [1],
                {"fusion": pick(["rrf", "merge", "nope", {}])}])
            return {"persona_id": self.ident(PERSONAS), "memory_module": pick(MODULES + [None, 5, {"n": 1}]),
                    "config": config}
        if msg_type == "memory.admin.overview":
            return {"filter": self.filter()}
        if msg_type == "memory.admin.export":
            return {"filter": self.filter(), "offset": self.small_int(10**12), "limit": self.small_int(500)}
        if msg_type == "memory.admin.import":
            count = pick([1, 2, 3, 0, 501])
            return {"records": [self.record() for _ in range(count)] if self.chance(0.95) else self.garbage()}
        return {}

    def context(self):
        roll = self.rng.random()
        if roll < 0.08:
            return self.pick(["fz-ann", "", [], ["session"], 5, 0, True, None, 1.5])
        session = {"session_id": self.ident(SESSIONS)}
        if self.chance(0.1):
            session["persona_id"] = self.ident(PERSONAS)
        if self.chance(0.05):
            session["lang"] = self.pick(["en-us", "pt-pt", "\ud800", 5, "x" * 500])
        context = {"session": session}
        if roll < 0.14:
            context["session"] = self.pick([None, "s1", [], 5, {"session_id": None}, nested(35)])
        if self.chance(0.1):
            context["user_id"] = self.ident(USERS)
        if self.chance(0.01):
            context["deep"] = nested(self.pick([33, 600]))
        return context

    def request(self):
        """(msg_type, data, context, correlated): ``correlated`` is False when
        the reply cannot carry our request_id (bad or missing one)."""
        types = list(HANDLERS)
        msg_type = self.rng.choices(types, [WEIGHTS.get(t, 1.0) for t in types])[0]
        if self.chance(0.02):
            msg_type = self.pick(["memory.history.update", "memory.recall"])
        data = {k: v for k, v in self.fields(msg_type).items() if v is not None or self.chance(0.3)}
        for key in ("user_id", "session_id", "persona_id"):
            if self.chance(0.12):
                data[key] = self.ident({"user_id": USERS, "session_id": SESSIONS,
                                        "persona_id": PERSONAS}[key])
        if self.chance(0.1) and data:
            data[self.pick(list(data))] = self.garbage()
        if self.chance(0.03):
            data[self.pick(["extra", "\ud800", "request"])] = self.garbage()
        if self.chance(0.03):
            return msg_type, self.pick(["data", [], 5, None, True, [data]]), self.context(), False
        if self.chance(0.03):
            data["request_id"] = self.pick([5, "r" * 129, "\ud800", "", "a\x00", [], None])
            return msg_type, data, self.context(), False
        data["request_id"] = uuid.uuid4().hex
        return msg_type, data, self.context(), True


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmRSS:"))


def nested(depth: int):
    value = "bottom"
    for _ in range(depth):
        value = {"n": value}
    return value


class Exchange:
    """Requests in flight on one raw connection, and every reply seen."""

    def __init__(self, bus: RawBus):
        self.bus = bus
        self.pending = {}  # request_id -> (msg_type, data) of a request not answered yet
        self.sent = set()  # our unique request_ids
        self.replies = Counter()  # request_id -> replies seen
        self.codes = Counter()
        self.internal = []

    def send(self, msg_type, data, context, correlated: bool):
        frame = json.dumps({"type": msg_type, "data": data, "context": context})
        assert len(frame) < MAX_FRAME_BYTES  # larger frames are skipped unanswered (test_validation)
        self.bus.send_frame(frame)
        if correlated:
            self.pending[data["request_id"]] = (msg_type, frame[:300])
            self.sent.add(data["request_id"])
        else:  # sent alone (see run): the next reply of its type is its own
            self.receive(lambda reply_type, _: reply_type == f"{msg_type}.response", frame[:300])

    def receive(self, done, what: str):
        """Handle replies until ``done(type, data)`` says one is the awaited one."""
        deadline = time.monotonic() + REPLY_TIMEOUT_S
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no reply within {REPLY_TIMEOUT_S} s to {what}")
            self.bus.ws.settimeout(left)
            try:
                _, frame = self.bus.ws.recv_data()
            except websocket.WebSocketTimeoutException:
                continue
            try:
                message = json.loads(frame.decode("utf-8"))
                reply_type, reply = message["type"], message["data"]
            except (ValueError, TypeError, KeyError, RecursionError):
                continue
            if not reply_type.endswith(".response") or not reply_type.startswith("memory."):
                continue
            self.record(reply_type, reply)
            if done(reply_type, reply):
                return

    def record(self, reply_type: str, reply: dict):
        assert isinstance(reply, dict) and isinstance(reply.get("ok"), bool), reply
        request_id = reply.get("request_id")
        if isinstance(request_id, str):
            self.replies[request_id] += 1
            self.pending.pop(request_id, None)
        code = "ok" if reply["ok"] else reply["error"]["code"]
        self.codes[code] += 1
        if code == "internal":
            self.internal.append((reply_type, reply))

    def wait_below(self, count: int):
        if len(self.pending) >= count:
            oldest = next(iter(self.pending.values()))
            self.receive(lambda *_: len(self.pending) < count, f"{oldest[0]} {oldest[1]}")


def test_fuzz_every_request_type(fresh_stack):
    stack = fresh_stack
    stack.start_service()
    rss_before = rss_mb(stack.service.pid)
    bus = RawBus(stack.port)
    exchange = Exchange(bus)
    maker = RequestMaker(SEED)
    types = Counter()
    started = time.monotonic()
    try:
        for _ in range(REQUESTS):
            msg_type, data, context, correlated = maker.request()
            types[msg_type] += 1
            exchange.wait_below(IN_FLIGHT if correlated else 1)
            exchange.send(msg_type, data, context, correlated)
        exchange.wait_below(1)
        # one more round trip: a duplicate reply would have arrived by now
        final = bus.send("memory.stats", {}, {})
        exchange.receive(lambda _, reply: reply.get("request_id") == final, "the last stats")
    finally:
        bus.close()
    elapsed = time.monotonic() - started
    print(f"\nfuzz: {REQUESTS} requests in {elapsed:.0f} s (seed {SEED}); replies per code: "
          f"{dict(sorted(exchange.codes.items()))}; requests per type: {dict(sorted(types.items()))}; "
          f"daemon RSS {rss_before:.0f} -> {rss_mb(stack.service.pid):.0f} MB")
    assert not exchange.internal, exchange.internal[:5]
    assert set(exchange.codes) <= ERROR_CODES | {"ok"}, exchange.codes
    assert sum(exchange.codes.values()) == REQUESTS + 1
    assert all(exchange.replies[rid] == 1 for rid in exchange.sent)
    assert stack.service.poll() is None
    assert_no_scope_poisoned(stack)


def assert_no_scope_poisoned(stack):
    """Every user in the store, and every pool user, can still read everything."""
    users = {u["user_id"] for u in stack.ok("memory.admin.overview", {})["users"]} | set(USERS)
    for user in sorted(users):
        records = stack.ok("memory.admin.export", {"filter": {"user_id": user}, "limit": 500})["records"]
        stack.ok("memory.admin.overview", {"filter": {"user_id": user}})
        sessions = {r["session_id"] for r in records} | {"default"}
        for session in sorted(sessions)[:10]:
            data = {"user_id": user, "session_id": session}
            stack.ok("memory.history.get", data)
            stack.ok("memory.list", {**data, "limit": 200})
            stack.ok("memory.recall", {**data, "query": "where do I live"})
            stack.ok("memory.context.build", {**data, "utterance": "what is my dog's name"})
    stack.ok("memory.stats", {})
