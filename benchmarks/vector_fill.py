"""SQLite's vector index (store/sqlite/lance_index.py) alone through the fill
of a large store: its memory while LanceDB writes and compacts, and how long a
user's first search takes to read their vectors back from the files.

    python benchmarks/vector_fill.py                                  # 200,000 vectors, the defaults
    python benchmarks/vector_fill.py --table-rows 1000000000          # every vector in one table
    python benchmarks/vector_fill.py --spread                         # each user's vectors over every table

The vectors are random unit vectors of 384 dimensions written 16 at a time,
as the embedding worker writes them, by ``--users`` users: by default each
user's in one run (a 100k-exchange LoCoMo fill stores a conversation at a
time), with ``--spread`` taking turns every 32 vectors. The index is compacted
every ``COMPACT_WRITES`` writes, as the worker does, and a random user is
searched every 64 writes. It prints the process's RSS and its peak (VmHWM)
every 20,000 vectors, then the time a user's first search takes to read
their vectors back (the in-memory copies emptied before each).
"""
import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from ovos_memory_service.store.sqlite import lance_index  # noqa: E402
from ovos_memory_service.store.sqlite.lance_index import COMPACT_WRITES, VectorIndex  # noqa: E402

DIM = 384


def status_mb(key: str) -> int:
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) // 1024
    raise RuntimeError(f"no {key}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vectors", type=int, default=200_000)
    parser.add_argument("--users", type=int, default=350)
    parser.add_argument("--table-rows", type=int, default=lance_index.SEGMENT_ROWS)
    parser.add_argument("--in-memory", type=int, default=lance_index.CACHE_VECTORS,
                        help="vectors kept in memory (CACHE_VECTORS)")
    parser.add_argument("--spread", action="store_true", help="users take turns every 32 vectors")
    args = parser.parse_args()
    lance_index.SEGMENT_ROWS, lance_index.CACHE_VECTORS = args.table_rows, args.in_memory
    run = max(1, args.vectors // args.users) if not args.spread else 32

    index = VectorIndex(Path(tempfile.mkdtemp(prefix="vector-fill-")) / "vectors", DIM)
    rng, pick = np.random.default_rng(1), random.Random(1)
    start_rss, started, seq, writes = status_mb("VmRSS"), time.monotonic(), 0, 0
    print(f"{args.vectors:,} vectors of {args.users} users, tables of {args.table_rows:,}, "
          f"{args.in_memory:,} in memory; RSS at the start {start_rss} MB")
    while seq < args.vectors:
        batch = rng.standard_normal((16, DIM)).astype(np.float32)
        batch /= np.linalg.norm(batch, axis=1, keepdims=True)
        index.upsert([(seq + i, f"m{seq + i:09d}", f"u{(seq + i) // run % args.users}", batch[i])
                      for i in range(16)])
        seq, writes = seq + 16, writes + 1
        if index.writes >= COMPACT_WRITES:
            index.compact()
        if writes % 64 == 0:
            index.search(batch[0], f"u{pick.randrange(args.users)}", 0, 20)
        if seq % 20_000 < 16:
            print(f"  {seq:,} vectors: RSS {status_mb('VmRSS')} MB, peak {status_mb('VmHWM')} MB, "
                  f"{time.monotonic() - started:.0f} s", flush=True)
    print(f"filled in {time.monotonic() - started:.0f} s: RSS {status_mb('VmRSS')} MB, "
          f"peak {status_mb('VmHWM')} MB, {len(index.segments)} tables")

    reads = []
    for user in pick.sample(range(args.users), min(40, args.users)):
        with index._cache_lock:
            index._users.clear()
        began = time.perf_counter()
        index.search(batch[0], f"u{user}", 0, 20)
        reads.append((time.perf_counter() - began) * 1000)
    reads.sort()
    print(f"a user's first search: p50 {reads[len(reads) // 2]:.1f} ms, "
          f"p95 {reads[int(0.95 * (len(reads) - 1))]:.1f} ms")


if __name__ == "__main__":
    main()
