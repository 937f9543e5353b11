"""memory.recall's order (relevance.most_relevant): the relevance order and the
backend's ranking together, exact matches first."""
import math

import pytest

from ovos_memory_service.common.items import MemoryItem
from ovos_memory_service.backends.relevance import most_relevant


def item(content: str, score: float, rank_score: float) -> MemoryItem:
    return MemoryItem(id=content, content=content, kind="turn", created_at=0.0, session_id="s", persona_id="",
                      score=score, rank_score=rank_score)


def contents(items):
    return [i.content for i in items]


def test_the_backends_ranking_lifts_a_memory_nearly_as_relevant():
    """Second by relevance but first by the fused ranking (a speaker or date the
    question names, the question before it) goes above the most relevant one
    that the ranking puts last."""
    items = [item("named the day", 0.70, 0.9), item("alpha", 0.60, 0.8), item("beta", 0.55, 0.7),
             item("gamma", 0.50, 0.6), item("delta", 0.45, 0.5), item("most relevant", 0.72, 0.1)]
    assert contents(most_relevant(items, 0.0, "en-us"))[:2] == ["named the day", "most relevant"]


def test_a_reply_that_says_nothing_stays_below_the_fact_that_answers():
    items = [item("Okay.", 0.21, 0.9), item("My wife's name is Clara.", 0.42, 0.8),
             item("My dog is called Rex.", 0.51, 0.7), item("I ride my bike to work.", 0.30, 0.6),
             item("My sister lives in Lisbon.", 0.25, 0.5)]
    assert contents(most_relevant(items, 0.0, "en-us"))[0] == "My dog is called Rex."
    assert contents(most_relevant(items, 0.0, "en-us"))[-1] == "Okay."


def test_a_reply_that_says_nothing_comes_last_even_when_it_scores_higher():
    """"¡Qué bien!" can score above the fact in meaning and be ranked first by
    the backend (the turn it follows lifts it); it still comes after every
    memory that says something."""
    items = [item("¡Qué bien!", 0.13, 0.9), item("De acuerdo.", 0.05, 0.8),
             item("Voy a la oficina en Cercanías.", 0.12, 0.5), item("Mi perro se llama Rex.", 0.04, 0.1)]
    assert contents(most_relevant(items, 0.0, "es-es")) == [
        "Voy a la oficina en Cercanías.", "Mi perro se llama Rex.", "¡Qué bien!", "De acuerdo."]


def test_an_exact_match_comes_first_and_the_threshold_is_the_relevance():
    items = [item("ranked first", 0.95, 0.9), item("said exactly", 1.0, 0.0), item("weak", 0.3, 0.8)]
    assert contents(most_relevant(items, 0.5, "en-us")) == ["said exactly", "ranked first"]


def test_a_memory_that_is_not_the_best_answer_is_judged_in_both_steps():
    """Only the best of the memories compared leads; the others still go
    through the second step (a question's runner-up is not scored on its
    first step alone)."""
    from ovos_memory_service.backends.relevance import Evidence, Fitted, scores
    model = "test-model"
    fitted = {model: Fitted((0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0), (-1.0, 1.0, 1.0))}
    best, other = Evidence(0.5, 0.0, standout=2.0), Evidence(0.5, 0.0, standout=1.0)
    first, second = scores([best, other], model, ["a", "b"], fitted)
    assert second == pytest.approx(1 / (1 + math.exp(-(-1.0 + 1.0))))  # -1 + 1 x its logit 1, no lead
    assert first > second
