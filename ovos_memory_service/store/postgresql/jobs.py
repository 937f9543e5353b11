"""The background work queues on PostgreSQL, shared by every daemon.

A job's id comes from an identity sequence: never reused (a re-queued
subject gets a new id, as with SQLite's AUTOINCREMENT), so finishing an old
id finishes nothing. ``claim`` takes due jobs with ``FOR UPDATE SKIP
LOCKED``, so daemons claiming at once never get the same job, and marks them
with a lease (``claimed_until``) and the claimant: the number of the
advisory lock the claiming store's own session holds (connection.Presence).
A claim is held while its lease runs and its claimant's session lives: the
jobs of a daemon that crashed (its session ended) are free for the others at
once, those of a daemon that hangs once its lease ends. ``release_claims``
lets go of this store's claims only.
"""
import time
from typing import Iterable, List, Optional, Sequence, Set

from ovos_memory_service.store.base import QUEUES, Job
from ovos_memory_service.store.postgresql.connection import CLAIMANTS
from ovos_memory_service.store.postgresql.memories import AS_NEW

# the claimants whose session is alive (pg_locks is readable by every role)
LIVE_CLAIMANTS = ("SELECT l.objid::bigint AS claimant FROM pg_locks l WHERE l.locktype = 'advisory' "
                  f"AND l.classid = {CLAIMANTS} AND l.objsubid = 2 AND l.granted "
                  "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())")
JOB = "jobs.id, jobs.queue, jobs.subject, jobs.persona_id, jobs.lang, jobs.attempts"


class Jobs:
    """PostgresStore's queues."""

    def enqueue(self, queue: str, subjects: Iterable[str], persona_id: str = "", lang: str = "",
                due: float = 0.0, again: bool = False):
        if queue not in QUEUES:
            raise ValueError(f"no queue {queue!r}")
        subjects = list(subjects)
        with self.transaction(), self._cursor() as cur:
            cur.executemany(f"INSERT INTO jobs (queue, subject, persona_id, lang, next_at) VALUES (%s, %s, %s, %s, %s) "
                            f"{AS_NEW if again else 'ON CONFLICT (queue, subject) DO NOTHING'}",
                            [(queue, subject, persona_id, lang, due) for subject in subjects])
            if lang and subjects and queue != "embed":
                # the jobs of new turns carry their session's language: their
                # conversation's memories are searched in it
                conversations = subjects if queue == "llm_summary" else [r["conversation_id"] for r in cur.execute(
                    "SELECT DISTINCT conversation_id FROM memories WHERE id = ANY(%s::text[]) "
                    "AND conversation_id IS NOT NULL", [subjects])]
                self._language_of(cur, conversations, lang)

    def claim(self, queues: Sequence[str], limit: int, now: float, newest_first: bool = False,
              lease_s: float = 300) -> List[Job]:
        order = "j.id DESC" if newest_first else "j.next_at, j.id"
        with self.transaction(durable=False), self._cursor() as cur:
            rows = cur.execute(
                f"WITH live AS MATERIALIZED ({LIVE_CLAIMANTS}), picked AS ("
                "SELECT j.id FROM jobs j WHERE j.queue = ANY(%s::text[]) AND j.next_at <= %s "
                "AND (j.claimed_until <= %s OR j.claimant IS NULL "
                "OR NOT EXISTS (SELECT 1 FROM live WHERE live.claimant = j.claimant)) "
                f"ORDER BY {order} LIMIT %s FOR UPDATE OF j SKIP LOCKED) "
                "UPDATE jobs SET claimed_until = %s, claimant = %s FROM picked WHERE jobs.id = picked.id "
                f"RETURNING {JOB}, jobs.next_at",
                [list(queues), now, now, limit, now + lease_s, self.claimant]).fetchall()
        rows.sort(key=(lambda r: -r["id"]) if newest_first else (lambda r: (r["next_at"], r["id"])))
        return [Job(**{k: r[k] for k in ("id", "queue", "subject", "persona_id", "lang", "attempts")}) for r in rows]

    def _still_queued(self, cur, job_ids: Sequence[int]) -> Set[int]:
        """Which of ``job_ids`` are queued, held until the transaction ends."""
        return {r["id"] for r in cur.execute("SELECT id FROM jobs WHERE id = ANY(%s::bigint[]) FOR UPDATE",
                                             [list(job_ids)])}

    def finish(self, job_ids: Sequence[int]) -> Set[int]:
        with self.transaction(durable=False), self._cursor() as cur:
            return {r["id"] for r in cur.execute("DELETE FROM jobs WHERE id = ANY(%s::bigint[]) RETURNING id",
                                                 [list(job_ids)])}

    def postpone(self, job_id: int, delay_s: float, error: str):
        with self.transaction(durable=False), self._cursor() as cur:
            cur.execute("UPDATE jobs SET attempts = attempts + 1, next_at = %s, error = %s, claimed_until = 0, "
                        "claimant = NULL WHERE id = %s", [time.time() + delay_s, error, job_id])

    def requeue(self, job_id: int):
        """Due again at once, as if new (a job with more to do)."""
        with self.transaction(durable=False), self._cursor() as cur:
            cur.execute("UPDATE jobs SET attempts = 0, next_at = 0, error = NULL, claimed_until = 0, "
                        "claimant = NULL WHERE id = %s", [job_id])

    def due_again(self, queue: str, now: float, conversation_id: Optional[str] = None,
                  failed_only: bool = False):
        with self.transaction(), self._cursor() as cur:
            if conversation_id is not None:
                cur.execute("UPDATE jobs SET next_at = %s WHERE queue = %s AND attempts = 0 AND subject IN "
                            "(SELECT id FROM memories WHERE conversation_id = %s)", [now, queue, conversation_id])
            elif failed_only:
                cur.execute("UPDATE jobs SET next_at = 0 WHERE queue = %s AND attempts > 0", [queue])
            else:
                cur.execute("UPDATE jobs SET next_at = 0, attempts = 0, error = NULL WHERE queue = %s", [queue])

    def release_claims(self):
        """This store's claims lapse now; other daemons' stay theirs."""
        with self.transaction(), self._cursor() as cur:
            cur.execute("UPDATE jobs SET claimed_until = 0, claimant = NULL WHERE claimant = %s", [self.claimant])

    def pending(self, queues: Sequence[str]) -> int:
        with self._cursor() as cur:
            return cur.execute("SELECT count(*) AS n FROM jobs WHERE queue = ANY(%s::text[])",
                               [list(queues)]).fetchone()["n"]
