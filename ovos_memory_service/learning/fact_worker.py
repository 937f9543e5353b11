"""Facts from every stored user turn, in the background.

Each stored user turn is queued (queue ``facts``) in the same transaction as
the turn, so none is skipped after a crash; one thread takes the queue, runs
the rule-based extractor in the turn's language and records what it finds
through the fact model."""
from ovos_memory_service.learning.facts.extract import ExtractedFact, extract_facts
from ovos_memory_service.learning.facts.model import Fact, record
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.store import Store
from ovos_memory_service.learning.queue import QueueWorker

BATCH = 32


def as_fact(found: ExtractedFact, turn_id: str, extractor: str = "rules") -> Fact:
    return Fact(kind=found.kind, content=found.text, slot=found.slot, value=found.value,
                multi=found.multi, negated=found.negated, sources=[turn_id], extractor=extractor)


class FactWorker(QueueWorker):
    queues = ("facts",)

    def __init__(self, store: Store, config: dict):
        super().__init__(store, "memory-facts")
        self.config = config

    def work_once(self) -> bool:
        jobs = self.claim(BATCH)
        turns = {row["id"]: row for row in self.store.get_memories([job.subject for job in jobs])}
        for job in jobs:
            turn = turns.get(job.subject)
            try:
                # the rules run outside the transaction: the turns being
                # stored meanwhile wait for what is recorded, not for them
                found = extract_facts(turn["content"], job.lang) if turn is not None else []
                with self.store.transaction(user_id=turn["user_id"] if turn else None, durable=False):
                    # a turn forgotten since the claim took its job with it
                    if self.store.finish([job.id]) and turn is not None:
                        scope = Scope(user_id=turn["user_id"], session_id=turn["session_id"],
                                      persona_id=turn["persona_id"] or None, lang=job.lang)
                        for fact in found:
                            record(self.store, scope, as_fact(fact, turn["id"]),
                                   self.config["share_facts_across_personas"])
            except Exception as e:
                self.failed("extracting facts from a turn failed", e)
                self.postpone(job, self.last_error)
        return bool(jobs)
