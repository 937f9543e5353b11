"""Conversations, their turns, and how far each rolling summary reaches."""
from typing import List, Optional, Tuple

from ovos_memory_service.common.items import new_id
from ovos_memory_service.common.scope import Scope


def _scope_args(scope: Scope) -> list:
    return [scope.user_id, scope.persona_key, scope.session_id]


class Turns:
    """SqliteStore's conversations and turns (self.db, self._lock)."""

    def latest_conversation(self, scope: Scope) -> Optional[dict]:
        with self._reading() as db:
            rows = db.execute_returning_dicts(
                "SELECT * FROM conversations WHERE user_id = ? AND persona_id = ? AND session_id = ? "
                "ORDER BY started_at DESC, rowid DESC LIMIT 1", _scope_args(scope))
        return rows[0] if rows else None

    def get_conversation(self, conversation_id: str) -> Optional[dict]:
        with self._reading() as db:
            rows = db.execute_returning_dicts("SELECT * FROM conversations WHERE id = ?", [conversation_id])
        return rows[0] if rows else None

    def start_conversation(self, scope: Scope, now: float) -> str:
        conversation_id = new_id()
        with self.transaction():
            self.db.execute("INSERT INTO conversations (id, user_id, persona_id, session_id, started_at, "
                            "updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                            [conversation_id, *_scope_args(scope), now, now])
        return conversation_id

    def touch_conversation(self, conversation_id: str, updated_at: float):
        with self.transaction():
            self.db.execute("UPDATE conversations SET updated_at = max(updated_at, ?) WHERE id = ?",
                            [updated_at, conversation_id])

    def _widen_conversation(self, row: dict):
        """An imported turn's conversation, created or widened to its time."""
        self.db.execute(
            "INSERT INTO conversations (id, user_id, persona_id, session_id, started_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
            "started_at = min(started_at, excluded.started_at), updated_at = max(updated_at, excluded.updated_at)",
            [row["conversation_id"], row["user_id"], row["persona_id"] or "", row["session_id"],
             row["created_at"], row["created_at"]])

    def conversation_turns(self, conversation_id: str, limit: int = 0, after_seq: int = 0) -> List[dict]:
        sql = "SELECT * FROM memories WHERE conversation_id = ? AND kind = 'turn' AND seq > ? ORDER BY seq DESC"
        args = [conversation_id, after_seq]
        if limit > 0:
            sql += " LIMIT ?"
            args.append(limit)
        with self._reading() as db:
            return list(reversed(db.execute_returning_dicts(sql, args)))

    def exchange(self, user_turn_id: str) -> List[dict]:
        with self._reading() as db:
            return db.execute_returning_dicts(
                "SELECT t.* FROM memories u JOIN memories t ON t.conversation_id = u.conversation_id "
                "AND t.kind = 'turn' AND t.seq >= u.seq WHERE u.id = ? ORDER BY t.seq", [user_turn_id])

    def last_exchange(self, scope: Scope) -> List[dict]:
        with self._reading() as db:
            return db.execute_returning_dicts(
                "SELECT m.* FROM memories m WHERE m.kind = 'turn' AND m.user_id = ? AND m.session_id = ? "
                "AND m.conversation_id = (SELECT conversation_id FROM memories WHERE kind = 'turn' "
                "AND role = 'user' AND user_id = ? AND session_id = ? ORDER BY created_at DESC, seq DESC "
                "LIMIT 1) ORDER BY m.seq", [scope.user_id, scope.session_id] * 2)

    def recent_turns(self, scope: Scope, role: str, since: float) -> List[dict]:
        with self._reading() as db:
            return db.execute_returning_dicts(
                "SELECT * FROM memories WHERE kind = 'turn' AND user_id = ? AND session_id = ? "
                "AND role = ? AND created_at > ?", [scope.user_id, scope.session_id, role, since])

    # -------------------------------------------------------- summaries
    _STATE = ("SELECT s.memory_id, m.content, s.covered_seq FROM summaries s "
              "JOIN memories m ON m.id = s.memory_id ")

    def summary_state(self, conversation_id: str) -> Optional[Tuple[str, str, int]]:
        with self._reading() as db:
            row = db.execute(self._STATE + "WHERE s.conversation_id = ?", [conversation_id]).fetchone()
        return tuple(row) if row else None

    def latest_summary(self, scope: Scope) -> Optional[Tuple[str, str, int]]:
        with self._reading() as db:
            row = db.execute(self._STATE + "WHERE m.user_id = ? AND m.persona_id = ? AND m.session_id = ? "
                                  "ORDER BY m.updated_at DESC LIMIT 1", _scope_args(scope)).fetchone()
        return tuple(row) if row else None

    def set_summary_state(self, conversation_id: str, memory_id: str, covered_seq: int):
        with self.transaction():
            self.db.execute("INSERT OR REPLACE INTO summaries (conversation_id, memory_id, covered_seq) "
                            "VALUES (?, ?, ?)", [conversation_id, memory_id, covered_seq])
