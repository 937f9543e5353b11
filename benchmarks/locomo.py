"""Recall quality on LoCoMo (Maharana et al., ACL 2024), through the service's
own write and recall paths.

Each conversation is stored with ``MemoryEngine.update_history`` (one update
per LoCoMo session; the first speaker of a session is the ``user``, speaker
names go in as ``name`` and session dates as ``created_at``), its embedding
queue is drained, then every question is asked with ``MemoryEngine.recall``
(what ``memory.recall`` runs) with the default configuration unless told
otherwise. Metrics per question (categories, official LoCoMo mapping):
evidence_recall@k (share of evidence turns in the top k), all@5 (every
evidence turn in the top 5), session_any@5 (a top-5 memory from an evidence
session). Category 5 (adversarial) is reported apart. Splits: dev = the first
five conversations (tune here only), test = the last five.

    python benchmarks/locomo.py                      # both splits, default configuration
    python benchmarks/locomo.py --split dev --module lexical
    python benchmarks/locomo.py --config '{"ovos-memory-plugin-composite": {...}}'

The data file is not part of the project (CC BY-NC 4.0); it is read from
../shared/data/locomo10.json unless --data names another path.
"""
import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from ovos_memory_service.config import build_config  # noqa: E402
from ovos_memory_service.engine import MemoryEngine  # noqa: E402
from ovos_memory_service.scope import Scope  # noqa: E402
from ovos_memory_service.wire import iso_time, parse_messages  # noqa: E402

DEFAULT_DATA = os.path.join(os.path.dirname(ROOT), "shared", "data", "locomo10.json")
DEV = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def session_date(text: str) -> float:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc).timestamp()


def sessions(conversation: dict):
    """(number, date, turns) in order."""
    numbers = sorted(int(k.split("_")[1]) for k in conversation
                     if re.fullmatch(r"session_\d+", k) and conversation[k])
    for n in numbers:
        yield n, session_date(conversation[f"session_{n}_date_time"]), conversation[f"session_{n}"]


def evidence_ids(raw: list, known: set) -> list:
    """Evidence strings normalized: split on ';'/space, 'D:11:26' -> 'D11:26', unknown ids dropped."""
    ids = []
    for item in raw:
        for part in re.split(r"[;\s]+", item):
            match = re.fullmatch(r"D:?(\d+):0*(\d+)", part.strip())
            if match:
                dia = f"D{match.group(1)}:{match.group(2)}"
                if dia in known and dia not in ids:
                    ids.append(dia)
    return ids


def ingest(engine: MemoryEngine, scope: Scope, conversation: dict) -> dict:
    """Store every session; returns dia_id -> memory id."""
    memory_of = {}
    for _, date, turns in sessions(conversation):
        first = turns[0]["speaker"]
        messages = [{"role": "user" if t["speaker"] == first else "assistant", "content": t["text"],
                     "name": t["speaker"], "created_at": iso_time(date + i)} for i, t in enumerate(turns)]
        reply = engine.update_history(scope, parse_messages(messages))
        if len(reply["ids"]) != len(turns):
            raise RuntimeError(f"{len(turns)} turns sent, {len(reply['ids'])} stored")
        memory_of.update({t["dia_id"]: memory_id for t, memory_id in zip(turns, reply["ids"])})
    return memory_of


def evaluate(sample: dict, config: dict, k_max: int = 10):
    data_dir = tempfile.mkdtemp(prefix="locomo-")
    engine = MemoryEngine(build_config({**config, "data_dir": data_dir}))
    engine.open()
    scope = Scope(user_id=sample["sample_id"], session_id="default", lang="en-us")
    try:
        started = time.perf_counter()
        memory_of = ingest(engine, scope, sample["conversation"])
        ingest_s = time.perf_counter() - started
        engine.wait_idle(timeout=3600)
        embed_s = time.perf_counter() - started - ingest_s
        dia_of = {memory_id: dia for dia, memory_id in memory_of.items()}
        rows, query_ms = [], []
        for qa in sample["qa"]:
            evidence = evidence_ids(qa.get("evidence", []), set(memory_of))
            if not evidence:
                continue
            t0 = time.perf_counter()
            found = engine.recall(scope, qa["question"], limit=k_max, threshold=0.0, kinds=["turn"])
            query_ms.append((time.perf_counter() - t0) * 1000)
            ranked = [dia_of.get(m.id) for m in found]
            rows.append(score(qa["category"], evidence, ranked))
        return rows, {"turns": len(memory_of), "ingest_s": ingest_s, "embed_s": embed_s,
                      "query_ms": query_ms}
    finally:
        engine.close()


def score(category: int, evidence: list, ranked: list) -> dict:
    top5, top10 = set(ranked[:5]), set(ranked[:10])
    sessions_top5 = {d.split(":")[0] for d in ranked[:5] if d}
    return {"category": category,
            "recall@5": sum(e in top5 for e in evidence) / len(evidence),
            "recall@10": sum(e in top10 for e in evidence) / len(evidence),
            "all@5": float(all(e in top5 for e in evidence)),
            "session_any@5": float(any(e.split(":")[0] in sessions_top5 for e in evidence))}


def table(title: str, rows: list):
    metrics = ["recall@5", "recall@10", "all@5", "session_any@5"]
    print(f"\n{title}")
    print(f"{'category':<22}{'n':>5}" + "".join(f"{m:>15}" for m in metrics))
    groups = defaultdict(list)
    for row in rows:
        groups[row["category"]].append(row)
    main = [r for r in rows if r["category"] != 5]
    lines = [(f"{c} {CATEGORIES[c]}", groups[c]) for c in sorted(groups)] + [("all 1-4", main)]
    for name, group in lines:
        if group:
            print(f"{name:<22}{len(group):>5}" + "".join(
                f"{statistics.fmean(r[m] for r in group):>15.3f}" for m in metrics))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--split", choices=["dev", "test", "both"], default="both")
    parser.add_argument("--module", help="memory_module to evaluate instead of the default")
    parser.add_argument("--config", default="{}", help="memory_service overrides, as JSON")
    parser.add_argument("--limit", type=int, default=0, help="only the first N conversations of a split")
    args = parser.parse_args()
    config = json.loads(args.config)
    if args.module:
        config["memory_module"] = args.module
    samples = json.load(open(args.data))
    splits = {"dev": [s for s in samples if s["sample_id"] in DEV],
              "test": [s for s in samples if s["sample_id"] not in DEV]}
    chosen = ["dev", "test"] if args.split == "both" else [args.split]
    summary = {}
    for split in chosen:
        rows, stats = [], defaultdict(list)
        for sample in splits[split][:args.limit or None]:
            sample_rows, info = evaluate(sample, config)
            rows += sample_rows
            for key, value in info.items():
                stats[key] += value if isinstance(value, list) else [value]
            print(f"{split} {sample['sample_id']}: {info['turns']} turns stored in {info['ingest_s']:.2f} s, "
                  f"embedded in {info['embed_s']:.1f} s; recall@5 "
                  f"{statistics.fmean(r['recall@5'] for r in sample_rows if r['category'] != 5):.3f}",
                  flush=True)
        table(f"{split} split ({len(splits[split][:args.limit or None])} conversations)", rows)
        turns = sum(stats["turns"])
        print(f"ingest: {turns / sum(stats['ingest_s']):.0f} turns/s acknowledged; "
              f"embedding queue: {turns / sum(stats['embed_s']):.1f} turns/s; "
              f"query p50 {statistics.median(stats['query_ms']):.1f} ms, "
              f"p95 {statistics.quantiles(stats['query_ms'], n=20)[-1]:.1f} ms")
        summary[split] = statistics.fmean(r["recall@5"] for r in rows if r["category"] != 5)
    print("\nevidence_recall@5, categories 1-4: " + ", ".join(f"{s} {v:.3f}" for s, v in summary.items()))


if __name__ == "__main__":
    main()
