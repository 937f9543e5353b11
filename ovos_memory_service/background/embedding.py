"""Semantic recall: the background embedding queue and vector search.

Turns are acknowledged as soon as SQLite has them; a trigger queues each one
in ``embed_jobs`` in the same transaction, so the queue survives restarts.
One worker thread embeds the queue in batches outside the engine's lock,
then writes the vectors and clears the jobs under it, so a memory forgotten
meanwhile is never indexed. Failed batches are retried with backoff; a new
process retries at once what an earlier one postponed.

The newest memories are embedded first: after a restart (or a burst of
writes) what was just said is found by meaning within seconds, while the
backlog behind it is worked off at full speed (keyword recall finds it
meanwhile). The vector table is compacted every ``COMPACT_WRITES`` writes and
on the ``vector_compact_minutes`` schedule, counting the versions an earlier
run left, so neither the versions nor the cost of a write grow under
continuous writes or repeated crashes. After a compaction, at most every
``TRIM_EVERY_S`` while the queue is worked, and when it runs empty, the heap
that glibc keeps after frees is given back to the system.
"""
import threading
import time
from pathlib import Path
from typing import List, Tuple

import numpy as np
from sqlite_utils import Database

from ovos_memory_service.vectors.embedder import Embedder, release_free_memory
from ovos_memory_service.vectors.index import COMPACT_WRITES, VectorIndex
from ovos_memory_service.background.queue import QueueWorker


def embed_text(row: dict) -> str:
    """What gets embedded: a turn with its speaker, as it was said."""
    if row["kind"] != "turn":
        return row["content"]
    speaker = row["name"] or {"user": "User", "assistant": "Assistant"}.get(row["role"], "")
    return f"{speaker}: {row['content']}" if speaker else row["content"]


TRIM_EVERY_S = 10


class SemanticIndex(QueueWorker):
    queue_table = "embed_jobs"

    def __init__(self, db: Database, lock: threading.RLock, embedder: Embedder, folder: Path,
                 batch_size: int = 16, compact_minutes: float = 10):
        super().__init__(db, lock, "memory-embedder")
        self.embedder = embedder
        self.vectors = VectorIndex(folder, embedder.dim)
        self.batch_size = batch_size
        self.compact_s = compact_minutes * 60
        self.embedded = 0  # vectors written since the start
        self._last_compact = self._last_trim = time.monotonic()
        self._release_due = False
        with self.lock, self.db.atomic():
            # a backoff decided by an earlier process is stale: this one retries at once
            self.db.execute("UPDATE embed_jobs SET next_at = 0, attempts = 0 WHERE next_at > 0")
        if self.vectors.writes >= COMPACT_WRITES:
            self._compact()
        self._queries = {}  # the latest query texts and their embeddings, oldest first
        self._queries_lock = threading.Lock()

    # ------------------------------------------------------------ the queue
    def work_once(self) -> bool:
        with self.lock:
            jobs = self.db.execute_returning_dicts(
                "SELECT j.rowid AS job, j.attempts, m.seq, m.id, m.user_id, m.kind, m.role, m.name, "
                "m.content FROM embed_jobs j JOIN memories m ON m.id = j.memory_id "
                "WHERE j.next_at <= ? ORDER BY j.rowid DESC LIMIT ?", [time.time(), self.batch_size])
        if not jobs:
            return False
        try:
            vectors = self.embedder.embed([embed_text(j) for j in jobs])
            with self.lock:
                # only jobs untouched since they were read: a forgotten or
                # rewritten memory has lost (or replaced) its job row
                current = {r[0] for r in self.db.execute(
                    "SELECT rowid FROM embed_jobs WHERE rowid IN (%s)" % ",".join("?" * len(jobs)),
                    [j["job"] for j in jobs])}
                rows = [(j["seq"], j["id"], j["user_id"], v) for j, v in zip(jobs, vectors)
                        if j["job"] in current]
                self.vectors.upsert(rows)
                with self.db.atomic():
                    self.db.conn.executemany("DELETE FROM embed_jobs WHERE rowid = ?", [[j] for j in current])
            if self.vectors.writes >= COMPACT_WRITES:
                self._compact()  # outside the engine's lock: builds and recalls go on meanwhile
            self.embedded += len(rows)
            self._release_due = True
            if time.monotonic() - self._last_trim >= TRIM_EVERY_S:
                self._release()
            return True
        except Exception as e:
            self.failed("embedding a batch failed", e)
            with self.lock, self.db.atomic():
                for j in jobs:
                    self.postpone(j["job"], j["attempts"], self.last_error)
            return False

    def idle(self):
        """Compact the vector table on schedule while it receives vectors."""
        if self.vectors.writes and time.monotonic() - self._last_compact >= self.compact_s:
            self._compact()
        if self._release_due:
            self._release()

    def _compact(self):
        """Compaction takes the vector files' lock only (vectors.py): searches
        run from memory meanwhile, and a forget's purge waits its turn."""
        self.vectors.compact()
        self._last_compact = time.monotonic()
        self._release()

    def _release(self):
        release_free_memory()
        self._last_trim = time.monotonic()
        self._release_due = False

    # ---------------------------------------------------------------- reads
    def search(self, user_id: str, text: str, min_seq: int, limit: int) -> List[Tuple[str, float]]:
        return self.vectors.search(self.query_vector(text), user_id, min_seq, limit)

    def similarities(self, user_id: str, text: str, ids) -> dict:
        """id -> cosine similarity of ``text`` and each of ``ids`` that has a vector."""
        return self.vectors.similarities(self.query_vector(text), user_id, ids)

    def query_vector(self, text: str) -> np.ndarray:
        """A query's embedding; a recall and its relevance scores embed it once."""
        with self._queries_lock:
            if text in self._queries:
                return self._queries[text]
        vector = np.asarray(self.embedder.embed_query(text), dtype=np.float32)
        with self._queries_lock:
            self._queries[text] = vector
            while len(self._queries) > 32:
                self._queries.pop(next(iter(self._queries)))
        return vector

    # --------------------------------------------------------------- writes
    def forget(self, ids):
        """Remove vectors for real (call with the engine's lock held)."""
        if ids:
            self.vectors.delete(ids)
            self.vectors.purge()

    def rebuild(self):
        """Drop every vector and queue every memory again (call with the lock held)."""
        self.vectors.clear()
        with self.db.atomic():
            self.db.execute("DELETE FROM embed_jobs")
            self.db.execute("INSERT INTO embed_jobs (memory_id) SELECT id FROM memories "
                            "WHERE content != '' AND coalesce(role, '') != 'tool'")
        self.wake()
