"""Work done after the reply: the queue workers (facts, LLM tasks,
embeddings), started and stopped together, and the plugin backends'
after-update calls. Each worker takes jobs from the store's queues
(Store.claim), so a job is queued with what it is about and never lost."""
import threading
import time
from concurrent.futures import ThreadPoolExecutor, TimeoutError as FutureTimeout
from typing import Callable, List, Optional

from ovos_utils.log import LOG

from ovos_memory_service.learning.fact_worker import FactWorker
from ovos_memory_service.learning.llm_worker import LLMWorker
from ovos_memory_service.learning.queue import Foreground, QueueWorker, run_niced
from ovos_memory_service.store import Store


class Background:
    def __init__(self, store: Store, personas, config: dict):
        self.facts = FactWorker(store, config)
        self.llm = LLMWorker(store, personas)
        self.embedding = None  # an EmbeddingWorker once the model is loaded
        # builds, recalls and updates in progress, which the workers yield to
        self.foreground = Foreground()
        self.facts.foreground = self.llm.foreground = self.foreground
        self._calls = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory-bg", initializer=run_niced)
        self._lock = threading.Lock()
        self._calls_pending = 0
        self.last_call_error: Optional[str] = None

    @property
    def workers(self) -> List[QueueWorker]:
        return [w for w in (self.facts, self.llm, self.embedding) if w is not None]

    def start(self):
        self.facts.start()
        self.llm.start()

    def start_embedding(self, worker: QueueWorker):
        worker.foreground = self.foreground
        self.embedding = worker
        worker.start()

    def stop_embedding(self):
        worker, self.embedding = self.embedding, None
        if worker is not None:
            worker.stop()

    def wake(self):
        """New memories: facts, summaries and embeddings are due."""
        for worker in self.workers:
            worker.wake()

    def call(self, what: str, fn: Callable[[], None]):
        """Run ``fn`` after the reply, one at a time (a plugin's after_update)."""
        with self._lock:
            self._calls_pending += 1

        def run():
            try:
                fn()
            except Exception as e:
                LOG.exception(f"{what}: background update failed")
                self.last_call_error = f"{what}: {type(e).__name__}: {e}"
            finally:
                with self._lock:
                    self._calls_pending -= 1
        self._calls.submit(run)

    def pending(self) -> int:
        return self._calls_pending + sum(worker.pending() for worker in self.workers)

    def last_error(self) -> Optional[str]:
        return self.last_call_error or next((w.last_error for w in self.workers if w.last_error), None)

    def wait_idle(self, timeout: float = 60):
        """Wait for the work queued so far (tests, benchmarks): the calls, facts
        and embeddings; TimeoutError if it is not done in ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        try:
            self._calls.submit(lambda: None).result(timeout)
        except FutureTimeout:  # not the builtin TimeoutError before Python 3.11
            raise TimeoutError(f"waited {timeout:g} s for the background work: a plugin's update still runs")
        for worker in self.workers:
            if worker is not self.llm:
                worker.drain(max(0.0, deadline - time.monotonic()))

    def stop(self):
        self._calls.shutdown(wait=True)
        for worker in reversed(self.workers):
            worker.stop()
