"""``composite``: several backends behind one persona slot, as the seed's.

Retriever members (lexical, local-rag, composites) are searched side by side
and their hits fused; plain members (recency, plugins...) contribute their
leading system blocks; the verbatim window comes from the ``primary`` member.
A member that fails, or answers after ``member_timeout`` seconds, is skipped.
"""
import time
from concurrent.futures import wait
from typing import Callable, List, Optional, Sequence

from ovos_utils.log import LOG

from ovos_memory_service.backends.base import Backend, Context
from ovos_memory_service.backends.focus import focus, mentioned_time
from ovos_memory_service.backends.fusion import fuse
from ovos_memory_service.backends.inject import assemble, render_context, tool_call_id
from ovos_memory_service.backends.local_rag import LocalRagBackend
from ovos_memory_service.backends.relevance import most_relevant
from ovos_memory_service.backends.retrieval import RetrievalBackend
from ovos_memory_service.backends.window import trim_window
from ovos_memory_service.common.blocks import canonical_name, composite_block, primary_of
from ovos_memory_service.common.items import KINDS, MemoryItem


def _embeds_the_utterance(member: Backend) -> bool:
    """A member that searches by the meaning of the utterance alone (one that
    asks with the history embeds the earlier turns with it)."""
    if isinstance(member, LocalRagBackend):
        return member.query_mode != "history" or not member.query_history_turns
    return isinstance(member, CompositeBackend) and member.embeds


class CompositeBackend(Backend):
    """Keys: ``members`` [{module, config, weight}], ``primary``, ``fusion``,
    ``rrf_k`` (60), ``max_num_results`` (5), ``member_fetch_k`` (2x),
    ``dedup`` (true), ``min_score``, ``member_timeout`` (2 s),
    ``neighbor_weight`` (0), ``speaker_boost`` (0), ``time_boost`` (0),
    ``time_scale_days`` (7), ``inject_mode``, ``system_prompt``, ``context.*``.

    ``neighbor_weight`` > 0 lets a recalled turn lift the turns just before
    and after it (by that share of its fused score): a question and its
    answer tend to be remembered together. ``speaker_boost`` and
    ``time_boost`` favour memories of a speaker the question names and from
    around a date it mentions (see focus.py)."""
    name = "composite"

    def __init__(self, config, reader, load: Callable[[str, dict, object], Backend]):
        """``load(module, config, reader)``: how a member is loaded (backends.create_backend)."""
        super().__init__(config, reader)
        block = composite_block(config, self.name)
        self.members: List[Backend] = []
        self.weights: List[float] = []
        self.member_names: List[str] = []
        for member in block.members:
            try:
                loaded = load(member.module, member.config, reader)
            except Exception:
                LOG.exception(f"composite: skipping member {member.module} that failed to load")
                continue
            self.members.append(loaded)
            self.weights.append(member.weight)
            self.member_names.append(canonical_name(member.module))
        primary = primary_of(block.primary, self.member_names)
        self.primary = self.members[primary] if primary is not None else None
        self.fusion, self.rrf_k, self.dedup = block.fusion, block.rrf_k, block.dedup
        self.max_num_results, self.member_fetch_k = block.max_num_results, block.member_fetch_k
        self.min_score, self.member_timeout = block.min_score, block.member_timeout
        self.neighbor_weight, self.speaker_boost = block.neighbor_weight, block.speaker_boost
        self.time_boost, self.time_scale_days = block.time_boost, block.time_scale_days
        self.max_history = self.primary.max_history if self.primary else 0
        # what plain members inject as blocks (facts) is not recalled a second time
        self.block_kinds = tuple({k for m in self.members if not isinstance(m, RetrievalBackend)
                                  for k in m.block_kinds})
        self.settings = block.inject
        # a member searches by the utterance's meaning: a build starts its embedding first
        self.embeds = any(_embeds_the_utterance(m) for m in self.members)

    @property
    def retrievers(self):
        return [(m, w) for m, w in zip(self.members, self.weights)
                if isinstance(m, (RetrievalBackend, CompositeBackend))]

    def raw_window(self, scope, now):
        return self.primary.raw_window(scope, now) if self.primary else []

    def _run(self, calls, what: str):
        """Run (member, fn) pairs side by side; results of those that failed
        or passed the deadline are None."""
        return self._results(self._start(calls), what)

    def _start(self, calls):
        return [(member, self.reader.member_pool.submit(fn)) for member, fn in calls]

    def _results(self, started, what: str, since: Optional[float] = None):
        """``since``: when the members started (time.monotonic), if not now."""
        spent = time.monotonic() - since if since is not None else 0.0
        wait([future for _, future in started], timeout=max(0.0, self.member_timeout - spent))
        results = []
        for member, future in started:
            if not future.done():
                self.reader.misses.record(member.name, what, f"passed {self.member_timeout} s")
                results.append(None)
            elif future.exception() is not None:
                self.reader.misses.record(member.name, what, f"failed: {future.exception()!r}")
                results.append(None)
            else:
                results.append(future.result())
        return results

    def _fused(self, scope, utterance: str, raw_window, window, limit: int, where: str,
               kinds: Sequence[str], exclude_content: str, keep: Optional[int] = None) -> List[MemoryItem]:
        """The members' candidates side by side, fused, neighbours lifted and
        focused, best ``rank_score`` first (not yet scored): the first ``keep``
        (None: all)."""
        fetch = max(self.member_fetch_k, limit)
        calls = [(m, (lambda m=m: m.candidates(scope, utterance, raw_window, window, fetch, where, kinds,
                                               exclude_content)))
                 for m, _ in self.retrievers]
        started, since = self._start(calls), time.monotonic()
        # the date a question mentions is read while the members search (the parser is slow)
        target = mentioned_time(utterance, scope.lang, time.time()) if self.time_boost else None
        results = self._results(started, "recall", since)
        lists = [r for r in results if r is not None]
        weights = [w for (_, w), r in zip(self.retrievers, results) if r is not None]
        hits, brief = fuse(lists, weights, self.fusion, self.rrf_k, self.dedup), set()
        if self.neighbor_weight and hits:
            hits, brief = self._lift_neighbors(scope, hits, raw_window, exclude_content, where, kinds)
        hits = focus(hits, utterance, target, self.speaker_boost, self.time_boost, self.time_scale_days)
        return self.reader.whole(hits[:keep], brief)

    def candidates(self, scope, utterance: str, raw_window, window, limit: int = 0, where: str = "",
                   kinds: Sequence[str] = (), exclude_content: str = "") -> List[MemoryItem]:
        """The best fused hits, scored, above ``min_score`` (a calibrated relevance here)."""
        limit = limit or self.max_num_results
        hits = self._fused(scope, utterance, raw_window, window, limit, where, kinds, exclude_content, 2 * limit)
        hits = self.reader.score(scope, utterance, hits)
        if self.min_score is not None:
            hits = [h for h in hits if h.score >= self.min_score]
        return hits[:limit]

    def recall(self, scope, utterance: str, raw_window, window, limit: int = 0, where: str = "",
               kinds: Sequence[str] = ()) -> List[MemoryItem]:
        return self.candidates(scope, utterance, raw_window, window, limit, where, kinds, utterance)

    def relevant(self, scope, query: str, limit: int, threshold: float, where: str = "",
                 kinds: Sequence[str] = ()) -> List[MemoryItem]:
        """``memory.recall``: every fused candidate scored, those of at least
        ``threshold`` (and ``min_score``) relevance, most relevant first."""
        hits = self._fused(scope, query, [], [], limit, where, kinds, "")
        hits = self.reader.score(scope, query, self.reader.with_asked_facts(scope, query, hits, kinds, where or "user"))
        return most_relevant(hits, max(threshold, self.min_score or 0.0), scope.lang)[:limit]

    def _lift_neighbors(self, scope, hits, raw_window, exclude_content, where, kinds):
        """Add ``neighbor_weight`` x a hit's fused score to the rank of the turns
        beside it (their relevance is their own, scored later); and the ids
        of the turns added, read briefly (most never make the cut)."""
        adjacent = self.reader.adjacent_turns(
            scope, [h.id for h in hits], kinds or KINDS, where or "user",
            [t.id for t in raw_window], exclude_content, brief=True)
        items = {h.id: h for h in hits}
        gain = {}
        for hit in hits:
            for turn in adjacent.get(hit.id, []):
                gain[turn.id] = gain.get(turn.id, 0.0) + self.neighbor_weight * hit.rank_score
                items.setdefault(turn.id, turn)  # fresh from the store: score and rank_score 0
        for memory_id, extra in gain.items():
            items[memory_id].rank_score += extra
        added = set(items) - {h.id for h in hits}
        return sorted(items.values(), key=lambda item: item.rank_score, reverse=True), added

    def llm_tasks(self):
        tasks = {}
        for member in self.members:
            for task, backend in member.llm_tasks().items():
                tasks.setdefault(task, backend)
        return tasks

    def after_update(self, scope, stored):
        """Every member hears the stored turns (plugins keep their own state);
        one failing member does not keep the others from it."""
        failure = None
        for member in self.members:
            try:
                member.after_update(scope, stored)
            except Exception as e:
                failure = failure or e
        if failure is not None:
            raise failure

    def context_blocks(self, scope, utterance, now):
        return self._blocks(self._run(self._block_calls(scope, utterance, now), "context"))

    def _block_calls(self, scope, utterance, now):
        plain = [m for m in self.members if not isinstance(m, RetrievalBackend)]
        return [(m, (lambda m=m: m.context_blocks(scope, utterance, now))) for m in plain]

    @staticmethod
    def _blocks(results):
        blocks, items = [], []
        for result in results:
            if result is not None:
                blocks += result[0]
                items += result[1]
        return blocks, items

    def close(self):
        for member in self.members:
            member.close()

    def build(self, scope, utterance, now):
        ahead = self.reader.embed_ahead(scope, utterance) if self.embeds else None
        try:
            return self._build(scope, utterance, now)
        finally:
            if ahead is not None:
                ahead.cancel()  # not started yet: this build needs it no more

    def _build(self, scope, utterance, now):
        # the plain members' blocks (facts) are made while the retrievers search
        blocks_started = self._start(self._block_calls(scope, utterance, now))
        raw_window = self.raw_window(scope, now)
        window = trim_window(raw_window)
        hits = self.recall(scope, utterance, raw_window, window,
                           kinds=[k for k in KINDS if k not in self.block_kinds])
        blocks, block_items = self._blocks(self._results(blocks_started, "context"))
        call_id = tool_call_id(scope.user_id, scope.persona_key, scope.session_id, utterance)
        messages = assemble(self.settings, window, utterance, render_context(hits, self.settings),
                            blocks, call_id)
        return Context(messages, [*block_items, *hits])
