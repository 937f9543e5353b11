"""The memories table: rows in and out, who sees what, and the one delete path."""
import json
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ovos_memory_service.common.items import KINDS
from ovos_memory_service.store.base import Exclude, Visible
from ovos_memory_service.store.sql import EMBEDDABLE, EMBED_QUEUES, columns_known, new_row, visible_to



def as_json(values) -> str:
    return json.dumps(list(values))


def condition(visible: Visible) -> Tuple[str, list]:
    return visible_to(visible, "?")


def excluding(exclude: Exclude) -> Tuple[str, list]:
    """A condition on alias ``m`` leaving out ``exclude``."""
    return ("m.id NOT IN (SELECT value FROM json_each(?)) "
            "AND NOT (m.kind = 'turn' AND m.role = 'user' AND lower(m.content) = lower(?))",
            [as_json(exclude.ids), exclude.utterance.strip()])


class MemoryRows:
    """SqliteStore's memory rows (self.db, self._lock, self._vectors)."""

    def insert_memory(self, row: dict) -> str:
        row = new_row(row)
        with self.transaction():
            row = self.with_source_level(row)
            row["owner"] = self._owner_of(row["user_id"], create=True)
            columns = list(row)
            self.db.execute(f"INSERT INTO memories ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                            [row[c] for c in columns])
            self._memory_count += 1
            self._queue_embeddings([row["id"]])
        return row["id"]

    def _owner_of(self, user_id: str, create: bool = False) -> Optional[int]:
        """The user's number in the keyword index (None: the user has no memories)."""
        if user_id in self._owners:
            return self._owners[user_id]
        if create:
            self.db.execute("INSERT OR IGNORE INTO users (user_id) VALUES (?)", [user_id])
        with self._reading() as db:
            row = db.execute("SELECT n FROM users WHERE user_id = ?", [user_id]).fetchone()
        if row and create:  # known committed only once its transaction ends: cached by writers
            self._owners[user_id] = row[0]
        return row[0] if row else None

    def update_memory(self, memory_id: str, **columns):
        columns_known(columns)
        with self.transaction():
            if "sources" in columns and "auth_level" not in columns:
                columns["auth_level"] = self.source_level(columns["sources"])
            self.db.execute(f"UPDATE memories SET {', '.join(f'{c} = ?' for c in columns)} WHERE id = ?",
                            [*columns.values(), memory_id])
            if {"content", "name", "status"} & set(columns):
                self._queue_embeddings([memory_id])

    def _queue_embeddings(self, ids: Sequence[str]):
        """A new job for each of ``ids`` that is embeddable: a job already
        queued is replaced, so a batch in flight never stores the old text."""
        self.db.execute(f"INSERT OR REPLACE INTO jobs (queue, subject) SELECT q.queue, m.id FROM memories m, "
                        f"{EMBED_QUEUES} WHERE m.id IN (SELECT value FROM json_each(?)) AND {EMBEDDABLE}",
                        [as_json(ids)])

    def get_memories(self, ids: Sequence[str]) -> List[dict]:
        with self._reading() as db:
            return db.execute_returning_dicts(
                "SELECT * FROM memories WHERE id IN (SELECT value FROM json_each(?)) ORDER BY seq", [as_json(ids)])

    def existing(self, ids: Sequence[str]) -> Set[str]:
        with self._reading() as db:
            return {r[0] for r in db.execute(
                "SELECT id FROM memories WHERE id IN (SELECT value FROM json_each(?))", [as_json(ids)])}

    def delete(self, ids: Sequence[str]) -> int:
        if not ids:
            return 0
        ids = list(ids)
        with self.transaction():
            users = [r[0] for r in self.db.execute(
                "SELECT DISTINCT user_id FROM memories WHERE id IN (SELECT value FROM json_each(?))", [as_json(ids)])]
            # the keyword entries go with the rows (triggers of the FTS5 index)
            deleted = self.db.execute("DELETE FROM memories WHERE id IN (SELECT value FROM json_each(?))",
                                      [as_json(ids)]).rowcount
            self._memory_count -= deleted
            self.db.execute("DELETE FROM jobs WHERE subject IN (SELECT value FROM json_each(?))", [as_json(ids)])
            self.db.execute("DELETE FROM summaries WHERE memory_id IN (SELECT value FROM json_each(?))",
                            [as_json(ids)])
            # a user with nothing left leaves no trace in the users table either
            self.db.execute("DELETE FROM users WHERE user_id IN (SELECT value FROM json_each(?)) AND NOT EXISTS "
                            "(SELECT 1 FROM memories m WHERE m.user_id = users.user_id)", [as_json(users)])
            self._owners.clear()
            self._when_committed(lambda: self._forget_files(ids))
        return deleted

    def _forget_files(self, ids: List[str]):
        """Once the rows are gone: their vectors, and what the files still hold of them."""
        for vectors in (self._vector_files(), self._next_files()):
            if vectors is not None:
                vectors.delete(ids)
                vectors.purge()
        self._scrub()

    # ----------------------------------------------------------- visible
    def count_visible(self, visible: Visible) -> int:
        sql, args = condition(visible)
        with self._reading() as db:
            return db.execute(f"SELECT count(*) FROM memories m WHERE {sql}", args).fetchone()[0]

    def list_visible(self, visible: Visible, limit: int, offset: int = 0, order: str = "created") -> List[dict]:
        sql, args = condition(visible)
        newest = {"created": "m.created_at DESC, m.seq DESC", "updated": "m.updated_at DESC, m.seq DESC"}[order]
        with self._reading() as db:
            return db.execute_returning_dicts(
                f"SELECT m.* FROM memories m WHERE {sql} ORDER BY {newest} LIMIT ? OFFSET ?", [*args, limit, offset])

    def select_visible(self, visible: Visible, ids: Sequence[str]) -> List[dict]:
        sql, args = condition(visible)
        with self._reading() as db:
            return db.execute_returning_dicts(
                f"SELECT m.* FROM json_each(?) j CROSS JOIN memories m ON m.id = j.value WHERE {sql} "
                "ORDER BY m.created_at DESC", [as_json(ids), *args])

    def in_slot(self, visible: Visible, slot: str) -> List[dict]:
        sql, args = condition(visible)
        with self._reading() as db:
            return db.execute_returning_dicts(
                f"SELECT m.* FROM memories m WHERE {sql} AND m.slot = ? ORDER BY m.updated_at DESC", [*args, slot])

    def derived(self, user_id: str) -> List[dict]:
        with self._reading() as db:
            return db.execute_returning_dicts(
                "SELECT id, kind, extractor, sources FROM memories WHERE user_id = ? AND sources IS NOT NULL "
                "AND (kind = 'summary' OR extractor IN ('rules', 'llm'))", [user_id])

    def count_by_kind(self, user_id: str) -> Dict[str, int]:
        counts = {kind: 0 for kind in KINDS}
        with self._reading() as db:
            for kind, n in db.execute("SELECT kind, count(*) FROM memories WHERE user_id = ? GROUP BY kind",
                                           [user_id]):
                counts[kind] = n
        return counts
