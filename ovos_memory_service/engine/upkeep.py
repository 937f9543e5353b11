"""The administrator's side of the engine: what is stored and how healthy it
is, export and import, reindexing and compaction (memory.admin.*, the CLI)."""
from typing import Optional

from ovos_memory_service.common.blocks import canonical_name
from ovos_memory_service.common.errors import Unavailable
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.store.records import check_record, to_record
from ovos_memory_service.common.items import KINDS
from ovos_memory_service.common.wire import iso_time


class Upkeep:
    """Mixed into MemoryEngine (self.store, self.reader, self.personas, self.background)."""

    def overview(self, user_id: Optional[str] = None) -> dict:
        """Every user's memories per kind, whose remembering is paused, and the store's health."""
        return {"users": self.users(user_id), "pauses": self.pauses(user_id), **self.health()}

    def pauses(self, user_id: Optional[str] = None) -> list:
        """Whose remembering is paused: [{"user_id", "session_id"}] (session_id None: every session)."""
        return self.store.pauses(user_id)

    def users(self, user_id: Optional[str] = None) -> list:
        """Every user's (or one user's) memories per kind, their total and the newest one's time."""
        users = {}
        for user, kind, n, newest in self.store.users_overview(user_id):
            entry = users.setdefault(user, {"user_id": user, "total": 0, "newest": None, **{k: 0 for k in KINDS}})
            entry[kind] = n
            entry["total"] += n
            entry["newest"] = max(entry["newest"] or "", iso_time(newest))
        return list(users.values())

    def export(self, offset: int = 0, limit: int = 100, **scope) -> dict:
        with self.store.transaction():  # the page and its total agree
            return {"records": [to_record(r) for r in self.store.export(offset, limit, **scope)],
                    "total": self.store.count(**scope)}

    def import_records(self, records, learn: bool = False) -> dict:
        """Records not stored yet (by id) are added in one transaction and
        embedded. With ``learn`` (history from elsewhere, e.g. ovos-memory-plugins)
        their turns bring the work new turns bring: facts, the persona's LLM
        tasks. Without it (an export of this service, which carries what was
        learnt) nothing is learnt again, so what the user forgot stays forgotten."""
        rows = [check_record(r) for r in records]  # all or nothing
        with self.store.transaction():
            added = self.store.import_rows(rows)
            turns = [r for r in added if r["kind"] == "turn"] if learn else []
            for persona in dict.fromkeys(r["persona_id"] for r in turns):
                self._queue_turn_work(persona, self.config["lang"] or "en-us",
                                      [r for r in turns if r["persona_id"] == persona], 0.0)
        if added and len(added) * 10 >= self.store.count():  # a tenth new or more, as autovacuum counts
            self.store.refresh_statistics()
        self.background.wake()
        return {"imported": len(added), "skipped": len(rows) - len(added)}

    def reindex(self) -> dict:
        """Rebuild every derived index: keywords now, vectors in the background."""
        self.store.rebuild_keywords()
        queued = self.rebuild_vectors() if self.reader.queries is not None else 0
        return {"keyword_index": self.store.count(), "vectors_queued": queued}

    def rebuild_vectors(self) -> int:
        """Re-embed every memory (after a model change or damage); the
        embedding worker may be busy meanwhile: nothing it holds is lost."""
        if self.reader.queries is None:
            raise Unavailable(self.reader.semantic_error)
        queued = self.store.rebuild_vectors()
        self.background.wake()
        return queued

    def compact(self) -> dict:
        """Merge index segments and vector fragments, drop old versions, shrink the file."""
        self.store.compact()
        return {"compacted": True}

    def disk_used(self) -> int:
        """Bytes the store takes (its files, or its tables on the PostgreSQL server)."""
        return self.store.disk_used()

    def stats(self, scope: Scope) -> dict:
        """The scope's user's counts per kind, and the service's health."""
        return {
            "counts": self.store.count_by_kind(scope.user_id),
            "paused": self.store.is_paused(scope),
            "memory_module": canonical_name(self.personas.block(scope.persona_id)["memory_module"]),
            **self.health(),
        }

    def _reembedding(self) -> Optional[dict]:
        """The model embedding the store again, and how many memories it still lacks."""
        worker = self.background.embedding
        upcoming = worker.next_embedder if worker is not None else None
        return {"model": upcoming.name, "pending": self.store.pending(("reembed",))} if upcoming else None

    def health(self) -> dict:
        semantic = self.reader.queries is not None
        background = self.background
        return {
            "backends_loaded": self.personas.loaded(),
            "recall": ["lexical", "semantic"] if semantic else ["lexical"],
            "semantic_recall": ("loading" if self.semantic_loading else "not loaded" if self.semantic_off
                                else semantic),
            "semantic_error": self.reader.semantic_error,
            "embedding_model": background.embedding.embedder.name if background.embedding else None,
            # memory.recall in English reordered by a cross-encoder (its name), or why not
            "reranker": self.reranker.name if self.reranker else None,
            "rerank_error": self.rerank_error,
            "reembedding": self._reembedding(),
            "vectors": self.store.vector_count(),
            "pending_jobs": background.pending(),
            "llm_jobs": background.llm.pending(),
            # composite members skipped for their deadline or a failure, per member
            "member_misses": self.reader.misses.snapshot(),
            "storage_error": self.storage_error,
            "last_background_error": background.last_error(),
        }
