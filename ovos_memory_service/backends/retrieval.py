"""Shared mechanics of the retrieval backends (lexical, local-rag, composite):
the verbatim window, the query, ``min_score``, and injecting what was recalled."""
import abc
from typing import List, Sequence

from ovos_memory_service.backends.base import Backend, Context
from ovos_memory_service.backends.inject import assemble, render_context, tool_call_id
from ovos_memory_service.backends.relevance import most_relevant
from ovos_memory_service.backends.window import trim_window
from ovos_memory_service.common.blocks import retrieval_block
from ovos_memory_service.common.items import KINDS, MemoryItem
from ovos_memory_service.common.scope import Scope

RELEVANT_FETCH = 20  # candidates scored for a memory.recall, at least


class RetrievalBackend(Backend):
    """Seed keys: ``max_history`` (10), ``retrieval.max_num_results`` (5),
    ``retrieval.min_score`` (null; 0..1 here), ``retrieval.query_mode``
    (utterance|history), ``retrieval.query_history_turns`` (3), ``scope``
    (global|session), ``inject_mode``, ``system_prompt``, ``context.*`` and
    the two templates."""
    kinds = KINDS

    def __init__(self, config, reader):
        super().__init__(config, reader)
        (self.max_history, self.max_num_results, self.min_score, self.query_mode, self.query_history_turns,
         self.where, self.settings) = retrieval_block(config, self.name)

    @abc.abstractmethod
    def search(self, scope: Scope, text: str, limit: int, where: str = "user",
               kinds: Sequence[str] = KINDS, exclude_ids: Sequence[str] = (),
               exclude_content: str = "") -> List[MemoryItem]:
        """Up to ``limit`` memories for ``text``, best first, before ``min_score``."""

    def query_text(self, utterance: str, history) -> str:
        if self.query_mode != "history" or not self.query_history_turns:
            return utterance
        earlier = [t.content for t in history if t.role == "user"][-self.query_history_turns:]
        return " ".join([*earlier, utterance])

    def candidates(self, scope: Scope, utterance: str, raw_window, window, limit: int = 0,
                   where: str = "", kinds: Sequence[str] = (), exclude_content: str = "") -> List[MemoryItem]:
        """This retriever's best hits, above its ``min_score`` (on its own
        evidence: keyword coverage, or similarity), never from the live
        window; ``exclude_content`` is the stored copy of a build's utterance."""
        limit = limit or self.max_num_results
        hits = self.search(scope, self.query_text(utterance, window), limit,
                           where=where or self.where, kinds=kinds or self.kinds,
                           exclude_ids=[t.id for t in raw_window], exclude_content=exclude_content)
        if self.min_score is not None:
            hits = [h for h in hits if h.score >= self.min_score]
        return hits[:limit]

    def recall(self, scope: Scope, utterance: str, raw_window, window, limit: int = 0,
               where: str = "", kinds: Sequence[str] = ()) -> List[MemoryItem]:
        """What a build injects: the best hits, with their relevance."""
        hits = self.candidates(scope, utterance, raw_window, window, limit, where, kinds, utterance)
        return self.reader.score(scope, utterance, hits)

    def relevant(self, scope: Scope, query: str, limit: int, threshold: float, where: str = "",
                 kinds: Sequence[str] = ()) -> List[MemoryItem]:
        """``memory.recall``: hits of at least ``threshold`` relevance, most relevant first."""
        hits = self.candidates(scope, query, [], [], max(2 * limit, RELEVANT_FETCH), where, kinds)
        hits = self.reader.with_asked_facts(scope, query, hits, kinds, where or "user")
        return most_relevant(self.reader.score(scope, query, hits), threshold, scope.lang)[:limit]

    def context_blocks(self, scope, utterance, now):
        return [], []  # a retriever contributes through recall, not blocks

    def build(self, scope, utterance, now):
        raw_window = self.raw_window(scope, now)
        window = trim_window(raw_window)
        hits = self.recall(scope, utterance, raw_window, window)
        call_id = tool_call_id(scope.user_id, scope.persona_key, scope.session_id, utterance)
        messages = assemble(self.settings, window, utterance, render_context(hits, self.settings),
                            call_id=call_id)
        return Context(messages, hits)
