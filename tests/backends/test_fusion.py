"""The five fusion modes as pure functions."""
import pytest

from ovos_memory_service.backends.fusion import fuse
from ovos_memory_service.common.items import MemoryItem


def item(memory_id, score, content=None):
    return MemoryItem(id=memory_id, content=content or f"text {memory_id}", kind="turn",
                      created_at=0.0, session_id="s", persona_id="", score=score, rank_score=score)


LEXICAL = [item("a", 0.9), item("b", 0.8), item("c", 0.2)]
SEMANTIC = [item("c", 0.7), item("d", 0.6), item("a", 0.5)]


def ids(items):
    return [i.id for i in items]


def test_rrf_rewards_agreement_and_respects_weights():
    fused = fuse([LEXICAL, SEMANTIC], [1.0, 1.0], "rrf", rrf_k=60)
    assert ids(fused)[:2] == ["a", "c"]  # in both lists
    assert fused[0].rank_score == pytest.approx(1 / 61 + 1 / 63)
    assert fused[0].score == 0.9  # the best relevance either list gave
    assert ids(fuse([LEXICAL, SEMANTIC], [0.0, 1.0], "rrf"))[0] == "c"


def test_weighted_sums_scores():
    fused = fuse([LEXICAL, SEMANTIC], [1.0, 1.0], "weighted")
    assert ids(fused) == ["a", "c", "b", "d"]
    assert fused[0].rank_score == pytest.approx((0.9 + 0.5) / 2)


def test_merge_sorts_by_score():
    assert ids(fuse([LEXICAL, SEMANTIC], [1, 1], "merge")) == ["a", "b", "c", "d"]


def test_priority_takes_the_first_list_that_has_hits():
    assert ids(fuse([SEMANTIC, LEXICAL], [1, 1], "priority")) == ["c", "d", "a"]  # as the seed
    assert ids(fuse([[], LEXICAL], [1, 1], "priority")) == ["a", "b", "c"]


def test_interleave_alternates():
    assert ids(fuse([LEXICAL, SEMANTIC], [1, 1], "interleave")) == ["a", "c", "b", "d"]


def test_dedup_by_content_or_by_id():
    same_words = [[item("x", 0.9, "I said yes")], [item("y", 0.8, "i said yes.")]]
    assert ids(fuse(same_words, [1, 1], "merge", dedup=True)) == ["x"]
    assert ids(fuse(same_words, [1, 1], "merge", dedup=False)) == ["x", "y"]


def test_bad_arguments():
    with pytest.raises(ValueError):
        fuse([LEXICAL], [1], "average")
    with pytest.raises(ValueError):
        fuse([LEXICAL], [1], "rrf", rrf_k=0)
