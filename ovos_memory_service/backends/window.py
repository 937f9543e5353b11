"""The live window: the conversation still open, its turns as chat messages,
and the window a chat engine accepts. (How turns are stored: engine/turns.py.)
"""
import json
from dataclasses import replace
from typing import List, Optional

from ovos_memory_service.common.scope import Scope
from ovos_memory_service.common.wire import ChatMessage
from ovos_memory_service.store import Store


def turn_from_row(row: dict) -> ChatMessage:
    return ChatMessage(role=row["role"], content=row["content"], name=row["name"],
                       tool_calls=json.loads(row["tool_calls"]) if row["tool_calls"] else [],
                       tool_call_id=row["tool_call_id"], created_at=row["created_at"], id=row["id"])


def live_conversation(store: Store, scope: Scope, now: float, timeout_s: float) -> Optional[dict]:
    """The conversation still open at ``now``, or None if it timed out (or none exists)."""
    conv = store.latest_conversation(scope)
    if conv is None or now - conv["updated_at"] > timeout_s:
        return None
    return conv


def live_window(store: Store, scope: Scope, now: float, timeout_s: float,
                limit: int = 0) -> List[ChatMessage]:
    conv = live_conversation(store, scope, now, timeout_s)
    return [turn_from_row(r) for r in store.conversation_turns(conv["id"], limit)] if conv else []


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

