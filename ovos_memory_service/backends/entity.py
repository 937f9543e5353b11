"""``entity``: what the service knows about the user, as the seed's block
"Known facts about the user:" before the utterance (the heading in the
conversation's language, ``locale/<lang>/facts_header.txt``, unless the persona
sets ``facts_header``): the newest ``max_facts``
current facts, listed as the seed lists them, oldest first in the order they
were learnt, each in the words it was learnt in.

Facts come from the fact model (explicit ``memory.remember``, the rule-based
extractor on every user turn, and an LLM when one is configured), so they are
shared across the user's sessions and stay current."""
from ovos_memory_service.backends.base import Backend, Context, llm_client
from ovos_memory_service.backends.inject import assemble
from ovos_memory_service.common.blocks import entity_block
from ovos_memory_service.common.items import USER_FACT_KINDS, normalized
from ovos_memory_service.common.resources import facts_header
from ovos_memory_service.common.wire import ChatMessage
from ovos_memory_service.learning.facts.from_llm import SUBJECT


class EntityBackend(Backend):
    """Seed keys: ``facts_header`` (default: the conversation's language's heading),
    ``max_facts`` (50), ``system_prompt``, and for
    the LLM: ``api_url`` (http://localhost:8000/v1; "" for rules only), ``model``,
    ``max_extract_tokens`` (128), ``request_timeout`` (30), ``extraction_prompt``
    (must contain ``{exchange}``); and ``api_key``. The extraction runs in the
    background, after the reply (learning/llm_worker.py)."""
    name = "entity"
    max_history = 0
    block_kinds = (*USER_FACT_KINDS, "attribute")

    def __init__(self, config, reader):
        super().__init__(config, reader)
        block = entity_block(config, self.name)
        self.facts_header = block.facts_header  # None: the conversation's language's
        self.max_facts = block.max_facts
        self.extraction_prompt = block.extraction_prompt
        self.max_extract_tokens = block.max_extract_tokens
        self.client = llm_client(block.endpoint)
        self.settings = block.inject

    def llm_tasks(self):
        return {"facts": self} if self.client else {}

    def raw_window(self, scope, now):
        return []  # facts, not turns

    def facts(self, scope):
        """The newest ``max_facts`` current facts (a restated fact counts as new),
        oldest first; a fact worded twice ("User lives in Lisbon", "Lives in
        Lisbon") once, as it was first learnt."""
        newest = self.reader.current_facts(scope, self.block_kinds, self.max_facts)
        facts, seen = [], set()
        for fact in sorted(newest, key=lambda f: (f.created_at, f.seq)):
            key = normalized(SUBJECT.sub("", fact.content))
            if key not in seen:
                seen.add(key)
                facts.append(fact)
        return facts

    def build(self, scope, utterance, now):
        facts = self.facts(scope)
        header = self.facts_header if self.facts_header is not None else facts_header(scope.lang)
        block = [ChatMessage("system", header + "\n" + "\n".join(f"- {f.content}" for f in facts))
                 ] if facts else []
        best_first = sorted(self.reader.score(scope, utterance, list(facts)), key=lambda f: f.score, reverse=True)
        return Context(assemble(self.settings, [], utterance, extra_system=block), best_first)
