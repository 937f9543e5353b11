"""The one small base class every memory backend implements."""
import abc
from dataclasses import dataclass, field
from typing import List, Optional

from ovos_utils.log import LOG

from ovos_memory_service.backends.reader import StoreReader
from ovos_memory_service.common.blocks import Endpoint, ignored_storage_keys, object_block
from ovos_memory_service.common.items import MemoryItem
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.common.wire import ChatMessage
from ovos_memory_service.learning.llm_client import ChatClient


@dataclass
class Context:
    """What a build returns: the messages for the chat engine, and the
    long-term memories injected into them, best first."""
    messages: List[ChatMessage]
    memories: List[MemoryItem] = field(default_factory=list)


class Backend(abc.ABC):
    """A persona's memory strategy over the shared store.

    Storing is the engine's job (SQLite is the system of record for every
    backend); a backend decides what a context build looks like.
    """
    name = ""
    # the window ``memory.history.get`` returns by default
    max_history = 10
    # kinds this backend injects itself, as a block (a composite's retrievers leave them out)
    block_kinds = ()

    def __init__(self, config: dict, reader: StoreReader):
        """``config``: the backend's block (common/blocks.py reads and checks it)."""
        self.config = object_block(config, self.name)
        self.reader = reader
        ignored = ignored_storage_keys(config)
        if ignored:
            LOG.info(f"{self.name}: ignoring {', '.join(ignored)} "
                     "(the memory service keeps its own store)")

    @abc.abstractmethod
    def build(self, scope: Scope, utterance: str, now: float) -> Context:
        """Messages for ``utterance``; must not write anything."""

    def raw_window(self, scope: Scope, now: float) -> List[ChatMessage]:
        """The verbatim turns this backend would show, before trimming."""
        return self.reader.window(scope, now, self.max_history)

    def context_blocks(self, scope: Scope, utterance: str, now: float):
        """What this backend adds as a plain member of a composite: the leading
        system/developer messages of its own build (summaries, facts...)."""
        context = self.build(scope, utterance, now)
        blocks = []
        for message in context.messages[:-1]:
            if message.role not in ("system", "developer"):
                break
            blocks.append(message)
        return blocks, context.memories

    def llm_tasks(self) -> dict:
        """Background LLM work this backend wants: {"summary"|"facts": backend}."""
        return {}

    def after_update(self, scope: Scope, stored: List[ChatMessage]):
        """Called in the background after turns are committed."""

    def close(self):
        """Release what the backend holds."""


def llm_client(endpoint: Optional[Endpoint]) -> Optional[ChatClient]:
    """The block's LLM endpoint as a client; None without one."""
    return ChatClient(*endpoint) if endpoint is not None else None
