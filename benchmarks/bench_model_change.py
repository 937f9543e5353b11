"""A model change on a filled store, as the daemon meets it: how long until the
new model answers, and what recall by meaning has meanwhile.

It copies a store that ``benchmarks/bench_latency.py`` filled (its cache:
turns embedded with all-MiniLM-L6-v2), opens it as the daemon does with
``embeddings.model`` set to ``--to``, and every ``--every`` seconds until the
store is embedded again it samples:

- ``vectors``: how many memories are searched by meaning (memory.stats);
- a context build and a recall by meaning alone (``semantic_search``) of a
  random user, with the utterances bench_latency.py asks: the build's latency,
  and whether the semantic search found anything.

Run from the repository root, after ``python benchmarks/bench_latency.py
--sizes N`` has filled the store of N turns (it is cached):

    python benchmarks/bench_model_change.py --turns 10000
"""
import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# first: importing it puts the process in its temporary HOME/XDG sandbox (_ROOT)
from benchmarks import bench_latency as latency  # noqa: E402
from benchmarks import latency_store as filled  # noqa: E402
from ovos_memory_service.common.config import build_config  # noqa: E402
from ovos_memory_service.engine.engine import MemoryEngine  # noqa: E402
from ovos_memory_service.models.multilingual import MULTILINGUAL_MODEL  # noqa: E402


def cached_store(args) -> Path:
    key = (f"import-turns{args.turns}-users{args.users}-seed{latency.SEED}-pool{args.pool}"
           f"-v{filled.FILL_VERSION}")
    store = Path(args.cache_dir) / key / "store"
    if not store.is_dir():
        sys.exit(f"no filled store at {store}: run python benchmarks/bench_latency.py --sizes {args.turns} "
                 f"--ops build --transports in-process --no-plot first")
    return store


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024


def pct(values, q):
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=10000)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--pool", type=int, default=4000)
    parser.add_argument("--to", default=MULTILINGUAL_MODEL, help="the new embeddings.model")
    parser.add_argument("--every", type=float, default=0.5, help="seconds between two samples")
    parser.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "ovos-memory-bench-cache"))
    args = parser.parse_args()

    directory = Path(latency._ROOT) / "store"
    shutil.copytree(cached_store(args), directory)
    users = latency.user_names(args.users)
    work = latency.workload(400, users, latency.favourites(users, latency.SEED), latency.SEED)["build"]
    rng = random.Random(latency.SEED)

    before = filled.open_engine(directory)  # as the daemon ran with the default model (which it records)
    before.close()
    del before  # its model too, as a daemon restarted with the new model holds none
    engine = MemoryEngine(build_config({"data_dir": str(directory), "embeddings": {"model": args.to}}))
    started = time.monotonic()
    engine.open(holder="daemon", semantic="background")
    engine._loader.join()
    loaded = time.monotonic() - started
    first = engine.stats(latency.asking(users[0]))
    print(f"{args.turns} turns; models loaded in {loaded:.1f} s; answering: {first['embedding_model']}; "
          f"re-embedding: {first.get('reembedding')}; RSS {rss_mb():.0f} MB", flush=True)

    vectors, builds, found, peak = [], [], [], rss_mb()
    while True:
        stats = engine.stats(latency.asking(users[0]))
        if not (stats.get("reembedding") or stats["pending_jobs"]):  # (a version without the key: the queue)
            break
        vectors.append(stats["vectors"])
        user, text = work[rng.randrange(len(work))]
        ms, _ = latency.timed(lambda: engine.build_context(latency.asking(user), text))
        builds.append(ms)
        try:
            hits = engine.reader.semantic_search(latency.asking(user), text, 5, ["turn"])
        except Exception:  # not available yet
            hits = []
        found.append(bool(hits))
        peak = max(peak, rss_mb())
        time.sleep(args.every)
    took = time.monotonic() - started - loaded
    engine.wait_idle(600)
    stats = engine.stats(latency.asking(users[0]))
    print(f"embedded again in {took:.0f} s ({stats['vectors'] / max(took, 1e-9):.0f} memories/s); "
          f"answering now: {stats['embedding_model']}; vectors {stats['vectors']}; peak RSS {peak:.0f} MB, "
          f"now {rss_mb():.0f} MB")
    if vectors:
        print(f"during the change, {len(vectors)} samples: vectors searched min {min(vectors)} / median "
              f"{statistics.median(vectors):.0f} / max {max(vectors)}; semantic search found something in "
              f"{sum(found) / len(found):.0%}; build p50 / p95 {pct(builds, 50):.1f} / {pct(builds, 95):.1f} ms")
    engine.close()


if __name__ == "__main__":
    main()
