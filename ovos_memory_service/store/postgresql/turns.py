"""Conversations, their turns, and how far each rolling summary reaches, on
PostgreSQL (the statements of store/sqlite/turns.py)."""
from typing import List, Optional, Tuple

from ovos_memory_service.common.items import new_id
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.store.postgresql.memories import ROW

CONVERSATION = "id, user_id, persona_id, session_id, started_at, updated_at"


def _scope_args(scope: Scope) -> list:
    return [scope.user_id, scope.persona_key, scope.session_id]


class Turns:
    """PostgresStore's conversations and turns."""

    def latest_conversation(self, scope: Scope) -> Optional[dict]:
        with self._cursor(scope.user_id) as cur:
            return cur.execute(f"SELECT {CONVERSATION} FROM conversations WHERE user_id = %s AND persona_id = %s "
                               "AND session_id = %s ORDER BY started_at DESC, n DESC LIMIT 1",
                               _scope_args(scope)).fetchone()

    def get_conversation(self, conversation_id: str) -> Optional[dict]:
        with self._cursor() as cur:
            return cur.execute(f"SELECT {CONVERSATION} FROM conversations WHERE id = %s",
                               [conversation_id]).fetchone()

    def start_conversation(self, scope: Scope, now: float) -> str:
        conversation_id = new_id()
        with self.transaction(), self._cursor(scope.user_id) as cur:
            cur.execute("INSERT INTO conversations (id, user_id, persona_id, session_id, started_at, updated_at) "
                        "VALUES (%s, %s, %s, %s, %s, %s)", [conversation_id, *_scope_args(scope), now, now])
        return conversation_id

    def touch_conversation(self, conversation_id: str, updated_at: float):
        with self.transaction(), self._cursor() as cur:
            cur.execute("UPDATE conversations SET updated_at = greatest(updated_at, %s) WHERE id = %s",
                        [updated_at, conversation_id])

    def _widen_conversation(self, cur, row: dict):
        """An imported turn's conversation, created or widened to its time."""
        cur.execute(
            "INSERT INTO conversations (id, user_id, persona_id, session_id, started_at, updated_at) "
            "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO UPDATE SET "
            "started_at = least(conversations.started_at, excluded.started_at), "
            "updated_at = greatest(conversations.updated_at, excluded.updated_at)",
            [row["conversation_id"], row["user_id"], row["persona_id"] or "", row["session_id"],
             row["created_at"], row["created_at"]])

    def conversation_turns(self, conversation_id: str, limit: int = 0, after_seq: int = 0) -> List[dict]:
        sql = (f"SELECT {ROW} FROM memories m WHERE m.conversation_id = %s AND m.kind = 'turn' AND m.seq > %s "
               "ORDER BY m.seq DESC")
        args = [conversation_id, after_seq]
        if limit > 0:
            sql += " LIMIT %s"
            args.append(limit)
        with self._cursor() as cur:
            return list(reversed(cur.execute(sql, args).fetchall()))

    def exchange(self, user_turn_id: str) -> List[dict]:
        with self._cursor() as cur:
            return cur.execute(
                f"SELECT {ROW} FROM memories u JOIN memories m ON m.conversation_id = u.conversation_id "
                "AND m.kind = 'turn' AND m.seq >= u.seq WHERE u.id = %s ORDER BY m.seq", [user_turn_id]).fetchall()

    def last_exchange(self, scope: Scope) -> List[dict]:
        with self._cursor(scope.user_id) as cur:
            return cur.execute(
                f"SELECT {ROW} FROM memories m WHERE m.kind = 'turn' AND m.user_id = %s AND m.session_id = %s "
                "AND m.conversation_id = (SELECT conversation_id FROM memories WHERE kind = 'turn' "
                "AND role = 'user' AND user_id = %s AND session_id = %s ORDER BY created_at DESC, seq DESC "
                "LIMIT 1) ORDER BY m.seq", [scope.user_id, scope.session_id] * 2).fetchall()

    def recent_turns(self, scope: Scope, role: str, since: float) -> List[dict]:
        with self._cursor(scope.user_id) as cur:
            return cur.execute(
                f"SELECT {ROW} FROM memories m WHERE m.kind = 'turn' AND m.user_id = %s AND m.session_id = %s "
                "AND m.role = %s AND m.created_at > %s ORDER BY m.seq",
                [scope.user_id, scope.session_id, role, since]).fetchall()

    # -------------------------------------------------------- summaries
    _STATE = ("SELECT s.memory_id, m.content, s.covered_seq FROM summaries s "
              "JOIN memories m ON m.id = s.memory_id ")

    def summary_state(self, conversation_id: str) -> Optional[Tuple[str, str, int]]:
        with self._cursor() as cur:
            row = cur.execute(self._STATE + "WHERE s.conversation_id = %s", [conversation_id]).fetchone()
        return (row["memory_id"], row["content"], row["covered_seq"]) if row else None

    def latest_summary(self, scope: Scope) -> Optional[Tuple[str, str, int]]:
        with self._cursor(scope.user_id) as cur:
            row = cur.execute(self._STATE + "WHERE m.user_id = %s AND m.persona_id = %s AND m.session_id = %s "
                              "ORDER BY m.updated_at DESC, m.seq DESC LIMIT 1", _scope_args(scope)).fetchone()
        return (row["memory_id"], row["content"], row["covered_seq"]) if row else None

    def set_summary_state(self, conversation_id: str, memory_id: str, covered_seq: int):
        with self.transaction(), self._cursor() as cur:
            cur.execute("INSERT INTO summaries (conversation_id, memory_id, covered_seq) VALUES (%s, %s, %s) "
                        "ON CONFLICT (conversation_id) DO UPDATE SET memory_id = excluded.memory_id, "
                        "covered_seq = excluded.covered_seq", [conversation_id, memory_id, covered_seq])
