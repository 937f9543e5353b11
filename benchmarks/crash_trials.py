"""Crash trials: kill -9 the daemon at random moments under continuous writes.

Starts a real ``python -m ovos_messagebus`` and the real service in a temporary
sandbox (``tests.sandbox.Stack``). Two writers send one exchange per
``memory.history.update`` back to back, each turn's text unique, and keep the
ids of every acknowledged turn. ``--trials`` times, after 2-8 s of writes,
the daemon gets SIGKILL and is started again; after each restart the script
measures how long semantic recall (a local-rag persona, so vectors only) takes
to find the last turn acknowledged before the kill. At the end it prints the
acknowledged turns lost or stored twice, what is still waiting for a vector
and how long the queue takes to drain, the LanceDB table's versions, and
SQLite's integrity check.

    python benchmarks/crash_trials.py                  # 20 trials
    python benchmarks/crash_trials.py --trials 5
"""
import os
import sys
import tempfile

# Sandbox before any OVOS import: ovos_config fixes its paths when imported.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests.isolation import isolate  # noqa: E402

isolate(tempfile.mkdtemp(prefix="ovos-memory-crash-"))

import argparse  # noqa: E402
import random  # noqa: E402
import signal  # noqa: E402
import sqlite3  # noqa: E402
import statistics  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from pathlib import Path  # noqa: E402

from ovos_memory_service.common.client import MemoryClient, MemoryTimeout  # noqa: E402
from ovos_memory_service.store.sqlite.lance_index import TABLE  # noqa: E402
from tests.sandbox import Stack, connect  # noqa: E402

PERSONA = "crash-rag"
WORDS = ("garden tomato bicycle passport guitar sister doctor meeting kitten lisbon train recipe "
         "birthday marathon piano budget holiday museum coffee umbrella library window concert").split()


class Writer(threading.Thread):
    """One exchange per request, as people talk, until stopped."""

    def __init__(self, port: int, name: str, seed: int):
        super().__init__(daemon=True)
        self.client = MemoryClient(connect(port))
        self.name_ = name
        self.rng = random.Random(seed)
        self.stop_event = threading.Event()
        self.acked = {}  # memory id -> content
        self.last = None  # (id, content) of the newest acknowledged user turn
        self.failed = 0

    def run(self):
        n = 0
        while not self.stop_event.is_set():
            said = f"{self.name_} turn {n}: " + " ".join(self.rng.choice(WORDS) for _ in range(8))
            n += 1
            try:
                reply = self.client.request("memory.history.update", {"persona_id": PERSONA, "messages": [
                    {"role": "user", "content": said}, {"role": "assistant", "content": f"noted {n}"}]},
                    {"session": {"session_id": self.name_}}, timeout=2)
            except MemoryTimeout:  # the daemon is down: try again
                self.failed += 1
                continue
            if not reply.get("ok"):
                self.failed += 1
                time.sleep(0.2)
                continue
            ids = reply["ids"]
            self.acked[ids[0]] = said
            self.acked[ids[1]] = f"noted {n}"
            self.last = (ids[0], said)


def configure(stack: Stack):
    stack.ok("memory.persona.configure", {"persona_id": PERSONA, "memory_module": "ovos-memory-plugin-local-rag",
                                          "config": {}})


def found_by_meaning(stack: Stack, session: str, content: str) -> bool:
    hits = stack.ok("memory.recall", {"query": content, "persona_id": PERSONA, "threshold": 0, "limit": 3,
                                      "kinds": ["turn"]}, session_id=session)["memories"]
    return any(h["content"] == content for h in hits)


def versions(data_dir: Path) -> int:
    return len(list((data_dir / "vectors" / f"{TABLE}.lance" / "_versions").glob("*.manifest")))


def pending(stack: Stack) -> int:
    stats = stack.ok("memory.stats", {})
    return stats["pending_jobs"] - stats["llm_jobs"]


def stored_contents(stack: Stack) -> Counter:
    counts, offset = Counter(), 0
    while True:
        page = stack.ok("memory.admin.export", {"offset": offset, "limit": 500}, timeout=60)
        counts.update((r["id"], r["content"]) for r in page["records"] if r["kind"] == "turn")
        offset += 500
        if offset >= page["total"]:
            return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    stack = Stack(Path(tempfile.mkdtemp(prefix="crash-stack-")))
    try:
        stack.start_service()
        configure(stack)
        writers = [Writer(stack.port, f"writer-{i}", args.seed + i) for i in range(2)]
        for w in writers:
            w.start()
        found_after, not_found = [], 0
        for trial in range(args.trials):
            time.sleep(rng.uniform(2, 8))
            last = [w.last for w in writers if w.last]
            stack.stop_service(signal.SIGKILL)
            stack.start_service()
            restarted = time.monotonic()
            target = rng.choice(last)
            session = next(w.name_ for w in writers if w.acked.get(target[0]) == target[1])
            took = None
            while took is None and time.monotonic() - restarted <= 60:
                if found_by_meaning(stack, session, target[1]):
                    took = time.monotonic() - restarted
                else:
                    time.sleep(0.5)
            if took is None:
                not_found += 1
            else:
                found_after.append(took)
            print(f"trial {trial + 1}: {sum(len(w.acked) for w in writers)} turns acknowledged so far; the last "
                  f"before the kill found by meaning {'not within 60 s' if took is None else f'after {took:.1f} s'}; "
                  f"table versions {versions(stack.data_dir)}", flush=True)
        for w in writers:
            w.stop_event.set()
        for w in writers:
            w.join()
        waiting = pending(stack)
        drain_started = time.monotonic()
        while pending(stack) and time.monotonic() - drain_started < 600:
            time.sleep(0.5)
        drained = time.monotonic() - drain_started
        acked = {i: c for w in writers for i, c in w.acked.items()}
        stored = stored_contents(stack)
        stored_ids = Counter(i for i, _ in stored.elements())
        lost = [i for i in acked if stored_ids[i] == 0]
        twice = [c for c in Counter(c for _, c in stored.elements()).items() if c[1] > 1 and not c[0].startswith("noted")]
        final_versions = versions(stack.data_dir)
        stack.stop_service()
        check = sqlite3.connect(stack.data_dir / "memory.db").execute("PRAGMA integrity_check").fetchone()[0]
        print(f"\n{args.trials} kills under continuous writes (2 writers, one exchange per request)")
        print(f"acknowledged turns: {len(acked)}; lost: {len(lost)}; stored twice: {len(twice)}; "
              f"requests without an acknowledgement (in flight at a kill): {sum(w.failed for w in writers)}")
        print(f"the turn acknowledged last before a kill, found by semantic recall: {len(found_after)} of "
              f"{args.trials} within 60 s (median {statistics.median(found_after) if found_after else float('nan'):.1f} s, "
              f"max {max(found_after, default=float('nan')):.1f} s after the restart)")
        print(f"waiting for a vector when the writes stopped: {waiting}; drained in {drained:.1f} s")
        print(f"LanceDB table versions at the end: {final_versions}; SQLite integrity_check: {check}")
    finally:
        stack.close()


if __name__ == "__main__":
    main()
