"""The memories table on PostgreSQL: rows in and out, who sees what, and the
one delete path (the statements of store/sqlite/memories.py)."""
from typing import Dict, List, Sequence, Set, Tuple

from ovos_memory_service.common.items import KINDS
from ovos_memory_service.store.base import Exclude, Visible
from ovos_memory_service.store.postgresql.connection import payloads
from ovos_memory_service.store.records import FIELDS
from ovos_memory_service.store.sql import EMBEDDABLE, EMBED_QUEUES, columns_known, new_row, visible_to

# what a row is: the record's fields and seq (never the search columns)
ROW = ", ".join(f"m.{c}" for c in ("seq", *FIELDS))
# a new job for a subject already queued: a new id, as if new (SQLite's INSERT OR REPLACE)
AS_NEW = ("ON CONFLICT (queue, subject) DO UPDATE SET id = DEFAULT, persona_id = excluded.persona_id, "
          "lang = excluded.lang, attempts = 0, next_at = excluded.next_at, claimed_until = 0, "
          "claimant = NULL, error = NULL")
# what a forget leaves dead tuples in (VACUUMed once it commits)
FORGET_TABLES = ("memories", "memory_text", "memory_vectors", "memory_vectors_next", "jobs", "summaries",
                 "user_configs")


def condition(visible: Visible) -> Tuple[str, list]:
    return visible_to(visible, "%s")


def excluding(exclude: Exclude) -> Tuple[str, list]:
    """A condition on alias ``m`` leaving out ``exclude``."""
    return ("m.id <> ALL(%s::text[]) "
            "AND NOT (m.kind = 'turn' AND m.role = 'user' AND lower(m.content) = lower(%s))",
            [list(exclude.ids), exclude.utterance.strip()])


class MemoryRows:
    """PostgresStore's memory rows."""

    def insert_memory(self, row: dict) -> str:
        row = new_row(row)
        with self.transaction(), self._cursor(row["user_id"]) as cur:
            row = self.with_source_level(row)
            columns = list(row)
            seq = cur.execute(f"INSERT INTO memories ({', '.join(columns)}) VALUES "
                              f"({', '.join(['%s'] * len(columns))}) RETURNING seq",
                              [row[c] for c in columns]).fetchone()["seq"]
            self._index_text(cur, [seq])
            self._queue_embeddings(cur, [row["id"]])
            self._total_changed(1)
        return row["id"]

    def update_memory(self, memory_id: str, **columns):
        columns_known(columns)
        with self.transaction(), self._cursor() as cur:
            if "sources" in columns and "auth_level" not in columns:
                columns["auth_level"] = self.source_level(columns["sources"])
            found = cur.execute("SELECT user_id FROM memories WHERE id = %s", [memory_id]).fetchone()
            if found is None:
                return
            self._lock_users(cur, [found["user_id"]])
            rows = cur.execute(f"UPDATE memories SET {', '.join(f'{c} = %s' for c in columns)} WHERE id = %s "
                               "RETURNING seq, kind, conversation_id", [*columns.values(), memory_id]).fetchall()
            if {"name", "content"} & set(columns):
                # the memory, and the turn after it (indexed with this text as its context)
                self._index_text(cur, [r["seq"] for r in rows] + self._next_turns(cur, rows))
            if {"content", "name", "status"} & set(columns):
                self._queue_embeddings(cur, [memory_id])

    def _queue_embeddings(self, cur, ids: Sequence[str]):
        """A new job for each of ``ids`` that is embeddable (see store/sqlite/memories.py)."""
        cur.execute(f"INSERT INTO jobs (queue, subject) SELECT q.queue, m.id FROM memories m, {EMBED_QUEUES} "
                    f"WHERE m.id = ANY(%s::text[]) AND {EMBEDDABLE} {AS_NEW}", [list(ids)])

    def get_memories(self, ids: Sequence[str]) -> List[dict]:
        with self._cursor() as cur:
            return cur.execute(f"SELECT {ROW} FROM memories m WHERE m.id = ANY(%s::text[]) ORDER BY m.seq",
                               [list(ids)]).fetchall()

    def existing(self, ids: Sequence[str]) -> Set[str]:
        with self._cursor() as cur:
            return {r["id"] for r in cur.execute("SELECT id FROM memories WHERE id = ANY(%s::text[])",
                                                 [list(ids)])}

    def delete(self, ids: Sequence[str]) -> int:
        if not ids:
            return 0
        ids = list(ids)
        with self.transaction(), self._cursor() as cur:
            users = [r["user_id"] for r in cur.execute(
                "SELECT DISTINCT user_id FROM memories WHERE id = ANY(%s::text[])", [ids])]
            self._lock_users(cur, users)
            # jobs first: an embedding being saved holds its job, then its memory
            cur.execute("DELETE FROM jobs WHERE subject = ANY(%s::text[])", [ids])
            cur.execute("DELETE FROM summaries WHERE memory_id = ANY(%s::text[])", [ids])
            # the turns indexed with a forgotten turn as their context are indexed again
            after = self._next_turns(cur, cur.execute(
                "SELECT seq, kind, conversation_id FROM memories WHERE id = ANY(%s::text[])", [ids]).fetchall())
            # memory_text and memory_vectors rows go with their memory (ON DELETE CASCADE)
            gone = cur.execute("DELETE FROM memories WHERE id = ANY(%s::text[]) RETURNING id, user_id",
                               [ids]).fetchall()
            self._total_changed(-len(gone))
            self._index_text(cur, after)
            # a user with nothing left leaves no trace in user_configs either
            cur.execute("DELETE FROM user_configs u WHERE u.user_id = ANY(%s::text[]) AND NOT EXISTS "
                        "(SELECT 1 FROM memories m WHERE m.user_id = u.user_id)", [users])
            by_user: Dict[str, List[str]] = {}
            for r in gone:
                by_user.setdefault(r["user_id"], []).append(r["id"])
            for user_id, forgotten in by_user.items():
                for payload in payloads({"user_id": user_id, "from": self.claimant}, forgotten):
                    cur.execute("SELECT pg_notify(%s, %s)", [self._channel("forgotten"), payload])
            self._when_committed(lambda: self._vacuums.request(FORGET_TABLES))
        return len(gone)

    # ----------------------------------------------------------- visible
    def count_visible(self, visible: Visible) -> int:
        sql, args = condition(visible)
        with self._cursor(visible.scope.user_id) as cur:
            return cur.execute(f"SELECT count(*) AS n FROM memories m WHERE {sql}", args).fetchone()["n"]

    def list_visible(self, visible: Visible, limit: int, offset: int = 0, order: str = "created") -> List[dict]:
        sql, args = condition(visible)
        newest = {"created": "m.created_at DESC, m.seq DESC", "updated": "m.updated_at DESC, m.seq DESC"}[order]
        with self._cursor(visible.scope.user_id) as cur:
            return cur.execute(f"SELECT {ROW} FROM memories m WHERE {sql} ORDER BY {newest} LIMIT %s OFFSET %s",
                               [*args, limit, offset]).fetchall()

    def select_visible(self, visible: Visible, ids: Sequence[str]) -> List[dict]:
        sql, args = condition(visible)
        with self._cursor(visible.scope.user_id) as cur:
            return cur.execute(f"SELECT {ROW} FROM memories m WHERE m.id = ANY(%s::text[]) AND {sql} "
                               "ORDER BY m.created_at DESC, m.seq DESC", [list(ids), *args]).fetchall()

    def in_slot(self, visible: Visible, slot: str) -> List[dict]:
        sql, args = condition(visible)
        with self._cursor(visible.scope.user_id) as cur:
            return cur.execute(f"SELECT {ROW} FROM memories m WHERE {sql} AND m.slot = %s "
                               "ORDER BY m.updated_at DESC, m.seq DESC", [*args, slot]).fetchall()

    def derived(self, user_id: str) -> List[dict]:
        with self._cursor(user_id) as cur:
            return cur.execute("SELECT id, kind, extractor, sources FROM memories WHERE user_id = %s "
                               "AND sources IS NOT NULL AND (kind = 'summary' OR extractor IN ('rules', 'llm')) "
                               "ORDER BY seq", [user_id]).fetchall()

    def count_by_kind(self, user_id: str) -> Dict[str, int]:
        counts = {kind: 0 for kind in KINDS}
        with self._cursor() as cur:
            for r in cur.execute("SELECT kind, count(*) AS n FROM memories WHERE user_id = %s GROUP BY kind",
                                 [user_id]):
                counts[r["kind"]] = r["n"]
        return counts

