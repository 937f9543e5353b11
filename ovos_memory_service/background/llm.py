"""The LLM's background work: rolling summaries (``longterm``) and facts from
each exchange (``entity`` with an ``api_url``).

Jobs are rows of ``llm_jobs``, written in the same transaction as the turns
they are about, so nothing is skipped after a crash or while the endpoint is
down. One thread takes them one at a time; it holds the store's lock only to
read its input and to write its result, never during the HTTP call, so turns
are never kept waiting by the endpoint. A job whose endpoint fails is retried
with backoff (at most every 10 minutes) until it succeeds; the first success
makes every waiting job due again.
"""
import json
import threading
import time
from typing import Callable, Optional

from ovos_utils.log import LOG
from sqlite_utils import Database

from ovos_memory_service import summaries
from ovos_memory_service.facts import from_llm as llm_facts
from ovos_memory_service.facts.model import record
from ovos_memory_service.chat import LLMUnavailable
from ovos_memory_service.scope import Scope
from ovos_memory_service.background.queue import QueueWorker

UNREADABLE_TRIES = 3       # a model that keeps answering nonsense gets this many tries
MAX_FOLD_FACTOR = 3        # one summary call folds at most 3 x summarize_every exchanges
# what a job's finish() makes of the model's answer
DONE, UNREADABLE, AGAIN = "done", "unreadable", "again"


class LLMWorker(QueueWorker):
    queue_table = "llm_jobs"
    first_backoff_s = 5
    stop_wait_s = 2        # a call in flight at shutdown is abandoned; its job stays queued

    def __init__(self, db: Database, lock: threading.RLock, tasks_for: Callable[[Optional[str]], dict],
                 share_facts: Callable[[], bool]):
        super().__init__(db, lock, "memory-llm")
        self.tasks_for = tasks_for
        self.share_facts = share_facts

    def work_once(self) -> bool:
        with self.lock:
            rows = self.db.execute_returning_dicts(
                "SELECT rowid AS job, * FROM llm_jobs WHERE next_at <= ? ORDER BY next_at, rowid LIMIT 1",
                [time.time()])
            if not rows:
                return False
            job = rows[0]
            backend = self.tasks_for(job["persona_id"] or None).get(job["task"])
            work = None
            if backend is not None:
                work = (self._exchange if job["task"] == "facts" else self._fold)(job, backend)
            if work is None:  # nothing (more) to do, or the persona no longer wants it
                self._done(job)
                return True
        messages, max_tokens, finish = work
        try:
            reply = backend.client.complete(messages, max_tokens)
        except LLMUnavailable as e:
            reply, error = None, str(e)
        with self.lock:
            if self._stop.is_set():  # the store may be closed; the job stays queued
                return False
            if reply is None:
                self._retry(job, error)
                return True
            outcome = finish(reply)
            if outcome != UNREADABLE:  # the endpoint works: what waited for it is due
                self.db.execute("UPDATE llm_jobs SET next_at = 0 WHERE attempts > 0")
            if outcome == DONE:
                self._done(job)
            elif outcome == AGAIN:
                self.db.execute("UPDATE llm_jobs SET attempts = 0, next_at = 0, error = NULL WHERE rowid = ?",
                                [job["job"]])
            elif job["attempts"] + 1 >= UNREADABLE_TRIES:
                LOG.warning(f"{job['task']}: the model's answers could not be read; giving up on one job")
                self.last_error = f"{job['task']}: unreadable answer"
                self._done(job)
            else:
                self._retry(job, "unreadable answer")
        return True

    # ------------------------------------------------------------- facts
    def _exchange(self, job, backend):
        """The user turn and the replies after it, as a prompt."""
        rows = self.db.execute_returning_dicts(
            "SELECT t.* FROM memories u JOIN memories t ON t.conversation_id = u.conversation_id "
            "AND t.kind = 'turn' AND t.seq >= u.seq WHERE u.id = ? ORDER BY t.seq", [job["subject"]])
        if not rows:
            return None  # forgotten meanwhile
        turns = [rows[0]]
        for row in rows[1:]:
            if row["role"] == "user":
                break
            turns.append(row)
        exchange = "\n".join(f"{'User' if t['role'] == 'user' else 'Assistant'}: {t['content']}"
                             for t in turns if t["content"] and t["role"] in ("user", "assistant"))
        said = "\n".join(t["content"] for t in turns)
        user = rows[0]
        scope = Scope(user["user_id"], user["session_id"], user["persona_id"] or None, job["lang"])
        sources = [t["id"] for t in turns if t["role"] in ("user", "assistant")]

        def finish(reply: str) -> str:
            if not self._exist(sources):
                return DONE  # forgotten while the model was thinking
            items = llm_facts.parse(reply)
            if items is None:
                return UNREADABLE
            for fact in llm_facts.to_facts(items, said, job["lang"], sources):
                record(self.db, scope, fact, self.share_facts())
            return DONE
        return (llm_facts.prompt(backend.extraction_prompt, exchange, job["lang"]),
                backend.max_extract_tokens, finish)

    # ----------------------------------------------------------- summary
    def _fold(self, job, backend):
        """The exchanges of a conversation due to be folded into its summary."""
        conv = self.db.execute_returning_dicts("SELECT * FROM conversations WHERE id = ?", [job["subject"]])
        if not conv:
            return None
        conv = conv[0]
        scope = Scope(conv["user_id"], conv["session_id"], conv["persona_id"] or None, job["lang"])
        current = summaries.state(self.db, conv["id"])
        previous = current.text if current.memory_id else (summaries.latest(self.db, scope) or current).text
        groups = summaries.exchanges(summaries.turns_after(self.db, conv["id"], current.covered_seq))
        fold = summaries.due(groups, current.memory_id is not None, backend.summarize_every,
                             backend.recent_window)[:MAX_FOLD_FACTOR * backend.summarize_every]
        if not fold:
            return None

        def finish(reply: str) -> str:
            if not reply.strip():
                return UNREADABLE
            folded = [t["id"] for group in fold for t in group]
            if self._exist(folded) and summaries.state(self.db, conv["id"]).covered_seq == current.covered_seq:
                summaries.save(self.db, scope, conv["id"], reply.strip(), fold)
            return AGAIN  # a long backlog may need another fold; if not, the job ends then
        return summaries.prompt(previous, fold, job["lang"]), backend.max_summary_tokens, finish

    # ------------------------------------------------------------- queue
    def _exist(self, ids) -> bool:
        return self.db.execute("SELECT count(*) FROM memories WHERE id IN (SELECT value FROM json_each(?))",
                               [json.dumps(ids)]).fetchone()[0] == len(ids)

    def _done(self, job):
        self.db.execute("DELETE FROM llm_jobs WHERE rowid = ?", [job["job"]])

    def _retry(self, job, error: str):
        self.last_error = f"{job['task']}: {error}"
        LOG.info(f"LLM {job['task']} postponed: {error}")
        self.postpone(job["job"], job["attempts"], error)
