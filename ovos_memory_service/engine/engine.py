"""The memory engine: every operation of the protocol on typed arguments.
The bus edge, the voice skill and the admin CLI all call this one object.
It decides; the store (store/) keeps, the backends (backends/) recall, and
the background workers (learning/) learn after the reply.
"""
import json
import re
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from ovos_utils.log import LOG

from ovos_memory_service.learning import summaries
from ovos_memory_service.common.access import allows
from ovos_memory_service.learning.background import Background
from ovos_memory_service.learning.fact_worker import as_fact
from ovos_memory_service.backends import Backend, Context, can_recall
from ovos_memory_service.backends.reader import StoreReader, names_a_topic
from ovos_memory_service.common.config import cache_dir, data_dir, replace_config
from ovos_memory_service.common.errors import EmbeddingsUnavailable, InvalidRequest, NotFound
from ovos_memory_service.learning.facts.extract import extract_facts
from ovos_memory_service.learning.facts.model import Fact, derived_only_from, record
from ovos_memory_service.backends.window import live_window
from ovos_memory_service.common.items import EXPLICIT_KINDS, KINDS, MemoryItem, normalized
from ovos_memory_service.engine.personas import PersonaRegistry
from ovos_memory_service.engine.turns import TurnWriter
from ovos_memory_service.backends.relevance import most_relevant, saying_something_first
from ovos_memory_service.common.resources import is_english
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.store import Store, open_store
from ovos_memory_service.engine.corrections import Corrections
from ovos_memory_service.engine.judge import JUDGED, Judge, JudgeUnavailable, judge_of
from ovos_memory_service.engine.upkeep import Upkeep
from ovos_memory_service.learning.embedding_worker import EmbeddingWorker
from ovos_memory_service.models.embedder import OFFLINE_MODELS, load_embedder
from ovos_memory_service.models.queries import QueryVectors
from ovos_memory_service.models.reranker import RERANK_LOADING, Reranker, RerankerUnavailable, reranked
from ovos_memory_service.models.shared import forget_models
from ovos_memory_service.common.wire import ChatMessage

REQUEST_MEMORY_S = 24 * 3600  # how long a request_id is remembered for retries
EXCLUDE_S = 120  # how long a skill's own line is kept out of the history
# an LLM reads a user turn with its reply: it waits this long for the reply to be stored
EXCHANGE_WAIT_S = 60


def _spoken(text: str) -> str:
    """A line as heard: no case, punctuation or extra spaces (STT adds none)."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


class MemoryEngine(Corrections, Upkeep):
    def __init__(self, config: dict, clock: Callable[[], float] = time.time):
        # the service's configuration: this dict, kept (not copied) by every part below
        self.config = config
        # what "now" is for conversations, timeouts and stored times (tests move it)
        self.clock = clock
        self.store: Optional[Store] = None
        self.reader: Optional[StoreReader] = None
        self.personas: Optional[PersonaRegistry] = None
        self.background: Optional[Background] = None
        self.semantic_loading = False  # the model and the vectors load in the background
        self.semantic_off = False  # not loaded on purpose (a command that needs no meaning)
        # memory.recall's cross-encoder (models/reranker.py), loaded after the embedding model
        self.reranker = None
        self.rerank_error: Optional[str] = RERANK_LOADING
        self._loader: Optional[threading.Thread] = None
        self._last_purge = 0.0
        # (user_id, session_id, role, normalized text) -> until when: lines the voice skill
        # said, and the commands it handled, that are not memories
        self._excluded = {}
        self._excluded_lock = threading.Lock()
        # called with (user_id, ids) after memories of a user were forgotten for
        # real (the daemon tells the persona plugins, which hold local windows)
        self.forget_listeners = []
        # called with (scope, where, paused) after a pause or resume (the daemon
        # tells the persona plugins, whose local windows must stop too)
        self.pause_listeners = []
        # the last failure to read or write the store ({message, at}), until a write succeeds
        self.storage_error: Optional[dict] = None

    # ----------------------------------------------------------------- life
    def open(self, lock_timeout: Optional[float] = 30, holder: str = "cli", semantic: str = "now"):
        """Open the store (``lock_timeout`` None: wait for ever for another
        process to let go; ``holder`` "daemon" or "cli"). ``semantic``: load
        the model and the vectors "now", in the "background" (the daemon: it
        answers at once, with keyword recall until they are loaded), or "off"
        (commands that never recall by meaning)."""
        self.store = open_store(self.config["store"], data_dir(self.config), self.config["lang"], lock_timeout,
                                holder)
        self.reader = StoreReader(self.store, self.config)
        PersonaRegistry.check(self.config, self.reader)
        self.personas = PersonaRegistry(self.store, self.reader, self.config)
        self.background = Background(self.store, self.personas, self.config)
        self.background.start()
        self.store.listen(self._heard)
        if not self.config["embeddings"].get("enabled", True):
            self.reader.semantic_error = self.rerank_error = "semantic recall is disabled in the configuration"
        elif semantic == "off":
            self.semantic_off = True
            self.reader.semantic_error = self.rerank_error = \
                "the model is not loaded by this command (the daemon loads it)"
        elif semantic == "background":
            self.semantic_loading = True
            self._loader = threading.Thread(target=self._open_models, args=(holder == "daemon",),
                                            name="memory-model-loader", daemon=True)
            self._loader.start()
        else:
            self._open_models()

    def _open_models(self, read_ahead: bool = False):
        self._open_semantic(read_ahead)
        self._open_reranker()

    def _open_reranker(self):
        if not self.config["rerank"]["enabled"]:
            self.rerank_error = "reranking is disabled in the configuration"
            return
        if not is_english(self.config["lang"]):
            self.rerank_error = "the device's language is not English, the one language the cross-encoder reads"
            return
        try:  # its model is read at the first recall (models/reranker.py)
            self.reranker = Reranker(self.config["embeddings"].get("threads") or None)
        except (RerankerUnavailable, OSError) as e:
            LOG.info(f"memory.recall is not reranked: {e}")
            self.rerank_error = str(e)
            return
        self.rerank_error = None
        LOG.info(f"memory.recall in English is reranked by {self.reranker.name} (read at the first recall)")

    def _open_semantic(self, read_ahead: bool = False):
        """Load the model and the vector index; without them, keyword recall
        only. ``read_ahead`` (the daemon): then copy the vectors of the users
        heard from last into memory, so that their first searches do not wait
        for the files. A model other than the one that made the stored vectors
        embeds the store again in the background; the old one, if it can be
        loaded here, answers meanwhile (_keep_old_model)."""
        settings = self.config["embeddings"]
        models = Path(cache_dir()) / "models"
        try:
            embedder = load_embedder(settings, models, lang=self.config["lang"])
            old = self._keep_old_model(embedder, settings, models)
            if old is None:
                self.store.cancel_reembedding()
                queued = self.store.open_vectors(embedder.name, embedder.dim)
            else:
                self.store.open_vectors(old.name, old.dim)
                queued = self.store.begin_reembedding(embedder.name, embedder.dim)
        except (EmbeddingsUnavailable, ValueError) as e:
            LOG.warning(f"semantic recall unavailable, keyword recall only: {e}")
            self.reader.semantic_error = str(e)
            self.semantic_loading = False
            return
        self.reader.queries = QueryVectors(old or embedder)
        self.reader.next_queries = QueryVectors(embedder) if old else None
        self.reader.semantic_error = None
        self.background.start_embedding(EmbeddingWorker(
            self.store, old or embedder, settings.get("batch_size", 16), self.config["vector_compact_minutes"],
            next_embedder=embedder if old else None, on_change=self._model_changed))
        self.semantic_loading = False
        LOG.info(f"semantic recall ready: {(old or embedder).name}")
        if old is not None:
            LOG.warning(f"the vectors were made with {old.name}: {queued} memories are embedded again with "
                        f"{embedder.name} in the background; {old.name} answers until that is done")
        elif queued:
            LOG.warning(f"the vectors were made with another model: {queued} memories are embedded again "
                        f"with {embedder.name} in the background; meanwhile keywords find those not done yet")
        if read_ahead and (old or not queued):  # the vectors searched are there
            try:
                self.store.warm_vectors()
            except Exception as e:  # only a read-ahead: searches read what they need
                LOG.warning(f"reading the users' vectors ahead failed: {e!r}")

    def _keep_old_model(self, embedder, settings: dict, models: Path):
        """The model that made the stored vectors, loaded, if it is not
        ``embedder`` and is one of the offline models (loading another could
        download it); None otherwise."""
        recorded = self.store.vector_model()
        if recorded == embedder.name or recorded not in OFFLINE_MODELS:
            return None
        try:
            return load_embedder({**settings, "model_path": ""}, models, name=recorded)
        except EmbeddingsUnavailable as e:
            LOG.warning(f"the vectors' model {recorded} cannot be loaded to answer meanwhile: {e}")
            return None

    def _model_changed(self, embedder):
        """From the embedding worker's thread: ``embedder``'s vectors are the
        searched ones now, and the old model is let go; or (None) another
        daemon sharing the store gave this change up: the old model stays."""
        old, upcoming = self.reader.queries, self.reader.next_queries
        if embedder is None:
            self.reader.next_queries = None
            LOG.warning(f"another daemon sharing the store gave up or replaced the change to "
                        f"{upcoming.embedder.name if upcoming else 'the new model'}; this one goes on with "
                        f"{old.embedder.name if old else 'its model'}: give every daemon the same embeddings.model")
            return
        self.reader.queries, self.reader.next_queries = QueryVectors(embedder), None
        forget_models(keep=embedder)
        LOG.info(f"every memory is embedded with {embedder.name}: it answers from now on"
                 + (f", not {old.embedder.name}" if old else ""))

    def close(self):
        if self._loader is not None:
            self._loader.join()  # the model and the vector files, loaded or not
        if self.background is not None:
            self.background.stop()
        if self.personas is not None:
            self.personas.close()
        if self.reader is not None:
            self.reader.close()
        if self.reranker is not None:
            self.reranker.close()
            self.reranker = None
        if self.store is not None:
            self.store.close()
            self.store = None

    def reload(self, config: dict):
        """Apply a new configuration (SIGHUP); the data directory stays.
        Raises ValueError, keeping the running one, if a backend block is bad."""
        PersonaRegistry.check(config, self.reader)
        if data_dir(config) != data_dir(self.config):
            LOG.warning("data_dir changed: restart the service to move the store")
            config = {**config, "data_dir": self.config["data_dir"]}
        replace_config(self.config, config)  # the dict every part reads
        self.personas.reload()

    def backend(self, persona_id: Optional[str]) -> Backend:
        return self.personas.backend(persona_id)

    def configure_persona(self, persona_id: str, module: str, config: dict):
        self.personas.configure(persona_id, module, config)

    # -------------------------------------------------------------- history
    def update_history(self, scope: Scope, messages: List[ChatMessage],
                       request_id: Optional[str] = None, received_at: Optional[float] = None) -> dict:
        """Store turns; returns once they are committed (background work
        yields to it, as to builds: the client waits for the answer).
        ``received_at`` (time.time(), default now): a pause set after it, while
        the update waited, does not keep out what was said before the pause."""
        received_at = time.time() if received_at is None else received_at
        with self.background.foreground():
            return self._store_turns(scope, messages, request_id, received_at)

    def _store_turns(self, scope: Scope, messages: List[ChatMessage], request_id: Optional[str],
                     received_at: float) -> dict:
        store = self.store
        with store.transaction():
            ids = store.find_request(scope, request_id) if request_id is not None else None
            if ids is not None:
                # a retry (paused since, or not): answer with what of it is still
                # kept; turns the user forgot since are not stored again, and not claimed
                kept = store.existing(ids)
                reply = {"stored": len(kept), "ids": [i for i in ids if i in kept]}
                if len(kept) < len(ids):
                    reply["forgotten"] = len(ids) - len(kept)
                return reply
            if store.is_paused(scope, received_at):
                return {"stored": 0, "ids": [], "paused": True}
            messages = [m for m in messages if not self._take_excluded(scope, m.role, m.content)]
            if not messages:
                return {"stored": 0, "ids": []}
            now = self.clock()
            times = [m.created_at if m.created_at is not None else now for m in messages]
            conv = store.latest_conversation(scope)
            if conv is None or times[0] - conv["updated_at"] > self.reader.timeout_s:
                conv = {"id": store.start_conversation(scope, times[0]), "updated_at": times[0]}
            writer = TurnWriter(store, scope, conv["id"], now)
            for msg in messages:
                writer.add(msg)
            store.touch_conversation(conv["id"], max(times))
            self._queue_turn_work(scope.persona_id, self.lang(scope), writer.kept(), now)
            if request_id is not None:
                store.save_request(scope, request_id, writer.kept_ids, now)
            if now - self._last_purge > 3600:
                self._last_purge = now
                store.purge_requests(now - REQUEST_MEMORY_S)
        self._after_update(scope, [m for m in messages if m.role in ("user", "assistant", "tool")])
        self.background.wake()
        return {"stored": len(writer.kept_ids), "ids": writer.kept_ids}

    def _queue_turn_work(self, persona_id: Optional[str], lang: str, turns: List[dict], now: float):
        """The jobs that new turns of one persona bring, in the caller's
        transaction: facts from every user turn; for a persona with an LLM,
        facts from each exchange (due once its reply is stored) and the
        conversation's summary."""
        user_turns = [t["id"] for t in turns if t["role"] == "user"]
        self.store.enqueue("facts", user_turns, lang=lang)
        tasks = self.personas.llm_tasks(persona_id)
        persona = persona_id or ""
        for conversation in dict.fromkeys(t["conversation_id"] for t in turns):
            in_it = [t for t in turns if t["conversation_id"] == conversation]
            if "facts" in tasks:
                # new turns complete the exchanges before them
                self.store.due_again("llm_facts", now, conversation_id=conversation)
                for i, turn in enumerate(in_it):
                    if turn["role"] == "user":
                        replied = any(later["role"] == "assistant" for later in in_it[i + 1:])
                        self.store.enqueue("llm_facts", [turn["id"]], persona, lang,
                                           now if replied else now + EXCHANGE_WAIT_S)
            if "summary" in tasks:
                self.store.enqueue("llm_summary", [conversation], persona, lang)

    def exclude_turn(self, scope: Scope, role: str, text: str):
        """Keep a line of the voice skill (a read-back, a confirmation, or the
        command it answered) out of the session's memory: a persona that
        records every spoken line would send it back. Deletes it if stored already."""
        now = self.clock()
        key = (scope.user_id, scope.session_id, role, _spoken(text))
        with self._excluded_lock:
            self._excluded = {k: until for k, until in self._excluded.items() if until > now}
            self._excluded[key] = now + EXCLUDE_S
        stored = [row["id"] for row in self.store.recent_turns(scope, role, now - EXCLUDE_S)
                  if _spoken(row["content"]) == key[3]]
        if stored:
            self.store.delete(stored)
            self._tell_forgotten(scope.user_id, stored)

    def _take_excluded(self, scope: Scope, role: str, text: str) -> bool:
        key = (scope.user_id, scope.session_id, role, _spoken(text))
        with self._excluded_lock:
            return self._excluded.pop(key, 0) > self.clock()

    def lang(self, scope: Scope) -> str:
        return scope.lang or self.config["lang"] or "en-us"

    def _after_update(self, scope: Scope, stored: List[ChatMessage]):
        backend = self.backend(scope.persona_id)
        if type(backend).after_update is not Backend.after_update and stored:
            self.background.call(backend.name, lambda: backend.after_update(scope, stored))

    def build_context(self, scope: Scope, utterance: str) -> Context:
        """Read-only; the store locks its own reads, members run side by side.
        Below the speaker's access level only the live conversation is read."""
        if not allows(scope, self.config, "context"):
            scope = replace(scope, long_term=False)
        with self.background.foreground():
            return self.backend(scope.persona_id).build(scope, utterance, self.clock())

    def get_history(self, scope: Scope, limit: Optional[int] = None) -> List[ChatMessage]:
        """The newest ``limit`` turns of the live conversation; without a limit,
        the window the persona's backend shows (as the seed's get_history: none
        for entity, the turns not summarized yet for longterm)."""
        if limit is None:
            return self.backend(scope.persona_id).raw_window(scope, self.clock())
        return live_window(self.store, scope, self.clock(), self.reader.timeout_s, limit)

    def new_conversation(self, scope: Scope) -> str:
        return self.store.start_conversation(scope, self.clock())

    # ------------------------------------------------------------ long term
    def recall(self, scope: Scope, query: str, limit: Optional[int] = None,
               threshold: Optional[float] = None, kinds: Sequence[str] = KINDS,
               where: str = "user", judged: bool = True) -> List[MemoryItem]:
        """Memori's recall(): the most relevant memories of the user, best first,
        found the way the persona's backend recalls (hybrid by default);
        ``judged``: by the configured judge too (engine/judge.py)."""
        limit = limit or self.config["recall_facts_limit"]
        if threshold is None:
            threshold = self.config["recall_relevance_threshold"]
        judge = judge_of(self.config) if judged else None
        if judge is not None:
            try:
                judge.check()
                return self._recalled(scope, query, limit, threshold, kinds, where, judge)
            except JudgeUnavailable as e:
                LOG.warning(f"memory.recall is not judged: {e}")
        return self._recalled(scope, query, limit, threshold, kinds, where)

    def _recalled(self, scope: Scope, query: str, limit: int, threshold: float, kinds: Sequence[str],
                  where: str, judge: Optional[Judge] = None) -> List[MemoryItem]:
        backend = self.backend(scope.persona_id)
        if not can_recall(backend):
            backend = self.personas.default_backend()
        settings = self.config["rerank"]  # a reload may turn it off (turning it on loads it at a restart)
        # a topic named alone ("pasta", "my job") asks the model nothing to answer: its
        # memories keep recall's order, which its words decide (and 50 model runs at most
        # with many memories of it: 160 ms at 20k turns)
        reranker = self.reranker if settings["enabled"] and is_english(self.lang(scope)) \
            and not names_a_topic(query, self.lang(scope)) else None
        top = settings["candidates"]
        wanted = max(limit, top if reranker else 0, judge.candidates if judge else 0)
        with self.background.foreground():
            # the judge weighs the candidates below the threshold too
            found = backend.relevant(scope, query, wanted, 0.0 if judge else threshold, where, kinds)
        if judge is not None:  # outside: background work need not wait for the endpoint
            found = most_relevant(judge.judged(query, found), threshold, self.lang(scope))
        if reranker is not None:
            with self.background.foreground():
                found = saying_something_first(self._reranked(reranker, query, found, top, scope, kinds, where),
                                               self.lang(scope))
        if judge is not None:  # recall's order and the reranker's go within the verdict, not across it
            found.sort(key=lambda item: item.score < JUDGED)
        return found[:limit]

    def _reranked(self, reranker, query: str, found: List[MemoryItem], top: int, scope: Scope,
                  kinds: Sequence[str], where: str) -> List[MemoryItem]:
        """``found`` reordered by the cross-encoder; in recall's own order if
        its model, read at this first use, is not the one this version knows."""
        try:
            return reranked(reranker, query, found, top, self._turns_before(scope, found[:top], kinds, where))
        except RerankerUnavailable as e:
            LOG.warning(f"memory.recall is not reranked: {e}")
            self.rerank_error, self.reranker = str(e), None  # its threads never started
            return found

    def _turns_before(self, scope: Scope, items: List[MemoryItem], kinds: Sequence[str],
                      where: str) -> Dict[str, MemoryItem]:
        """id -> the turn said just before it, for the turns among ``items``
        (of those the scope may see)."""
        turns = [item for item in items if item.kind == "turn"]
        adjacent = self.reader.adjacent_turns(scope, [item.id for item in turns], kinds, where)
        return {item.id: turn for item in turns for turn in adjacent.get(item.id, []) if turn.seq < item.seq}

    def list(self, scope: Scope, kinds: Sequence[str] = KINDS, limit: int = 20,
             offset: int = 0, where: str = "user", **narrowed):
        """A page of the scope's memories, newest first, and their total;
        ``narrowed``: only one ``persona`` or ``session``, or those made ``since``/``until``."""
        visible = self.reader.visible(scope, kinds, where, **narrowed)
        with self.store.transaction():  # the page and its total agree
            rows = self.store.list_visible(visible, limit, offset)
            total = self.store.count_visible(visible)
        return [MemoryItem.from_row(r) for r in rows], total

    def last_exchange(self, scope: Scope) -> List[MemoryItem]:
        """The session's latest user turn and the replies after it, whichever
        persona stored them ("forget that")."""
        rows = self.store.last_exchange(scope)
        last_user = max((i for i, r in enumerate(rows) if r["role"] == "user"), default=None)
        return [] if last_user is None else [MemoryItem.from_row(r) for r in rows[last_user:]]

    def remember(self, scope: Scope, content: str, kind: Optional[str] = None) -> str:
        """Store an explicit memory through the fact model: a statement the
        extractor understands ("I moved to Porto") fills its slot (updating the
        slot's memory); anything else is kept as said. Returns the memory's id."""
        if kind is not None and kind not in EXPLICIT_KINDS:
            raise InvalidRequest(f"kind must be one of {', '.join(EXPLICIT_KINDS)}")
        with self.store.transaction():
            if self.store.is_paused(scope):
                raise InvalidRequest("memory is paused for this user; resume it first")
            memory_id = self._record_statement(scope, content, kind)
        self.background.wake()
        return memory_id

    def _record_statement(self, scope: Scope, content: str, kind: Optional[str] = None,
                          unknown_kind: str = "fact") -> str:
        """Inside a transaction: what the user states, through the fact model
        (``unknown_kind``: the kind of a statement the extractor does not
        understand); the id of the memory that holds it. NotFound (raised in
        the transaction, which then undoes everything) for a negation that
        retracts nothing."""
        found = [] if kind == "attribute" else extract_facts(content, self.lang(scope))
        facts = [replace(as_fact(f, "", "user"), sources=[], kind=kind or f.kind) for f in found] or [
            Fact(kind=kind or unknown_kind, content=content)]
        if len(facts) == 1:  # one statement: keep the user's own words
            facts[0].content = content
        ids = [record(self.store, scope, fact, self.config["share_facts_across_personas"]) for fact in facts]
        for memory_id in filter(None, ids):  # the level it was said at, this time
            self.store.update_memory(memory_id, auth_level=scope.auth_level)
        if not any(ids):
            raise NotFound("there was nothing like that to retract")
        return next(i for i in ids if i)

    def forget(self, scope: Scope, ids: Optional[Sequence[str]] = None, query: Optional[str] = None,
               everything: bool = False, where: str = "user", dry_run: bool = False,
               kinds: Sequence[str] = KINDS, limit: Optional[int] = None,
               threshold: Optional[float] = None, until: Optional[float] = None) -> List[MemoryItem]:
        """Forget memories of the scope; returns what was (or would be) forgotten.
        By ``query``: what is clearly about it (``forget_relevance_threshold``),
        with the replies that answered it and the memories that repeat it.
        ``everything`` made before ``until`` (epoch seconds; None: all): what a
        count shown earlier covered, not what was said since."""
        if query is not None:
            if threshold is None:
                threshold = self.config["forget_relevance_threshold"]
            targets = self._clearly_about(scope, query, limit or self.config["recall_facts_limit"], threshold,
                                          kinds, where, dry_run)
            targets += self._answering(scope, query, targets, kinds, where)
        store = self.store
        with store.transaction():
            if ids is not None:
                targets = [MemoryItem.from_row(r) for r in store.select_visible(
                    self.reader.visible(scope, kinds, where), ids)]
            elif everything:
                visible = self.reader.visible(scope, kinds, where, until=until)
                targets = [MemoryItem.from_row(r) for r in store.list_visible(visible, store.count_visible(visible))]
            elif query is None:
                raise InvalidRequest("give one of ids, query or all")
            # facts learnt only from what is forgotten go with it, and summaries that retell it
            gone = [t.id for t in targets]
            derived = store.derived(scope.user_id)
            also = derived_only_from(derived, gone) + summaries.built_on(derived, gone)
            known = set(gone)
            targets += [MemoryItem.from_row(r) for r in store.select_visible(
                self.reader.visible(scope, KINDS, "all", history=True), also) if r["id"] not in known]
            if not dry_run:
                store.delete([t.id for t in targets])
        if targets and not dry_run:
            self._tell_forgotten(scope.user_id, [t.id for t in targets])
        return targets

    def _clearly_about(self, scope: Scope, query: str, limit: int, threshold: float, kinds: Sequence[str],
                       where: str, dry_run: bool = False) -> List[MemoryItem]:
        """What forgetting by ``query`` takes: the first ``limit`` memories, in
        recall's order, whose own evidence reaches ``threshold`` (their score
        then is that evidence's): a memory is not forgotten for being the best
        of what is left once the answer is gone. A judge's verdict weighs too,
        but only a dry run, whose list is confirmed, takes more for it (engine/judge.py)."""
        found = self.reader.score(scope, query, self.recall(scope, query, 50, 0.0, kinds, where, judged=False),
                                  lead=False)
        judge = judge_of(self.config)
        if judge is not None:
            try:
                found = judge.judged(query, found, raise_found=dry_run)
            except JudgeUnavailable as e:
                LOG.warning(f"forgetting is not judged: {e}")
        return [m for m in found if m.score >= threshold][:limit]

    def _answering(self, scope: Scope, query: str, targets: List[MemoryItem], kinds: Sequence[str],
                   where: str) -> List[MemoryItem]:
        """What goes with ``targets`` when they are forgotten by ``query``: the
        memories about the query (at the recall threshold) that restate one of
        them (at the forget threshold), the turns their facts were learnt from,
        and the reply to every user turn among all these: a reply left behind
        would repeat what was forgotten, and leave the conversation with two
        assistant turns in a row. A turn that told something else too (a fact
        learnt from it stays) is not taken along: nothing else is forgotten."""
        strict = self.config["forget_relevance_threshold"]
        taken = {t.id for t in targets}
        learnt = self._learnt_from(scope.user_id)

        def alone(turn_id: str) -> bool:
            return learnt.get(turn_id, set()) <= taken
        about = [m for m in self.recall(scope, query, 50, self.config["recall_relevance_threshold"], kinds, where,
                                        judged=False) if m.id not in taken]
        repeats = []
        for target in targets:
            restating = {m.id for m in self.reader.score(scope, target.content, about, asked=False)
                         if m.score >= strict}
            repeats += [m for m in about if m.id in restating and (m.kind != "turn" or alone(m.id))]
            about = [m for m in about if m.id not in restating]
            taken |= {m.id for m in repeats}
        told = [turn for turn in {s for m in targets + repeats for s in m.sources} - taken if alone(turn)]
        sources = [MemoryItem.from_row(r) for r in self.store.select_visible(
            self.reader.visible(scope, ("turn",), where), told)]
        taken |= {m.id for m in sources}
        said = [m for m in targets + repeats + sources if m.kind == "turn" and m.role == "user"]
        replies = []
        if said and "turn" in kinds:
            adjacent = self.reader.adjacent_turns(scope, [m.id for m in said], kinds, where)
            for turn in said:
                reply = next((m for m in adjacent.get(turn.id, []) if m.seq > turn.seq), None)
                if reply is not None and reply.role == "assistant" and reply.id not in taken:
                    taken.add(reply.id)
                    replies.append(replace(reply, answers=turn.id))
        return repeats + self.reader.score(scope, query, sources + replies)

    def _learnt_from(self, user_id: str) -> Dict[str, set]:
        """Turn id -> the ids of the facts learnt from it (summaries retell
        turns and are written again when they go: not counted)."""
        learnt = {}
        for row in self.store.derived(user_id):
            for source in json.loads(row["sources"]) if row["kind"] != "summary" else ():
                learnt.setdefault(source, set()).add(row["id"])
        return learnt

    def _heard(self, event: str, data: dict):
        """What another daemon sharing the store committed (store.listen)."""
        if event == "forgotten":
            self._tell_forgotten(data["user_id"], data["ids"])
        elif event == "personas":
            self.personas.drop(data.get("persona_id"))
        elif event == "vectors":
            self._other_model(data.get("model"))
        elif event == "resync":  # notifications may have been missed
            self.personas.drop()

    def _other_model(self, model: Optional[str]):
        """Another daemon re-embeds the shared store with ``model``, or made
        its vectors the searched ones: this one's queries and vectors would no
        longer compare, so semantic recall stops, unless this one was filling
        the same model's (its worker then switches, as if it had ended it)."""
        queries, upcoming = self.reader.queries, self.reader.next_queries
        if upcoming is not None and model == upcoming.embedder.name:
            self.background.wake()
            return
        if queries is None or model == queries.embedder.name:
            return
        self.reader.queries = None
        self.reader.semantic_error = (f"another daemon sharing the store embeds it with {model}: "
                                      f"configure the same embeddings.model here and restart")
        LOG.warning(f"semantic recall stopped: {self.reader.semantic_error}")
        self.background.call("semantic recall", self.background.stop_embedding)  # not on the listener

    def _tell_forgotten(self, user_id: str, ids: List[str]):
        normalized.cache_clear()  # a forgotten text stays in no cache of this process
        for listener in list(self.forget_listeners):
            try:
                listener(user_id, ids)
            except Exception:
                LOG.exception("a forget listener failed")

    def pause(self, scope: Scope, where: str, paused: bool) -> bool:
        self.store.set_paused(scope, where, paused)
        now_paused = self.store.is_paused(scope)
        for listener in list(self.pause_listeners):
            try:
                listener(scope, where, paused)
            except Exception:
                LOG.exception("a pause listener failed")
        return now_paused

    def wait_idle(self, timeout: float = 60):
        """Wait for the model and the vectors to load (if they load in the
        background), then for the work queued so far (embeddings, facts,
        plugins); TimeoutError if that is not done in ``timeout`` seconds, so
        that nothing is asserted of work that has not run."""
        deadline = time.monotonic() + timeout
        if self._loader is not None:
            self._loader.join(timeout)
            if self._loader.is_alive():
                raise TimeoutError(f"waited {timeout:g} s for the background work: the model is still loading")
        self.background.wait_idle(max(0.0, deadline - time.monotonic()))
