"""Any other ``opm.agents.memory`` plugin (an ``AgentContextManager``), run
inside the daemon. The service still stores every turn in its own store; the
plugin is told about them after the reply and builds the context its own way.
"""
from typing import List

from ovos_plugin_manager.templates.agents import AgentMessage

from ovos_memory_service.common.agent_messages import agent_to_wire, wire_to_agent
from ovos_memory_service.backends.base import Backend, Context
from ovos_memory_service.common.wire import ChatMessage


def from_agent_message(msg: AgentMessage) -> ChatMessage:
    wire = agent_to_wire(msg)
    return ChatMessage(role=wire["role"], content=wire["content"], tool_calls=wire.get("tool_calls", []),
                       tool_call_id=wire.get("tool_call_id"), name=wire.get("name"))


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
        supported = [m for m in map(wire_to_agent, (m.to_wire() for m in stored)) if m is not None]
        if supported:
            self.plugin.update_history(supported, plugin_key(scope))
