"""The embeddings of recent queries, each computed once for a recall and
the relevance scores of its items."""
import threading
from concurrent.futures import Future

import numpy as np

QUERIES_KEPT = 32


class QueryVectors:
    """A query's embedding, computed once for a recall and the relevance
    scores of its items (the latest ``QUERIES_KEPT`` queries are kept)."""

    def __init__(self, embedder):
        self.embedder = embedder
        self._queries = {}  # text -> Future of its vector, oldest first
        self._lock = threading.Lock()

    def __call__(self, text: str) -> np.ndarray:
        """The vector of ``text``; members of a build asking at once wait for one embedding."""
        with self._lock:
            found, mine = self._queries.get(text), False
            if found is None:
                found = self._queries[text] = Future()
                mine = True
                while len(self._queries) > QUERIES_KEPT:
                    self._queries.pop(next(iter(self._queries)))
        if mine:
            try:
                found.set_result(np.asarray(self.embedder.embed_query(text), dtype=np.float32))
            except BaseException as e:
                with self._lock:  # asked again, it is embedded again
                    if self._queries.get(text) is found:
                        del self._queries[text]
                found.set_exception(e)
        return found.result()
