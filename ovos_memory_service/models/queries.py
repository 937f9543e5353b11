"""The embeddings of recent queries, each computed once for a recall and
the relevance scores of its items."""
import threading

import numpy as np

QUERIES_KEPT = 32


class QueryVectors:
    """A query's embedding, computed once for a recall and the relevance
    scores of its items (the latest ``QUERIES_KEPT`` queries are kept)."""

    def __init__(self, embedder):
        self.embedder = embedder
        self._queries = {}  # text -> vector, oldest first
        self._lock = threading.Lock()

    def __call__(self, text: str) -> np.ndarray:
        with self._lock:
            if text in self._queries:
                return self._queries[text]
        vector = np.asarray(self.embedder.embed_query(text), dtype=np.float32)
        with self._lock:
            self._queries[text] = vector
            while len(self._queries) > QUERIES_KEPT:
                self._queries.pop(next(iter(self._queries)))
        return vector
