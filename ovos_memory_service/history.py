"""Verbatim conversation history: conversations, storing turns with the
normalization of PROTOCOL.md, and reading the live window back.
"""
import json
import time
import uuid
from dataclasses import replace
from typing import List, Optional

from sqlite_utils import Database

from ovos_memory_service.scope import Scope
from ovos_memory_service.wire import ChatMessage

# turns that a chat engine can be given back as history
HISTORY_ROLES = ("user", "assistant", "tool")


def new_id() -> str:
    return uuid.uuid4().hex


def turn_from_row(row: dict) -> ChatMessage:
    return ChatMessage(role=row["role"], content=row["content"], name=row["name"],
                       tool_calls=json.loads(row["tool_calls"]) if row["tool_calls"] else [],
                       tool_call_id=row["tool_call_id"], created_at=row["created_at"], id=row["id"])


def _scope_args(scope: Scope) -> list:
    return [scope.user_id, scope.persona_key, scope.session_id]


def latest_conversation(db: Database, scope: Scope) -> Optional[dict]:
    rows = db.execute_returning_dicts(
        "SELECT * FROM conversations WHERE user_id = ? AND persona_id = ? AND session_id = ? "
        "ORDER BY started_at DESC, rowid DESC LIMIT 1", _scope_args(scope))
    return rows[0] if rows else None


def live_conversation(db: Database, scope: Scope, now: float, timeout_s: float) -> Optional[dict]:
    """The conversation still open at ``now``, or None if it timed out (or none exists)."""
    conv = latest_conversation(db, scope)
    if conv is None or now - conv["updated_at"] > timeout_s:
        return None
    return conv


def start_conversation(db: Database, scope: Scope, now: float) -> str:
    conv_id = new_id()
    db.execute("INSERT INTO conversations (id, user_id, persona_id, session_id, started_at, updated_at) "
               "VALUES (?, ?, ?, ?, ?, ?)", [conv_id, *_scope_args(scope), now, now])
    return conv_id


def conversation_turns(db: Database, conversation_id: str, limit: int = 0) -> List[ChatMessage]:
    """Turns of a conversation, oldest first; the newest ``limit`` if limit > 0."""
    sql = ("SELECT * FROM memories WHERE conversation_id = ? AND kind = 'turn' "
           "ORDER BY seq DESC")
    args = [conversation_id]
    if limit > 0:
        sql += " LIMIT ?"
        args.append(limit)
    return [turn_from_row(r) for r in reversed(db.execute_returning_dicts(sql, args))]


def live_window(db: Database, scope: Scope, now: float, timeout_s: float,
                limit: int = 0) -> List[ChatMessage]:
    conv = live_conversation(db, scope, now, timeout_s)
    return conversation_turns(db, conv["id"], limit) if conv else []


class TurnWriter:
    """Appends messages to a conversation, normalizing against what is stored.

    Rules (PROTOCOL.md): an assistant or tool turn that would open the
    conversation is dropped; consecutive user turns are all kept (nothing a
    user said is deleted by a write; ``trim_window`` merges them for the chat
    engine); consecutive assistant turns are merged with a newline;
    system/developer messages and empty turns are not history and are dropped.
    """

    def __init__(self, db: Database, scope: Scope, conversation_id: str, now: float):
        self.db = db
        self.scope = scope
        self.conversation_id = conversation_id
        self.now = now
        last = conversation_turns(db, conversation_id, limit=1)
        self.last: Optional[ChatMessage] = last[0] if last else None
        self.kept_ids: List[str] = []

    def add(self, msg: ChatMessage):
        content = msg.content.strip()
        if msg.role not in HISTORY_ROLES or not (content or msg.tool_calls):
            return
        created_at = msg.created_at if msg.created_at is not None else self.now
        last = self.last
        if msg.role != "user" and last is None:
            return  # a leftover with no user turn before it
        if msg.role == "assistant" and last is not None and last.role == "assistant" \
                and not last.tool_calls and not msg.tool_calls:
            last.content = f"{last.content}\n{content}"
            self.db.execute("UPDATE memories SET content = ?, updated_at = ? WHERE id = ?",
                            [last.content, self.now, last.id])
            if last.id not in self.kept_ids:
                self.kept_ids.append(last.id)
            return
        self._insert(msg, content, created_at)

    def _insert(self, msg: ChatMessage, content: str, created_at: float):
        turn_id = new_id()
        self.db.execute(
            "INSERT INTO memories (id, kind, user_id, persona_id, session_id, conversation_id, role, "
            "name, content, tool_calls, tool_call_id, created_at, updated_at) "
            "VALUES (?, 'turn', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [turn_id, *_scope_args(self.scope), self.conversation_id, msg.role, msg.name, content,
             json.dumps(msg.tool_calls) if msg.tool_calls else None, msg.tool_call_id,
             created_at, self.now])
        self.last = ChatMessage(role=msg.role, content=content, name=msg.name,
                                tool_calls=msg.tool_calls, tool_call_id=msg.tool_call_id,
                                created_at=created_at, id=turn_id)
        self.kept_ids.append(turn_id)


def trim_window(turns: List[ChatMessage]) -> List[ChatMessage]:
    """A window a chat engine accepts: it opens on a user turn, does not end on
    a user turn (the new utterance follows it, and a stored copy of it is not
    repeated), and consecutive user turns are one turn, joined by a newline, so
    that engines requiring alternation accept it."""
    start = 0
    while start < len(turns) and turns[start].role != "user":
        start += 1
    end = len(turns)
    while end > start and turns[end - 1].role == "user":
        end -= 1
    window: List[ChatMessage] = []
    for turn in turns[start:end]:
        if turn.role == "user" and window and window[-1].role == "user":
            window[-1] = replace(window[-1], content=f"{window[-1].content}\n{turn.content}")
        else:
            window.append(turn)
    return window


def now() -> float:
    return time.time()
