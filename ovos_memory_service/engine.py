"""The memory engine: every operation of the protocol on typed arguments.
The bus edge, the voice skill and the admin CLI all call this one object.
"""
import json
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import List, Optional, Sequence

from ovos_utils.log import LOG

from ovos_memory_service import memories
from ovos_memory_service.backends import (Backend, Context, block_for, can_recall, canonical_name,
                                          create_backend)
from ovos_memory_service.config import cache_dir, data_dir, default_persona_block
from ovos_memory_service.errors import InvalidRequest, NotFound, Unavailable
from ovos_memory_service.facts.extract import extract_facts
from ovos_memory_service.facts.model import Fact, derived_only_from, record
from ovos_memory_service.background.facts import FactWorker, as_fact
from ovos_memory_service.history import (TurnWriter, latest_conversation, live_window,
                                         start_conversation)
from ovos_memory_service.items import KINDS, MemoryItem
from ovos_memory_service.background.llm import LLMWorker
from ovos_memory_service.backends.reader import StoreReader
from ovos_memory_service.scope import Scope
from ovos_memory_service import summaries, transfer
from ovos_memory_service.store.files import lock_store, open_store, scrub
from ovos_memory_service.wire import ChatMessage

REQUEST_MEMORY_S = 24 * 3600  # how long a request_id is remembered for retries
EXCLUDE_S = 120  # how long a skill's own line is kept out of the history
# an LLM reads a user turn with its reply: it waits this long for the reply to be stored
EXCHANGE_WAIT_S = 60


def _spoken(text: str) -> str:
    """A line as heard: no case, punctuation or extra spaces (STT adds none)."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


class MemoryEngine:
    def __init__(self, config: dict):
        self.config = config
        self.db = None
        self.reader: Optional[StoreReader] = None
        self.lock = threading.RLock()
        self._backends = {}
        self._default_backend: Optional[Backend] = None
        self.semantic = None
        self.facts: Optional[FactWorker] = None
        self.llm: Optional[LLMWorker] = None
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memory-bg")
        self._pending = 0
        self.last_background_error: Optional[str] = None
        self._last_purge = 0.0
        self._lock_file = None
        # (session_id, role, normalized text) -> until when: lines the voice skill
        # said, and the commands it handled, that are not memories
        self._excluded = {}
        # called with (user_id, ids) after memories of a user were forgotten for
        # real (the daemon tells the persona plugins, which hold local windows)
        self.forget_listeners = []
        # the last failure to read or write the store ({message, at}), until a write succeeds
        self.storage_error: Optional[dict] = None

    # ----------------------------------------------------------------- life
    def open(self, lock_timeout: Optional[float] = 30, holder: str = "cli"):
        """Lock and open the store (``lock_timeout`` None: wait for ever;
        ``holder`` "daemon" or "cli", recorded in the lock file)."""
        self._lock_file = lock_store(data_dir(self.config), lock_timeout, holder)
        self.db = open_store(data_dir(self.config))
        self.reader = StoreReader(self.db, self.config, self.lock)
        self.check_backends(self.config)
        self.facts = FactWorker(self.db, self.lock, self.config)
        self.facts.start()
        self.llm = LLMWorker(self.db, self.lock, lambda persona_id: self.backend(persona_id).llm_tasks(),
                             lambda: self.config["share_facts_across_personas"])
        self.llm.start()
        if self.config["embeddings"].get("enabled", True):
            self._open_semantic()
        else:
            self.reader.semantic_error = "semantic recall is disabled in the configuration"

    def _open_semantic(self):
        """Load the model and the vector index; without them, keyword recall only."""
        from ovos_memory_service.vectors.embedder import EmbeddingsUnavailable, load_embedder
        from ovos_memory_service.background.embedding import SemanticIndex
        settings = self.config["embeddings"]
        try:
            embedder = load_embedder(settings, Path(cache_dir()) / "models")
            self.semantic = SemanticIndex(self.db, self.lock, embedder,
                                          Path(data_dir(self.config)) / "vectors",
                                          settings.get("batch_size", 16),
                                          self.config["vector_compact_minutes"])
        except (EmbeddingsUnavailable, ValueError) as e:
            LOG.warning(f"semantic recall unavailable, keyword recall only: {e}")
            self.reader.semantic_error = str(e)
            return
        self.reader.semantic = self.semantic
        self.reader.semantic_error = None
        self.semantic.start()

    def close(self):
        self._background.shutdown(wait=True)
        if self.llm is not None:
            self.llm.stop()
        if self.facts is not None:
            self.facts.stop()
        if self.semantic is not None:
            self.semantic.stop()
        with self.lock:
            self._close_backends()
            if self.db is not None:
                self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self.db.close()
                self.db = None
            if self._lock_file is not None:
                self._lock_file.close()
                self._lock_file = None

    def check_backends(self, config: dict):
        """Build the default and every configured persona's backend once, so a
        bad block fails at start (or reload) with a ValueError naming it."""
        blocks = {"the default": default_persona_block(config), **{
            f"persona {persona_id!r}": block for persona_id, block in config["personas"].items()}}
        for owner, block in blocks.items():
            name = block.get("memory_module") or config["memory_module"]
            try:
                create_backend(name, block_for(block, name), self.reader).close()
            except (ValueError, TypeError) as e:  # TypeError: a list or object where a name belongs
                raise ValueError(f"memory_service: {owner} backend {name!r}: {e}") from e

    def reload(self, config: dict):
        """Apply a new configuration (SIGHUP); the data directory stays.
        Raises ValueError, keeping the running one, if a backend block is bad."""
        self.check_backends(config)
        with self.lock:
            if data_dir(config) != data_dir(self.config):
                LOG.warning("data_dir changed: restart the service to move the store")
                config = {**config, "data_dir": self.config["data_dir"]}
            self.config = config
            self.reader.config = config
            self._close_backends()

    def _close_backends(self):
        for backend in [*self._backends.values(), self._default_backend]:
            if backend is not None:
                backend.close()
        self._backends.clear()
        self._default_backend = None

    # ------------------------------------------------------------- personas
    def persona_block(self, persona_id: Optional[str]) -> dict:
        """Registered at run time, else from the config, else the default."""
        if persona_id:
            row = self.db.execute("SELECT memory_module, config FROM personas WHERE persona_id = ?",
                                  [persona_id]).fetchone()
            if row:
                return {"memory_module": row[0], row[0]: json.loads(row[1])}
            if persona_id in self.config["personas"]:
                block = self.config["personas"][persona_id]
                if block.get("memory_module"):
                    return block
        return default_persona_block(self.config)

    def backend(self, persona_id: Optional[str]) -> Backend:
        key = persona_id or ""
        with self.lock:
            if key not in self._backends:
                block = self.persona_block(persona_id)
                name = block["memory_module"]
                self._backends[key] = create_backend(name, block_for(block, name), self.reader)
            return self._backends[key]

    def configure_persona(self, persona_id: str, module: str, config: dict):
        backend = create_backend(module, config, self.reader)  # ValueError if not valid
        with self.lock:
            with self.db.atomic():
                self.db.execute("INSERT OR REPLACE INTO personas (persona_id, memory_module, config, "
                                "updated_at) VALUES (?, ?, ?, ?)",
                                [persona_id, module, json.dumps(config), time.time()])
            old = self._backends.pop(persona_id, None)
            if old:
                old.close()
            self._backends[persona_id] = backend

    # -------------------------------------------------------------- history
    def update_history(self, scope: Scope, messages: List[ChatMessage],
                       request_id: Optional[str] = None) -> dict:
        """Store turns; returns once they are committed."""
        with self.lock:
            if memories.is_paused(self.db, scope):
                return {"stored": 0, "ids": [], "paused": True}
            messages = [m for m in messages if not self._take_excluded(scope, m.role, m.content)]
            if not messages:
                return {"stored": 0, "ids": []}
            if request_id is not None:
                row = self.db.execute(
                    "SELECT ids FROM update_requests WHERE user_id = ? AND persona_id = ? "
                    "AND session_id = ? AND request_id = ?",
                    [scope.user_id, scope.persona_key, scope.session_id, request_id]).fetchone()
                if row:
                    # a retry: answer with what of it is still kept; turns the
                    # user forgot since are not stored again, and not claimed
                    ids = json.loads(row[0])
                    kept = {r[0] for r in self.db.execute(
                        "SELECT id FROM memories WHERE id IN (SELECT value FROM json_each(?))", [row[0]])}
                    reply = {"stored": len(kept), "ids": [i for i in ids if i in kept]}
                    if len(kept) < len(ids):
                        reply["forgotten"] = len(ids) - len(kept)
                    return reply
            now = time.time()
            times = [m.created_at if m.created_at is not None else now for m in messages]
            with self.db.atomic():
                conv = latest_conversation(self.db, scope)
                if conv is None or times[0] - conv["updated_at"] > self.reader.timeout_s:
                    conv = {"id": start_conversation(self.db, scope, times[0]), "updated_at": times[0]}
                writer = TurnWriter(self.db, scope, conv["id"], now)
                for msg in messages:
                    writer.add(msg)
                self.db.execute("UPDATE conversations SET updated_at = ? WHERE id = ?",
                                [max(conv["updated_at"], *times), conv["id"]])
                # facts are extracted from every stored user turn, after the reply
                self.db.execute("INSERT OR REPLACE INTO fact_jobs (memory_id, lang) SELECT id, ? "
                                "FROM memories WHERE id IN (SELECT value FROM json_each(?)) AND role = 'user'",
                                [self.lang(scope), json.dumps(writer.kept_ids)])
                self._queue_llm_work(scope, conv["id"], writer.kept_ids, now)
                if request_id is not None:
                    self.db.execute("INSERT INTO update_requests (user_id, persona_id, session_id, "
                                    "request_id, ids, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                                    [scope.user_id, scope.persona_key, scope.session_id,
                                     request_id, json.dumps(writer.kept_ids), now])
            self._purge_requests(now)
            stored = [m for m in messages if m.role in ("user", "assistant", "tool")]
            self._after_update(scope, stored)
        self._wake_workers()
        return {"stored": len(writer.kept_ids), "ids": writer.kept_ids}

    def _queue_llm_work(self, scope: Scope, conversation_id: str, kept_ids: List[str], now: float):
        """Jobs for the persona's LLM, if it has one: facts from each exchange
        (due once its reply is stored), and the conversation's summary."""
        tasks = self.backend(scope.persona_id).llm_tasks()
        if "facts" in tasks:
            # new turns complete the exchanges before them
            self.db.execute("UPDATE llm_jobs SET next_at = ? WHERE task = 'facts' AND attempts = 0 AND subject IN "
                            "(SELECT id FROM memories WHERE conversation_id = ?)", [now, conversation_id])
            roles = self.db.execute("SELECT id, role FROM memories WHERE id IN (SELECT value FROM json_each(?)) "
                                    "ORDER BY seq", [json.dumps(kept_ids)]).fetchall()
            for i, (turn_id, role) in enumerate(roles):
                if role == "user":
                    replied = any(later == "assistant" for _, later in roles[i + 1:])
                    self.db.execute("INSERT OR IGNORE INTO llm_jobs (task, subject, persona_id, lang, next_at) "
                                    "VALUES ('facts', ?, ?, ?, ?)", [turn_id, scope.persona_key, self.lang(scope),
                                                                     now if replied else now + EXCHANGE_WAIT_S])
        if "summary" in tasks:
            self.db.execute("INSERT OR IGNORE INTO llm_jobs (task, subject, persona_id, lang) "
                            "VALUES ('summary', ?, ?, ?)", [conversation_id, scope.persona_key, self.lang(scope)])

    def exclude_turn(self, scope: Scope, role: str, text: str):
        """Keep a line of the voice skill (a read-back, a confirmation, or the
        command it answered) out of the session's memory: a persona that
        records every spoken line would send it back. Deletes it if stored already."""
        now = time.time()
        key = (scope.session_id, role, _spoken(text))
        with self.lock:
            self._excluded = {k: until for k, until in self._excluded.items() if until > now}
            self._excluded[key] = now + EXCLUDE_S
            rows = self.db.execute(
                "SELECT id, content FROM memories WHERE kind = 'turn' AND user_id = ? AND session_id = ? "
                "AND role = ? AND created_at > ?", [scope.user_id, scope.session_id, role, now - EXCLUDE_S])
            stored = [memory_id for memory_id, content in rows if _spoken(content) == key[2]]
            if stored:
                self._delete(stored)
        if stored:
            self._tell_forgotten(scope.user_id, stored)

    def _take_excluded(self, scope: Scope, role: str, text: str) -> bool:
        key = (scope.session_id, role, _spoken(text))
        return self._excluded.pop(key, 0) > time.time()

    def _delete(self, ids: Sequence[str]):
        memories.delete(self.db, ids)
        if self.semantic is not None:
            self.semantic.forget(ids)

    def _wake_workers(self):
        """New memories: facts, summaries and embeddings are due."""
        self.facts.wake()
        self.llm.wake()
        if self.semantic is not None:
            self.semantic.wake()

    def lang(self, scope: Scope) -> str:
        return scope.lang or self.config["lang"] or "en-us"

    def _purge_requests(self, now: float):
        if now - self._last_purge > 3600:
            self._last_purge = now
            self.db.execute("DELETE FROM update_requests WHERE created_at < ?", [now - REQUEST_MEMORY_S])

    def _after_update(self, scope: Scope, stored: List[ChatMessage]):
        backend = self.backend(scope.persona_id)
        if type(backend).after_update is Backend.after_update or not stored:
            return
        self._pending += 1

        def job():
            try:
                backend.after_update(scope, stored)
            except Exception as e:
                LOG.exception(f"{backend.name}: background update failed")
                self.last_background_error = f"{backend.name}: {type(e).__name__}: {e}"
            finally:
                with self.lock:
                    self._pending -= 1
        self._background.submit(job)

    def build_context(self, scope: Scope, utterance: str) -> Context:
        """Read-only; backends take the lock only around their SQLite reads."""
        return self.backend(scope.persona_id).build(scope, utterance, time.time())

    def get_history(self, scope: Scope, limit: Optional[int] = None) -> List[ChatMessage]:
        """The newest ``limit`` turns of the live conversation; without a limit,
        the window the persona's backend shows (as the seed's get_history: none
        for entity, the turns not summarized yet for longterm)."""
        if limit is None:
            return self.backend(scope.persona_id).raw_window(scope, time.time())
        with self.lock:
            return live_window(self.db, scope, time.time(), self.reader.timeout_s, limit)

    def new_conversation(self, scope: Scope) -> str:
        with self.lock, self.db.atomic():
            return start_conversation(self.db, scope, time.time())

    # ------------------------------------------------------------ long term
    def recall(self, scope: Scope, query: str, limit: Optional[int] = None,
               threshold: Optional[float] = None, kinds: Sequence[str] = KINDS,
               where: str = "user") -> List[MemoryItem]:
        """Memori's recall(): the most relevant memories of the user, best first,
        found the way the persona's backend recalls (hybrid by default)."""
        limit = limit or self.config["recall_facts_limit"]
        if threshold is None:
            threshold = self.config["recall_relevance_threshold"]
        backend = self.backend(scope.persona_id)
        if not can_recall(backend):
            backend = self.default_backend()
        return backend.relevant(scope, query, limit, threshold, where, kinds)

    def default_backend(self) -> Backend:
        """The default configuration's backend, for personas that cannot recall."""
        with self.lock:
            if self._default_backend is None:
                block = default_persona_block(self.config)
                name = block["memory_module"]
                self._default_backend = create_backend(name, block_for(block, name), self.reader)
            return self._default_backend

    def list(self, scope: Scope, kinds: Sequence[str] = KINDS, limit: int = 20,
             offset: int = 0, where: str = "user"):
        with self.lock:
            return memories.list_memories(self.db, self.reader.visible(scope, kinds, where),
                                          limit, offset)

    def last_exchange(self, scope: Scope) -> List[MemoryItem]:
        """The session's latest user turn and the replies after it, whichever
        persona stored them ("forget that")."""
        with self.lock:
            rows = self.db.execute_returning_dicts(
                "SELECT m.* FROM memories m WHERE m.kind = 'turn' AND m.user_id = ? AND m.session_id = ? "
                "AND m.conversation_id = (SELECT conversation_id FROM memories WHERE kind = 'turn' "
                "AND role = 'user' AND user_id = ? AND session_id = ? ORDER BY created_at DESC, seq DESC "
                "LIMIT 1) ORDER BY m.seq", [scope.user_id, scope.session_id] * 2)
            last_user = max((i for i, r in enumerate(rows) if r["role"] == "user"), default=None)
            return [] if last_user is None else [MemoryItem.from_row(r) for r in rows[last_user:]]

    def remember(self, scope: Scope, content: str, kind: Optional[str] = None) -> str:
        """Store an explicit memory through the fact model: a statement the
        extractor understands ("I moved to Porto") fills its slot (updating the
        slot's memory); anything else is kept as said. Returns the memory's id."""
        if kind is not None and kind not in memories.EXPLICIT_KINDS:
            raise InvalidRequest(f"kind must be one of {', '.join(memories.EXPLICIT_KINDS)}")
        found = [] if kind == "attribute" else extract_facts(content, self.lang(scope))
        facts = [replace(as_fact(f, "", "user"), sources=[], kind=kind or f.kind) for f in found] or [
            Fact(kind=kind or "fact", content=content)]
        if len(facts) == 1:  # one statement: keep the user's own words
            facts[0].content = content
        with self.lock:
            if memories.is_paused(self.db, scope):
                raise InvalidRequest("memory is paused for this user; resume it first")
            ids = [record(self.db, scope, fact, self.config["share_facts_across_personas"]) for fact in facts]
        self._wake_workers()
        if not any(ids):
            raise NotFound("there was nothing like that to retract")
        return next(i for i in ids if i)

    def forget(self, scope: Scope, ids: Optional[Sequence[str]] = None, query: Optional[str] = None,
               everything: bool = False, where: str = "user", dry_run: bool = False,
               kinds: Sequence[str] = KINDS, limit: Optional[int] = None,
               threshold: Optional[float] = None) -> List[MemoryItem]:
        """Forget memories of the scope; returns what was (or would be) forgotten.
        By ``query``: only what is clearly about it (``forget_relevance_threshold``)."""
        if query is not None:  # recall runs its members without holding the lock
            if threshold is None:
                threshold = self.config["forget_relevance_threshold"]
            targets = self.recall(scope, query, limit, threshold, kinds, where)
        with self.lock:
            if ids is not None:
                targets = memories.select_ids(self.db, self.reader.visible(scope, kinds, where), ids)
            elif everything:
                condition = self.reader.visible(scope, kinds, where)
                total = memories.list_memories(self.db, condition, 0, 0)[1]
                targets = memories.list_memories(self.db, condition, total, 0)[0]
            elif query is None:
                raise InvalidRequest("give one of ids, query or all")
            # facts learnt only from what is forgotten go with it, and summaries that retell it
            gone = [t.id for t in targets]
            derived = derived_only_from(self.db, scope.user_id, gone) + summaries.built_on(
                self.db, scope.user_id, gone)
            known = {t.id for t in targets}
            targets += [m for m in memories.select_ids(
                self.db, self.reader.visible(scope, KINDS, "all", history=True), derived) if m.id not in known]
            if not dry_run:
                self._delete([t.id for t in targets])
        if targets and not dry_run:
            self._tell_forgotten(scope.user_id, [t.id for t in targets])
        return targets

    def _tell_forgotten(self, user_id: str, ids: List[str]):
        for listener in list(self.forget_listeners):
            try:
                listener(user_id, ids)
            except Exception:
                LOG.exception("a forget listener failed")

    # ---------------------------------------------------------- upkeep (admin)
    def overview(self, user_id: Optional[str] = None) -> dict:
        """Every user's memories per kind, and the store's health."""
        with self.lock:
            return {"users": transfer.users_overview(self.db, user_id), **self.health()}

    def export(self, offset: int = 0, limit: int = 100, **scope) -> dict:
        with self.lock:
            return {"records": transfer.export_records(self.db, offset, limit, **scope),
                    "total": transfer.count(self.db, **scope)}

    def import_records(self, records) -> dict:
        with self.lock:
            result = transfer.import_records(self.db, records)
        self._wake_workers()
        return result

    def reindex(self) -> dict:
        """Rebuild every derived index from SQLite: keywords now, vectors in the background."""
        with self.lock:
            self.db.execute("INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')")
        queued = self.rebuild_vectors() if self.semantic is not None else 0
        return {"keyword_index": transfer.count(self.db), "vectors_queued": queued}

    def compact(self) -> dict:
        """Merge index segments and vector fragments, drop old versions, shrink the file."""
        with self.lock:
            scrub(self.db)
            if self.semantic is not None:
                self.semantic.vectors.purge()
            self.db.execute("VACUUM")
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return {"compacted": True}

    def wait_idle(self, timeout: float = 60) -> bool:
        """Wait for the background work queued so far (embeddings, plugins)."""
        self._background.submit(lambda: None).result(timeout)
        workers = [self.facts] + ([self.semantic] if self.semantic is not None else [])
        return all(worker.drain(timeout) for worker in workers)

    def rebuild_vectors(self) -> int:
        """Re-embed every memory from SQLite (after a model change or damage)."""
        if self.semantic is None:
            raise Unavailable(self.reader.semantic_error)
        with self.lock:
            self.semantic.rebuild()
        return self.semantic.pending()

    def pause(self, scope: Scope, where: str, paused: bool) -> bool:
        with self.lock:
            memories.set_paused(self.db, scope, where, paused)
            return memories.is_paused(self.db, scope)

    def stats(self, scope: Scope) -> dict:
        """The scope's user's counts per kind, and the service's health."""
        with self.lock:
            return {
                "counts": memories.count_by_kind(self.db, scope.user_id),
                "paused": memories.is_paused(self.db, scope),
                "memory_module": canonical_name(self.persona_block(scope.persona_id)["memory_module"]),
                **self.health(),
            }

    def health(self) -> dict:
        with self.lock:
            semantic = self.semantic
            return {
                "backends_loaded": [{"persona_id": k or None, "memory_module": b.name}
                                    for k, b in self._backends.items()],
                "recall": ["lexical", "semantic"] if semantic else ["lexical"],
                "semantic_recall": semantic is not None,
                "semantic_error": self.reader.semantic_error,
                "embedding_model": semantic.embedder.name if semantic else None,
                "vectors": semantic.vectors.count() if semantic else 0,
                "pending_jobs": (self._pending + self.facts.pending() + self.llm.pending()
                                 + (semantic.pending() if semantic else 0)),
                "llm_jobs": self.llm.pending(),
                # composite members skipped for their deadline or a failure, per member
                "member_misses": self.reader.misses.snapshot(),
                "storage_error": self.storage_error,
                "last_background_error": (self.last_background_error or self.facts.last_error
                                          or self.llm.last_error or (semantic.last_error if semantic else None)),
            }
