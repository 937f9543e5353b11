"""What backends may read from the store: the live window, keyword recall and
semantic recall. Each call takes the engine's lock only around SQLite, so
composite members can run side by side."""
import json
import threading
import time
from typing import List, Optional, Sequence

from ovos_utils.log import LOG
from sqlite_utils import Database

from ovos_memory_service import lexical, summaries
from ovos_memory_service.errors import Unavailable
from ovos_memory_service.history import live_conversation, live_window
from ovos_memory_service.items import MemoryItem
from ovos_memory_service.memories import normalized, visible
from ovos_memory_service.relevance import Evidence, relevance
from ovos_memory_service.scope import Scope
from ovos_memory_service.wire import ChatMessage, iso_time


# cosine similarity that unrelated sentences reach with all-MiniLM-L6-v2 (about 0.1-0.2)
UNRELATED_SIMILARITY = 0.2


def cosine_relevance(similarity: float) -> float:
    """Cosine similarity on a 0..1 scale, 0 for unrelated and 1 for the same: the
    semantic member's own evidence (fusion, its ``min_score``), not ``score``."""
    return min(1.0, max(0.0, (similarity - UNRELATED_SIMILARITY) / (1 - UNRELATED_SIMILARITY)))


class MemberMisses:
    """Composite members skipped for passing their deadline or failing: counted
    per member for memory.stats, and logged at most once a minute each, so a
    recall is never silently missing a member."""
    LOG_EVERY_S = 60

    def __init__(self):
        self._lock = threading.Lock()
        self._counts = {}   # member -> {"missed", "last_at", "last"}
        self._logged = {}   # member -> when it was last logged

    def record(self, member: str, what: str, why: str):
        now = time.time()
        with self._lock:
            entry = self._counts.setdefault(member, {"missed": 0, "last_at": None, "last": None})
            entry.update(missed=entry["missed"] + 1, last_at=now, last=f"{what} {why}")
            log = now - self._logged.get(member, 0.0) >= self.LOG_EVERY_S
            if log:
                self._logged[member] = now
        if log:
            LOG.warning(f"composite: {member} {what} {why}; skipped ({entry['missed']} times so far)")

    def snapshot(self) -> dict:
        with self._lock:
            return {member: {**entry, "last_at": iso_time(entry["last_at"])}
                    for member, entry in self._counts.items()}


class StoreReader:
    def __init__(self, db: Database, config: dict, lock: threading.RLock):
        self.db = db
        self.config = config
        self.lock = lock
        self.misses = MemberMisses()
        self.semantic = None  # a SemanticIndex once the model and LanceDB are loaded
        self.semantic_error: Optional[str] = "semantic recall is starting"

    @property
    def timeout_s(self) -> float:
        return self.config["session_timeout_minutes"] * 60

    def window(self, scope: Scope, now: float, limit: int = 0,
               max_age: Optional[float] = None) -> List[ChatMessage]:
        """The newest ``limit`` turns (0: all) of the live conversation, oldest
        first, without turns older than ``max_age`` seconds."""
        with self.lock:
            turns = live_window(self.db, scope, now, self.timeout_s, limit)
        if max_age is not None:
            turns = [t for t in turns if now - t.created_at <= max_age]
        return turns

    def summarized_window(self, scope: Scope, now: float):
        """The session's rolling summary (or None) and the live conversation's
        turns (rows) that it has not folded yet."""
        with self.lock:
            conv = live_conversation(self.db, scope, now, self.timeout_s)
            current = summaries.state(self.db, conv["id"]) if conv else None
            if current is None or current.memory_id is None:
                summary = summaries.latest(self.db, scope)
            else:
                summary = current
            rows = summaries.turns_after(self.db, conv["id"], current.covered_seq) if conv else []
            item = None
            if summary is not None:
                row = self.db.execute_returning_dicts("SELECT * FROM memories WHERE id = ?", [summary.memory_id])
                item = MemoryItem.from_row(row[0], score=row[0]["confidence"] or 1.0,
                                           rank_score=row[0]["confidence"] or 1.0)
        return item, rows

    def score(self, scope: Scope, query: str, items: List[MemoryItem]) -> List[MemoryItem]:
        """Set every item's ``score`` to its calibrated relevance to ``query``
        (relevance.py); returns the items."""
        for item, evidence in zip(items, self.evidence(scope, query, items)):
            item.score = relevance(evidence)
        return items

    def evidence(self, scope: Scope, query: str, items: List[MemoryItem]) -> List[Evidence]:
        """What each item's own words and meaning say about ``query``."""
        if not items:
            return []
        words = lexical.keywords(query, scope.lang)
        with self.lock:
            coverage, topical = lexical.coverage(self.db, words, [i.seq for i in items],
                                                 lexical.topic_words(words, scope.lang))
        semantic, similarity = self.semantic, {}
        if semantic is not None:
            similarity = semantic.similarities(scope.user_id, query, [i.id for i in items])
        said = normalized(query)
        return [Evidence(similarity.get(item.id), coverage.get(item.seq, 0.0),
                         normalized(item.content) == said or (item.value is not None and normalized(item.value) == said),
                         topical.get(item.seq, 0.0))
                for item in items]

    def visible(self, scope: Scope, kinds: Sequence[str], where: str = "user", history: bool = False):
        return visible(scope, kinds, where, share_turns=self.config["share_turns_across_personas"],
                       share_facts=self.config["share_facts_across_personas"], history=history)

    def keyword_search(self, scope: Scope, text: str, limit: int, kinds: Sequence[str],
                       where: str = "user", exclude_ids: Sequence[str] = (),
                       exclude_content: str = "") -> List[MemoryItem]:
        sql, args = self.visible(scope, kinds, where)
        with self.lock:
            return lexical.search(self.db, text, scope.lang, sql, args, exclude_ids=exclude_ids,
                                  exclude_content=exclude_content, limit=limit)

    def current_facts(self, scope: Scope, kinds: Sequence[str], limit: int) -> List[MemoryItem]:
        """The user's current facts (and the persona's attributes), newest first;
        their score is their confidence."""
        sql, args = self.visible(scope, kinds)
        with self.lock:
            rows = self.db.execute_returning_dicts(
                f"SELECT m.* FROM memories m WHERE {sql} ORDER BY m.updated_at DESC, m.seq DESC LIMIT ?",
                [*args, limit])
        return [MemoryItem.from_row(r, score=r["confidence"] or 1.0, rank_score=r["confidence"] or 1.0)
                for r in rows]

    def adjacent_turns(self, scope: Scope, ids: Sequence[str], kinds: Sequence[str],
                       where: str = "user", exclude_ids: Sequence[str] = (),
                       exclude_content: str = "") -> dict:
        """For each turn id, the turns just before and after it in its
        conversation that the scope may see: {id: [MemoryItem, ...]}."""
        sql, args = self.visible(scope, kinds, where)
        step = ("(SELECT {f}(p.seq) FROM memories p WHERE p.conversation_id = h.conversation_id "
                "AND p.kind = 'turn' AND p.seq {op} h.seq)")
        with self.lock:
            rows = self.db.execute_returning_dicts(
                f"SELECT h.id AS source, m.* FROM memories h JOIN memories m "
                f"ON m.seq IN ({step.format(f='max', op='<')}, {step.format(f='min', op='>')}) "
                f"WHERE h.id IN (SELECT value FROM json_each(?)) AND h.kind = 'turn' AND {sql} "
                "AND m.id NOT IN (SELECT value FROM json_each(?)) "
                "AND NOT (m.kind = 'turn' AND m.role = 'user' AND lower(m.content) = lower(?))",
                [json.dumps(list(ids)), *args, json.dumps(list(exclude_ids)), exclude_content.strip()])
        found = {}
        for row in rows:
            found.setdefault(row.pop("source"), []).append(MemoryItem.from_row(row))
        return found

    def semantic_search(self, scope: Scope, text: str, limit: int, kinds: Sequence[str],
                        where: str = "user", exclude_ids: Sequence[str] = (),
                        exclude_content: str = "") -> List[MemoryItem]:
        """Nearest memories by meaning; compares at most ``recall_embeddings_limit``
        of the newest memories the scope may see (Memori's setting)."""
        semantic = self.semantic
        if semantic is None:
            raise Unavailable(self.semantic_error or "semantic recall is not available")
        sql, args = self.visible(scope, kinds, where)
        with self.lock:
            row = self.db.execute(f"SELECT m.seq FROM memories m WHERE {sql} ORDER BY m.seq DESC "
                                  "LIMIT 1 OFFSET ?", [*args, self.config["recall_embeddings_limit"] - 1]
                                  ).fetchone()
        nearest = semantic.search(scope.user_id, text, row[0] if row else 0,
                                  4 * limit + len(exclude_ids) + 8)
        if not nearest:
            return []
        similarity = dict(nearest)
        with self.lock:
            rows = self.db.execute_returning_dicts(
                f"SELECT m.* FROM memories m WHERE {sql} AND m.id IN (SELECT value FROM json_each(?)) "
                "AND m.id NOT IN (SELECT value FROM json_each(?)) "
                "AND NOT (m.kind = 'turn' AND m.role = 'user' AND lower(m.content) = lower(?))",
                [*args, json.dumps(list(similarity)), json.dumps(list(exclude_ids)),
                 exclude_content.strip()])
        items = [MemoryItem.from_row(r, score=cosine_relevance(similarity[r["id"]]), rank_score=similarity[r["id"]])
                 for r in rows]
        items.sort(key=lambda item: item.rank_score, reverse=True)
        return items[:limit]
