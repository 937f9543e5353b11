"""Soak: the daemon's memory (RSS) and vector index under continuous mixed traffic.

Starts a real ``python -m ovos_messagebus`` and the real service in a temporary
HOME/XDG sandbox (``tests.sandbox.Stack``), then runs ``--clients`` bus clients,
each its own user and bus connection, sending requests back to back for
``--minutes`` (with the systemd unit's Environment= lines):
``memory.history.update`` (half of them, one ``[user, assistant]``
exchange of varying length), ``memory.context.build``, ``memory.recall`` and
``memory.list``. Every ``--every`` seconds it prints the requests/s of that
interval, errors, the daemon's RSS (VmRSS from /proc/<pid>/status) and its
anonymous part (smaps_rollup: what the daemon itself allocated, without the
pages of shared libraries), its threads, the pending background jobs and the
LanceDB table's versions and data files; at the end it waits for the queues to
drain and prints RSS again, then one line with RSS idle, after 30 s, peak and
end.

Run from the repository root:

    python benchmarks/soak.py                     # 10 clients, 30 minutes
    python benchmarks/soak.py --minutes 5
    python benchmarks/soak.py --minutes 5 --config '{"embeddings": {"enabled": false}}'
"""
import os
import sys
import tempfile

# Sandbox before any OVOS import: ovos_config fixes its paths when imported.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests.isolation import isolate  # noqa: E402

isolate(tempfile.mkdtemp(prefix="ovos-memory-soak-"))


def unit_environment() -> dict:
    """The Environment= lines of the systemd unit: the daemon runs as installed."""
    unit = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "systemd", "ovos-memory-service.service")
    env = {}
    for line in open(unit):
        if line.startswith("Environment="):
            for pair in line.split("=", 1)[1].split():
                key, _, value = pair.partition("=")
                env[key] = value.strip('"')
    return env


for _key, _value in unit_environment().items():  # the sandbox's processes inherit them
    os.environ.setdefault(_key, _value)

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from ovos_memory_service.common.client import MemoryClient  # noqa: E402
from ovos_memory_service.store.sqlite.lance_index import TABLE  # noqa: E402
from tests.sandbox import Stack, connect  # noqa: E402

WORDS = ("garden tomato bicycle passport guitar sister doctor meeting kitten lisbon train recipe "
         "birthday marathon piano budget holiday museum coffee umbrella library window concert "
         "dentist wedding laptop mountain river forest beach basil compost lantern").split()


def sentence(rng: random.Random) -> str:
    """Lengths vary a lot, as real turns do (and as embedding batch shapes then do)."""
    return " ".join(rng.choice(WORDS) for _ in range(rng.choice((3, 6, 12, 25, 60, 120)))) + "."


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def anonymous_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Anonymous:"):
            return int(line.split()[1]) / 1024
    return 0.0


def threads(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/task").iterdir()))


def table_files(data_dir: Path) -> tuple:
    """(versions, data files) of the LanceDB table."""
    table = data_dir / "vectors" / f"{TABLE}.lance"
    count = (lambda sub: len(list((table / sub).glob("*"))) if (table / sub).is_dir() else 0)
    return count("_versions"), count("data")


class Client(threading.Thread):
    def __init__(self, port: int, index: int, stop: threading.Event, seed: int):
        super().__init__(daemon=True)
        self.bus = connect(port)
        self.client = MemoryClient(self.bus)
        self.context = {"session": {"session_id": f"soak-{index}"}, "user_id": f"user-{index}"}
        self.stop_event = stop
        self.rng = random.Random(seed + index)
        self.done = 0
        self.errors = 0

    def one(self):
        rng = self.rng
        kind = rng.choices(["update", "build", "recall", "list"], weights=[50, 25, 15, 10])[0]
        if kind == "update":
            data = {"messages": [{"role": "user", "content": sentence(rng)},
                                 {"role": "assistant", "content": sentence(rng)}]}
            msg_type = "memory.history.update"
        elif kind == "build":
            data, msg_type = {"utterance": sentence(rng)}, "memory.context.build"
        elif kind == "recall":
            data, msg_type = {"query": sentence(rng), "limit": 5}, "memory.recall"
        else:
            data, msg_type = {"limit": 20}, "memory.list"
        reply = self.client.request(msg_type, data, self.context, timeout=30)
        if not reply.get("ok"):
            raise RuntimeError(reply.get("error"))

    def run(self):
        while not self.stop_event.is_set():
            try:
                self.one()
            except Exception as e:
                self.errors += 1
                print(f"  client error: {e}", flush=True)
            self.done += 1

    def close(self):
        self.client.close()
        self.bus.close()


def stats(stack: Stack) -> dict:
    return stack.ok("memory.stats", {}, timeout=30)


def wait_semantic(stack: Stack, timeout: float = 180):
    """Until the model and the vector index are loaded (they may load after
    the daemon is ready), so that the idle figure includes them."""
    deadline = time.monotonic() + timeout
    while stats(stack).get("semantic_recall") == "loading":
        if time.monotonic() > deadline:
            raise TimeoutError(f"semantic recall still loading after {timeout} s")
        time.sleep(0.5)
    time.sleep(5)  # settled


def report(label: str, stack: Stack, elapsed: float, rate: float, errors: int):
    s = stats(stack)
    versions, files = table_files(stack.data_dir)
    pid = stack.service.pid
    print(f"{label:>8} {elapsed:7.0f}s  {rate:6.1f} req/s  errors {errors:3d}  "
          f"RSS {rss_mb(pid):6.1f} MB (anon {anonymous_mb(pid):6.1f})  threads {threads(pid):3d}  "
          f"pending {s['pending_jobs'] - s['llm_jobs']:5d}  "
          f"vectors {s['vectors']:6d}  versions {versions:4d}  data files {files:4d}", flush=True)
    return s


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--every", type=float, default=30, help="seconds between reports")
    parser.add_argument("--config", default="{}", help="memory_service config (JSON) for the daemon")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--drain-timeout", type=float, default=900)
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="ovos-memory-soak-stack-"))
    stack = Stack(root, json.loads(args.config))
    stack.start_service()
    wait_semantic(stack)
    stop = threading.Event()
    clients = [Client(stack.port, i, stop, args.seed) for i in range(args.clients)]
    try:
        print(f"{args.clients} clients for {args.minutes} min; daemon pid {stack.service.pid}", flush=True)
        peak = idle = rss_mb(stack.service.pid)
        at_30s = None
        report("idle", stack, 0, 0, 0)
        start = last = time.monotonic()
        last_done = 0
        for c in clients:
            c.start()
        end = start + args.minutes * 60
        while time.monotonic() < end:
            time.sleep(max(0.0, min(args.every, end - time.monotonic())))
            now = time.monotonic()
            done = sum(c.done for c in clients)
            peak = max(peak, rss_mb(stack.service.pid))
            if at_30s is None and now - start >= 30:
                at_30s = rss_mb(stack.service.pid)
            report("load", stack, now - start, (done - last_done) / (now - last), sum(c.errors for c in clients))
            last, last_done = now, done
        stop.set()
        for c in clients:
            c.join(60)
        total = sum(c.done for c in clients)
        errors = sum(c.errors for c in clients)
        seconds = time.monotonic() - start
        deadline = time.monotonic() + args.drain_timeout
        while True:
            s = stats(stack)
            if s["pending_jobs"] - s["llm_jobs"] == 0:
                break
            if time.monotonic() > deadline:
                print(f"the queues did not drain within {args.drain_timeout} s", flush=True)
                break
            peak = max(peak, rss_mb(stack.service.pid))
            time.sleep(2)
        report("drained", stack, time.monotonic() - start, 0, errors)
        time.sleep(10)
        end_rss = rss_mb(stack.service.pid)
        print(f"requests {total} in {seconds:.0f} s ({total / seconds:.1f} req/s), errors {errors}; "
              f"RSS idle {idle:.1f} MB, after 30 s {at_30s or 0:.1f} MB, peak {peak:.1f} MB, "
              f"end (drained, +10 s) {end_rss:.1f} MB (anon {anonymous_mb(stack.service.pid):.1f})", flush=True)
    finally:
        stop.set()
        for c in clients:
            c.close()
        stack.close()


if __name__ == "__main__":
    main()
