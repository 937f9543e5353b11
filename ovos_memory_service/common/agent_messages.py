"""OPM's ``AgentMessage`` and the wire's message dicts, on every OPM version:
2.2.0 has no ``ToolCall`` and no tool role; the pre-releases have both."""
from typing import Optional

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

try:  # OPM >= 2.6 pre-releases
    from ovos_plugin_manager.templates.agents import ToolCall
except ImportError:  # OPM 2.2: no tool messages
    ToolCall = None

ROLES = {role.value: role for role in MessageRole}


def agent_to_wire(msg: AgentMessage) -> dict:
    out = {"role": str(getattr(msg.role, "value", msg.role)), "content": msg.content or ""}
    calls = getattr(msg, "tool_calls", None) or []
    if calls:
        out["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments or {}}
                             for c in calls]
    for key in ("tool_call_id", "name"):
        if getattr(msg, key, None):
            out[key] = getattr(msg, key)
    return out


def wire_to_agent(msg: dict) -> Optional[AgentMessage]:
    """None for a role this OPM does not have (tool, on 2.2)."""
    role = ROLES.get(msg.get("role"))
    if role is None:
        return None
    if ToolCall is None:
        return AgentMessage(role=role, content=msg.get("content", ""))
    return AgentMessage(role=role, content=msg.get("content", ""),
                        tool_calls=[ToolCall(id=c["id"], name=c["name"], arguments=c.get("arguments") or {})
                                    for c in msg.get("tool_calls") or []],
                        tool_call_id=msg.get("tool_call_id"), name=msg.get("name"))
