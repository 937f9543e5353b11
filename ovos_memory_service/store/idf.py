"""The idf of a query's words for keyword coverage, the same on every store:

    idf(t) = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))

N is every stored memory (all users), n_t those whose own text holds the
word. Counting n_t is the slow part of a build on a large store (the whole
index's matches of the word), so a word's count is kept while N moves by less
than 1%: a rare word's idf hardly moves meanwhile, and on a store of fewer
than 100 memories any change counts it again.
"""
import math
import threading
from typing import Callable, Hashable, List, Sequence

KEPT = 4096  # words whose count is kept; then a fresh start rather than bookkeeping


def idf(total: int, n: int) -> float:
    return math.log(1 + (total - n + 0.5) / (n + 0.5))


class DocumentCounts:
    def __init__(self):
        self._lock = threading.Lock()
        self._counts = {}  # word -> (memories whose text has it, N then)

    def idfs(self, total: int, words: Sequence[Hashable],
             count: Callable[[List[Hashable]], List[int]]) -> List[float]:
        """idf of each of ``words`` among ``total`` memories; ``count(words)``
        counts the memories holding each word, for those not known."""
        with self._lock:
            known = {w: self._counts.get(w) for w in words}
        stale = [w for w, seen in known.items() if seen is None or abs(total - seen[1]) > total / 100]
        if stale:
            fresh = dict(zip(stale, count(stale)))
            with self._lock:
                if len(self._counts) + len(fresh) > KEPT:
                    self._counts = {}
                self._counts.update({w: (n, total) for w, n in fresh.items()})
            known.update({w: (n, total) for w, n in fresh.items()})
        return [idf(total, known[w][0]) for w in words]
