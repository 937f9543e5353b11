"""The service's own tables (pauses, request ids, registered personas) and the
administrator's upkeep: counts, export, import, overview, compaction."""
import json
import time
import os
from typing import Dict, List, Optional, Tuple

from ovos_memory_service.common.scope import Scope
from ovos_memory_service.store.records import FIELDS
from ovos_memory_service.store.sql import facets, in_scope, pause_key


class Admin:
    """SqliteStore's own tables and upkeep (self.db, self._lock)."""

    # ------------------------------------------------------------ pauses
    def is_paused(self, scope: Scope, at: Optional[float] = None) -> bool:
        with self._reading() as db:
            return db.execute("SELECT 1 FROM pauses WHERE user_id = ? AND session_id IN ('', ?) "
                              "AND (? IS NULL OR paused_at <= ?)",
                              [scope.user_id, scope.session_id, at, at]).fetchone() is not None

    def set_paused(self, scope: Scope, where: str, paused: bool):
        with self.transaction():
            if paused:
                self.db.execute("INSERT OR IGNORE INTO pauses (user_id, session_id, paused_at) VALUES (?, ?, ?)",
                                [*pause_key(scope, where), time.time()])
            elif where == "session":
                self.db.execute("DELETE FROM pauses WHERE user_id = ? AND session_id = ?", pause_key(scope, where))
            else:  # resuming the user resumes every session of the user too
                self.db.execute("DELETE FROM pauses WHERE user_id = ?", [scope.user_id])

    def pauses(self, user_id: Optional[str] = None) -> List[dict]:
        with self._reading() as db:
            rows = db.execute("SELECT user_id, session_id FROM pauses WHERE ? IS NULL OR user_id = ? "
                              "ORDER BY user_id, session_id", [user_id, user_id]).fetchall()
        return [{"user_id": user, "session_id": session or None} for user, session in rows]

    # -------------------------------------------------------- request ids
    def find_request(self, scope: Scope, request_id: str) -> Optional[List[str]]:
        with self._reading() as db:
            row = db.execute("SELECT ids FROM update_requests WHERE user_id = ? AND persona_id = ? "
                                  "AND session_id = ? AND request_id = ?",
                                  [scope.user_id, scope.persona_key, scope.session_id, request_id]).fetchone()
        return json.loads(row[0]) if row else None

    def save_request(self, scope: Scope, request_id: str, ids: List[str], now: float):
        with self.transaction():
            self.db.execute("INSERT INTO update_requests (user_id, persona_id, session_id, request_id, ids, "
                            "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                            [scope.user_id, scope.persona_key, scope.session_id, request_id, json.dumps(ids), now])

    def purge_requests(self, before: float):
        with self.transaction():
            self.db.execute("DELETE FROM update_requests WHERE created_at < ?", [before])

    # ----------------------------------------------------------- personas
    def persona(self, persona_id: str) -> Optional[Tuple[str, dict]]:
        with self._reading() as db:
            row = db.execute("SELECT memory_module, config FROM personas WHERE persona_id = ?",
                                  [persona_id]).fetchone()
        return (row[0], json.loads(row[1])) if row else None

    def save_persona(self, persona_id: str, module: str, config: dict, now: float):
        with self.transaction():
            self.db.execute("INSERT OR REPLACE INTO personas (persona_id, memory_module, config, updated_at) "
                            "VALUES (?, ?, ?, ?)", [persona_id, module, json.dumps(config), now])

    # ------------------------------------------------------------- upkeep
    def count(self, **scope) -> int:
        where, args = in_scope("?", **scope)
        with self._reading() as db:
            return db.execute(f"SELECT count(*) FROM memories m{where}", args).fetchone()[0]

    def export(self, offset: int, limit: int, **scope) -> List[dict]:
        where, args = in_scope("?", **scope)
        with self._reading() as db:
            return db.execute_returning_dicts(
                f"SELECT {', '.join(FIELDS)} FROM memories m{where} ORDER BY seq LIMIT ? OFFSET ?",
                [*args, limit, offset])

    def import_rows(self, rows: List[dict]) -> List[dict]:
        added = []
        with self.transaction():
            known = self.existing([row["id"] for row in rows])
            for row in rows:
                if row["id"] in known:
                    continue
                known.add(row["id"])
                self.insert_memory({**row, "persona_id": row["persona_id"] or ""})
                if row["conversation_id"]:
                    self._widen_conversation(row)
                added.append(row)
            # how far an imported rolling summary reaches follows from its sources
            self.db.execute(
                "INSERT OR IGNORE INTO summaries (conversation_id, memory_id, covered_seq) "
                "SELECT * FROM (SELECT m.conversation_id, m.id, (SELECT max(t.seq) FROM memories t "
                "WHERE t.id IN (SELECT value FROM json_each(m.sources))) AS covered FROM memories m "
                "WHERE m.kind = 'summary' AND m.conversation_id IS NOT NULL AND m.sources IS NOT NULL "
                "AND m.id NOT IN (SELECT memory_id FROM summaries)) WHERE covered IS NOT NULL")
        return added

    def users_overview(self, user_id: Optional[str] = None) -> List[Tuple[str, str, int, float]]:
        where, args = in_scope("?", user_id=user_id)
        with self._reading() as db:
            return [tuple(r) for r in db.execute(
                f"SELECT user_id, kind, count(*), max(created_at) FROM memories m{where} "
                "GROUP BY user_id, kind ORDER BY user_id", args)]

    def user_facets(self, user_id: str) -> Dict[str, Dict[str, int]]:
        found = {"personas": {}, "sessions": {}}
        with self._reading() as db:
            for facet, value, n in db.execute(facets("?"), [user_id, user_id]):
                found[facet][value] = n
        return found

    def disk_used(self) -> int:
        """Every file of the store's folder: the database, its WAL, the vectors."""
        total = 0
        for root, _, names in os.walk(self.directory):
            for name in names:
                try:
                    total += os.lstat(os.path.join(root, name)).st_size
                except OSError:  # a vector fragment compacted away meanwhile
                    pass
        return total

    def refresh_statistics(self):
        """Nothing: the SQLite store keeps no planner statistics (no ANALYZE),
        and its queries are written for the plans it makes without them."""

    def compact(self):
        with self._lock:
            self._scrub()
            for vectors in (self._vector_files(), self._next_files()):
                if vectors is not None:
                    vectors.purge()
            self.db.execute("VACUUM")
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
