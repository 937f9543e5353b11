"""Facts from every stored user turn, in the background.

Each stored user turn is queued in ``fact_jobs`` in the same transaction as the
turn, so none is skipped after a crash; one thread takes the queue, runs the
rule-based extractor in the turn's language and records what it finds through
the fact model."""
import threading
import time

from sqlite_utils import Database

from ovos_memory_service.facts.extract import ExtractedFact, extract_facts
from ovos_memory_service.facts.model import Fact, record
from ovos_memory_service.scope import Scope
from ovos_memory_service.background.queue import QueueWorker

BATCH = 32


def as_fact(found: ExtractedFact, turn_id: str, extractor: str = "rules") -> Fact:
    return Fact(kind=found.kind, content=found.text, slot=found.slot, value=found.value,
                multi=found.multi, negated=found.negated, sources=[turn_id], extractor=extractor)


class FactWorker(QueueWorker):
    queue_table = "fact_jobs"

    def __init__(self, db: Database, lock: threading.RLock, config: dict):
        super().__init__(db, lock, "memory-facts")
        self.config = config

    def work_once(self) -> bool:
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
                    self.failed("extracting facts from a turn failed", e)
                    self.postpone(job["job"], job["attempts"], self.last_error)
        return bool(jobs)
