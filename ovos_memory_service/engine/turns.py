"""Verbatim conversation history as it is stored: the normalization of
docs/protocol.md applied to each new turn against the turns before it."""
import json
from typing import List, Optional

from ovos_memory_service.backends.window import turn_from_row
from ovos_memory_service.common.items import new_id
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.common.wire import ChatMessage
from ovos_memory_service.store import Store

# turns that a chat engine can be given back as history
HISTORY_ROLES = ("user", "assistant", "tool")


class TurnWriter:
    """Appends messages to a conversation, normalizing against what is stored.

    Rules (docs/protocol.md): an assistant or tool turn that would open the
    conversation is dropped; consecutive user turns are all kept (nothing a
    user said is deleted by a write; ``trim_window`` merges them for the chat
    engine); consecutive assistant turns are merged with a newline;
    system/developer messages and empty turns are not history and are dropped.
    """

    def __init__(self, store: Store, scope: Scope, conversation_id: str, now: float):
        self.store = store
        self.scope = scope
        self.conversation_id = conversation_id
        self.now = now
        last = store.conversation_turns(conversation_id, limit=1)
        self.last: Optional[ChatMessage] = turn_from_row(last[0]) if last else None
        self.kept_ids: List[str] = []
        self.roles = {}  # kept id -> role

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
            self.store.update_memory(last.id, content=last.content, updated_at=self.now)
            if last.id not in self.kept_ids:
                self.kept_ids.append(last.id)
                self.roles[last.id] = last.role
            return
        self._insert(msg, content, created_at)

    def _insert(self, msg: ChatMessage, content: str, created_at: float):
        scope = self.scope
        turn_id = self.store.insert_memory({
            "id": new_id(), "kind": "turn", "user_id": scope.user_id, "persona_id": scope.persona_key,
            "session_id": scope.session_id, "conversation_id": self.conversation_id, "role": msg.role,
            "name": msg.name, "content": content, "tool_calls": json.dumps(msg.tool_calls) if msg.tool_calls else None,
            "tool_call_id": msg.tool_call_id, "created_at": created_at, "updated_at": self.now,
            "auth_level": scope.auth_level})
        self.last = ChatMessage(role=msg.role, content=content, name=msg.name,
                                tool_calls=msg.tool_calls, tool_call_id=msg.tool_call_id,
                                created_at=created_at, id=turn_id)
        self.kept_ids.append(turn_id)
        self.roles[turn_id] = msg.role

    def kept(self) -> List[dict]:
        """The turns stored or extended, in order: id, role, conversation_id."""
        return [{"id": i, "role": self.roles[i], "conversation_id": self.conversation_id} for i in self.kept_ids]
