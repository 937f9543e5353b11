"""Understanding: personal facts asked back in other words, topics forgotten by
one word, and questions about things never said, through a real messagebus
(issue 36's check, on benchmarks/understanding/<lang>.json; its README gives the
format and the rules the sentences follow).

How to run it (the test extras installed, ``pip install -e '.[test,bus,bench]'``):

    python benchmarks/understanding.py                       # every language, dev and test
    python benchmarks/understanding.py --split dev --verbose # tune here: per-question detail
    python benchmarks/understanding.py --split test --json /tmp/understanding-test.json
    python benchmarks/understanding.py --langs pt-pt,de-de --embeddings-model google/universal-sentence-encoder-multilingual-3
    python benchmarks/understanding.py --config '{"recall_relevance_threshold": 0.5}'

Tune on the dev split only; report on test. For each language and split a real
``ovos-messagebus`` and the ``ovos-memory-service`` daemon start in a sandbox
(tests/sandbox.py) whose mycroft.conf sets ``lang`` to that language, as on a
device, with no embeddings model named (what that language gets by default is
measured; ``--embeddings-model`` and ``--config`` override; the environment's
OVOS_MEMORY_EMBEDDINGS_MODEL is not passed on). Requests carry the session as
OVOS clients send it (``session_id`` and ``lang``), and ``user_id`` in data:
each scenario is a user (and a session) of its own. Each exchange is stored with
one ``memory.history.update`` of ``[user, assistant]``; once ``memory.stats``
shows no pending background work (a timeout raises), the measures are taken:

- fact first (threshold 0): share of questions whose first ``memory.recall``
  item (limit 10, threshold 0) is the fact's user turn or a memory learnt from
  it (its ``sources`` hold that turn's id);
- fact returned (default threshold): share of questions where ``memory.recall``
  with no limit and no threshold given returns it anywhere;
- topic dry run lists its fact: share of the topics' facts listed by
  ``memory.forget {query: <topic word>, dry_run: true}`` (no threshold given);
- other topics' items, small-talk items: what those dry runs list besides; an
  item counts for the fact or small-talk exchange whose turns (user turn or
  reply) it is, or was learnt from;
- items for never-said questions: every item ``memory.recall`` returns at the
  default threshold for a question whose answer is nowhere in the scenario;
- then each topic is forgotten for real, in order (``memory.forget {query}``),
  and ``memory.list`` shows whether its facts' user turns are gone after it (a
  learnt fact forgotten while the turn it came from stays does not count; a
  turn an earlier topic took wrongly counts, and is counted there as another
  fact's turn taken) and which turns of other facts or of small talk went.
"""
import argparse
import atexit
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# Sandbox before any OVOS import (this process and the daemons it starts)
from tests.isolation import isolate  # noqa: E402

_SANDBOX = tempfile.mkdtemp(prefix="understanding-")
atexit.register(shutil.rmtree, _SANDBOX, True)
isolate(_SANDBOX)

from ovos_memory_service.common.items import KINDS  # noqa: E402
from ovos_memory_service.models.embedder import MODEL_ENV  # noqa: E402
from ovos_memory_service.models.reranker import RERANK_LOADING  # noqa: E402
from tests.sandbox import Stack, verified, wait_ready  # noqa: E402

DATA_DIR = os.path.join(ROOT, "benchmarks", "understanding")
LANGS = ("en-us", "pt-pt", "es-es", "de-de")
REQUEST_TIMEOUT = 120
MEASURES = [  # key, label, kind ("share": hits/of; "count")
    ("fact_first", "fact first (threshold 0)", "share"),
    ("fact_returned", "fact returned (default threshold)", "share"),
    ("topic_listed", "topic dry run lists its fact", "share"),
    ("dry_other_topics", "dry runs: items of other facts", "count"),
    ("dry_small_talk", "dry runs: small-talk items", "count"),
    ("never_said_items", "never-said questions: items returned", "count"),
    ("never_said_any", "never-said questions with any item", "share"),
    ("forgot_fact", "real forget removes its fact", "share"),
    ("forgot_other_topics", "real forgets: other facts' turns taken", "count"),
    ("forgot_small_talk", "real forgets: small-talk turns taken", "count"),
]


def load(lang: str, data_dir: str = DATA_DIR) -> dict:
    with open(os.path.join(data_dir, f"{lang}.json"), encoding="utf-8") as f:
        return json.load(f)


class Daemon:
    """A real messagebus and ovos-memory-service for one language (tests/sandbox.py)."""

    def __init__(self, lang: str, memory_config: dict, timeout: float):
        self.lang, self.timeout = lang, timeout
        self.stack = Stack(Path(tempfile.mkdtemp(prefix=f"{lang}-", dir=_SANDBOX)), memory_config, lang=lang)
        self.stack.env.pop(MODEL_ENV, None)  # the configuration alone names the model
        try:
            self.stack.start_service(wait=False)
            wait_ready(self.stack.client, timeout=timeout)
        except Exception:
            self.stack.close()
            raise

    def request(self, msg_type: str, user: str, data: dict) -> dict:
        context = {"session": verified(user, lang=self.lang)}
        reply = self.stack.client.request(msg_type, {**data, "user_id": user}, context, timeout=REQUEST_TIMEOUT)
        if reply.get("ok") is not True:
            raise RuntimeError(f"{msg_type} failed: {reply}")
        return reply

    def drain(self) -> dict:
        """Poll memory.stats until the model is loaded and no background work is
        pending (twice in a row); raise TimeoutError after ``timeout`` seconds."""
        deadline = time.monotonic() + self.timeout
        idle = 0
        while True:
            stats = self.request("memory.stats", "nobody", {})
            busy = stats["semantic_recall"] == "loading" or stats.get("rerank_error") == RERANK_LOADING \
                or stats["pending_jobs"] or (stats.get("reembedding") or {}).get("pending")
            idle = 0 if busy else idle + 1
            if idle >= 2:
                return stats
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.lang}: the background work did not finish in {self.timeout} s "
                                   f"(pending jobs: {stats['pending_jobs']}, semantic: {stats['semantic_recall']})")
            time.sleep(0.5)

    def listed_ids(self, user: str) -> set:
        ids, offset = set(), 0
        while True:
            reply = self.request("memory.list", user, {"kinds": list(KINDS), "limit": 200, "offset": offset})
            ids |= {m["id"] for m in reply["memories"]}
            offset += len(reply["memories"])
            if not reply["memories"] or offset >= reply["total"]:
                return ids

    def close(self):
        self.stack.close()


class Stored:
    """One scenario as stored: which memory ids are which fact's or small talk's turns."""

    def __init__(self, scenario: dict):
        self.scenario = scenario
        self.user = scenario["id"]
        self.fact_turn = {}     # fact -> id of its user turn
        self.owner = {}         # memory id of any stored turn -> fact name, or None for small talk
        self.texts = {}         # fact -> its user turn's text

    def store(self, daemon: Daemon):
        for exchange in self.scenario["exchanges"]:
            messages = [{"role": "user", "content": exchange["user"]},
                        {"role": "assistant", "content": exchange["assistant"]}]
            ids = daemon.request("memory.history.update", self.user, {"messages": messages})["ids"]
            if len(ids) != 2:
                raise RuntimeError(f"{self.user}: 2 turns sent, {len(ids)} stored ({exchange['user']!r})")
            fact = exchange.get("fact")
            for memory_id in ids:
                self.owner[memory_id] = fact
            if fact:
                self.fact_turn[fact], self.texts[fact] = ids[0], exchange["user"]

    def covers(self, item: dict, fact: str) -> bool:
        """The item is the fact's user turn, or was learnt from it."""
        turn = self.fact_turn[fact]
        return item["id"] == turn or turn in (item.get("sources") or ())

    def owners(self, item: dict) -> set:
        """Whose turns the item is, or was learnt from: fact names, None for small talk."""
        return {self.owner[i] for i in (item["id"], *(item.get("sources") or ())) if i in self.owner}


def describe(item: dict) -> dict:
    return {"content": item["content"], "kind": item["kind"], "score": round(item["score"], 3)}


def evaluate(daemon: Daemon, stored: Stored) -> dict:
    scenario, user = stored.scenario, stored.user
    counts = {key: [0, 0] if kind == "share" else 0 for key, _, kind in MEASURES}
    detail = {"id": user, "questions": [], "topics": [], "never_said": [], "forget": []}

    for q in scenario["questions"]:
        fact = q["fact"]
        ranked = daemon.request("memory.recall", user, {"query": q["question"], "limit": 10,
                                                        "threshold": 0.0})["memories"]
        rank = next((r for r, item in enumerate(ranked, 1) if stored.covers(item, fact)), None)
        default = daemon.request("memory.recall", user, {"query": q["question"]})["memories"]
        returned = [item for item in default if stored.covers(item, fact)]
        counts["fact_first"][0] += rank == 1
        counts["fact_first"][1] += 1
        counts["fact_returned"][0] += bool(returned)
        counts["fact_returned"][1] += 1
        detail["questions"].append({
            "question": q["question"], "fact": stored.texts[fact], "rank": rank,
            "fact_score": next((round(i["score"], 3) for i in ranked if stored.covers(i, fact)), None),
            "first": describe(ranked[0]) if ranked else None, "first_is_fact": rank == 1,
            "default_returned": [describe(i) for i in default], "fact_at_default": bool(returned)})

    for question in scenario["never_said"]:
        found = daemon.request("memory.recall", user, {"query": question})["memories"]
        counts["never_said_items"] += len(found)
        counts["never_said_any"][0] += bool(found)
        counts["never_said_any"][1] += 1
        detail["never_said"].append({"question": question, "returned": [describe(i) for i in found]})

    for topic in scenario["topics"]:
        own = set(topic["facts"])
        listed = daemon.request("memory.forget", user, {"query": topic["topic"], "dry_run": True})["memories"]
        found = {f for f in own if any(stored.covers(item, f) for item in listed)}
        counts["topic_listed"][0] += len(found)
        counts["topic_listed"][1] += len(own)
        classes = []
        for item in listed:
            owners = stored.owners(item)
            if owners & own:
                cls = "topic"
            elif owners - {None}:
                cls = "other topic"
                counts["dry_other_topics"] += 1
            elif None in owners:
                cls = "small talk"
                counts["dry_small_talk"] += 1
            else:
                cls = "unknown"
            classes.append({**describe(item), "class": cls})
        detail["topics"].append({"topic": topic["topic"], "facts": sorted(own), "found": sorted(found),
                                 "listed": classes})

    before = daemon.listed_ids(user)
    gone_facts = set()
    for topic in scenario["topics"]:
        own = set(topic["facts"])
        reply = daemon.request("memory.forget", user, {"query": topic["topic"]})
        after = daemon.listed_ids(user)
        taken = before - after
        removed = {f for f in own if stored.fact_turn[f] not in after}
        counts["forgot_fact"][0] += len(removed)
        counts["forgot_fact"][1] += len(own)
        others = [i for i in taken if stored.owner.get(i, "?") not in own | {None, "?"}]
        small = [i for i in taken if i in stored.owner and stored.owner[i] is None]
        counts["forgot_other_topics"] += len(others)
        counts["forgot_small_talk"] += len(small)
        gone_facts |= removed
        detail["forget"].append({"topic": topic["topic"], "forgotten": reply["forgotten"], "removed": sorted(removed),
                                 "missed": sorted(own - removed),
                                 "other_turns_taken": sorted({stored.owner[i] for i in others}),
                                 "small_talk_taken": len(small)})
        before = after
    return {"counts": counts, "detail": detail}


def merge(total: dict, counts: dict):
    for key, _, kind in MEASURES:
        if kind == "share":
            total[key][0] += counts[key][0]
            total[key][1] += counts[key][1]
        else:
            total[key] += counts[key]


def fmt(value, kind: str) -> str:
    if kind == "share":
        hits, of = value
        return f"{hits / of:.2f} ({hits}/{of})" if of else "-"
    return str(value)


def table(title: str, results: dict):
    langs = list(results)
    print(f"\n{title}")
    width = max(len(label) for _, label, _ in MEASURES) + 2
    print(f"{'':<{width}}" + "".join(f"{lang:>18}" for lang in langs))
    for key, label, kind in MEASURES:
        print(f"{label:<{width}}" + "".join(f"{fmt(results[lang]['counts'][key], kind):>18}" for lang in langs))
    models = [str(results[lang]["model"]).split("/")[-1][:17] for lang in langs]
    print(f"{'embedding model':<{width}}" + "".join(f"{m:>18}" for m in models))


def verbose(lang: str, split: str, details: list):
    print(f"\n--- {lang} {split}: per question")
    for d in details:
        print(f"[{d['id']}]")
        for q in d["questions"]:
            first = q["first"]
            mark = "ok " if q["first_is_fact"] else "-- "
            print(f"  {mark}{q['question']!r} -> fact rank {q['rank']} score {q['fact_score']}; "
                  f"default threshold: {'returned' if q['fact_at_default'] else 'not returned'} "
                  f"({len(q['default_returned'])} items)")
            if not q["first_is_fact"] and first:
                print(f"       first: {first['kind']} {first['score']:.3f} {first['content'][:70]!r}"
                      f"   (fact: {q['fact'][:50]!r})")
        for n in d["never_said"]:
            if n["returned"]:
                print(f"  never said {n['question']!r}: " + "; ".join(
                    f"{i['score']:.3f} {i['content'][:50]!r}" for i in n["returned"]))
        for t in d["topics"]:
            missed = sorted(set(t["facts"]) - set(t["found"]))
            listed = "; ".join(f"{i['class']} {i['score']:.3f} {i['content'][:40]!r}" for i in t["listed"])
            print(f"  topic {t['topic']!r}: found {t['found']} missed {missed}; listed: {listed or 'nothing'}")
        for f in d["forget"]:
            if f["missed"] or f["other_turns_taken"] or f["small_talk_taken"]:
                print(f"  forget {f['topic']!r}: missed {f['missed']}, other facts taken "
                      f"{f['other_turns_taken']}, small-talk turns taken {f['small_talk_taken']}")


def run(lang: str, split: str, scenarios: list, config: dict, timeout: float) -> dict:
    started = time.perf_counter()
    daemon = Daemon(lang, config, timeout)
    try:
        stored = [Stored(s) for s in scenarios]
        for s in stored:
            s.store(daemon)
        stored_s = time.perf_counter() - started
        stats = daemon.drain()
        drained_s = time.perf_counter() - started - stored_s
        counts = {key: [0, 0] if kind == "share" else 0 for key, _, kind in MEASURES}
        details = []
        for s in stored:
            result = evaluate(daemon, s)
            merge(counts, result["counts"])
            details.append(result["detail"])
        print(f"{lang} {split}: {len(scenarios)} scenarios, "
              f"{sum(len(s.owner) for s in stored)} turns stored in {stored_s:.1f} s (daemon start included), "
              f"background work done {drained_s:.1f} s later; model {stats.get('embedding_model')}, "
              f"reranker {stats.get('reranker')}; measured in {time.perf_counter() - started - stored_s - drained_s:.1f} s",
              flush=True)
        if stats.get("last_background_error"):
            print(f"  last background error: {stats['last_background_error']}")
        return {"counts": counts, "details": details, "model": stats.get("embedding_model"),
                "reranker": stats.get("reranker")}
    finally:
        daemon.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--langs", default=",".join(LANGS), help="comma-separated, default: every language")
    parser.add_argument("--split", choices=["dev", "test", "both"], default="both")
    parser.add_argument("--embeddings-model", help="embeddings.model for the daemon (default: none set)")
    parser.add_argument("--config", default="{}", help="memory_service overrides, as JSON")
    parser.add_argument("--data", default=DATA_DIR, help="folder of the <lang>.json files")
    parser.add_argument("--timeout", type=float, default=900, help="seconds to wait for the daemon and its work")
    parser.add_argument("--json", help="write every figure and the per-question detail to this file")
    parser.add_argument("--verbose", action="store_true", help="per-question detail: what came first, its score")
    args = parser.parse_args()

    langs = [lang.strip() for lang in args.langs.split(",") if lang.strip()]
    splits = ["dev", "test"] if args.split == "both" else [args.split]
    config = json.loads(args.config)
    if args.embeddings_model:
        config["embeddings"] = {**config.get("embeddings", {}), "model": args.embeddings_model}
    out = {"config": config, "load_average": None, "splits": {}}
    for split in splits:
        results = {}
        for lang in langs:
            scenarios = [s for s in load(lang, args.data)["scenarios"] if s["split"] == split]
            if scenarios:
                results[lang] = run(lang, split, scenarios, config, args.timeout)
        out["splits"][split] = results
    load_average = os.getloadavg()
    out["load_average"] = load_average
    for split, results in out["splits"].items():
        sizes = ", ".join(f"{lang} {len(r['details'])} scenarios" for lang, r in results.items())
        table(f"{split} split ({sizes}; config {json.dumps(config)})", results)
        if args.verbose:
            for lang, r in results.items():
                verbose(lang, split, r["details"])
    print(f"\nload average at the end: {' '.join(f'{v:.2f}' for v in load_average)}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, ensure_ascii=False, indent=1)
        print(f"figures written to {args.json}")


if __name__ == "__main__":
    main()
