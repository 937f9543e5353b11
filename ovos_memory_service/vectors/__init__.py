"""Meaning: the embedding models (embedder.py, multilingual.py), the LanceDB
vector index the SQLite store keeps (index.py), and the embeddings of recent
queries."""
import threading
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

QUERIES_KEPT = 32
# a build's query is embedded here while the build reads its window
_EMBEDDING = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memory-query")


class QueryVectors:
    """A query's embedding, computed once for a build or recall and the
    relevance scores of its items (the latest ``QUERIES_KEPT`` queries are
    kept). ``prefetch`` starts it at once; asking waits for that."""

    def __init__(self, embedder):
        self.embedder = embedder
        self._queries = {}  # text -> Future of its vector, oldest first
        self._lock = threading.Lock()

    def prefetch(self, text: str):
        self._future(text, _EMBEDDING.submit)

    def __call__(self, text: str) -> np.ndarray:
        return self._future(text, self._here).result()

    def _future(self, text: str, run) -> Future:
        with self._lock:
            future = self._queries.get(text)
            if future is not None and not (future.done() and future.exception() is not None):
                return future
            self._queries[text] = future = Future()
            while len(self._queries) > QUERIES_KEPT:
                self._queries.pop(next(iter(self._queries)))
        run(self._embed, text, future)
        return future

    @staticmethod
    def _here(function, *args):
        function(*args)

    def _embed(self, text: str, future: Future):
        try:
            future.set_result(np.asarray(self.embedder.embed_query(text), dtype=np.float32))
        except BaseException as e:  # whoever waits for it raises it
            future.set_exception(e)
