"""The service's own tables (pauses, request ids, registered personas) and
the administrator's upkeep on PostgreSQL (store/sqlite/admin.py's statements).

Pauses are read from the database on every call, never cached: a pause set
through one daemon holds on every daemon at once.
"""
import json
import time
from typing import Dict, List, Optional, Tuple

from ovos_memory_service.common.scope import Scope
from ovos_memory_service.store.records import FIELDS
from ovos_memory_service.store.sql import facets, in_scope, pause_key

# every table a compaction rewrites (VACUUM FULL)
TABLES = ("conversations", "memories", "memory_text", "user_configs", "update_requests", "pauses",
          "personas", "summaries", "jobs")


class Admin:
    """PostgresStore's own tables and upkeep."""

    # ------------------------------------------------------------ pauses
    def is_paused(self, scope: Scope, at: Optional[float] = None) -> bool:
        with self._cursor(scope.user_id) as cur:
            return cur.execute("SELECT 1 FROM pauses WHERE user_id = %s AND session_id IN ('', %s) "
                               "AND (%s::double precision IS NULL OR paused_at <= %s)",
                               [scope.user_id, scope.session_id, at, at]).fetchone() is not None

    def set_paused(self, scope: Scope, where: str, paused: bool):
        with self.transaction(), self._cursor(scope.user_id) as cur:
            if paused:
                cur.execute("INSERT INTO pauses (user_id, session_id, paused_at) VALUES (%s, %s, %s) "
                            "ON CONFLICT (user_id, session_id) DO NOTHING",
                            [*pause_key(scope, where), time.time()])
            elif where == "session":
                cur.execute("DELETE FROM pauses WHERE user_id = %s AND session_id = %s", pause_key(scope, where))
            else:  # resuming the user resumes every session of the user too
                cur.execute("DELETE FROM pauses WHERE user_id = %s", [scope.user_id])

    def pauses(self, user_id: Optional[str] = None) -> List[dict]:
        with self._cursor() as cur:
            rows = cur.execute("SELECT user_id, session_id FROM pauses WHERE %s::text IS NULL OR user_id = %s "
                               "ORDER BY user_id, session_id", [user_id, user_id]).fetchall()
        return [{"user_id": r["user_id"], "session_id": r["session_id"] or None} for r in rows]

    # -------------------------------------------------------- request ids
    def find_request(self, scope: Scope, request_id: str) -> Optional[List[str]]:
        with self._cursor(scope.user_id) as cur:
            row = cur.execute("SELECT ids FROM update_requests WHERE user_id = %s AND persona_id = %s "
                              "AND session_id = %s AND request_id = %s",
                              [scope.user_id, scope.persona_key, scope.session_id, request_id]).fetchone()
        return json.loads(row["ids"]) if row else None

    def save_request(self, scope: Scope, request_id: str, ids: List[str], now: float):
        with self.transaction(), self._cursor(scope.user_id) as cur:
            cur.execute("INSERT INTO update_requests (user_id, persona_id, session_id, request_id, ids, created_at) "
                        "VALUES (%s, %s, %s, %s, %s, %s)",
                        [scope.user_id, scope.persona_key, scope.session_id, request_id, json.dumps(ids), now])

    def purge_requests(self, before: float):
        with self.transaction(), self._cursor() as cur:
            cur.execute("DELETE FROM update_requests WHERE created_at < %s", [before])

    # ----------------------------------------------------------- personas
    def persona(self, persona_id: str) -> Optional[Tuple[str, dict]]:
        with self._cursor() as cur:
            row = cur.execute("SELECT memory_module, config FROM personas WHERE persona_id = %s",
                              [persona_id]).fetchone()
        return (row["memory_module"], json.loads(row["config"])) if row else None

    def save_persona(self, persona_id: str, module: str, config: dict, now: float):
        with self.transaction(), self._cursor() as cur:
            cur.execute("INSERT INTO personas (persona_id, memory_module, config, updated_at) VALUES (%s, %s, %s, %s) "
                        "ON CONFLICT (persona_id) DO UPDATE SET memory_module = excluded.memory_module, "
                        "config = excluded.config, updated_at = excluded.updated_at",
                        [persona_id, module, json.dumps(config), now])
            # the other daemons build that persona's backend again
            cur.execute("SELECT pg_notify(%s, %s)", [self._channel("personas"),
                                                      json.dumps({"persona_id": persona_id, "from": self.claimant})])

    # ------------------------------------------------------------- upkeep
    def count(self, **scope) -> int:
        where, args = in_scope("%s", **scope)
        with self._cursor() as cur:
            return cur.execute(f"SELECT count(*) AS n FROM memories m{where}", args).fetchone()["n"]

    def export(self, offset: int, limit: int, **scope) -> List[dict]:
        where, args = in_scope("%s", **scope)
        with self._cursor() as cur:
            return cur.execute(f"SELECT {', '.join(f'm.{c}' for c in FIELDS)} FROM memories m{where} "
                               "ORDER BY m.seq LIMIT %s OFFSET %s", [*args, limit, offset]).fetchall()

    def import_rows(self, rows: List[dict]) -> List[dict]:
        added = []
        with self.transaction(), self._cursor() as cur:
            known = self.existing([row["id"] for row in rows])
            for row in rows:
                if row["id"] in known:
                    continue
                known.add(row["id"])
                self.insert_memory({**row, "persona_id": row["persona_id"] or ""})
                if row["conversation_id"]:
                    self._widen_conversation(cur, row)
                added.append(row)
            # how far an imported rolling summary reaches follows from its sources
            cur.execute(
                "INSERT INTO summaries (conversation_id, memory_id, covered_seq) "
                "SELECT * FROM (SELECT m.conversation_id, m.id, (SELECT max(t.seq) FROM memories t "
                "WHERE t.id IN (SELECT jsonb_array_elements_text(m.sources::jsonb))) AS covered FROM memories m "
                "WHERE m.kind = 'summary' AND m.conversation_id IS NOT NULL AND m.sources IS NOT NULL "
                "AND m.id NOT IN (SELECT memory_id FROM summaries)) AS found WHERE covered IS NOT NULL "
                "ON CONFLICT (conversation_id) DO NOTHING")
        return added

    def users_overview(self, user_id: Optional[str] = None) -> List[Tuple[str, str, int, float]]:
        where, args = in_scope("%s", user_id=user_id)
        with self._cursor() as cur:
            return [(r["user_id"], r["kind"], r["n"], r["newest"]) for r in cur.execute(
                f"SELECT m.user_id, m.kind, count(*) AS n, max(m.created_at) AS newest FROM memories m{where} "
                "GROUP BY m.user_id, m.kind ORDER BY m.user_id, m.kind", args)]

    def user_facets(self, user_id: str) -> Dict[str, Dict[str, int]]:
        found = {"personas": {}, "sessions": {}}
        with self._cursor() as cur:
            for r in cur.execute(facets("%s"), [user_id, user_id]):
                found[r["facet"]][r["value"]] = r["n"]
        return found

    def disk_used(self) -> int:
        """The schema's tables with their indexes and TOAST, as the server stores them."""
        with self._cursor() as cur:
            row = cur.execute("SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS n "
                              "FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace "
                              "WHERE s.nspname = %s AND c.relkind IN ('r', 'm')", [self.schema]).fetchone()
        return int(row["n"])

    def refresh_statistics(self):
        """ANALYZE: until autovacuum comes by (a minute or more), the planner
        would treat the tables that just filled as empty (a 10k store moved in
        built a context in 64 ms instead of 10)."""
        self._vacuum(TABLES + ("memory_vectors", "memory_vectors_next"), "ANALYZE")

    def compact(self):
        """Rewrite every table and index into new files (VACUUM FULL: the
        tables are locked meanwhile, every daemon waits), then ANALYZE."""
        self._vacuums.settle()
        self._vacuum(TABLES + ("memory_vectors", "memory_vectors_next"), "VACUUM (FULL, ANALYZE)")
        try:
            with self._pool.connection() as conn:
                conn.execute("CHECKPOINT")  # the WAL that held the old pages can be recycled
        except Exception:
            pass  # CHECKPOINT needs the pg_checkpoint role or a superuser

