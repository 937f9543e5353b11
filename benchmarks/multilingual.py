"""Recall quality in four languages on the project's own multilingual set
(benchmarks/multilingual/<lang>.json, see benchmarks/multilingual/README.md),
and the personal-facts check (benchmarks/personal_facts/<lang>.json).

Each conversation belongs to a user of its own. Every session is stored with one
``MemoryEngine.update_history`` (its own session_id, the file's lang in the Scope,
``created_at`` from the session date, one second per turn), the background work
(embeddings, facts) is drained with ``wait_idle``, then every question is asked
with ``MemoryEngine.recall(scope, question, limit=10, threshold=0.0)`` over every
kind, from a session of its own. A recalled turn counts as itself; a derived memory
(a fact, a summary...) counts as the turns it was learnt from (``sources``), as
benchmarks/relevance_data.judged credits it. Per question:

- evidence_recall@5: share of the evidence turns covered by the top 5;
- MRR: 1 / the rank of the first item covering an evidence turn (0 beyond 10).

Configurations, each on a fresh temporary data_dir: ``lexical`` (keywords only,
``memory_module: lexical``), ``default`` (the default configuration: hybrid with
the English all-MiniLM-L6-v2), and, with ``--embeddings-model``, the default
configuration with that fastembed model (``embeddings.model``).

Personal facts: per language, ten facts are stored as one conversation (each user
turn followed by its content-free reply), then each is asked back by a paraphrase
that shares no content word; top-1 share = how often the first recalled item is
the fact's turn or a memory learnt from it, with the default configuration
(and the ``--embeddings-model`` one when given). Issue 16 asks 0.9 in en-us and
0.8 in pt-pt, es-es, de-de.

    python benchmarks/multilingual.py
    python benchmarks/multilingual.py --langs pt-pt de-de --verbose
    python benchmarks/multilingual.py --embeddings-model sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2
    python benchmarks/multilingual.py --json /tmp/multilingual.json
"""
import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from ovos_memory_service.common.config import build_config  # noqa: E402
from ovos_memory_service.engine.engine import MemoryEngine  # noqa: E402
from ovos_memory_service.common.scope import Scope  # noqa: E402
from ovos_memory_service.common.wire import iso_time, parse_messages  # noqa: E402

DATA_DIR = os.path.join(ROOT, "benchmarks", "multilingual")
FACTS_DIR = os.path.join(ROOT, "benchmarks", "personal_facts")
LANGS = ("en-us", "pt-pt", "es-es", "de-de")
KINDS = ("paraphrase", "lexical", "temporal")
K = 5
LIMIT = 10
FACTS_TARGET = {"en-us": 0.9}
FACTS_TARGET_OTHERS = 0.8


def load(folder: str, lang: str) -> dict:
    with open(os.path.join(folder, f"{lang}.json"), encoding="utf-8") as f:
        return json.load(f)


def timestamp(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def open_engine(config: dict) -> (MemoryEngine, str):
    data_dir = tempfile.mkdtemp(prefix="multilingual-")
    engine = MemoryEngine(build_config({**config, "data_dir": data_dir}))
    engine.open()
    return engine, data_dir


def ingest(engine: MemoryEngine, lang: str, conversation: dict) -> dict:
    """Store every session; returns (session_index, turn_index) -> memory id."""
    memory_of = {}
    for s, session in enumerate(conversation["sessions"]):
        scope = Scope(user_id=conversation["id"], session_id=f"{conversation['id']}-s{s}", lang=lang)
        start = timestamp(session["date"])
        messages = [{"role": role, "content": text, "created_at": iso_time(start + t)}
                    for t, (role, text) in enumerate(session["turns"])]
        reply = engine.update_history(scope, parse_messages(messages))
        if len(reply["ids"]) != len(messages):
            raise RuntimeError(f"{conversation['id']} session {s}: {len(messages)} turns sent, "
                               f"{len(reply['ids'])} stored")
        memory_of.update({(s, t): memory_id for t, memory_id in enumerate(reply["ids"])})
    return memory_of


def covered(item, wanted: set) -> set:
    """The evidence turns a recalled item stands for: itself, or the turns it was learnt from."""
    return ({item.id} | set(getattr(item, "sources", None) or ())) & wanted


def score(found: list, evidence: set) -> dict:
    top = set()
    for item in found[:K]:
        top |= covered(item, evidence)
    rank = next((i + 1 for i, item in enumerate(found[:LIMIT]) if covered(item, evidence)), None)
    return {"recall@5": len(top) / len(evidence), "mrr": 1 / rank if rank else 0.0,
            "hit@5": float(bool(top))}


def evaluate(lang: str, config: dict, verbose: bool = False) -> list:
    """One row per question: its kind and scores."""
    data = load(DATA_DIR, lang)
    engine, data_dir = open_engine(config)
    rows = []
    try:
        stored = [(c, ingest(engine, lang, c)) for c in data["conversations"]]
        engine.wait_idle(timeout=1800)
        for conversation, memory_of in stored:
            text_of = {}
            for s, session in enumerate(conversation["sessions"]):
                for t, (_, text) in enumerate(session["turns"]):
                    text_of[memory_of[(s, t)]] = text
            scope = Scope(user_id=conversation["id"], session_id=f"{conversation['id']}-ask", lang=lang)
            for q in conversation["questions"]:
                evidence = {memory_of[tuple(ref)] for ref in q["evidence"]}
                found = engine.recall(scope, q["question"], limit=LIMIT, threshold=0.0)
                row = {"kind": q["kind"], **score(found, evidence)}
                rows.append(row)
                if verbose and row["mrr"] < 1:
                    print(f"  [{lang} {q['kind']}] {q['question']!r} (MRR {row['mrr']:.2f})")
                    print(f"      wanted: {' | '.join(text_of[e] for e in evidence)}")
                    for item in found[:3]:
                        print(f"      got {item.kind:<9} {item.score:.2f} {item.content[:90]!r}")
    finally:
        engine.close()
        shutil.rmtree(data_dir, ignore_errors=True)
    return rows


def personal_facts(lang: str, config: dict, verbose: bool = False) -> dict:
    data = load(FACTS_DIR, lang)
    engine, data_dir = open_engine(config)
    try:
        scope = Scope(user_id=f"facts-{lang}", session_id="facts", lang=lang)
        messages = []
        for fact in data["facts"]:
            messages += [{"role": "user", "content": fact["fact"]},
                         {"role": "assistant", "content": fact["reply"]}]
        ids = engine.update_history(scope, parse_messages(messages))["ids"]
        if len(ids) != len(messages):
            raise RuntimeError(f"{lang}: {len(messages)} turns sent, {len(ids)} stored")
        engine.wait_idle(timeout=600)
        ask = Scope(user_id=f"facts-{lang}", session_id="ask", lang=lang)
        top1, rr = [], []
        for i, fact in enumerate(data["facts"]):
            wanted = {ids[2 * i]}
            found = engine.recall(ask, fact["question"], limit=LIMIT, threshold=0.0)
            row = score(found, wanted)
            top1.append(float(bool(found) and bool(covered(found[0], wanted))))
            rr.append(row["mrr"])
            if verbose and not top1[-1]:
                print(f"  [{lang} fact] {fact['question']!r} wanted {fact['fact']!r}")
                for item in found[:3]:
                    print(f"      got {item.kind:<9} {item.score:.2f} {item.content[:90]!r}")
        return {"n": len(top1), "top1": statistics.fmean(top1), "mrr": statistics.fmean(rr)}
    finally:
        engine.close()
        shutil.rmtree(data_dir, ignore_errors=True)


def summarize(rows: list) -> dict:
    out = {"n": len(rows)}
    for metric in ("recall@5", "mrr", "hit@5"):
        out[metric] = statistics.fmean(r[metric] for r in rows) if rows else 0.0
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--langs", nargs="+", default=list(LANGS), choices=LANGS)
    parser.add_argument("--module", default="lexical",
                        help="the keywords-only memory_module (default: lexical)")
    parser.add_argument("--config", default="{}", help="memory_service overrides for every run, as JSON")
    parser.add_argument("--embeddings-model", default="",
                        help="also run the default configuration with this fastembed model")
    parser.add_argument("--only", nargs="+", choices=["lexical", "default", "model", "facts"],
                        help="only these runs (default: all)")
    parser.add_argument("--verbose", action="store_true", help="print the questions missed at rank 1")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    base = json.loads(args.config)
    configs = {"lexical": {**base, "memory_module": args.module}, "default": dict(base)}
    if args.embeddings_model:
        configs["model"] = {**base, "embeddings": {**base.get("embeddings", {}), "model": args.embeddings_model}}
    names = {"lexical": f"keywords ({args.module})", "default": "default (all-MiniLM-L6-v2)",
             "model": f"default with {args.embeddings_model}"}
    only = set(args.only or ["lexical", "default", "model", "facts"])
    results = {"retrieval": {}, "personal_facts": {}}
    for name, config in configs.items():
        if name not in only:
            continue
        per_lang = {}
        for lang in args.langs:
            started = time.perf_counter()
            rows = evaluate(lang, config, args.verbose)
            per_lang[lang] = {"all": summarize(rows),
                              **{kind: summarize([r for r in rows if r["kind"] == kind]) for kind in KINDS}}
            print(f"{name} {lang}: {len(rows)} questions in {time.perf_counter() - started:.0f} s; "
                  f"evidence_recall@5 {per_lang[lang]['all']['recall@5']:.3f}, "
                  f"MRR {per_lang[lang]['all']['mrr']:.3f}", flush=True)
        results["retrieval"][name] = per_lang
    if "facts" in only:
        for name in ("default", "model"):
            if name in configs:
                results["personal_facts"][name] = {
                    lang: personal_facts(lang, configs[name], args.verbose) for lang in args.langs}

    if results["retrieval"]:
        print("\nevidence_recall@5 / MRR per language (every kind asked, limit 10, threshold 0)")
        print(f"{'configuration':<44}" + "".join(f"{lang:>16}" for lang in args.langs))
    for name, per_lang in results["retrieval"].items():
        print(f"{names[name]:<44}" + "".join(
            f"{per_lang[lang]['all']['recall@5']:>9.3f} {per_lang[lang]['all']['mrr']:.3f}" for lang in args.langs))
    for kind in KINDS if results["retrieval"] else ():
        print(f"\n  {kind} questions only")
        for name, per_lang in results["retrieval"].items():
            print(f"  {names[name]:<42}" + "".join(
                f"{per_lang[lang][kind]['recall@5']:>9.3f} {per_lang[lang][kind]['mrr']:.3f}"
                for lang in args.langs) + "   n " + "/".join(str(per_lang[lang][kind]["n"]) for lang in args.langs))
    if results["personal_facts"]:
        print("\npersonal facts: top-1 share / MRR through memory.recall (target 0.9 en-us, 0.8 others)")
        for name, per_lang in results["personal_facts"].items():
            cells = []
            for lang in args.langs:
                target = FACTS_TARGET.get(lang, FACTS_TARGET_OTHERS)
                mark = "ok" if per_lang[lang]["top1"] >= target else "--"
                cells.append(f"{per_lang[lang]['top1']:>6.2f} {per_lang[lang]['mrr']:.2f} {mark}")
            print(f"{names[name]:<44}" + "".join(f"{c:>16}" for c in cells))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
