"""The embedding queue: every memory with text gets a vector, after the reply.

Turns are acknowledged as soon as the store has them; the store queues each
one (queue ``embed``) in the same transaction, so the queue survives
restarts. One worker thread embeds the queue in batches without holding the
store, then hands the vectors back (``Store.save_vectors``), which keeps only
those whose jobs are still queued: a memory forgotten or rewritten meanwhile
is never indexed with its old text. Failed batches are retried with backoff;
a new process retries at once what an earlier one postponed.

The newest memories are embedded first: after a restart (or a burst of
writes) what was just said is found by meaning within seconds, while the
backlog behind it is worked off at full speed (keyword recall finds it
meanwhile). The store compacts its vector files every so many writes and on
the ``vector_compact_minutes`` schedule, so neither the versions nor the cost
of a write grow under continuous writes. After a compaction, at most every
``TRIM_EVERY_S`` while the queue is worked, and when it runs empty, the heap
that glibc keeps after frees is given back to the system.
"""
import time
from typing import Callable, Optional

from ovos_memory_service.learning.queue import QueueWorker
from ovos_memory_service.store import ModelChanged, Store
from ovos_memory_service.common.native_memory import release_free_memory
from ovos_memory_service.models.embedder import Embedder, embed_text


TRIM_EVERY_S = 10


class EmbeddingWorker(QueueWorker):
    """Embeds the "embed" queue with ``embedder``. With ``next_embedder`` (a
    model change), the "reembed" queue too, with that model, after "embed"
    (what was just said stays findable); once "reembed" is empty the store
    makes the new vectors the searched ones, this worker embeds with the new
    model from then on, and ``on_change(next_embedder)`` is called. If another
    daemon sharing the store gave the change up or began another one,
    ``on_change(None)``: this one goes on with ``embedder``."""
    queues = ("embed",)

    def __init__(self, store: Store, embedder: Embedder, batch_size: int = 16, compact_minutes: float = 10,
                 next_embedder: Optional[Embedder] = None,
                 on_change: Callable[[Optional[Embedder]], None] = lambda e: None):
        super().__init__(store, "memory-embedder")
        self.embedder = embedder
        self.next_embedder = next_embedder
        self.on_change = on_change
        self.batch_size = batch_size
        self.compact_s = compact_minutes * 60
        self.embedded = 0  # vectors written since the start
        self._last_compact = self._last_trim = time.monotonic()
        self._release_due = False

    def pending(self) -> int:
        # a model change not ended yet is work too (wait_idle waits for it)
        return self.store.pending(("embed", "reembed") if self.next_embedder else ("embed",)) + \
            (self.next_embedder is not None)

    def work_once(self) -> bool:
        if self._embed_batch(("embed",), self.embedder):
            return True
        upcoming = self.next_embedder
        if upcoming is None:
            return False
        try:
            if self._embed_batch(("reembed",), upcoming):
                return True
        except ModelChanged:
            pass  # the next set is no longer this model's
        else:
            if self.store.end_reembedding(upcoming.name):
                self.embedder, self.next_embedder = upcoming, None
                self.on_change(upcoming)
                return True
            if self.store.reembedding() == upcoming.name:
                return False  # jobs postponed, or claimed by another daemon
        self.next_embedder = None
        self.on_change(None)
        return True

    def _embed_batch(self, queues, embedder: Embedder) -> bool:
        jobs = self.claim(self.batch_size, newest_first=True, queues=queues)
        if not jobs:
            return False
        rows = {row["id"]: row for row in self.store.get_memories([job.subject for job in jobs])}
        orphans = [job.id for job in jobs if job.subject not in rows]
        if orphans:  # their memories are gone
            self.store.finish(orphans)
        jobs = [job for job in jobs if job.subject in rows]
        try:
            vectors = embedder.embed([embed_text(rows[job.subject]) for job in jobs])
            self.embedded += self.store.save_vectors(
                {job.id: (rows[job.subject], vector) for job, vector in zip(jobs, vectors)}, embedder.name)
            if self.store.maintain_vectors():
                self._compacted()
            self._release_due = True
            if time.monotonic() - self._last_trim >= TRIM_EVERY_S:
                self._release()
            return True
        except ModelChanged:  # another daemon ended or changed a model change: not this model's to embed
            for job in jobs:
                self.store.requeue(job.id)
            if queues == ("reembed",):
                raise
            return False
        except Exception as e:
            self.failed("embedding a batch failed", e)
            for job in jobs:
                self.postpone(job, self.last_error)
            return False

    def idle(self):
        """Compact the vector files on schedule while they receive vectors."""
        if time.monotonic() - self._last_compact >= self.compact_s and self.store.maintain_vectors(force=True):
            self._compacted()
        if self._release_due:
            self._release()

    def _compacted(self):
        self._last_compact = time.monotonic()
        self._release()

    def _release(self):
        release_free_memory()
        self._last_trim = time.monotonic()
        self._release_due = False
