"""Latency of ``memory.context.build`` and ``memory.history.update``.

Each operation is timed three ways, at each store size (stored turns):

- ``in-process``: ``MemoryEngine.build_context`` / ``MemoryEngine.update_history``
  called directly: the service's own time, no bus.
- ``bus``: the same request sent with ``MemoryClient`` through a real
  ``python -m ovos_messagebus`` to the real service subprocess (``tests.sandbox.Stack``).
- ``echo-on-bus``: the same request data sent as ``bench.echo`` to a bare
  responder subprocess on the same bus that only replies ``{"request_id", "ok"}``:
  the cost of the bus hop alone. Bus and echo samples are interleaved.

The store is pre-filled in-process with generated conversations (fixed seed,
several users and sessions, sentences built from small topic word lists, so the
FTS keyword search has real work), then copied, so every transport starts from
exactly the same store. Builds use utterances that share words with the stored
turns; each update stores one ``[user, assistant]`` pair, as ovos-persona
0.9.0a35 does. The persona backend is the default (hybrid: the recent window,
keyword and semantic recall, fused), and every pre-filled turn is embedded
before timing starts. Everything runs in a temporary HOME/XDG sandbox.

Run from the repository root:

    python benchmarks/bench_latency.py                       # 300 samples, 1k and 10k turns
    python benchmarks/bench_latency.py --samples 50 --sizes 1000
"""
import os
import sys
import tempfile

# Sandbox before any OVOS import: ovos_config fixes its paths when imported.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests.isolation import isolate  # noqa: E402

if sys.argv[1:2] != ["--echo"]:  # the echo child inherits the Stack's sandbox
    _ROOT = tempfile.mkdtemp(prefix="ovos-memory-bench-")
    isolate(_ROOT)

import argparse  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from pathlib import Path  # noqa: E402

from ovos_memory_service.config import build_config  # noqa: E402
from ovos_memory_service.engine import MemoryEngine  # noqa: E402
from ovos_memory_service.scope import Scope  # noqa: E402
from ovos_memory_service.wire import iso_time, parse_messages  # noqa: E402
from tests.sandbox import Stack, connect, stop  # noqa: E402

SEED = 1234
LANG = "en-us"
USERS = ["alice", "bob", "carol", "dave", "erin"]
DEVICES = ["kitchen", "car", "phone"]
BENCH_USER, BENCH_SESSION = "alice", "alice-kitchen"  # the scope that builds and updates
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


def conversations(rng: random.Random, turns: int):
    """(scope, messages) pairs holding ``turns`` turns in all, oldest first,
    spread over 90 days; the last one, for the bench scope, ended a minute ago."""
    favourite = {u: rng.sample(list(TOPICS), 3) for u in USERS}
    last_pairs = min(6, turns // 2)
    convs, budget = [], turns // 2 - last_pairs
    while budget > 0:
        user = rng.choice(USERS)
        pairs = min(budget, rng.randint(2, 8))
        topic = rng.choice(favourite[user])
        msgs = [m for _ in range(pairs) for m in exchange(rng, topic)]
        convs.append((scope_of(user, f"{user}-{rng.choice(DEVICES)}"), msgs))
        budget -= pairs
    topic = favourite[BENCH_USER][0]
    convs.append((scope_of(BENCH_USER, BENCH_SESSION),
                  [m for _ in range(last_pairs) for m in exchange(rng, topic)]))
    now, span = time.time(), 90 * 86400
    step = span / len(convs)
    for i, (_, msgs) in enumerate(convs):
        start = now - span + i * step if i < len(convs) - 1 else now - 60 - 30 * len(msgs)
        for j, m in enumerate(msgs):
            m["created_at"] = iso_time(start + 30 * j)
    return convs


def prefill(directory: Path, turns: int):
    engine = MemoryEngine(build_config({"data_dir": str(directory)}))
    engine.open()
    try:
        for scope, msgs in conversations(random.Random(SEED), turns):
            engine.update_history(scope, parse_messages(msgs))
        engine.wait_idle(timeout=3600)  # measure with every turn embedded
        return sum(n for _, kind, n, _ in engine.store.users_overview() if kind == "turn")
    finally:
        engine.close()


def workload(samples: int):
    """Build utterances and update exchanges, the same for every transport."""
    rng = random.Random(SEED + 1)
    utterances = [sentence(rng, USER_LINES, rng.choice(list(TOPICS))) for _ in range(samples)]
    updates = [exchange(rng, rng.choice(list(TOPICS))) for _ in range(samples)]
    return utterances, updates


# --------------------------------------------------------------- timing
def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def in_process(directory: Path, utterances, updates, warmup: int) -> dict:
    engine = MemoryEngine(build_config({"data_dir": str(directory)}))
    engine.open()
    scope = scope_of(BENCH_USER, BENCH_SESSION)
    try:
        for u in utterances[:warmup]:
            engine.build_context(scope, u)
        build = [timed(lambda: engine.build_context(scope, u)) for u in utterances]
        recalled = statistics.mean(len(engine.build_context(scope, u).memories) for u in utterances)
        update = [timed(lambda: engine.update_history(scope, parse_messages(m), uuid.uuid4().hex))
                  for m in updates]
        return {"build": build, "update": update, "recalled": recalled}
    finally:
        engine.close()


def echo_responder(port: int):
    """Child process: answer every ``bench.echo`` with only request_id and ok."""
    bus = connect(port)
    bus.on("bench.echo", lambda m: bus.emit(
        m.response({"request_id": m.data.get("request_id"), "ok": True})))
    threading.Event().wait()  # until SIGTERM


def over_bus(root: Path, template: Path, utterances, updates, warmup: int) -> dict:
    times = {"build": [], "update": [], "echo build": [], "echo update": []}
    stack = Stack(root)
    echo = None
    try:
        shutil.copytree(template, stack.data_dir)
        stack.start_service()
        echo = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--echo", str(stack.port)],
                                env=stack.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        context = {"session": {"session_id": BENCH_SESSION, "lang": LANG}}

        def call(msg_type, data, timeout=30):
            reply = stack.client.request(msg_type, data, context, timeout=timeout)
            if reply.get("ok") is not True:
                raise RuntimeError(f"{msg_type} failed: {reply}")

        deadline = time.monotonic() + 15
        while True:  # the echo child is up once it answers
            try:
                call("bench.echo", {}, timeout=0.5)
                break
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise
        jobs = [("build", "memory.context.build",
                 [{"utterance": u, "user_id": BENCH_USER} for u in utterances]),
                ("update", "memory.history.update",
                 [{"messages": m, "user_id": BENCH_USER} for m in updates])]
        for name, msg_type, requests in jobs:
            for data in requests[:warmup]:
                call(msg_type, dict(data))
                call("bench.echo", dict(data))
            for data in requests:  # interleaved, so drift hits both alike
                times[name].append(timed(lambda: call(msg_type, dict(data))))
                times["echo " + name].append(timed(lambda: call("bench.echo", dict(data))))
        return times
    finally:
        if echo is not None:
            stop(echo)
        stack.close()


# --------------------------------------------------------------- report
def p50(xs):
    return statistics.median(xs)


def p95(xs):
    return statistics.quantiles(xs, n=100, method="inclusive")[94]


def report(results: dict):
    header = f"{'operation':<22} {'transport':<12} {'turns':>7} {'samples':>7} {'p50 ms':>8} {'p95 ms':>8}"
    print("\n" + header + "\n" + "-" * len(header))
    ops = [("build", "memory.context.build"), ("update", "memory.history.update")]
    for name, op in ops:
        for transport, where, key in (("in-process", "local", name), ("bus", "bus", name),
                                      ("echo-on-bus", "bus", "echo " + name)):
            for size, res in results.items():
                xs = res[where][key]
                print(f"{op:<22} {transport:<12} {size:>7} {len(xs):>7} {p50(xs):>8.2f} {p95(xs):>8.2f}")
    print("\nmedian ratio bus / echo-on-bus (the difference is what the service adds for a caller;"
          "\nwork done while a reply waits on the bus's Nagle/delayed-ACK timer hides in that wait,"
          "\nso it can be smaller than the in-process time):")
    for name, op in ops:
        for size, res in results.items():
            bus, echo = res["bus"][name], res["bus"]["echo " + name]
            print(f"  {op:<22} {size:>7} turns: {p50(bus) / p50(echo):5.2f}x  "
                  f"(bus {p50(bus):.2f} ms, echo {p50(echo):.2f} ms, "
                  f"difference {p50(bus) - p50(echo):.2f} ms)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=300, help="timed requests per cell")
    parser.add_argument("--sizes", default="1000,10000", help="stored turns, comma separated")
    parser.add_argument("--warmup", type=int, default=10, help="untimed requests before each cell")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.samples < 2 or any(s < 2 for s in sizes):
        parser.error("--samples and every size must be at least 2")
    utterances, updates = workload(args.samples)
    results = {}
    try:
        for size in sizes:
            work = Path(_ROOT) / f"size-{size}"
            started = time.perf_counter()
            stored = prefill(work / "template", size)
            print(f"{size} turns: pre-filled {stored} turns in {time.perf_counter() - started:.1f} s",
                  flush=True)
            shutil.copytree(work / "template", work / "local")
            local = in_process(work / "local", utterances, updates, args.warmup)
            print(f"  in-process done; a build recalls {local['recalled']:.1f} memories on average",
                  flush=True)
            bus = over_bus(work / "stack", work / "template", utterances, updates, args.warmup)
            print("  bus done", flush=True)
            results[size] = {"local": local, "bus": bus}
        report(results)
    finally:
        shutil.rmtree(_ROOT, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--echo"]:
        echo_responder(int(sys.argv[2]))
    else:
        main()
