"""Fit the calibrated relevance of ovos_memory_service/backends/relevance.py on the
development splits of the labelled sets: the relevance set
(benchmarks/relevance/) and the understanding set (benchmarks/understanding/:
personal facts asked back in other words, topics named by one word, questions
about what was never said).

Every scenario is stored for a user of its own through the service's write
path (turns, then the facts the rules learn from them). For every query and
every memory of its scenario, the service's own evidence (relevance.Evidence)
is paired with the person's judgement: a turn as labelled, a derived memory (a
fact) relevant when one of its source turns is. Pairs with a query's context
turns (about it only through the conversation, see
benchmarks/relevance/README.md), or with a fact learnt only from them, are left
out of the fit: the score is computed from the memory's own text.

Each embedding model is fitted on the languages it serves by default
(models/embedder.py), in two steps, by maximum likelihood with every weight
but the intercepts at least 0 (more of any evidence never makes a memory less
relevant):
1. a logistic model of each memory's own evidence (``Fitted.evidence``);
2. for questions (not one-word topics), a logistic model of that logit and
   of how far the memory, when it is the best of its user's memories for the
   query, leads the next best (``Fitted.best``).
The weights for memories without a vector are fitted on every language. It
prints the ``FITTED`` entries to write into relevance.py, and for both splits
the log loss of the current and the fitted weights, and what a person meets
at the recall and forget thresholds: precision of the relevance set's
queries, questions whose answer is returned, topic words that find their facts
(and items of other topics), and items returned for never-said questions.

    python benchmarks/fit_relevance.py [--models NAME ...] [--data FOLDER ...]

A set with no development split (benchmarks/understanding/blind/) is measured with the current
weights, not fitted: its "question answered" and "never-said items" are what
benchmarks/understanding.py reports through the bus as returned and never-said items (checked on
fresh22 and fresh23), in seconds; with ``--records`` the evidence is kept, to try other
weights on it.
"""
import argparse
import math
import os
import pickle
import sys
import tempfile
from dataclasses import replace

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from benchmarks.relevance_data import judged, load_sets, open_engine, store_scenarios  # noqa: E402
from ovos_memory_service.backends import relevance  # noqa: E402
from ovos_memory_service.common.config import DEFAULTS  # noqa: E402
from ovos_memory_service.common.items import KINDS  # noqa: E402

# each model is fitted on the languages it serves by default (models/embedder.py)
MODELS = {"sentence-transformers/all-MiniLM-L6-v2": ("en-us",),
          "google/universal-sentence-encoder-multilingual-3": ("pt-pt", "es-es", "de-de")}
RECALL, FORGET = DEFAULTS["recall_relevance_threshold"], DEFAULTS["forget_relevance_threshold"]
UNDERSTANDING = ("no_shared_word", "topic_word", "never_said")


def queries(engine, stored):
    """One record per query: its split, category and text, and every memory
    of its user as (evidence, label, kind, content); label None for a context turn."""
    out = []
    for scenario in stored:
        items = engine.list(scenario.scope, KINDS, 10_000, 0, "all")[0]
        for query in scenario.queries:
            relevant, context = scenario.relevant_ids(query), scenario.context_ids(query)
            _, evidence = engine.reader.evidence(scenario.scope, query["query"], items)
            out.append({"split": scenario.split, "category": query["category"], "query": query["query"],
                        "understanding": scenario.understanding,
                        "memories": [(ev, judged(item, relevant, context), item.kind, item.content,
                                      item.sources[0] if item.sources else item.id)
                                     for item, ev in zip(items, evidence)]})
    return out


def fit_logistic(x, y, ridge=1e-2, steps=100, signed=(0,)):
    """Maximum likelihood (a little ridge for stability), Newton's method,
    every weight but those of the columns ``signed`` (the intercepts) at
    least 0, by an active set: a weight that would go below 0 is held at 0,
    and set free again when the likelihood would rise with it above 0."""
    held = np.zeros(x.shape[1], bool)

    def gradient_at(w):
        p = 1 / (1 + np.exp(-np.clip(x @ w, -60, 60)))
        return x.T @ (p - y) + ridge * w, p

    while True:
        free = ~held
        w = np.zeros(x.shape[1])
        for _ in range(steps):
            gradient, p = gradient_at(w)
            hessian = ((x * (p * (1 - p))[:, None]).T @ x + ridge * np.eye(len(w)))[np.ix_(free, free)]
            step = np.linalg.solve(hessian, gradient[free])
            w[free] -= step
            if np.abs(step).max() < 1e-9:
                break
        negative = [i for i in range(len(w)) if i not in signed and free[i] and w[i] < 0]
        if negative:
            held[min(negative, key=lambda i: w[i])] = True
            continue
        gradient, _ = gradient_at(w)
        rising = [i for i in range(len(w)) if held[i] and gradient[i] < -1e-6]
        if not rising:
            return tuple(round(float(v), 2) for v in w)
        held[min(rising, key=lambda i: gradient[i])] = False


def judged_pairs(records, split, with_meaning):
    """(evidence, label) of the pairs the first step learns from. The
    understanding set's questions share no word with their answers by
    construction: their pairs with memories that do share a word are left
    out, or the fit would learn that shared words count against relevance."""
    return [(ev if with_meaning else replace(ev, similarity=None), float(label))
            for r in records if r["split"] == split for ev, label, *_ in r["memories"]
            if label is not None and relevance.judged_alone(ev)
            and (ev.similarity is not None or not with_meaning)
            and not (r["understanding"] and r["category"] == "no_shared_word" and ev.coverage > 0)]


def fit_evidence(pairs):
    """The first step's weights; the intercepts (of every query, and of a one-word one) may be below 0."""
    x = np.asarray([[1.0, *relevance.features(ev)] for ev, _ in pairs])
    return fit_logistic(x, np.asarray([label for _, label in pairs]), signed=(0, 1))


def fit_best(records, model, evidence_weights):
    """The second step's weights, on the development queries."""
    x, y = [], []
    for r in records:
        if r["split"] != "dev":
            continue
        kept = [(ev, label, group) for ev, label, _, _, group in r["memories"] if relevance.judged_alone(ev)
                and (ev.similarity is not None) == (model is not None)]
        logits = [relevance.logit(ev, evidence_weights) for ev, _, _ in kept]
        places = relevance.standing(logits, evidence_weights[0], [group for *_, group in kept])
        for (ev, label, _), own, lead in zip(kept, logits, places):
            if label is not None and not ev.one_word:
                x.append([1.0, own, lead])
                y.append(float(label))
    return fit_logistic(np.asarray(x), np.asarray(y))


def prior(records) -> tuple:
    """The mean and standard deviation of a query's cosines to its user's
    memories, averaged over the development queries."""
    spreads = [[ev.similarity for ev, *_ in r["memories"] if ev.similarity is not None]
               for r in records if r["split"] == "dev"]
    spreads = [s for s in spreads if len(s) > 1]
    return (round(float(np.mean([np.mean(s) for s in spreads])), 2),
            round(float(np.mean([np.std(s) for s in spreads])), 2))


def measures(records, model, fitted, split) -> dict:
    """Log loss, and what a person meets at the two thresholds: recall's
    scores at the recall threshold, forgetting's (each memory's own
    evidence, ``lead`` False) at the forget threshold."""
    loss, pairs = 0.0, 0
    kept = {RECALL: [0, 0], FORGET: [0, 0]}
    asked = found = topic_facts = topic_found = wrong = never = 0
    for r in records:
        if r["split"] != split:
            continue
        evidence, groups = [ev for ev, *_ in r["memories"]], [group for *_, group in r["memories"]]
        recalled = list(zip(relevance.scores(evidence, model, groups, fitted), r["memories"]))
        forgotten = list(zip(relevance.scores(evidence, model, groups, fitted, lead=False), r["memories"]))
        for p, (ev, label, *_) in recalled:
            if label is not None and relevance.judged_alone(ev):
                p = min(1 - 1e-9, max(1e-9, p))
                loss -= label * math.log(p) + (1 - label) * math.log(1 - p)
                pairs += 1
        category = r["category"]
        if category not in UNDERSTANDING:
            for threshold, scored in ((RECALL, recalled), (FORGET, forgotten)):
                labels = [label for p, (_, label, *_) in scored if p >= threshold and label is not None]
                kept[threshold][0] += sum(labels)
                kept[threshold][1] += len(labels)
        elif category == "no_shared_word":
            asked += 1
            found += any(p >= RECALL and label for p, (_, label, *_) in recalled)
        elif category == "topic_word":
            facts = [p for p, (_, label, kind, *_) in forgotten if label and kind == "turn"]
            topic_facts += len(facts)
            topic_found += sum(p >= FORGET for p in facts)
            wrong += sum(p >= FORGET and label is False for p, (_, label, *_) in forgotten)
        else:
            never += sum(p >= RECALL for p, _ in recalled)
    return {"log loss": loss / max(1, pairs),
            f"precision@{RECALL}": kept[RECALL][0] / max(1, kept[RECALL][1]),
            f"precision@{FORGET} (forget)": kept[FORGET][0] / max(1, kept[FORGET][1]),
            "question answered": found / max(1, asked),
            "topic finds its facts": topic_found / max(1, topic_facts),
            "items of other topics": wrong, "never-said items": never}


def store_every(models, folders) -> dict:
    """model -> the records of ``queries`` for the sets of its languages."""
    records = {}
    for model in models:
        sets = [s for folder in folders for s in load_sets(folder) if s["lang"] in MODELS[model]]
        with tempfile.TemporaryDirectory() as tmp:
            engine = open_engine(tmp, embeddings={"model": model})
            try:
                records[model] = queries(engine, store_scenarios(engine, sets))
            finally:
                engine.close()
    return records


def show(name, split, figures):
    print(f"  {name:8} {split:5} " + ", ".join(
        f"{key} {value:.3f}" if isinstance(value, float) else f"{key} {value}" for key, value in figures.items()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", nargs="*", default=[os.path.join(ROOT, "benchmarks", name)
                                                      for name in ("relevance", "understanding")],
                        help="folders of labelled sets (default: the relevance and understanding sets)")
    parser.add_argument("--models", nargs="*", default=list(MODELS), help="the models to fit (default: both)")
    parser.add_argument("--records", help="a pickle of the evidence: read if it exists, else written (to fit "
                                          "again without storing every scenario again)")
    args = parser.parse_args()
    if args.records and os.path.exists(args.records):
        with open(args.records, "rb") as f:
            records = pickle.load(f)
    else:
        records = store_every(args.models, args.data)
        if args.records:
            with open(args.records, "wb") as f:
                pickle.dump(records, f)

    every = [r for found in records.values() for r in found]
    if not any(r["split"] == "dev" for r in every):  # a set written blind: measured, not fitted
        for model in args.models:
            print(f"== {model} on {', '.join(MODELS[model])}: {len(records[model])} queries")
            show("current", "test", measures(records[model], model, None, "test"))
        return
    keywords = relevance.Fitted(fit_evidence(judged_pairs(every, "dev", False)))
    keywords = replace(keywords, best=fit_best(
        [{**r, "memories": [(replace(ev, similarity=None, standout=0.0), *rest)
                            for ev, *rest in r["memories"]]} for r in every], None, keywords.evidence))
    for model in args.models:
        found = records[model]
        fitted = relevance.Fitted(fit_evidence(judged_pairs(found, "dev", True)), spread=prior(found))
        fitted = replace(fitted, best=fit_best(found, model, fitted.evidence))
        print(f"== {model} on {', '.join(MODELS[model])}: {len(found)} queries")
        print(f'    "{model}": Fitted(\n        {fitted.evidence}, {fitted.best}, {fitted.spread}),')
        for split in ("dev", "test"):
            show("current", split, measures(found, model, None, split))
            show("fitted", split, measures(found, model, {model: fitted, None: keywords}, split))
    print(f"== without a vector, every language\nKEYWORDS_ONLY = Fitted({keywords.evidence}, {keywords.best})")


if __name__ == "__main__":
    main()
