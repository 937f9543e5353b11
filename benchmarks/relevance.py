"""Calibration of recall's ``score`` on the labelled relevance set
(benchmarks/relevance/*.json, see benchmarks/relevance/README.md).

``score`` should be how likely a person would say the memory is about the query,
so that ``memory.recall``'s threshold and ``memory.forget``'s stricter one keep
what is about the query and nothing else. Every scenario of every language is
stored as one conversation of its own user, on an engine whose device language is the
set's (so each language is measured with its default model), through ``MemoryEngine.update_history``
(one update per exchange, as ovos-persona sends them), the background work
(embeddings, rule-based facts) is drained with ``wait_idle``, then every query is
asked with ``MemoryEngine.recall(limit=50, threshold=0)`` over every kind (or
``--kinds turn``). A turn is relevant when the set lists it; a derived item (a
fact, a summary...) is relevant when any of its ``sources`` is a relevant turn.

A query's ``context`` turns are about it only through the conversation (a
pronoun or ellipsis that needs the turn before, a reply that comments without
naming the subject). ``score`` is computed from a memory's own text, so they are
neither relevant nor irrelevant: a returned context turn, or a derived item whose
sources are all context turns, is left out of precision, and context turns are
not in recall's denominator. How many there are is reported.

For each threshold, micro precision = relevant items returned / judged items
returned (at the forget threshold, of each item's own evidence, as
``memory.forget`` judges: the second step of the score, how far the best answer
leads, is recall's alone), and recall = relevant turns covered (returned, or a source of a
returned derived item) / relevant turns, per language and overall, on the dev
and test splits, and per category (issue 36's ``no_shared_word`` and
``topic_word`` among them; "before issue 36" gathers the categories the set had
before them, comparable with earlier figures).

    python benchmarks/relevance.py                          # both splits, default configuration
    python benchmarks/relevance.py --split dev --verbose    # tune on dev only, with the worst errors
    python benchmarks/relevance.py --kinds turn --plot '' --json /tmp/relevance.json
    python benchmarks/relevance.py --split dev --dump-features /tmp/features.jsonl
"""
import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from ovos_memory_service.common.config import DEFAULTS, build_config  # noqa: E402
from ovos_memory_service.engine.engine import MemoryEngine  # noqa: E402
from ovos_memory_service.common.items import KINDS  # noqa: E402
from ovos_memory_service.common.scope import Scope  # noqa: E402
from ovos_memory_service.common.wire import parse_messages  # noqa: E402

DATA_DIR = os.path.join(ROOT, "benchmarks", "relevance")
LANGS = ("en-us", "pt-pt", "es-es", "de-de")
CATEGORIES = ("exact", "value", "topic", "paraphrase", "sense", "shared_name", "none",
              "no_shared_word", "topic_word")
ISSUE_36 = ("no_shared_word", "topic_word")  # issue 36's queries, in scenarios of their own (<lang>-5, -6)
THRESHOLDS = [round(0.05 * i, 2) for i in range(1, 20)]
LIMIT = 50  # memory.recall's maximum


def load(langs, data_dir=DATA_DIR):
    sets = []
    for lang in langs:
        with open(os.path.join(data_dir, f"{lang}.json"), encoding="utf-8") as f:
            sets.append(json.load(f))
    return sets


def ingest(engine: MemoryEngine, lang: str, scenario: dict) -> dict:
    """Store the scenario's exchanges in order; returns memory id -> turn ref (u<i>/a<i>)."""
    scope = Scope(user_id=scenario["id"], session_id=scenario["id"], lang=lang)
    ref_of = {}
    for i, (user, assistant) in enumerate(scenario["exchanges"]):
        reply = engine.update_history(scope, parse_messages([
            {"role": "user", "content": user}, {"role": "assistant", "content": assistant}]))
        if len(reply["ids"]) != 2:
            raise RuntimeError(f"{scenario['id']} exchange {i}: 2 turns sent, {reply} stored")
        ref_of[reply["ids"][0]], ref_of[reply["ids"][1]] = f"u{i}", f"a{i}"
    return ref_of


def ask(engine: MemoryEngine, lang: str, split: str, scenario: dict, ref_of: dict, kinds) -> list:
    """One record per query: its labels and every item recall returned (threshold 0).
    An item's ``label`` is True (relevant), False (not relevant) or None (a context
    turn, or derived only from context turns: not judged)."""
    scope = Scope(user_id=scenario["id"], session_id=scenario["id"], lang=lang)
    records = []
    for q in scenario["queries"]:
        relevant, context = set(q["relevant"]), set(q.get("context", ()))
        items = []
        found = engine.recall(scope, q["query"], limit=LIMIT, threshold=0.0, kinds=kinds)
        # what forgetting goes by: each memory's own evidence (engine.forget)
        own = {m.id: m.score for m in engine.reader.score(scope, q["query"], [replace(m) for m in found], lead=False)}
        for rank, item in enumerate(found):
            if item.kind == "turn":
                ref = ref_of.get(item.id)
                covers = [ref] if ref in relevant else []
                sources = None
                unjudged = ref in context
            else:
                ref = None
                raw = getattr(item, "sources", None)
                sources = [ref_of.get(s, s) for s in (raw or [])]
                covers = sorted(set(s for s in sources if s in relevant))
                unjudged = bool(sources) and all(s in context for s in sources)
            label = True if covers else (None if unjudged else False)
            items.append({"id": item.id, "ref": ref, "kind": item.kind, "content": item.content,
                          "score": float(item.score), "own_score": float(own[item.id]),
                          "rank_score": float(item.rank_score), "rank": rank,
                          "sources": sources, "covers": covers, "label": label})
        records.append({"lang": lang, "split": split, "scenario": scenario["id"], "query": q["query"],
                        "category": q["category"], "relevant": sorted(relevant), "context": sorted(context),
                        "turns": 2 * len(scenario["exchanges"]), "items": items})
    return records


def figures(records: list, threshold: float, score: str = "score") -> dict:
    """Micro precision and turn recall of the items at or above ``threshold``
    (of their ``score``, or ``own_score``: what forgetting goes by); context
    items (label None) are counted apart, in neither."""
    returned = hits = relevant = covered = queries = context = 0
    for r in records:
        queries += 1
        above = [i for i in r["items"] if i[score] >= threshold]
        kept = [i for i in above if i["label"] is not None]
        context += len(above) - len(kept)
        returned += len(kept)
        hits += sum(i["label"] for i in kept)
        relevant += len(r["relevant"])
        covered += len({ref for i in kept for ref in i["covers"]})
    precision = hits / returned if returned else None
    recall = covered / relevant if relevant else None
    f1 = (2 * precision * recall / (precision + recall)
          if precision is not None and recall is not None and precision + recall else None)
    return {"threshold": threshold, "queries": queries, "returned": returned, "relevant_returned": hits,
            "relevant_turns": relevant, "covered": covered, "precision": precision, "recall": recall,
            "f1": f1, "items_per_query": returned / queries if queries else None,
            "context_returned": context}


def fmt(value, width=6):
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.3f}"


def groups(records: list, langs) -> list:
    """(name, records) per language, then overall."""
    return [(lang, [r for r in records if r["lang"] == lang]) for lang in langs] + [("all", records)]


def pr_table(title: str, records: list, langs):
    columns = groups(records, langs)
    print(f"\n{title}")
    print(f"{'thr':>5} " + "".join(f"{name:>16}" for name, _ in columns))
    print(f"{'':>5} " + "".join(f"{'P':>8}{'R':>8}" for _ in columns))
    for t in THRESHOLDS:
        row = [figures(rs, t) for _, rs in columns]
        print(f"{t:>5.2f} " + "".join(f"{fmt(f['precision'], 8)}{fmt(f['recall'], 8)}" for f in row))
    best = []
    for name, rs in columns:
        scored = [figures(rs, t) for t in THRESHOLDS]
        top = max(scored, key=lambda f: f["f1"] or -1)
        best.append(f"{name} {top['threshold']:.2f} (F1 {fmt(top['f1'], 0)})")
    print("best F1 threshold: " + ", ".join(best))


def named_table(title: str, records: list, langs, named: dict):
    print(f"\n{title}")
    head = "".join(f"{label + ' ' + format(t, '.2f'):>34}" for label, t in named.items())
    print(f"{'':<18}{'queries':>8}{head}")
    print(f"{'':<18}{'':>8}" + "".join(f"{'P':>8}{'R':>8}{'F1':>8}{'items/q':>10}" for _ in named))
    # items/q: judged items returned per query; the context items returned are counted after the table
    rows = groups(records, langs)
    # the categories the set had before issue 36, together: comparable with earlier figures
    rows += [("before issue 36", [r for r in records if r["category"] not in ISSUE_36])]
    rows += [(f"  {c}", [r for r in records if r["category"] == c]) for c in CATEGORIES]
    for name, rs in rows:
        if not rs:
            continue
        line = f"{name:<18}{len(rs):>8}"
        for label, t in named.items():
            f = figures(rs, t, "own_score" if label == "forget" else "score")
            line += f"{fmt(f['precision'], 8)}{fmt(f['recall'], 8)}{fmt(f['f1'], 8)}{fmt(f['items_per_query'], 10)}"
        print(line)
    labels = sum(len(r["context"]) for r in records)
    returned = ", ".join(f"{figures(records, t, 'own_score' if label == 'forget' else 'score')['context_returned']} "
                         f"at {label} {t:.2f}" for label, t in named.items())
    print(f"context turns (about the query only through the conversation, not judged): {labels} labels; "
          f"context items returned (left out of precision): {returned}")


def worst_errors(records: list, n: int):
    fps = [(i["score"], r, i) for r in records for i in r["items"] if i["label"] is False]
    fps.sort(key=lambda x: -x[0])
    print(f"\nfalse positives with the highest score (of {len(fps)} non-relevant items returned at threshold 0)")
    for score, r, i in fps[:n]:
        print(f"  {score:.3f} {r['scenario']:<5} {r['category']:<11} {r['query'][:40]!r:<44} "
              f"{i['kind']:<7}{i['ref'] or '':<4} {i['content'][:70]!r}")
    fns = []
    for r in records:
        for ref in r["relevant"]:
            best = max((i for i in r["items"] if ref in i["covers"]), key=lambda i: i["score"], default=None)
            fns.append((best["score"] if best else -1.0, r, ref, best))
    fns.sort(key=lambda x: x[0])
    print(f"\nfalse negatives with the lowest score (of {len(fns)} relevant turns; -1: not returned at all)")
    for score, r, ref, best in fns[:n]:
        via = "" if best is None or best["kind"] == "turn" else f" via {best['kind']}"
        print(f"  {score:>6.3f} {r['scenario']:<5} {r['category']:<11} {r['query'][:40]!r:<44} {ref}{via}")


def plot(path: str, records_by_split: dict, langs, named: dict):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"\nno plot: matplotlib is not installed (pip install matplotlib), {path} not written")
        return
    splits = list(records_by_split)
    fig, axes = plt.subplots(1, len(splits), figsize=(6.5 * len(splits), 5.5), squeeze=False)
    for ax, split in zip(axes[0], splits):
        for name, rs in groups(records_by_split[split], langs):
            points = [figures(rs, t) for t in THRESHOLDS]
            points = [p for p in points if p["precision"] is not None]
            style = {"color": "black", "linewidth": 2.5} if name == "all" else {"linewidth": 1.2}
            line, = ax.plot([p["recall"] for p in points], [p["precision"] for p in points],
                            marker=".", label=name, **style)
            for label, t in named.items():
                f = figures(rs, t)
                if f["precision"] is not None:
                    ax.plot([f["recall"]], [f["precision"]], marker="o" if label == "recall" else "s",
                            markersize=8, markerfacecolor="none", color=line.get_color())
                    if name == "all":
                        ax.annotate(f"{label} {t:.2f}", (f["recall"], f["precision"]),
                                    textcoords="offset points", xytext=(6, 6), fontsize=8)
            for p in points:
                if name == "all" and round(p["threshold"] * 100) % 20 == 0:
                    ax.annotate(f"{p['threshold']:.1f}", (p["recall"], p["precision"]),
                                textcoords="offset points", xytext=(-14, -10), fontsize=7, color="grey")
        ax.set(xlim=(0, 1.02), ylim=(0, 1.02), xlabel="recall (relevant turns covered)",
               ylabel="precision (returned items that are relevant)",
               title=f"memory.recall score, {split} split (thresholds 0.05-0.95; o recall, \u25a1 forget)")
        ax.title.set_fontsize(9)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    print(f"\nplot written to {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=["dev", "test", "all"], default="all",
                        help="all (default): dev and test reported apart")
    parser.add_argument("--langs", default=",".join(LANGS), help="comma-separated, default: every language")
    parser.add_argument("--kinds", choices=["all", "turn"], default="all", help="what recall searches")
    parser.add_argument("--recall-threshold", type=float, default=DEFAULTS["recall_relevance_threshold"])
    parser.add_argument("--forget-threshold", type=float, default=DEFAULTS.get("forget_relevance_threshold", 0.8))
    parser.add_argument("--module", help="memory_module to evaluate instead of the default")
    parser.add_argument("--config", default="{}", help="memory_service overrides, as JSON")
    parser.add_argument("--data", default=DATA_DIR, help="folder of the <lang>.json files")
    parser.add_argument("--plot", default=os.path.join("docs", "relevance-pr.png"),
                        help="precision-recall plot (PNG); '' for none")
    parser.add_argument("--json", help="write every figure to this file")
    parser.add_argument("--dump-features", help="JSONL, one line per (query, returned item) at threshold 0; "
                                                "label 1, 0, or null for a context item")
    parser.add_argument("--verbose", action="store_true", help="list the worst errors")
    parser.add_argument("--errors", type=int, default=25, help="how many errors --verbose lists")
    args = parser.parse_args()

    langs = [lang.strip() for lang in args.langs.split(",") if lang.strip()]
    splits = ["dev", "test"] if args.split == "all" else [args.split]
    kinds = list(KINDS) if args.kinds == "all" else ["turn"]
    named = {"recall": args.recall_threshold, "forget": args.forget_threshold}
    config = json.loads(args.config)
    if args.module:
        config["memory_module"] = args.module

    data = load(langs, args.data)
    stored, records = [], []
    ingest_s = idle_s = query_s = 0.0
    for dataset in data:  # each language on a device set to it (its default model)
        engine = MemoryEngine(build_config({"lang": dataset["lang"], **config,
                                            "data_dir": tempfile.mkdtemp(prefix="relevance-")}))
        engine.open()
        try:
            started = time.perf_counter()
            mine = [(dataset["lang"], scenario, ingest(engine, dataset["lang"], scenario))
                    for scenario in dataset["scenarios"] if scenario["split"] in splits]
            ingest_s += time.perf_counter() - started
            started = time.perf_counter()
            engine.wait_idle(timeout=3600)  # TimeoutError: background work still pending after an hour
            idle_s += time.perf_counter() - started
            started = time.perf_counter()
            for lang, scenario, ref_of in mine:
                records += ask(engine, lang, scenario["split"], scenario, ref_of, kinds)
            query_s += time.perf_counter() - started
            stored += mine
        finally:
            engine.close()

    turns = sum(len(ref_of) for _, _, ref_of in stored)
    judgements = sum(r["turns"] - len(r["context"]) for r in records)
    context_labels = sum(len(r["context"]) for r in records)
    derived = [i for r in records for i in r["items"] if i["kind"] != "turn"]
    sourceless = [i for i in derived if not i["sources"]]
    print(f"{len(stored)} scenarios, {turns} turns stored in {ingest_s:.1f} s, background work drained in "
          f"{idle_s:.1f} s; {len(records)} queries ({judgements} turn judgements, {context_labels} context turns "
          f"not judged) in {query_s:.1f} s; "
          f"kinds: {args.kinds}")
    if derived:
        kinds_seen = defaultdict(int)
        for i in derived:
            kinds_seen[i["kind"]] += 1
        only_context = sum(1 for i in derived if i["label"] is None)
        print(f"derived items returned: {dict(kinds_seen)}; {len(sourceless)} without sources "
              f"(counted as not relevant); {only_context} learnt only from context turns (not judged)")

    by_split = {s: [r for r in records if r["split"] == s] for s in splits}
    for split, rs in by_split.items():
        pr_table(f"{split} split: precision / recall per threshold ({len(rs)} queries)", rs, langs)
    for split, rs in by_split.items():
        named_table(f"{split} split at the named thresholds", rs, langs, named)
    if args.verbose:
        worst_errors([r for rs in by_split.values() for r in rs], args.errors)

    if args.plot:
        plot(args.plot, by_split, langs, named)
    if args.json:
        out = {"kinds": args.kinds, "named_thresholds": named, "splits": {}}
        for split, rs in by_split.items():
            entry = {"per_threshold": {}, "named": {}, "per_category": {}}
            for name, group in groups(rs, langs):
                entry["per_threshold"][name] = [figures(group, t) for t in THRESHOLDS]
                entry["named"][name] = {label: figures(group, t) for label, t in named.items()}
                entry["per_category"][name] = {
                    c: {label: figures([r for r in group if r["category"] == c], t) for label, t in named.items()}
                    for c in CATEGORIES if any(r["category"] == c for r in group)}
            out["splits"][split] = entry
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1, ensure_ascii=False)
        print(f"figures written to {args.json}")
    if args.dump_features:
        with open(args.dump_features, "w", encoding="utf-8") as f:
            for r in records:
                for i in r["items"]:
                    f.write(json.dumps({
                        "lang": r["lang"], "split": r["split"], "scenario": r["scenario"],
                        "category": r["category"], "query": r["query"], "content": i["content"],
                        "kind": i["kind"], "ref": i["ref"], "rank": i["rank"], "score": i["score"],
                        "rank_score": i["rank_score"],
                        "label": None if i["label"] is None else int(i["label"])}, ensure_ascii=False) + "\n")
        print(f"features written to {args.dump_features}")


if __name__ == "__main__":
    main()
