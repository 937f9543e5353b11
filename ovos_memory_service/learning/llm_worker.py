"""The LLM's background work: rolling summaries (``longterm``) and facts from
each exchange (``entity`` with an ``api_url``).

Jobs (queues ``llm_facts`` and ``llm_summary``) are written in the same
transaction as the turns they are about, so nothing is skipped after a crash
or while the endpoint is down. One thread takes them one at a time, and the
store is never held during the HTTP call, so turns never wait for the
endpoint. A job whose endpoint fails is retried with backoff (at most every
10 minutes) until it succeeds; the first success makes every waiting job due again.
"""
from ovos_utils.log import LOG

from ovos_memory_service.learning import summaries
from ovos_memory_service.learning.queue import QueueWorker
from ovos_memory_service.learning.llm_client import LLMUnavailable
from ovos_memory_service.learning.facts import from_llm
from ovos_memory_service.learning.facts.model import record
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.store import Job, Store

UNREADABLE_TRIES = 3       # a model that keeps answering nonsense gets this many tries
MAX_FOLD_FACTOR = 3        # one summary call folds at most 3 x summarize_every exchanges
# what a job's finish() makes of the model's answer
DONE, UNREADABLE, AGAIN = "done", "unreadable", "again"


class LLMWorker(QueueWorker):
    queues = ("llm_facts", "llm_summary")
    first_backoff_s = 5
    stop_wait_s = 2        # a call in flight at shutdown is abandoned; its job stays queued

    def __init__(self, store: Store, personas):
        """``personas``: the PersonaRegistry, which says what each persona's
        backend wants from its LLM and whether facts are shared."""
        super().__init__(store, "memory-llm")
        self.personas = personas

    def work_once(self) -> bool:
        claimed = self.claim(1)
        if not claimed:
            return False
        job = claimed[0]
        task = job.queue[len("llm_"):]
        backend = self.personas.llm_tasks(job.persona_id or None).get(task)
        # read and decide in one transaction: turns stored meanwhile, which find
        # this job queued and add none, wait for it to end
        with self.store.transaction(durable=False):
            work = None
            if backend is not None:
                work = (self._exchange if task == "facts" else self._fold)(job, backend)
            if work is None:  # nothing (more) to do, or the persona no longer wants it
                self.store.finish([job.id])
                return True
        messages, max_tokens, finish = work
        try:
            reply, error = backend.client.complete(messages, max_tokens), None
        except LLMUnavailable as e:
            reply, error = None, str(e)
        if self._stop.is_set():  # the store may be closed; the job stays queued
            return False
        if reply is None:
            self._retry(job, task, error)
            return True
        with self.store.transaction(durable=False):
            outcome = finish(reply)
            if outcome != UNREADABLE:  # the endpoint works: what waited for it is due
                for queue in self.queues:
                    self.store.due_again(queue, 0, failed_only=True)
            if outcome == DONE:
                self.store.finish([job.id])
            elif outcome == AGAIN:
                self.store.requeue(job.id)
            elif job.attempts + 1 >= UNREADABLE_TRIES:
                LOG.warning(f"{task}: the model's answers could not be read; giving up on one job")
                self.last_error = f"{task}: unreadable answer"
                self.store.finish([job.id])
            else:
                self._retry(job, task, "unreadable answer")
        return True

    # ------------------------------------------------------------- facts
    def _exchange(self, job: Job, backend):
        """The user turn and the replies after it, as a prompt."""
        rows = self.store.exchange(job.subject)
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
        scope = Scope(user["user_id"], user["session_id"], user["persona_id"] or None, job.lang)
        sources = [t["id"] for t in turns if t["role"] in ("user", "assistant")]

        def finish(reply: str) -> str:
            if len(self.store.existing(sources)) < len(sources):
                return DONE  # forgotten while the model was thinking
            items = from_llm.parse(reply)
            if items is None:
                return UNREADABLE
            for fact in from_llm.to_facts(items, said, job.lang, sources):
                record(self.store, scope, fact, self.personas.share_facts())
            return DONE
        return (from_llm.prompt(backend.extraction_prompt, exchange, job.lang),
                backend.max_extract_tokens, finish)

    # ----------------------------------------------------------- summary
    def _fold(self, job: Job, backend):
        """The exchanges of a conversation due to be folded into its summary."""
        conv = self.store.get_conversation(job.subject)
        if conv is None:
            return None
        scope = Scope(conv["user_id"], conv["session_id"], conv["persona_id"] or None, job.lang)
        current = summaries.state(self.store, conv["id"])
        previous = current.text if current.memory_id else (summaries.latest(self.store, scope) or current).text
        groups = summaries.exchanges(self.store.conversation_turns(conv["id"], after_seq=current.covered_seq))
        fold = summaries.due(groups, current.memory_id is not None, backend.summarize_every,
                             backend.recent_window)[:MAX_FOLD_FACTOR * backend.summarize_every]
        if not fold:
            return None

        def finish(reply: str) -> str:
            if not reply.strip():
                return UNREADABLE
            folded = [t["id"] for group in fold for t in group]
            if len(self.store.existing(folded)) == len(folded) \
                    and summaries.state(self.store, conv["id"]).covered_seq == current.covered_seq:
                summaries.save(self.store, scope, conv["id"], reply.strip(), fold)
            return AGAIN  # a long backlog may need another fold; if not, the job ends then
        return summaries.prompt(previous, fold, job.lang), backend.max_summary_tokens, finish

    def _retry(self, job: Job, task: str, error: str):
        self.last_error = f"{task}: {error}"
        LOG.info(f"LLM {task} postponed: {error}")
        self.postpone(job, error)
