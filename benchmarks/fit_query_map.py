"""Learn the multilingual model's query map: a question's vector moved towards
the statements that answer it.

A question and its answer seldom share words, and with the multilingual model
their cosines hardly tell the answer from the rest of what a person said ("que
parte do corpo me arranjaram no hospital" / "no ano passado operaram-me ao
joelho direito"). The map, ``q + U (V^T q)`` of rank ``--rank``, is learnt so
that among every user turn of a scenario the mapped question's nearest is the
turn that answers it (a softmax over the turns' cosines, weight decay towards
no change). It learns what kind of statement a kind of question asks for (a
trade for "how do I earn a living", a town for "where is my daughter"), in
every language at once. The service moves what a person asks by it
(models/queries.py); stored memories are embedded as before.

It is learnt from the understanding sets written blind and read since
(benchmarks/understanding/blind/, ``--learn``) and prints, for the sets named by
``--check`` (not learnt from), how often the question's nearest user turn is
its answer before and after the map. The relevance weights
(benchmarks/fit_relevance.py) were fitted before the map and kept: fitted
again on the moved vectors they changed how a topic's one word is judged,
which the map does not touch (docs/recall.md, 2026-12-07).

    python benchmarks/fit_query_map.py [--learn FOLDER ...] [--check FOLDER ...] [--out FILE]
"""
import argparse
import glob
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from ovos_memory_service.models.embedder import embed_text  # noqa: E402
from ovos_memory_service.models.multilingual import QUERY_MAP, MultilingualEmbedder  # noqa: E402
from ovos_memory_service.models.queries import moved  # noqa: E402

BLIND = os.path.join(ROOT, "benchmarks", "understanding", "blind")
LEARNT_FROM = [os.path.join(BLIND, name) for name in ("fresh16", "fresh17", "fresh18", "fresh19", "fresh20")]
CHECKED_ON = [os.path.join(ROOT, "benchmarks", "understanding"), *(os.path.join(BLIND, name)
                                                                 for name in ("fresh22", "fresh23"))]
TEMPERATURE = 20.0  # cosines times this, before the softmax over a scenario's turns


def questions(embedder, folders):
    """(question's vector, its user turns' vectors (unit rows), the answer's row, lang)."""
    found = []
    for folder in folders:
        for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
            understanding = json.load(open(path, encoding="utf-8"))
            for scenario in understanding["scenarios"]:
                said = [e["user"] for e in scenario["exchanges"]]
                turns = np.asarray(embedder.embed([embed_text({"kind": "turn", "name": "", "role": "user",
                                                               "content": text}) for text in said]), np.float64)
                turns /= np.linalg.norm(turns, axis=1, keepdims=True)
                answer = {e["fact"]: i for i, e in enumerate(scenario["exchanges"]) if e.get("fact")}
                for q in scenario["questions"]:
                    vector = np.asarray(embedder.embed_query(q["question"]), np.float64)
                    found.append((vector / np.linalg.norm(vector), turns, answer[q["fact"]], understanding["lang"]))
    return found


def nearest_is_answer(found, query_map=None):
    """Per language, the share of questions whose nearest user turn answers them."""
    hits = {}
    for q, turns, answer, lang in found:
        x = q if query_map is None else moved(q, query_map)
        hits.setdefault(lang, []).append(int(np.argmax(turns @ x) == answer))
    return {lang: round(float(np.mean(h)), 3) for lang, h in sorted(hits.items())}


def learn(found, rank, decay, steps, rate=0.01, seed=0):
    """U, V by Adam on the mean softmax loss plus ``decay`` x their squared norms."""
    rng = np.random.default_rng(seed)
    dim = found[0][0].shape[0]
    u, v = rng.normal(0, 0.01, (dim, rank)), rng.normal(0, 0.01, (dim, rank))
    moments = [[np.zeros_like(u), np.zeros_like(u)], [np.zeros_like(v), np.zeros_like(v)]]
    for step in range(1, steps + 1):
        grad_u, grad_v = decay * u, decay * v
        for q, turns, answer, _ in found:
            vq = v.T @ q
            x = q + u @ vq
            norm = np.linalg.norm(x)
            unit = x / norm
            logits = TEMPERATURE * (turns @ unit)
            p = np.exp(logits - logits.max())
            p /= p.sum()
            p[answer] -= 1
            g_unit = TEMPERATURE * (turns.T @ p)
            g_x = (g_unit - unit * (unit @ g_unit)) / norm
            grad_u += np.outer(g_x, vq) / len(found)
            grad_v += np.outer(q, u.T @ g_x) / len(found)
        for weights, grad, (m, s) in ((u, grad_u, moments[0]), (v, grad_v, moments[1])):
            m *= 0.9
            m += 0.1 * grad
            s *= 0.999
            s += 0.001 * grad * grad
            weights -= rate * (m / (1 - 0.9 ** step)) / (np.sqrt(s / (1 - 0.999 ** step)) + 1e-8)
    return u, v


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learn", nargs="*", default=LEARNT_FROM, help="understanding sets to learn from")
    parser.add_argument("--check", nargs="*", default=CHECKED_ON, help="understanding sets to check on")
    parser.add_argument("--rank", type=int, default=32)
    parser.add_argument("--decay", type=float, default=0.01)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--out", default=str(QUERY_MAP), help="where the map is written (default: the package's)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        embedder = MultilingualEmbedder(cache_dir=Path(cache))
        learnt, checked = questions(embedder, args.learn), questions(embedder, args.check)
    u, v = learn(learnt, args.rank, args.decay, args.steps)
    print(f"learnt from {len(learnt)} questions, checked on {len(checked)}")
    print("  the nearest user turn answers the question, before:", nearest_is_answer(checked))
    print("  after:", nearest_is_answer(checked, (u, v)), "(learnt from:", nearest_is_answer(learnt, (u, v)), ")")
    np.savez_compressed(args.out, u=u.astype(np.float32), v=v.astype(np.float32))
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
