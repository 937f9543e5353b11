"""Recall quality on LoCoMo (Maharana et al., ACL 2024), through the service's
own write and recall paths, in-process or over a real messagebus.

``--through inprocess`` (the default): each conversation is stored with
``MemoryEngine.update_history`` (one update per LoCoMo session; the first
speaker of a session is the ``user``, speaker names go in as ``name`` and
session dates as ``created_at``), its background work is drained, then every
question is asked with ``MemoryEngine.recall`` (what ``memory.recall`` runs).

``--through bus``: as a client meets it. A real ``ovos-messagebus`` and the
daemon start in a temporary sandbox; each LoCoMo session gets a session_id of
its own and is sent one exchange per ``memory.history.update`` (the user id is
the conversation's); once ``memory.stats`` shows no pending work, every
question goes out as ``memory.recall`` from a session of its own.

``--ask build`` asks each question as an utterance to build a context for
(``memory.context.build``) and takes what it injects (recalled turns and
facts) as one item: recall@5 is then the share of the evidence anywhere in the
context, hit@5 whether any of it is there.

Recall asks every kind (``--kinds turn``: turns only), with the default
configuration unless told otherwise, ``limit`` 10 and ``threshold`` 0. A
recalled turn counts as itself, a derived memory (fact, summary...) as the
turns it was learnt from (``sources``). Metrics per question (categories,
official LoCoMo mapping): evidence_recall@k (share of evidence turns covered by
the top k), all@5 (every evidence turn covered by the top 5), hit@5 (any),
MRR (1 / the rank of the first item covering an evidence turn, 0 beyond 10),
session_any@5 (a top-5 memory from an evidence session). Category 5
(adversarial) is reported apart. A composite member that missed its deadline
(``memory.stats`` ``member_misses``) is printed per conversation. Splits: dev =
the first five conversations (tune here only), test = the last five.

    python benchmarks/locomo.py                      # both splits, default configuration
    python benchmarks/locomo.py --split test --through bus
    python benchmarks/locomo.py --split dev --module lexical --kinds turn
    python benchmarks/locomo.py --ask build          # what a persona's context gets
    python benchmarks/locomo.py --config '{"ovos-memory-plugin-composite": {...}}'

The data file is not part of the project (CC BY-NC 4.0); it is read from
../shared/data/locomo10.json unless --data names another path.
"""
import argparse
import atexit
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# Sandbox before any OVOS import (the bus path's daemon and this process)
from tests.isolation import isolate  # noqa: E402

_SANDBOX = tempfile.mkdtemp(prefix="locomo-")
atexit.register(shutil.rmtree, _SANDBOX, True)
isolate(_SANDBOX)

from ovos_memory_service.common.config import build_config  # noqa: E402
from ovos_memory_service.engine.engine import MemoryEngine  # noqa: E402
from ovos_memory_service.common.items import KINDS  # noqa: E402
from ovos_memory_service.common.scope import Scope  # noqa: E402
from ovos_memory_service.models.reranker import RERANK_LOADING  # noqa: E402
from ovos_memory_service.common.wire import iso_time, parse_messages  # noqa: E402

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


def messages_of(turns: list, date: float) -> list:
    """One LoCoMo session as protocol messages (the first speaker is the user)."""
    first = turns[0]["speaker"]
    return [{"role": "user" if t["speaker"] == first else "assistant", "content": t["text"],
             "name": t["speaker"], "created_at": iso_time(date + i)} for i, t in enumerate(turns)]


def exchanges(messages: list) -> list:
    """The messages cut before each user turn that follows an assistant turn."""
    out = []
    for message in messages:
        if not out or (message["role"] == "user" and out[-1][-1]["role"] == "assistant"):
            out.append([])
        out[-1].append(message)
    return out


class InProcess:
    """The engine in this process, one data directory per conversation."""

    def __init__(self, config: dict):
        self.engine = MemoryEngine(build_config({**config, "data_dir": tempfile.mkdtemp(prefix="locomo-",
                                                                                         dir=_SANDBOX)}))
        self.engine.open()

    def store(self, user: str, session: str, messages: list) -> list:
        return self.engine.update_history(Scope(user, session, lang="en-us"), parse_messages(messages))["ids"]

    def drain(self):
        self.engine.wait_idle(timeout=3600)

    def misses(self) -> dict:
        return self.engine.reader.misses.snapshot()

    def recall(self, user: str, question: str, kinds: list) -> list:
        found = self.engine.recall(Scope(user, "questions", lang="en-us"), question, limit=10,
                                   threshold=0.0, kinds=kinds)
        return [(m.id, m.sources or ()) for m in found]

    def build(self, user: str, question: str) -> list:
        context = self.engine.build_context(Scope(user, "questions", lang="en-us"), question)
        return [(m.id, m.sources or ()) for m in context.memories]

    def close(self):
        self.engine.close()


class OverTheBus:
    """A real messagebus and daemon (tests/sandbox.py), one per conversation."""

    def __init__(self, config: dict):
        from tests.sandbox import Stack, wait_ready
        self.stack = Stack(Path(tempfile.mkdtemp(prefix="locomo-bus-", dir=_SANDBOX)), config)
        self.stack.start_service(wait=False)
        wait_ready(self.stack.client, timeout=120)

    def request(self, msg_type: str, user: str, session: str, data: dict) -> dict:
        from tests.sandbox import verified
        context = {"session": verified(session, lang="en-us")}
        reply = self.stack.client.request(msg_type, {**data, "user_id": user}, context, timeout=120)
        if reply.get("ok") is not True:
            raise RuntimeError(f"{msg_type} failed: {reply}")
        return reply

    def store(self, user: str, session: str, messages: list) -> list:
        ids = []
        for exchange in exchanges(messages):
            ids += self.request("memory.history.update", user, session, {"messages": exchange})["ids"]
        return ids

    def drain(self):
        deadline = time.monotonic() + 3600
        while True:
            stats = self.request("memory.stats", "nobody", "stats", {})
            if stats["semantic_recall"] != "loading" and stats["rerank_error"] != RERANK_LOADING \
                    and not stats["pending_jobs"]:
                return
            if time.monotonic() > deadline:
                raise TimeoutError("the background work did not finish")
            time.sleep(0.5)

    def misses(self) -> dict:
        return self.request("memory.stats", "nobody", "stats", {})["member_misses"]

    def recall(self, user: str, question: str, kinds: list) -> list:
        reply = self.request("memory.recall", user, "questions",
                             {"query": question, "limit": 10, "threshold": 0.0, "kinds": kinds})
        return [(m["id"], m.get("sources") or ()) for m in reply["memories"]]

    def build(self, user: str, question: str) -> list:
        reply = self.request("memory.context.build", user, "questions", {"utterance": question})
        return [(m["id"], m.get("sources") or ()) for m in reply["memories"]]

    def close(self):
        self.stack.close()


def evaluate(sample: dict, config: dict, path, kinds: list, ask: str = "recall"):
    service = path(config)
    user = sample["sample_id"]
    try:
        started = time.perf_counter()
        memory_of = {}
        for n, date, turns in sessions(sample["conversation"]):
            ids = service.store(user, f"{user}-session-{n}", messages_of(turns, date))
            if len(ids) != len(turns):
                raise RuntimeError(f"{len(turns)} turns sent, {len(ids)} stored")
            memory_of.update({t["dia_id"]: memory_id for t, memory_id in zip(turns, ids)})
        ingest_s = time.perf_counter() - started
        service.drain()
        embed_s = time.perf_counter() - started - ingest_s
        dia_of = {memory_id: dia for dia, memory_id in memory_of.items()}
        rows, query_ms = [], []
        for qa in sample["qa"]:
            evidence = evidence_ids(qa.get("evidence", []), set(memory_of))
            if not evidence:
                continue
            t0 = time.perf_counter()
            found = service.build(user, qa["question"]) if ask == "build" else \
                service.recall(user, qa["question"], kinds)
            query_ms.append((time.perf_counter() - t0) * 1000)
            # each item as the turns it covers: itself, or what it was learnt from
            ranked = [{dia_of[i] for i in (memory_id, *sources) if i in dia_of} for memory_id, sources in found]
            if ask == "build":  # one context, whatever its order
                ranked = [set().union(*ranked)]
            rows.append(score(qa["category"], evidence, ranked))
        return rows, {"turns": len(memory_of), "ingest_s": ingest_s, "embed_s": embed_s,
                      "query_ms": query_ms, "misses": service.misses()}
    finally:
        service.close()


def score(category: int, evidence: list, ranked: list) -> dict:
    """``ranked``: per recalled item, the set of LoCoMo turns it covers."""
    top5, top10 = set().union(*ranked[:5]), set().union(*ranked[:10])
    sessions_top5 = {d.split(":")[0] for d in top5}
    first = next((rank for rank, covered in enumerate(ranked[:10], 1) if covered & set(evidence)), None)
    return {"category": category,
            "recall@5": sum(e in top5 for e in evidence) / len(evidence),
            "recall@10": sum(e in top10 for e in evidence) / len(evidence),
            "all@5": float(all(e in top5 for e in evidence)),
            "hit@5": float(any(e in top5 for e in evidence)),
            "MRR": 1.0 / first if first else 0.0,
            "session_any@5": float(any(e.split(":")[0] in sessions_top5 for e in evidence))}


def table(title: str, rows: list):
    metrics = ["recall@5", "recall@10", "all@5", "hit@5", "MRR", "session_any@5"]
    print(f"\n{title}")
    print(f"{'category':<22}{'n':>5}" + "".join(f"{m:>14}" for m in metrics))
    groups = defaultdict(list)
    for row in rows:
        groups[row["category"]].append(row)
    main = [r for r in rows if r["category"] != 5]
    lines = [(f"{c} {CATEGORIES[c]}", groups[c]) for c in sorted(groups)] + [("all 1-4", main)]
    for name, group in lines:
        if group:
            print(f"{name:<22}{len(group):>5}" + "".join(
                f"{statistics.fmean(r[m] for r in group):>14.3f}" for m in metrics))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--split", choices=["dev", "test", "both"], default="both")
    parser.add_argument("--module", help="memory_module to evaluate instead of the default")
    parser.add_argument("--config", default="{}", help="memory_service overrides, as JSON")
    parser.add_argument("--limit", type=int, default=0, help="only the first N conversations of a split")
    parser.add_argument("--through", choices=["inprocess", "bus"], default="inprocess",
                        help="the engine in this process, or a real messagebus and daemon")
    parser.add_argument("--kinds", choices=["all", "turn"], default="all", help="what recall searches")
    parser.add_argument("--ask", choices=["recall", "build"], default="recall",
                        help="memory.recall, or what memory.context.build injects")
    args = parser.parse_args()
    path = OverTheBus if args.through == "bus" else InProcess
    kinds = list(KINDS) if args.kinds == "all" else ["turn"]
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
            sample_rows, info = evaluate(sample, config, path, kinds, args.ask)
            rows += sample_rows
            for key, value in info.items():
                stats[key] += value if isinstance(value, list) else [value]
            for member, missed in info["misses"].items():  # a member that missed its deadline
                print(f"{split} {sample['sample_id']}: {member} missed {missed['missed']} times "
                      f"(last: {missed['last']})", flush=True)
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
    print(f"\nevidence_recall@5, categories 1-4 ({args.through}, {args.ask}, kinds {args.kinds}): "
          + ", ".join(f"{s} {v:.3f}" for s, v in summary.items()))


if __name__ == "__main__":
    main()
