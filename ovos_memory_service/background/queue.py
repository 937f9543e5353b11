"""A background thread working a durable queue table of the store."""
import threading
import time
from typing import Optional

from ovos_utils.log import LOG
from sqlite_utils import Database


class QueueWorker:
    """One daemon thread per queue. It works whenever told that a write was
    committed (``wake``) and every few seconds otherwise, and no error stops
    it: failures are logged, kept in ``last_error`` and retried later."""
    queue_table = ""
    idle_wait_s = 5
    # a failed job waits first_backoff_s, doubling with each attempt up to max_backoff_s
    first_backoff_s = 1
    max_backoff_s = 600
    stop_wait_s = 60       # how long stop() waits for the batch in hand

    def __init__(self, db: Database, lock: threading.RLock, name: str):
        self.db = db
        self.lock = lock
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

    def pending(self) -> int:
        with self.lock:
            return self.db.execute(f"SELECT count(*) FROM {self.queue_table}").fetchone()[0]

    def drain(self, timeout: float = 60) -> bool:
        """Wait until the queue is empty (tests, benchmarks, reindex)."""
        deadline = time.monotonic() + timeout
        while self.pending():
            if time.monotonic() > deadline:
                return False
            self.wake()
            time.sleep(0.02)
        return True

    def postpone(self, job_rowid: int, attempts: int, error: str):
        """Retry a failed job later (the caller holds the lock)."""
        delay = min(self.max_backoff_s, self.first_backoff_s * 2 ** attempts)
        self.db.execute(f"UPDATE {self.queue_table} SET attempts = attempts + 1, next_at = ?, error = ? "
                        "WHERE rowid = ?", [time.time() + delay, error, job_rowid])

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
