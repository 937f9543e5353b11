"""Folding recalled memories into the message list: the five inject modes of
the seed's retrieval backends, with their exact message shapes and keys.
"""
import hashlib
from typing import List, Sequence

from ovos_memory_service.common.blocks import InjectSettings
from ovos_memory_service.common.items import MemoryItem
from ovos_memory_service.common.wire import ChatMessage, iso_time

def chunk_text(item: MemoryItem) -> str:
    """How one recalled memory reads to the chat engine: a turn keeps its
    speaker and date, since both are part of what was said."""
    if item.kind != "turn":
        return item.content
    return f"[{iso_time(item.created_at)[:10]}] {item.speaker}: {item.content}"


def render_context(items: Sequence[MemoryItem], settings: InjectSettings) -> str:
    chunks = []
    for item in items:
        prefix = settings.chunk_prefix
        if settings.include_sources:
            prefix = f"{prefix}[{item.id}] "
        chunks.append(prefix + chunk_text(item))
    return settings.chunk_separator.join(chunks)


def tool_call_id(*parts: str) -> str:
    """Derived from the request, so two identical builds are identical."""
    return "memory_" + hashlib.sha1("\x1f".join(parts).encode()).hexdigest()[:16]


def assemble(settings: InjectSettings, history: List[ChatMessage], utterance: str,
             context: str = "", extra_system: Sequence[ChatMessage] = (),
             call_id: str = "") -> List[ChatMessage]:
    """[system?] [extra system blocks] [context block?] history [tool turn?] [user].

    ``history`` must already be trimmed (opens on a user turn, no trailing user).
    ``extra_system`` carries non-retrieval blocks (facts, summaries).
    """
    mode = settings.inject_mode
    messages: List[ChatMessage] = []
    if context and mode == "system_prompt":
        messages.append(ChatMessage("system", settings.system_prompt_template.format(
            system=settings.system_prompt, header=settings.header, context=context).strip()))
        messages.extend(extra_system)
    else:
        if settings.system_prompt:
            messages.append(ChatMessage("system", settings.system_prompt))
        messages.extend(extra_system)
        if context and mode in ("system", "developer"):
            messages.append(ChatMessage("developer" if mode == "developer" else "system",
                                        f"{settings.header}\n\nContext:\n{context}"))
    messages.extend(history)
    if context and mode == "tool":
        messages.append(ChatMessage("assistant", "", tool_calls=[
            {"id": call_id, "name": settings.tool_name, "arguments": {"query": utterance}}]))
        messages.append(ChatMessage("tool", context, name=settings.tool_name, tool_call_id=call_id))
    if context and mode == "user":
        messages.append(ChatMessage("user", settings.user_template.format(
            header=settings.header, context=context, utterance=utterance)))
    else:
        messages.append(ChatMessage("user", utterance))
    return messages
