"""The background work queues, in one table (migration m007).

A job's id comes from AUTOINCREMENT, so it is never reused, not even after
every job was deleted: a worker that finishes the jobs it claimed can never
finish a job queued since (a reindex queues everything again while a batch is
in flight). Queued in the same transaction as what they are about.
"""
import time
from typing import Iterable, List, Optional, Sequence, Set

from ovos_memory_service.store.base import QUEUES, Job
from ovos_memory_service.store.sqlite.memories import as_json


class Jobs:
    """SqliteStore's queues (self.db, self._lock)."""

    def enqueue(self, queue: str, subjects: Iterable[str], persona_id: str = "", lang: str = "",
                due: float = 0.0, again: bool = False):
        if queue not in QUEUES:
            raise ValueError(f"no queue {queue!r}")
        verb = "INSERT OR REPLACE" if again else "INSERT OR IGNORE"
        with self.transaction():
            self.db.conn.executemany(
                f"{verb} INTO jobs (queue, subject, persona_id, lang, next_at) VALUES (?, ?, ?, ?, ?)",
                [(queue, subject, persona_id, lang, due) for subject in subjects])

    def claim(self, queues: Sequence[str], limit: int, now: float, newest_first: bool = False,
              lease_s: float = 300) -> List[Job]:
        due = ("SELECT id, queue, subject, persona_id, lang, attempts FROM jobs "
               "WHERE queue IN (SELECT value FROM json_each(?)) AND next_at <= ? AND claimed_until <= ? "
               f"ORDER BY {'id DESC' if newest_first else 'next_at, id'} LIMIT ?")
        args = [as_json(queues), now, now, limit]
        with self._reading() as db:  # mostly nothing is due: the writer stays free for the turns
            if db.execute(due, args).fetchone() is None:
                return []
        with self.transaction(durable=False):
            rows = self.db.execute_returning_dicts(due, args)
            self.db.execute("UPDATE jobs SET claimed_until = ? WHERE id IN (SELECT value FROM json_each(?))",
                            [now + lease_s, as_json(r["id"] for r in rows)])
        return [Job(**row) for row in rows]

    def _still_queued(self, job_ids: Sequence[int]) -> Set[int]:
        return {r[0] for r in self.db.execute(
            "SELECT id FROM jobs WHERE id IN (SELECT value FROM json_each(?))", [as_json(job_ids)])}

    def finish(self, job_ids: Sequence[int]) -> Set[int]:
        with self.transaction(durable=False):
            queued = self._still_queued(job_ids)
            self.db.execute("DELETE FROM jobs WHERE id IN (SELECT value FROM json_each(?))", [as_json(queued)])
        return queued

    def postpone(self, job_id: int, delay_s: float, error: str):
        with self.transaction(durable=False):
            self.db.execute("UPDATE jobs SET attempts = attempts + 1, next_at = ?, error = ?, claimed_until = 0 "
                            "WHERE id = ?", [time.time() + delay_s, error, job_id])

    def requeue(self, job_id: int):
        """Due again at once, as if new (a job with more to do)."""
        with self.transaction(durable=False):
            self.db.execute("UPDATE jobs SET attempts = 0, next_at = 0, error = NULL, claimed_until = 0 "
                            "WHERE id = ?", [job_id])

    def due_again(self, queue: str, now: float, conversation_id: Optional[str] = None,
                  failed_only: bool = False):
        with self.transaction():
            if conversation_id is not None:
                self.db.execute("UPDATE jobs SET next_at = ? WHERE queue = ? AND attempts = 0 AND subject IN "
                                "(SELECT id FROM memories WHERE conversation_id = ?)", [now, queue, conversation_id])
            elif failed_only:
                self.db.execute("UPDATE jobs SET next_at = 0 WHERE queue = ? AND attempts > 0", [queue])
            else:
                self.db.execute("UPDATE jobs SET next_at = 0, attempts = 0, error = NULL WHERE queue = ?", [queue])

    def release_claims(self):
        """A new process: claims and backoffs an earlier one left are stale."""
        with self.transaction():
            self.db.execute("UPDATE jobs SET claimed_until = 0 WHERE claimed_until > 0")

    def pending(self, queues: Sequence[str]) -> int:
        with self._reading() as db:
            return db.execute("SELECT count(*) FROM jobs WHERE queue IN (SELECT value FROM json_each(?))",
                                   [as_json(queues)]).fetchone()[0]
