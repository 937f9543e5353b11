"""Any other ``opm.agents.memory`` plugin (an ``AgentContextManager``), run
inside the daemon. The service still stores every turn in its own store; the
plugin is told about them after the reply and builds the context its own way.
"""
from typing import List

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_memory_service.backends.base import Backend, Context
from ovos_memory_service.wire import ChatMessage

try:  # OPM >= 2.6 pre-releases
    from ovos_plugin_manager.templates.agents import ToolCall
except ImportError:  # OPM 2.2: no tool messages
    ToolCall = None

ROLES = {role.value: role for role in MessageRole}


def to_agent_message(msg: ChatMessage) -> AgentMessage:
    if ToolCall is None:
        return AgentMessage(role=ROLES[msg.role], content=msg.content)
    return AgentMessage(role=ROLES[msg.role], content=msg.content,
                        tool_calls=[ToolCall(**call) for call in msg.tool_calls],
                        tool_call_id=msg.tool_call_id, name=msg.name)


def from_agent_message(msg: AgentMessage) -> ChatMessage:
    role = getattr(msg.role, "value", msg.role)
    calls = [{"id": c.id, "name": c.name, "arguments": c.arguments}
             for c in (getattr(msg, "tool_calls", None) or [])]
    return ChatMessage(role=str(role), content=msg.content or "", tool_calls=calls,
                       tool_call_id=getattr(msg, "tool_call_id", None),
                       name=getattr(msg, "name", None))


def plugin_key(scope) -> str:
    """The session key the plugin sees: one per user and session, since a
    plugin only knows sessions (one instance serves one persona)."""
    return f"{scope.user_id}/{scope.session_id}"


class PluginBackend(Backend):
    def __init__(self, name: str, plugin_class, config, reader):
        self.name = name
        super().__init__(config, reader)
        self.plugin = plugin_class(config=config)

    def build(self, scope, utterance, now):
        messages = [from_agent_message(m) for m in
                    self.plugin.build_conversation_context(utterance, plugin_key(scope))]
        if not messages or messages[-1].role != "user":
            messages.append(ChatMessage("user", utterance))
        return Context(messages)

    def after_update(self, scope, stored: List[ChatMessage]):
        supported = [m for m in stored if m.role in ROLES]
        if supported:
            self.plugin.update_history([to_agent_message(m) for m in supported], plugin_key(scope))
