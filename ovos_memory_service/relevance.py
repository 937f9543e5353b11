"""Calibrated relevance: how likely a person would say a memory is about a query.

Every recalled item's ``score`` comes from here, whichever backend found it:
the evidence is the memory's own text only (never the turn before it, never a
neighbouring turn, which may still raise ``rank_score``):

- ``similarity``: cosine of the query's and the memory's embeddings (None when
  the memory has no vector yet, or semantic recall is off);
- ``standout``: how far that cosine stands above the cosines of the user's
  other memories to the same query, in standard deviations (``standout``
  below): cosines alone do not tell an answer from the rest (with the
  multilingual model a question's answer has a median of 0.35, the best other
  memory 0.25, and one-word topics sit near 0.2 against everything), but the
  answer stands out from what else the user said;
- ``coverage``: the idf-weighted share of the query's keywords that the
  memory's own words contain (store/sqlite/keywords.py);
- ``topic``: the share of keywords it does not contain but talks about
  through their topic's words ("pet" -> "cat", locale/<lang>/topics.list);
- ``exact``: the memory says exactly the query (case, spacing and closing
  punctuation aside), or the query is exactly a fact's value ("lisbon");
- ``says_nothing``: a turn made only of acknowledgements and stop words
  ("Okay.", words.says_nothing): it is about nothing on its own;
- ``one_word``: the query is one keyword ("music", "where do I live"): a
  topic, for which its words and its topic's words are the evidence that
  counts (they get weights of their own);
- ``own``: the memory is the user's own words (a user turn, or what was
  learnt from them), not the assistant's: what a person asks about is
  mostly what they told.

An exact match scores 1, a turn that says nothing 0. Otherwise the score is a
logistic model of the numbers, fitted on the development splits of the
labelled sets in benchmarks/ (``python benchmarks/fit_relevance.py`` prints
them); a second model serves memories without a vector (not embedded yet, or
semantic recall off). Each embedding model has weights of its own, as its
cosines spread differently (a model not fitted here gets all-MiniLM-L6-v2's).
"""
import math
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from ovos_memory_service.words import says_nothing

# logistic weights per embedding model (vectors/embedder.py): the intercept, then
# one per number of ``features`` (similarity, standout, coverage, topic, coverage
# and topic again for a one-word query, own); and without a vector, the same without
# the first two
WITH_MEANING = {
    "sentence-transformers/all-MiniLM-L6-v2": (-6.03, 4.54, 2.25, 0.00, 1.78, 3.86, 1.65, 1.31),
    "google/universal-sentence-encoder-multilingual-3": (-4.52, 2.64, 1.24, 0.43, 4.57, 6.04, 0.00, 0.30),
}
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
DEFAULT_WEIGHTS = WITH_MEANING[DEFAULT_MODEL]
KEYWORDS_ONLY = (-4.0, 7.0, 4.0, 1.0, 1.0, 0.5)
# the cosines of a model's memories to a query, before a user's own are known:
# (mean, standard deviation), and how many of the user's they weigh as (SPREAD_WEIGHT)
SPREAD_PRIOR = {
    "sentence-transformers/all-MiniLM-L6-v2": (0.27, 0.15),
    "google/universal-sentence-encoder-multilingual-3": (0.07, 0.10),
}
SPREAD_WEIGHT = 5


def weights_for(model: str) -> tuple:
    """The similarity weights fitted for ``model`` (all-MiniLM-L6-v2's if none were)."""
    return WITH_MEANING.get(model, DEFAULT_WEIGHTS)


def standout(similarity: float, spread: Optional[Tuple[float, float, int]], model: str) -> float:
    """How many standard deviations ``similarity`` stands above the cosines of
    the user's memories to the same query (``spread``: their mean, standard
    deviation and number), each estimated together with the model's prior,
    so that a user with three memories is not judged by those three alone."""
    mean0, std0 = SPREAD_PRIOR.get(model, SPREAD_PRIOR[DEFAULT_MODEL])
    mean_n, std_n, n = spread or (mean0, std0, 0)
    k = SPREAD_WEIGHT
    mean = (n * mean_n + k * mean0) / (n + k)
    variance = (n * (std_n ** 2 + (mean_n - mean) ** 2) + k * (std0 ** 2 + (mean0 - mean) ** 2)) / (n + k)
    return (similarity - mean) / max(variance ** 0.5, 1e-3)


@dataclass(frozen=True)
class Evidence:
    similarity: Optional[float]
    coverage: float
    exact: bool = False
    topic: float = 0.0  # share of keywords found only through their topic's words
    standout: float = 0.0  # see standout(); 0 without a similarity
    says_nothing: bool = False
    one_word: bool = False
    own: bool = False


def features(evidence: Evidence) -> Tuple[float, ...]:
    """The numbers the weights after the intercept multiply."""
    one = float(evidence.one_word)
    words = (evidence.coverage, evidence.topic, one * evidence.coverage, one * evidence.topic, float(evidence.own))
    return words if evidence.similarity is None else (evidence.similarity, evidence.standout, *words)


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def relevance(evidence: Evidence, with_meaning: Optional[Sequence[float]] = None,
              keywords_only: Optional[Sequence[float]] = None) -> float:
    """The calibrated relevance of one memory, in 0..1 (other weights: for fitting)."""
    if evidence.exact:
        return 1.0
    if evidence.says_nothing:
        return 0.0
    if evidence.similarity is None:
        weights = KEYWORDS_ONLY if keywords_only is None else keywords_only
    else:
        weights = DEFAULT_WEIGHTS if with_meaning is None else with_meaning
    return _sigmoid(weights[0] + sum(w * x for w, x in zip(weights[1:], features(evidence))))


# memory.recall's order fuses two rankings, as RRF does: by relevance (a
# memory's own words and meaning) and the backend's (where neighbours, the
# context column, speakers and dates count too). Tried on LoCoMo's development
# split and the multilingual set (k 5): weight 0.5 took LoCoMo dev from 0.586
# (relevance alone) to 0.628, with all-MiniLM-L6-v2's multilingual figures and
# personal facts within 0.01 (the multilingual model lost one German fact of
# ten); 0.25 gave 0.603, and 1 gave 0.649 but put a reply above a personal fact.
RANK_WEIGHT = 0.5
RANK_K = 5


def most_relevant(items: List, threshold: float, lang: str) -> List:
    """Items of at least ``threshold`` relevance, best first: exact matches,
    then by their places in the relevance order and in the backend's
    (``rank_score``) together; a turn that says nothing on its own last."""
    kept = [item for item in items if item.score >= threshold]
    by_rank = {id(item): place for place, item in
               enumerate(sorted(kept, key=lambda item: item.rank_score, reverse=True))}
    by_relevance = sorted(kept, key=lambda item: (item.score, item.rank_score), reverse=True)
    order = {id(item): 1 / (RANK_K + place) + RANK_WEIGHT / (RANK_K + by_rank[id(item)])
             for place, item in enumerate(by_relevance)}
    return saying_something_first(sorted(by_relevance, key=lambda item: order[id(item)], reverse=True), lang)


def saying_something_first(items: List, lang: str) -> List:
    """``items`` in their order, but exact matches first and the turns that
    say nothing on their own ("Okay.", "¡Qué bien!") last: such a reply can
    be as close to a question in meaning, or lifted by the turn it follows,
    yet it never answers it for the one who asks."""
    return sorted(items, key=lambda item: (item.score < 1.0, item.kind == "turn" and says_nothing(item.content, lang)))
