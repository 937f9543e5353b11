"""Two daemons, two buses, one memory (issue 17): two real ovos-memory-service
daemons, each on its own real ovos-messagebus (tests/sandbox.Stack: own port,
own data_dir), sharing one PostgreSQL schema on the real server of tests/pg.py.

What one daemon acknowledges, the other serves: nothing lost, nothing stored
twice (a retry over the other bus included), facts learnt by one recalled on
the other, a forget through one gone from the other's recall at once (and
announced on the other bus), a pause through one honoured by the other, and a
daemon killed with SIGKILL mid-write loses nothing it acknowledged while the
other takes over its claimed background jobs (long before their lease ends).
"""
import signal
import socket
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from ovos_memory_service.common.client import MemoryTimeout
from ovos_memory_service.store.postgresql.connection import CLAIMANTS
from ovos_memory_service.store.postgresql.memories import EMBEDDABLE
from tests.helpers import eventually
from tests.sandbox import Stack, verified

pytestmark = pytest.mark.stack

SESSION = "kitchen"
LEASE_S = 300  # store/postgresql/jobs.py: a claim's lease; takeover must not wait for it


# ------------------------------------------------------------------ set-up
def store_block(pg_server, schema: str) -> dict:
    return {"backend": "postgresql", "dsn": pg_server.dsn, "schema": schema}


def start_pair(root, block) -> tuple:
    """Two buses, then two daemons started at once on the same schema (the
    migrations are applied once: connection.prepare_database's advisory lock)."""
    stacks = []
    try:
        for name in ("a", "b"):
            stacks.append(Stack(root / name, {"store": block}))
        with ThreadPoolExecutor(2) as pool:
            for started in [pool.submit(s.start_service) for s in stacks]:
                started.result()
    except BaseException:
        for s in stacks:
            s.close()
        raise
    assert stacks[0].port != stacks[1].port and stacks[0].data_dir != stacks[1].data_dir
    return tuple(stacks)


@pytest.fixture(scope="module")
def pair(pg_server, tmp_path_factory):
    """Daemons A and B, shared by the tests that kill neither (each its own users)."""
    schema = pg_server.new_schema()
    a, b = start_pair(tmp_path_factory.mktemp("two-daemons"), store_block(pg_server, schema))
    yield a, b, schema
    for s in (a, b):
        s.close()
    pg_server.drop_schema(schema)


def sql(pg_server, schema: str, query: str, args=()) -> list:
    """Rows of ``query`` in the shared schema, read beside the daemons."""
    import psycopg
    with psycopg.connect(pg_server.dsn, autocommit=True) as conn:
        conn.execute(f"SET search_path TO {schema}, public")
        return conn.execute(query, list(args)).fetchall()


# ------------------------------------------------------------------ requests
def exchange(text: str, answer: str = None) -> list:
    return [{"role": "user", "content": text}, {"role": "assistant", "content": answer or f"noted: {text}"}]


def update(stack, user: str, messages: list, request_id: str = None, session: str = SESSION, timeout=20) -> dict:
    data = {"messages": messages, "user_id": user}
    if request_id is not None:
        data["request_id"] = request_id
    return stack.ok("memory.history.update", data, session_id=session, timeout=timeout)


def export(stack, user: str) -> list:
    """Every stored memory of ``user`` (memory.admin.export), in the store's order."""
    records, offset = [], 0
    while True:
        page = stack.ok("memory.admin.export", {"filter": {"user_id": user}, "offset": offset, "limit": 500})
        records += page["records"]
        offset += len(page["records"])
        if not page["records"] or offset >= page["total"]:
            return records


def listed(stack, user: str, kinds=("turn",)) -> list:
    """Every memory of ``user`` memory.list pages through (every persona)."""
    items, offset = [], 0
    while True:
        page = stack.ok("memory.list", {"user_id": user, "kinds": list(kinds), "scope": "all",
                                        "limit": 200, "offset": offset}, session_id=SESSION)
        items += page["memories"]
        offset += len(page["memories"])
        if not page["memories"] or offset >= page["total"]:
            assert len(items) == page["total"]
            return items


def recall(stack, user: str, query: str, kinds=None) -> list:
    data = {"user_id": user, "query": query, "threshold": 0, "limit": 50}
    if kinds:
        data["kinds"] = list(kinds)
    return stack.ok("memory.recall", data, session_id=SESSION)["memories"]


def stats(stack, user: str = "nobody") -> dict:
    return stack.ok("memory.stats", {"user_id": user})


def check_turns(records: list, sent: dict, acked: dict):
    """The user's stored turns are exactly the acknowledged requests' turns:
    each request's pair once, adjacent (no interleaving), nothing else."""
    turns = [r for r in records if r["kind"] == "turn"]
    ids = [r["id"] for r in turns]
    assert len(ids) == len(set(ids))
    expected = [i for reply_ids in acked.values() for i in reply_ids]
    lost = set(expected) - set(ids)
    assert not lost, f"{len(lost)} acknowledged turns lost"
    extra = set(ids) - set(expected)
    assert not extra, f"{len(extra)} turns stored that no reply acknowledged"
    contents = [r["content"] for r in turns]
    duplicated = {c for c in contents if contents.count(c) > 1}
    assert not duplicated, f"stored twice: {sorted(duplicated)[:5]}"
    position = {memory_id: n for n, memory_id in enumerate(ids)}
    for request_id, (user_turn, assistant_turn) in acked.items():
        assert position[assistant_turn] == position[user_turn] + 1, request_id
        assert [turns[position[user_turn]]["content"], turns[position[assistant_turn]]["content"]] == \
            [m["content"] for m in sent[request_id]]


# ------------------------------------------------- concurrent writes, retries
def test_concurrent_writes_through_both_buses_lose_nothing_and_store_nothing_twice(pair):
    a, b, _ = pair
    users, per_writer = ("ana", "ben"), 30
    sent, acked, errors = {}, {}, []
    lock = threading.Lock()

    def writer(stack, name, user):
        other = b if stack is a else a
        try:
            for i in range(per_writer):
                request_id = f"{name}-{user}-{i}"
                messages = exchange(f"{user} tells daemon {name} about item number {i}")
                with lock:
                    sent[request_id] = messages
                reply = update(stack, user, messages, request_id)
                assert reply["stored"] == 2 and len(reply["ids"]) == 2, reply
                with lock:
                    acked[request_id] = reply["ids"]
                if i % 5 == 0:  # the caller retries through the other bus (a failover)
                    again = update(other, user, messages, request_id)
                    assert again["ids"] == reply["ids"] and again["stored"] == 2, (reply, again)
        except BaseException as e:
            errors.append(e)

    # two writers per (daemon, user), all eight at once
    threads = [threading.Thread(target=writer, args=(stack, f"{name}{k}", user))
               for stack, name in ((a, "A"), (b, "B")) for user in users for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    assert len(acked) == 4 * len(users) * per_writer

    # the same new request sent through both buses at the same moment: stored once
    for user in users:
        for i in range(10):
            request_id, messages = f"race-{user}-{i}", exchange(f"{user} says the racing line {i}")
            sent[request_id] = messages
            with ThreadPoolExecutor(2) as pool:
                replies = list(pool.map(lambda s: update(s, user, messages, request_id), (a, b)))
            assert replies[0]["ids"] == replies[1]["ids"] and len(replies[0]["ids"]) == 2, replies
            acked[request_id] = replies[0]["ids"]

    for user in users:
        mine = {rid: ids for rid, ids in acked.items() if f"-{user}-" in rid}
        for stack in (a, b):  # either daemon serves the same memory
            records = export(stack, user)
            check_turns(records, sent, mine)
            assert len({r["conversation_id"] for r in records if r["kind"] == "turn"}) == 1  # one conversation
            assert {m["id"] for m in listed(stack, user)} == {i for ids in mine.values() for i in ids}


# ------------------------------------------------------------------- facts
def test_a_fact_learnt_through_one_daemon_is_recalled_through_the_other(pair):
    a, b, _ = pair
    update(a, "cleo", exchange("My dog is called Rex", "What a nice name"), uuid.uuid4().hex)

    def fact_on_b():
        return [m for m in recall(b, "cleo", "what is my dog called?", ["fact"])
                if m["content"] == "Has a dog called Rex"]
    found = eventually(fact_on_b, 30, what="B to recall the fact A's turn taught")[0]
    assert found["kind"] == "fact" and len(found["sources"]) == 1

    # the same statement through both buses at once: one fact, whoever learns it
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda s: update(s, "cleo", exchange("My dog is called Rex"), uuid.uuid4().hex,
                                       session=f"{s.port}"), (a, b)))
    eventually(lambda: stats(b, "cleo")["pending_jobs"] == 0, 30, what="the fact jobs")
    facts = listed(b, "cleo", ["fact"])
    assert [f["content"] for f in facts] == ["Has a dog called Rex"]
    assert [f["id"] for f in listed(a, "cleo", ["fact"])] == [found["id"]] == [f["id"] for f in facts]


# ------------------------------------------------------------------ forget
def test_a_forget_through_one_daemon_is_gone_from_the_other_at_once_and_announced_on_its_bus(pair):
    a, b, _ = pair
    user = "dora"
    said_request = uuid.uuid4().hex
    said = update(b, user, exchange("My sister is called Eva", "Nice to know"), said_request)["ids"]
    kept = update(b, user, exchange("The spare key is under the blue flowerpot", "Got it"), uuid.uuid4().hex)["ids"]
    fact = eventually(lambda: [m for m in recall(a, user, "what is my sister called?", ["fact"])
                               if m["sources"] == [said[0]]], 30, what="the sister fact")[0]
    # embedded too: the forget must remove what semantic recall would find
    eventually(lambda: stats(a)["pending_jobs"] == 0, 60, what="the embeddings")
    before = {m["id"] for m in recall(b, user, "my sister Eva")}
    assert {said[0], fact["id"]} <= before

    heard = {"a": [], "b": []}
    done = threading.Event()

    def on_b(message):
        if message.data.get("user_id") == user:
            heard["b"].append(message.data)
            done.set()
    b.bus.on("memory.forgotten", on_b)
    a.bus.on("memory.forgotten", lambda m: heard["a"].append(m.data) if m.data.get("user_id") == user else None)
    try:
        reply = a.ok("memory.forget", {"user_id": user, "ids": said}, session_id=SESSION)
        assert set(reply["ids"]) == {*said, fact["id"]}  # the fact learnt only from it goes with it
        # at once on B (no wait): neither recall nor list nor export has any of it
        gone = set(reply["ids"])
        assert not gone & {m["id"] for m in recall(b, user, "my sister Eva")}
        assert not gone & {m["id"] for m in recall(b, user, "what is my sister called?", ["fact"])}
        assert not gone & {m["id"] for m in listed(b, user, ["turn", "fact"])}
        assert not gone & {r["id"] for r in export(b, user)}
        assert {r["id"] for r in export(b, user)} == set(kept)
        built = b.ok("memory.context.build", {"user_id": user, "utterance": "what is my sister called?"},
                     session=verified(SESSION))
        assert not gone & {m["id"] for m in built["memories"]}
        assert not any("Eva" in str(m["content"]) for m in built["messages"][:-1]), built["messages"]
        assert any("flowerpot" in str(m["content"]) for m in built["messages"])  # what was kept still is
        # B's bus is told by B's daemon (it heard A's NOTIFY), ids only
        assert done.wait(10), "no memory.forgotten on B's bus"
        assert {i for d in heard["b"] for i in d["ids"]} == gone
        assert all(set(d) == {"user_id", "ids"} for d in heard["b"])
        eventually(lambda: {i for d in heard["a"] for i in d["ids"]} == gone, 10, what="A's own announcement")
        # a retry of the forgotten request through B brings nothing back
        again = update(b, user, exchange("My sister is called Eva", "Nice to know"), said_request)
        assert (again["stored"], again["ids"], again.get("forgotten")) == (0, [], 2)
        assert {r["id"] for r in export(a, user)} == set(kept)
    finally:
        b.bus.remove_all_listeners("memory.forgotten")
        a.bus.remove_all_listeners("memory.forgotten")


# ------------------------------------------------------------------- pause
def test_a_pause_through_one_daemon_is_honoured_by_the_other(pair):
    a, b, _ = pair
    user = "eli"
    assert a.ok("memory.pause", {"user_id": user}, session_id=SESSION)["paused"] is True
    reply = update(b, user, exchange("Please do not keep this"), uuid.uuid4().hex)
    assert (reply["stored"], reply["ids"], reply.get("paused")) == (0, [], True)
    assert stats(b, user)["paused"] is True
    assert export(b, user) == []
    assert b.ok("memory.resume", {"user_id": user}, session_id=SESSION)["paused"] is False
    assert update(a, user, exchange("Now you may keep this"), uuid.uuid4().hex)["stored"] == 2

    # a session's pause too: that session only
    assert b.ok("memory.pause", {"user_id": user, "scope": "session"}, session_id="bedroom")["paused"] is True
    assert update(a, user, exchange("A bedroom secret"), uuid.uuid4().hex, session="bedroom")["paused"] is True
    assert update(a, user, exchange("A kitchen note"), uuid.uuid4().hex)["stored"] == 2
    assert [r["content"] for r in export(b, user) if r["role"] == "user"] == ["Now you may keep this",
                                                                               "A kitchen note"]


# ----------------------------------------------------------- kill -9 of one
def claimant_of(pg_server, schema, pid: int) -> int:
    """The claimant number of the daemon with process id ``pid``: the advisory
    lock its store's own session holds (connection.Presence)."""
    name = f"ovos-memory-service ({socket.gethostname()}:{pid})"[:63]
    rows = sql(pg_server, schema, "SELECT l.objid::bigint FROM pg_locks l JOIN pg_stat_activity s ON s.pid = l.pid "
               "WHERE l.locktype = 'advisory' AND l.classid = %s AND l.objsubid = 2 AND l.granted "
               "AND s.application_name = %s", [CLAIMANTS, name])
    assert len(rows) == 1, rows
    return rows[0][0]


def sessions_of(pg_server, schema, pid: int) -> int:
    name = f"ovos-memory-service ({socket.gethostname()}:{pid})"[:63]
    return sql(pg_server, schema, "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [name])[0][0]


def test_kill_9_of_one_daemon_mid_write_loses_nothing_it_acknowledged_and_the_other_takes_over_its_jobs(
        pg_server, tmp_path):
    schema = pg_server.new_schema()
    a, b = start_pair(tmp_path, store_block(pg_server, schema))
    try:
        _kill_one_mid_write(pg_server, schema, a, b)
    finally:
        for s in (a, b):
            s.close()
        pg_server.drop_schema(schema)


def _kill_one_mid_write(pg_server, schema, a, b):
    users = ("finn", "gus")
    sent, acked, errors = {}, {}, []
    lock = threading.Lock()
    a_claimant = claimant_of(pg_server, schema, a.service.pid)

    # a backlog of embeddings and fact jobs, queued through A
    for n in range(20):
        for user in users:
            messages = [m for i in range(10) for m in exchange(f"{user} backlog line {n}.{i} about the garden")]
            request_id = f"backlog-{user}-{n}"
            sent[request_id] = messages
            acked[request_id] = update(a, user, messages, request_id)["ids"]
            assert len(acked[request_id]) == 20

    stop_writing = threading.Event()
    failed_over = []

    def writer(name, user):
        """One exchange at a time through its daemon; when a reply does not
        come (A died), the same request again through B, and on through B."""
        stack, i = (a if name == "A" else b), 0
        try:
            while not stop_writing.is_set():
                request_id = f"{name}-{user}-{i}"
                messages = exchange(f"{user} tells daemon {name} live line {i}")
                with lock:
                    sent[request_id] = messages
                try:
                    reply = update(stack, user, messages, request_id, timeout=3 if stack is a else 30)
                except MemoryTimeout:
                    assert stack is a
                    failed_over.append(request_id)
                    stack = b
                    reply = update(b, user, messages, request_id, timeout=30)
                assert reply["stored"] == 2 and len(reply["ids"]) == 2, reply
                with lock:
                    acked[request_id] = reply["ids"]
                i += 1
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(name, user)) for name in ("A", "B") for user in users]
    for t in threads:
        t.start()
    try:
        eventually(lambda: len(acked) > len(users) * 20 + 40 or errors, 60, what="writes through both daemons")
        assert not errors, errors[0]

        # A frozen, then killed: the jobs it held at that moment are orphaned
        orphans = []

        def freeze_a_holding_jobs():
            a.service.send_signal(signal.SIGSTOP)
            held = sql(pg_server, schema, "SELECT id, queue, subject FROM jobs WHERE claimant = %s "
                       "AND claimed_until > extract(epoch FROM now())", [a_claimant])
            if held:
                orphans.extend(held)
                return True
            a.service.send_signal(signal.SIGCONT)  # between two batches: let it claim the next
            time.sleep(0.02)
            return False
        eventually(freeze_a_holding_jobs, 60, interval=0, what="A to hold claimed jobs")
        a.service.send_signal(signal.SIGKILL)
        a.service.wait(10)
        killed_at = time.monotonic()
        eventually(lambda: sessions_of(pg_server, schema, a.service.pid) == 0, 10, what="A's sessions to end")

        eventually(lambda: len(failed_over) == len(users) or errors, 30, what="A's writers to fail over to B")
        at_failover = len(acked)
        eventually(lambda: len(acked) >= at_failover + 40 or errors, 60, what="writes through B after the failover")
    finally:
        stop_writing.set()
        for t in threads:
            t.join(60)
    assert not errors, errors[0]
    assert len(sent) == len(acked)  # every request acknowledged (through B after the kill)

    # B takes over A's orphaned claims long before their lease would end
    orphan_ids = [job_id for job_id, _, _ in orphans]
    eventually(lambda: not sql(pg_server, schema, "SELECT 1 FROM jobs WHERE id = ANY(%s)", [orphan_ids]),
               90, what="B to finish the jobs A held when it died")
    assert time.monotonic() - killed_at < LEASE_S / 3
    eventually(lambda: stats(b)["pending_jobs"] == 0, 120, what="B to drain the queues")
    embedded = {r[0] for r in sql(pg_server, schema, "SELECT id FROM memory_vectors WHERE id = ANY(%s)",
                                  [[subject for _, queue, subject in orphans if queue == "embed"]])}
    assert embedded == {subject for _, queue, subject in orphans if queue == "embed"}

    # nothing A acknowledged is lost, nothing is stored twice
    for user in users:
        mine = {rid: ids for rid, ids in acked.items() if f"-{user}-" in rid}
        records = export(b, user)
        turns = [r for r in records if r["kind"] == "turn"]
        expected = {i for ids in mine.values() for i in ids}
        assert {r["id"] for r in turns} == expected
        contents = [r["content"] for r in turns]
        assert len(contents) == len(set(contents))
        assert len(contents) == sum(len(sent[rid]) for rid in mine)

    # every embeddable memory has its vector
    embeddable = sql(pg_server, schema, f"SELECT count(*) FROM memories m WHERE {EMBEDDABLE}")[0][0]
    assert sql(pg_server, schema, f"SELECT count(*) FROM memories m WHERE {EMBEDDABLE} AND NOT EXISTS "
               "(SELECT 1 FROM memory_vectors v WHERE v.seq = m.seq)")[0][0] == 0
    final = stats(b)
    assert final["pending_jobs"] == 0 and final["vectors"] == embeddable == sum(
        len(ids) for ids in acked.values()) + sum(stats(b, u)["counts"]["fact"] for u in users)
