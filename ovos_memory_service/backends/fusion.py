"""Fusing ranked lists from several retrievers into one, as the seed's composite
does: ``rrf``, ``weighted``, ``merge``, ``priority`` (only the first list that
has hits: a fallback chain), ``interleave``.

Every fused item keeps ``score`` as its best relevance (0..1) from any list,
so it stays comparable across backends, and gets ``rank_score``, the value the
fused order was sorted by.
"""
from dataclasses import replace
from typing import Callable, Dict, List, Sequence

from ovos_memory_service.common.blocks import FUSIONS
from ovos_memory_service.common.items import MemoryItem, normalized

RRF_K = 60  # Cormack et al. 2009, "Reciprocal rank fusion outperforms Condorcet..."


def _key(dedup: bool) -> Callable[[MemoryItem], str]:
    return (lambda item: normalized(item.content)) if dedup else (lambda item: item.id)


def _collect(lists, key, gain) -> List[MemoryItem]:
    """Sum ``gain(list_index, rank, item)`` per key over the lists (a key counts
    once per list, at its best rank); the best-scoring copy represents it."""
    total: Dict[str, float] = {}
    best: Dict[str, MemoryItem] = {}
    for i, items in enumerate(lists):
        counted = set()
        for rank, item in enumerate(items, start=1):
            k = key(item)
            if k in counted:
                continue
            counted.add(k)
            total[k] = total.get(k, 0.0) + gain(i, rank, item)
            if k not in best or item.score > best[k].score:
                best[k] = item
    fused = [replace(best[k], rank_score=total[k]) for k in best]
    fused.sort(key=lambda item: item.rank_score, reverse=True)
    return fused


def _in_order(lists, key, order) -> List[MemoryItem]:
    """Walk (list, rank) positions in ``order``, keeping the first copy of each key."""
    best_score: Dict[str, float] = {}
    for items in lists:
        for item in items:
            best_score[key(item)] = max(best_score.get(key(item), 0.0), item.score)
    seen, fused = set(), []
    for i, rank in order:
        if rank < len(lists[i]):
            item = lists[i][rank]
            if key(item) not in seen:
                seen.add(key(item))
                fused.append(item)
    return [replace(item, score=best_score[key(item)], rank_score=1.0 / (n + 1))
            for n, item in enumerate(fused)]


def fuse(lists: Sequence[Sequence[MemoryItem]], weights: Sequence[float], mode: str = "rrf",
         rrf_k: int = RRF_K, dedup: bool = True) -> List[MemoryItem]:
    if mode not in FUSIONS:
        raise ValueError(f"fusion must be one of {', '.join(FUSIONS)}")
    if rrf_k <= 0:
        raise ValueError("rrf_k must be greater than 0")
    key = _key(dedup)
    lists = [list(items) for items in lists]
    if mode == "rrf":
        fused = _collect(lists, key, lambda i, rank, item: weights[i] / (rrf_k + rank))
    elif mode == "weighted":
        norm = sum(weights) or 1.0
        fused = _collect(lists, key, lambda i, rank, item: weights[i] * item.score / norm)
    elif mode == "merge":
        fused = _collect(lists, key, lambda i, rank, item: 0.0)
        fused = sorted((replace(item, rank_score=item.score) for item in fused),
                       key=lambda item: item.rank_score, reverse=True)
    elif mode == "priority":  # a fallback chain, as the seed: the first list with hits, alone
        first = next((i for i, items in enumerate(lists) if items), None)
        fused = [] if first is None else _in_order(lists, key, [(first, r) for r in range(len(lists[first]))])
    else:  # interleave
        depth = max((len(items) for items in lists), default=0)
        fused = _in_order(lists, key, [(i, r) for r in range(depth) for i in range(len(lists))])
    return fused
