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
  for a question, only in the user's own words: the assistant's trivia
  names many a topic's word ("bees" for "what am I allergic to") without
  telling anything of the user (one test item fewer for never-said
  questions, nothing else changed on either split);
- ``exact``: the memory says exactly the query (case, spacing and closing
  punctuation aside), or the query is exactly a fact's value ("lisbon");
- ``says_nothing``: a turn made only of acknowledgements and stop words
  ("Okay.", words.says_nothing): it is about nothing on its own;
- ``one_word``: the query names a topic by one keyword, in at most two
  words ("music", "my sister"): its words and its topic's words are the
  evidence that counts (they get weights of their own);
- ``answers``: the memory is a fact of the slot the query asks for, or the
  turn it was learnt from ("what's my trade": an occupation,
  learning/facts/asked.py); a fact about someone else than the one the query
  asks about ("what's my sister called": a daughter's name), or of the user's of a slot that
  cannot tell it ("do I have pets": an allergy to cats, learning/facts/asked.py MAY_ANSWER),
  scores 0, and so does the turn it was learnt from if it says nothing more; a turn that
  says a little more (``elsewhere``) is judged by its own evidence, without the lead;
- ``own``: the memory is the user's own words (a user turn, or what was
  learnt from them), not the assistant's: what a person asks about is
  mostly what they said. (Counting only their statements, not their
  questions, made no difference on the development split.)

An exact match scores 1, a turn that says nothing 0. Otherwise the score is a
logistic model of the numbers and, for a question, a second one that adds how
far the best answer leads the others (``scores``), fitted on the development
splits of the labelled sets in benchmarks/ (``python benchmarks/fit_relevance.py``
prints them); other weights serve memories without a vector (not embedded yet,
or semantic recall off). Each embedding model has weights of its own, as its
cosines spread differently (a model not fitted here gets all-MiniLM-L6-v2's).
"""
import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ovos_memory_service.common.words import says_nothing

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


@dataclass(frozen=True)
class Fitted:
    """The weights fitted for one embedding model (benchmarks/fit_relevance.py)."""
    # the logistic model: the intercept, then one weight per number of ``features``
    evidence: Tuple[float, ...]
    # the second step, for questions: intercept, a memory's own logit, and by how
    # much it leads the next best of the memories compared (``standing``)
    best: Tuple[float, float, float] = (0.0, 1.0, 0.0)
    # the cosines of the model's memories to a query before a user's own are
    # known (mean, standard deviation): the prior of ``standout``
    spread: Tuple[float, float] = (0.0, 0.1)


FITTED = {
    "sentence-transformers/all-MiniLM-L6-v2": Fitted(
        (-8.31, 1.92, 7.02, 3.29, 1.77, 3.16, 1.69, 6.37, 1.8, 5.66), (-1.43, 0.65, 1.08), (0.11, 0.09)),
    "google/universal-sentence-encoder-multilingual-3": Fitted(
        (-6.05, -0.18, 7.48, 0.0, 1.59, 5.74, 0.0, 6.98, 1.2, 6.51), (-1.87, 0.62, 1.68), (0.06, 0.08)),
}
# memories without a vector (not embedded yet, or semantic recall off): words only
KEYWORDS_ONLY = Fitted((-5.7, -0.85, 7.88, 7.14, 1.98, 6.85, 1.78, 4.63), (-1.38, 0.65, 1.33))
SPREAD_WEIGHT = 5  # how many of a user's cosines the prior weighs as
# a lead beyond this (the answer e^2, seven times as likely as the next) tells more of
# how unrelated the rest is than of the answer (on the development split: capped,
# more answers were found at the recall threshold, and fewer wrong items)
LEAD_CAP = 2.0


def fitted_for(model: Optional[str]) -> Fitted:
    """The weights fitted for ``model`` (all-MiniLM-L6-v2's for one not fitted here)."""
    return FITTED.get(model, FITTED[DEFAULT_MODEL]) if model else KEYWORDS_ONLY


def standout(similarity: float, spread: Optional[Tuple[float, float, int]], model: str) -> float:
    """How many standard deviations ``similarity`` stands above the cosines of
    the user's memories to the same query (``spread``: their mean, standard
    deviation and number), each estimated together with the model's prior,
    so that a user with three memories is not judged by those three alone."""
    mean0, std0 = fitted_for(model).spread
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
    # a fact of the slot the question asks for, or the turn it was learnt from; False: about
    # someone else than the one asked about (learning/facts/asked.py); None: not known
    answers: Optional[bool] = None
    # a turn whose facts are all of other slots than asked, though it says more than they do
    elsewhere: bool = False


def features(evidence: Evidence) -> Tuple[float, ...]:
    """The numbers the evidence weights after the intercept multiply: whether
    the query is one word (its own intercept), the keywords' coverage; for a
    query of several words, the meaning (similarity, standout), the topic's
    words in the user's own words and whether the memory is theirs; for a one-word
    query, a topic, the topic's words and whose words they are (one word sits
    near the same cosine to everything: its meaning does not count)."""
    one, own = float(evidence.one_word), float(evidence.own)
    meaning = () if evidence.similarity is None else (evidence.similarity, evidence.standout)
    several = (*meaning, evidence.topic * own, own)
    return (one, evidence.coverage, *[(1 - one) * x for x in several], one * evidence.topic, one * own,
            float(evidence.answers is True))


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def logit(evidence: Evidence, weights: Sequence[float]) -> float:
    """The first step: the log-odds that one memory is about the query, from its own evidence."""
    return weights[0] + sum(w * x for w, x in zip(weights[1:], features(evidence)))


def standing(logits: Sequence[float], floor: float, groups: Optional[Sequence[str]] = None) -> List[float]:
    """For each of ``logits`` (the memories compared for one query): by how
    much it leads the best of the others when it is the best (at least
    ``floor``, a memory with no evidence at all), up to ``LEAD_CAP``, else 0.
    Memories of one group (a turn and the facts learnt from it) are one
    answer: they all lead when one does, by its lead over the other groups."""
    if not logits:
        return []
    groups = list(groups) if groups is not None else list(range(len(logits)))
    top = {}
    for group, value in zip(groups, logits):
        top[group] = max(value, top.get(group, value))
    best = max(top, key=top.get)
    runner_up = max([value for group, value in top.items() if group != best] + [floor])
    return [min(LEAD_CAP, top[best] - runner_up) if group == best else 0.0 for group in groups]


def judged_alone(evidence: Evidence) -> bool:
    """Whether the models judge this evidence: not an exact match (1), a turn
    that says nothing, or a fact about someone else than the one asked about (0)."""
    return not (evidence.exact or evidence.says_nothing or evidence.answers is False)


def scores(evidence: Sequence[Evidence], model: Optional[str], groups: Optional[Sequence[str]] = None,
           fitted: Optional[Dict[Optional[str], Fitted]] = None, lead: bool = True) -> List[float]:
    """The calibrated relevance of each memory compared for one query, in 0..1:
    1 for an exact match, 0 for a turn that says nothing; otherwise its own
    evidence's logit, and for a question (not a one-word topic, which many
    memories may be about) raised by how far the best of those compared
    leads the others: the answer stands out from the rest of what the user
    said, even when its cosine is low. ``groups``: see ``standing``;
    ``fitted``: other weights, for fitting; ``lead`` False: every memory as
    if it led none (what forgetting goes by: being the best of what is left
    once the answer is gone is no reason to delete a memory)."""
    def weights(ev: Evidence) -> Fitted:
        name = model if ev.similarity is not None else None
        return (fitted or {}).get(name) or fitted_for(name)
    judged = [i for i, ev in enumerate(evidence) if judged_alone(ev)]
    first = [logit(evidence[i], weights(evidence[i]).evidence) for i in judged]
    floor = min((weights(evidence[i]).evidence[0] for i in judged), default=0.0)
    found = [1.0 if ev.exact else 0.0 for ev in evidence]
    places = standing(first, floor, [groups[i] for i in judged] if groups is not None else None)
    for i, own, ahead in zip(judged, first, places):
        if evidence[i].one_word:
            found[i] = _sigmoid(own)
            continue
        b0, b_own, b_lead = weights(evidence[i]).best
        found[i] = _sigmoid(b0 + b_own * own + (b_lead * ahead if lead and not evidence[i].elsewhere else 0.0))
    return found


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
