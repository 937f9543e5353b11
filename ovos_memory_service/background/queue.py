"""A background thread working one durable queue of the store."""
import threading
import time
from typing import List, Optional

from ovos_utils.log import LOG

from ovos_memory_service.store import Job, Store


class QueueWorker:
    """One daemon thread per queue. It works whenever told that a write was
    committed (``wake``) and every few seconds otherwise, and no error stops
    it: failures are logged, kept in ``last_error`` and retried later."""
    queues = ()             # the store's queues this worker takes jobs from
    idle_wait_s = 5
    # a failed job waits first_backoff_s, doubling with each attempt up to max_backoff_s
    first_backoff_s = 1
    max_backoff_s = 600
    stop_wait_s = 60       # how long stop() waits for the batch in hand

    def __init__(self, store: Store, name: str):
        self.store = store
        self.last_error: Optional[str] = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def work_once(self) -> bool:
        """Work one batch; False when there was nothing to do."""
        raise NotImplementedError

    def idle(self):
        """Called when the queue is empty (upkeep)."""

    def start(self):
        self._thread.start()

    def stop(self):
        """Finish the batch in hand, then stop; unfinished jobs stay queued."""
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=self.stop_wait_s)

    def wake(self):
        self._wake.set()

    def claim(self, limit: int, newest_first: bool = False) -> List[Job]:
        """Due jobs of this worker's queues, held for it until finished or postponed."""
        return self.store.claim(self.queues, limit, time.time(), newest_first)

    def pending(self) -> int:
        return self.store.pending(self.queues)

    def drain(self, timeout: float = 60) -> bool:
        """Wait until the queue is empty (tests, benchmarks, reindex)."""
        deadline = time.monotonic() + timeout
        while self.pending():
            if time.monotonic() > deadline:
                return False
            self.wake()
            time.sleep(0.02)
        return True

    def postpone(self, job: Job, error: str):
        """Retry a failed job later, waiting twice as long after each failure."""
        self.store.postpone(job.id, min(self.max_backoff_s, self.first_backoff_s * 2 ** job.attempts), error)

    def failed(self, what: str, error: Exception):
        LOG.exception(f"{what}; it will be retried")
        self.last_error = f"{type(error).__name__}: {error}"

    def _run(self):
        while not self._stop.is_set():
            try:
                worked = self.work_once()
            except Exception as e:  # never let the worker die
                self.failed(f"{self._thread.name} failed", e)
                worked = False
            if not worked:
                self.idle()
                self._wake.wait(self.idle_wait_s)
                self._wake.clear()
