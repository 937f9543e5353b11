"""VACUUM after a forget, off the caller's thread.

``VACUUM (INDEX_CLEANUP ON)``: PostgreSQL skips the indexes when few rows
died (so the keyword index would keep a forgotten memory's entries until
some later vacuum); forcing the cleanup costs a scan of every index of the
table (0.3 s at 10,000 memories with 384-dimension vectors), which is why it
runs in a thread of its own, after the forget has answered. Forgets that
come while one runs are vacuumed together by the next.
"""
import threading
import time
from typing import Callable, Iterable

from ovos_utils.log import LOG

VERB = "VACUUM (INDEX_CLEANUP ON)"


class Vacuums:
    def __init__(self, run: Callable[[tuple, str], None]):
        self._run = run
        self._pending = set()
        self._busy = False
        self._stopping = False
        self._cv = threading.Condition()
        self._thread = None

    def request(self, tables: Iterable[str]):
        with self._cv:
            self._pending |= set(tables)
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="memory-store-vacuum", daemon=True)
                self._thread.start()
            self._cv.notify_all()

    def _work(self):
        while True:
            with self._cv:
                while not self._pending and not self._stopping:
                    self._cv.wait()
                if not self._pending:
                    return
                tables, self._pending, self._busy = tuple(sorted(self._pending)), set(), True
            try:
                self._run(tables, VERB)
            except Exception as e:
                LOG.warning(f"memory store: {VERB} failed ({e}); autovacuum will remove the forgotten rows")
            with self._cv:
                self._busy = False
                self._cv.notify_all()

    def settle(self, timeout: float = 60) -> bool:
        """Wait until every requested VACUUM ran; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._cv:
            while self._pending or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cv.wait(left)
        return True

    def close(self, timeout: float = 60):
        """Run what is pending, then stop."""
        with self._cv:
            self._stopping = True
            self._cv.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
