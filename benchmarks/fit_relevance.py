"""Fit the calibrated relevance of ovos_memory_service/relevance.py on the
development split of the labelled relevance set (benchmarks/relevance/).

Every scenario is stored for a user of its own through the service's write
path (turns, then the facts the rules learn from them). For every query and
every memory of its scenario, the service's own evidence (similarity, keyword
coverage, exact) is paired with the person's judgement: a turn as labelled,
a derived memory (a fact) relevant when one of its source turns is. Pairs
with a query's context turns (about it only through the conversation, see
benchmarks/relevance/README.md), or with a fact learnt only from them, are
left out: the score is computed from the memory's own text. Two
logistic regressions are fitted by Newton's method: with similarity and
coverage and topic words, and without similarity (memories without a vector). It prints the
weights to write into relevance.py, the log loss and Brier score of the
fitted and of the current weights on both splits, and the recall at precision
0.98 of the fitted weights and the best of a grid of weights searched on each
split itself: how far the forget threshold can go with these features.

    python benchmarks/fit_relevance.py [--data benchmarks/relevance] [--embeddings-model NAME]
"""
import argparse
import math
import os
import sys
import tempfile
from dataclasses import replace

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from benchmarks.relevance_data import judged, load_sets, open_engine, store_scenarios  # noqa: E402
from ovos_memory_service import relevance  # noqa: E402
from ovos_memory_service.items import KINDS  # noqa: E402


def pairs(engine, stored):
    """(split, evidence, label) for every query and memory of every scenario,
    but the query's context turns (and facts learnt only from them);
    returns (pairs, how many were left out, (split, query, the cosines of
    every memory of its user) per query)."""
    out, left_out, spreads = [], 0, []
    for scenario in stored:
        items = engine.list(scenario.scope, KINDS, 10_000, 0, "all")[0]
        for query in scenario.queries:
            relevant, context = scenario.relevant_ids(query), scenario.context_ids(query)
            _, evidence = engine.reader.evidence(scenario.scope, query["query"], items)
            spreads.append((scenario.split, query["query"],
                            [ev.similarity for ev in evidence if ev.similarity is not None]))
            for item, ev in zip(items, evidence):
                label = judged(item, relevant, context)
                if label is None:
                    left_out += 1
                else:
                    out.append((scenario.split, ev, label))
    return out, left_out, spreads


def design(rows, with_meaning: bool):
    x = [[1.0, *relevance.features(ev if with_meaning else replace(ev, similarity=None))] for ev, _ in rows]
    return np.asarray(x, dtype=float), np.asarray([label for _, label in rows], dtype=float)


def fit_logistic(x, y, ridge=1e-3, steps=50):
    """Maximum likelihood (a little ridge for stability), Newton's method,
    every weight but the intercept at least 0: more of any evidence never
    makes a memory less relevant (a feature whose weight would go below 0
    is left out, and the rest fitted again)."""
    free = np.ones(x.shape[1], bool)
    while True:
        w = np.zeros(x.shape[1])
        for _ in range(steps):
            p = 1 / (1 + np.exp(-np.clip(x @ w, -60, 60)))
            gradient = (x.T @ (p - y) + ridge * w)[free]
            hessian = ((x * (p * (1 - p))[:, None]).T @ x + ridge * np.eye(len(w)))[np.ix_(free, free)]
            step = np.linalg.solve(hessian, gradient)
            w[free] -= step
            if np.abs(step).max() < 1e-9:
                break
        negative = [i for i in range(1, len(w)) if free[i] and w[i] < 0]
        if not negative:
            return w
        free[min(negative, key=lambda i: w[i])] = False


def recall_at_precision(rows, score, precision: float) -> float:
    """The largest share of the relevant pairs a threshold on ``score`` keeps
    with at least ``precision`` among what it keeps."""
    ranked = sorted(rows, key=lambda row: score(row[0]), reverse=True)
    relevant = sum(label for _, label in ranked)
    best = kept = 0
    for n, (_, label) in enumerate(ranked, 1):
        kept += label
        if kept / n >= precision:
            best = kept
    return best / max(1, relevant)


def losses(rows, score):
    eps = 1e-9
    log_loss = brier = 0.0
    for ev, label in rows:
        p = min(1 - eps, max(eps, score(ev)))
        log_loss -= label * math.log(p) + (1 - label) * math.log(1 - p)
        brier += (p - label) ** 2
    return log_loss / max(1, len(rows)), brier / max(1, len(rows))


# each model is fitted on the languages it serves by default (vectors/embedder.py)
MODELS = {"sentence-transformers/all-MiniLM-L6-v2": ("en-us",),
          "google/universal-sentence-encoder-multilingual-3": ("pt-pt", "es-es", "de-de")}


def prior(found) -> tuple:
    """The mean and standard deviation of a query's cosines to a user's
    memories, averaged over the development queries."""
    means, stds = [], []
    for split, query, similarities in found:
        if split == "dev" and len(similarities) > 1:
            means.append(float(np.mean(similarities)))
            stds.append(float(np.std(similarities)))
    return float(np.mean(means)), float(np.mean(stds))


def fit_model(model: str, langs, data):
    sets = [s for folder in data for s in load_sets(folder) if s["lang"] in langs]
    with tempfile.TemporaryDirectory() as tmp:
        engine = open_engine(tmp, embeddings={"model": model})
        try:
            found, context, spreads = pairs(engine, store_scenarios(engine, sets))
        finally:
            engine.close()
    rows = {split: [(ev, label) for s, ev, label in found if s == split and not (ev.exact or ev.says_nothing)]
            for split in ("dev", "test")}
    print(f"== {model} on {', '.join(langs)}")
    print(f"pairs: dev {len(rows['dev'])}, test {len(rows['test'])} (exact matches and turns that say "
          f"nothing left out: they score 1 and 0; "
          f"{context} context pairs left out: about the query only through the conversation)")
    mean, std = prior(spreads)
    print(f'SPREAD_PRIOR["{model}"] = ({mean:.2f}, {std:.2f})')
    with_vectors = [(ev, y) for ev, y in rows["dev"] if ev.similarity is not None]
    meaning = tuple(float(w) for w in fit_logistic(*design(with_vectors, True)))
    print(f'WITH_MEANING["{model}"] = ({", ".join(f"{w:.2f}" for w in meaning)})')
    current = relevance.weights_for(model)
    for name, score in (("current", lambda ev: relevance.relevance(ev, current)),
                        ("fitted", lambda ev: relevance.relevance(ev, meaning))):
        for split in ("dev", "test"):
            log_loss, brier = losses(rows[split], score)
            print(f"{name:8} {split:5} log loss {log_loss:.4f}  Brier {brier:.4f}")
    print("recall of the pairs at precision 0.98 with the fitted weights")
    for split in ("dev", "test"):
        embedded = [(ev, y) for ev, y in rows[split] if ev.similarity is not None]
        print(f"  {split:5} {recall_at_precision(embedded, lambda ev: relevance.relevance(ev, meaning), 0.98):.3f}")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", nargs="*", default=[os.path.join(ROOT, "benchmarks", name)
                                                      for name in ("relevance", "understanding")],
                        help="folders of labelled sets (default: the relevance and understanding sets)")
    parser.add_argument("--models", nargs="*", default=list(MODELS), help="the models to fit (default: both)")
    args = parser.parse_args()
    every = {"dev": [], "test": []}
    for model in args.models:
        for split, rows in fit_model(model, MODELS[model], args.data).items():
            every[split] += rows
    keywords = tuple(float(w) for w in fit_logistic(*design(every["dev"], False)))
    print(f"== without a vector, every language\nKEYWORDS_ONLY = ({', '.join(f'{w:.2f}' for w in keywords)})")
    for split in ("dev", "test"):
        log_loss, brier = losses(every[split], lambda ev: relevance.relevance(replace(ev, similarity=None), None, keywords))
        print(f"fitted   {split:5} log loss {log_loss:.4f}  Brier {brier:.4f}")


if __name__ == "__main__":
    main()
