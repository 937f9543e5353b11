"""The embeddings of recent queries, each computed once for a recall and
the relevance scores of its items.

A question seldom shares words with the statement that answers it, and with
the multilingual model their cosines hardly tell that statement from the rest
of what a person said ("que parte do corpo me arranjaram no hospital" / "no
ano passado operaram-me ao joelho direito"). Such a model carries a query map
(``query_map``: factors u and v), learnt from questions and the statements
that answer them (benchmarks/fit_query_map.py): a question's vector q becomes
q + u (v^T q), at q's length, nearer the kind of statement that kind of
question asks for (a trade for "how do I earn a living", a town for "where is
my daughter"). On sets it did not learn from, the nearest user turn answered
0.78-0.92 of the questions, 0.52-0.72 unmoved. Stored memories are embedded as they
are, so a new map needs nothing embedded again. Only what a person asks is
moved: not a topic named by one word ("music"), judged by its words, nor a
memory's text compared with what restates it.
"""
import threading
from concurrent.futures import Future
from contextlib import suppress

import numpy as np

QUERIES_KEPT = 32


def moved(vector: np.ndarray, query_map) -> np.ndarray:
    """``vector`` moved by ``query_map`` (u, v), at its own length."""
    u, v = query_map
    result = vector + u @ (v.T @ vector)
    return (result * (np.linalg.norm(vector) / max(float(np.linalg.norm(result)), 1e-12))).astype(np.float32)


class QueryVectors:
    """A query's embedding, computed once for a recall and the relevance
    scores of its items (the latest ``QUERIES_KEPT`` queries are kept, and
    every query still being embedded)."""

    def __init__(self, embedder):
        self.embedder = embedder
        self._queries = {}  # (text, asked) -> Future of its vector, oldest first
        self._lock = threading.Lock()

    def __call__(self, text: str, asked: bool = False) -> np.ndarray:
        """The vector of ``text``, moved by the model's query map if a person
        ``asked`` it; members of a build asking at once wait for one embedding."""
        key = (text, asked)
        with self._lock:
            found, mine = self._queries.get(key), False
            if found is None:
                found = self._queries[key] = Future()
                mine = True
                done = [k for k, f in self._queries.items() if f.done()]
                for oldest in done[:max(0, len(self._queries) - QUERIES_KEPT)]:
                    del self._queries[oldest]
        if mine:
            try:
                vector = np.asarray(self.embedder.embed_query(text), dtype=np.float32)
                query_map = self.embedder.query_map
                found.set_result(moved(vector, query_map) if asked and query_map is not None else vector)
            except BaseException as e:
                with self._lock:  # asked again, it is embedded again
                    if self._queries.get(key) is found:
                        del self._queries[key]
                found.set_exception(e)
        return found.result()

    def ahead(self, text: str, asked: bool = False):
        """Embed ``text`` now unless it is kept or being embedded (then nothing to wait for)."""
        with self._lock:
            if (text, asked) in self._queries:
                return
        with suppress(Exception):  # whoever asks next embeds it again, and says why
            self(text, asked)
