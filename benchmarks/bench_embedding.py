"""Embedding throughput: the service's background queue against raw fastembed.

The same LoCoMo turns are embedded twice in one run, alternating rounds:
- raw: ``TextEmbedding.embed`` over the texts, batch size as the service's;
- service: ``MemoryEngine.update_history`` of the turns, then the time until
  the embedding queue is empty (SQLite reads, batching, LanceDB writes included).
Both use the same fastembed model object and thread settings.

    python benchmarks/bench_embedding.py [--turns 600] [--rounds 3]
"""
import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from ovos_memory_service.common.config import build_config  # noqa: E402
from ovos_memory_service.engine.engine import MemoryEngine  # noqa: E402
from ovos_memory_service.common.scope import Scope  # noqa: E402
from ovos_memory_service.models.embedder import embed_text  # noqa: E402
from ovos_memory_service.common.wire import parse_messages  # noqa: E402
from benchmarks.locomo import DEFAULT_DATA, sessions  # noqa: E402


def locomo_sessions(path: str, n: int) -> list:
    """Whole LoCoMo sessions as update messages, about ``n`` turns in all."""
    found, count = [], 0
    for sample in json.load(open(path)):
        for _, _, session in sessions(sample["conversation"]):
            first = session[0]["speaker"]
            found.append([{"role": "user" if t["speaker"] == first else "assistant",
                           "content": t["text"], "name": t["speaker"]} for t in session])
            count += len(session)
            if count >= n:
                return found
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--turns", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    updates = locomo_sessions(args.data, args.turns)
    turns = [turn for update in updates for turn in update]
    # the texts the service embeds: "Speaker: text"
    texts = [embed_text({"kind": "turn", "name": t["name"], "role": t["role"], "content": t["content"]})
             for t in turns]
    raw, service = [], []
    for round_ in range(args.rounds):
        folder = tempfile.mkdtemp(prefix="bench-embed-")
        engine = MemoryEngine(build_config({"data_dir": folder}))
        engine.open()
        embedder = engine.background.embedding.embedder
        try:
            started = time.perf_counter()
            list(embedder.model.embed(texts, batch_size=embedder.batch_size))
            raw.append(len(texts) / (time.perf_counter() - started))

            started = time.perf_counter()
            for i, update in enumerate(updates):  # one LoCoMo session per update and session
                engine.update_history(Scope(user_id="bench", session_id=f"s{i}"), parse_messages(update))
            engine.wait_idle(timeout=3600)
            service.append(len(texts) / (time.perf_counter() - started))
            # every turn has its vector (facts learnt from the turns are embedded too)
            assert engine.store.vector_count() >= len(texts)
        finally:
            engine.close()
            shutil.rmtree(folder, ignore_errors=True)
        print(f"round {round_ + 1}: raw {raw[-1]:.1f} turns/s, service {service[-1]:.1f} turns/s", flush=True)
    print(f"\n{len(texts)} LoCoMo turns, batch {embedder.batch_size}, model {embedder.name}")
    print(f"raw fastembed:      median {statistics.median(raw):.1f} turns/s")
    print(f"service queue:      median {statistics.median(service):.1f} turns/s")
    print(f"service / raw:      {statistics.median(service) / statistics.median(raw):.2f}")


if __name__ == "__main__":
    main()
