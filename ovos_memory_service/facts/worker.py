"""Facts from every stored user turn, in the background.

Each stored user turn is queued in ``fact_jobs`` in the same transaction as the
turn, so none is skipped after a crash; one thread takes the queue, runs the
rule-based extractor in the turn's language and records what it finds through
the fact model."""
import threading
import time
from typing import Optional

from ovos_utils.log import LOG
from sqlite_utils import Database

from ovos_memory_service.facts.extract import ExtractedFact, extract_facts
from ovos_memory_service.facts.model import Fact, record
from ovos_memory_service.scope import Scope

BATCH = 32
MAX_BACKOFF_S = 600


def as_fact(found: ExtractedFact, turn_id: str, extractor: str = "rules") -> Fact:
    return Fact(kind=found.kind, content=found.text, slot=found.slot, value=found.value,
                multi=found.multi, negated=found.negated, sources=[turn_id], extractor=extractor)


class FactWorker:
    def __init__(self, db: Database, lock: threading.RLock, config: dict):
        self.db = db
        self.lock = lock
        self.config = config
        self.last_error: Optional[str] = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memory-facts", daemon=True)

    def start(self):
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=30)

    def wake(self):
        self._wake.set()

    def pending(self) -> int:
        with self.lock:
            return self.db.execute("SELECT count(*) FROM fact_jobs").fetchone()[0]

    def _run(self):
        while not self._stop.is_set():
            try:
                worked = self._extract_batch()
            except Exception as e:  # never let the worker die
                LOG.exception("fact extraction failed")
                self.last_error = f"{type(e).__name__}: {e}"
                worked = False
            if not worked:
                self._wake.wait(5)
                self._wake.clear()

    def _extract_batch(self) -> bool:
        with self.lock:
            jobs = self.db.execute_returning_dicts(
                "SELECT j.rowid AS job, j.lang, j.attempts, m.id, m.content, m.user_id, m.persona_id, "
                "m.session_id FROM fact_jobs j JOIN memories m ON m.id = j.memory_id "
                "WHERE j.next_at <= ? ORDER BY j.rowid LIMIT ?", [time.time(), BATCH])
            for job in jobs:
                scope = Scope(user_id=job["user_id"], session_id=job["session_id"],
                              persona_id=job["persona_id"] or None, lang=job["lang"])
                try:
                    for found in extract_facts(job["content"], job["lang"]):
                        record(self.db, scope, as_fact(found, job["id"]),
                               self.config["share_facts_across_personas"])
                    self.db.execute("DELETE FROM fact_jobs WHERE rowid = ?", [job["job"]])
                except Exception as e:
                    LOG.exception("extracting facts from a turn failed; it will be retried")
                    self.last_error = f"{type(e).__name__}: {e}"
                    self.db.execute("UPDATE fact_jobs SET attempts = attempts + 1, next_at = ?, error = ? "
                                    "WHERE rowid = ?", [time.time() + min(MAX_BACKOFF_S, 2 ** job["attempts"]),
                                                        self.last_error, job["job"]])
        return bool(jobs)
