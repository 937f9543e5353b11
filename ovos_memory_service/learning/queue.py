"""A background thread working one durable queue of the store, and the
gate that makes background work yield to the replies being built."""
import os
import sys
import threading
import time
from contextlib import contextmanager
from typing import List, Optional, Sequence

from ovos_utils.log import LOG

from ovos_memory_service.store import Job, Store


BACKGROUND_NICE = 10  # CFS gives such a thread about a tenth of a contended core


def run_niced():
    """Lower this thread's priority (Linux priorities are per thread), so
    that on a busy device the OS gives the cores to the turns and replies
    first, and to the rest of the device (speech, skills) before embeddings.
    Not 19: a worker holding the store's lock must still get the core soon.
    (1k in-process updates back to back, p95: 5.8-6.3 ms, 5.0-5.2 niced.)"""
    if not sys.platform.startswith("linux"):  # elsewhere the id would name a process
        return
    try:
        me = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, me, min(19, os.getpriority(os.PRIO_PROCESS, me) + BACKGROUND_NICE))
    except OSError as e:
        LOG.debug(f"background thread not niced: {e}")


class Foreground:
    """Builds, recalls and updates in progress. Workers wait for them to end before
    each batch, so on a busy device the cores go to the reply a user waits
    for, not to embeddings nobody waits for; but at most ``MAX_YIELD_S``, and
    at most ``YIELD_FACTOR`` times what the worker's last batch took, so that
    where replies never pause (a hub serving many satellites) a worker never
    waits much longer than it works. In a 5-minute soak at 67 requests/s this
    wrote 18% more vectors than the 2 s bound alone (2,578 against 2,188), for
    2.5% fewer requests served; CPU, not waiting, is most of what holds the
    embeddings back there."""
    MAX_YIELD_S = 2.0
    YIELD_FACTOR = 3

    def __init__(self):
        self._in_flight = 0
        self._changed = threading.Condition()

    @contextmanager
    def __call__(self):
        with self._changed:
            self._in_flight += 1
        try:
            yield
        finally:
            with self._changed:
                self._in_flight -= 1
                self._changed.notify_all()

    def yield_to_replies(self, last_batch_s: Optional[float] = None):
        """Wait for the replies in progress; ``last_batch_s``: how long the
        worker's last batch took (None: no share, ``MAX_YIELD_S`` only)."""
        timeout = self.MAX_YIELD_S if last_batch_s is None else min(self.MAX_YIELD_S,
                                                                    self.YIELD_FACTOR * last_batch_s)
        with self._changed:
            self._changed.wait_for(lambda: self._in_flight == 0, timeout=timeout)


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
        self.foreground = Foreground()  # the engine's, once Background runs the worker
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

    def claim(self, limit: int, newest_first: bool = False, queues: Optional[Sequence[str]] = None) -> List[Job]:
        """Due jobs of this worker's queues (or of ``queues``), held for it until finished or postponed."""
        return self.store.claim(queues or self.queues, limit, time.time(), newest_first)

    def pending(self) -> int:
        return self.store.pending(self.queues)

    def drain(self, timeout: float = 60):
        """Wait until the queue is empty (tests, benchmarks); TimeoutError if it is not in time."""
        deadline = time.monotonic() + timeout
        while self.pending():
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {timeout:g} s for the background work: {self._thread.name} "
                                   f"still has {self.pending()} jobs")
            self.wake()
            time.sleep(0.02)

    def postpone(self, job: Job, error: str):
        """Retry a failed job later, waiting twice as long after each failure."""
        self.store.postpone(job.id, min(self.max_backoff_s, self.first_backoff_s * 2 ** job.attempts), error)

    def failed(self, what: str, error: Exception):
        LOG.exception(f"{what}; it will be retried")
        self.last_error = f"{type(error).__name__}: {error}"

    def _run(self):
        run_niced()
        last_batch_s = 0.0
        while not self._stop.is_set():
            self.foreground.yield_to_replies(last_batch_s)
            started = time.monotonic()
            try:
                worked = self.work_once()
            except Exception as e:  # never let the worker die
                self.failed(f"{self._thread.name} failed", e)
                worked = False
            last_batch_s = time.monotonic() - started
            if not worked:
                self.idle()
                self._wake.wait(self.idle_wait_s)
                self._wake.clear()
