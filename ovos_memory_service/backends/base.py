"""The one small base class every memory backend implements."""
import abc
from dataclasses import dataclass, field
from typing import List

from ovos_utils.log import LOG

from ovos_memory_service.common.items import MemoryItem
from ovos_memory_service.backends.reader import StoreReader
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.common.wire import ChatMessage

# keys of the seed's backends that name their own files or stores: the service
# keeps everything in its own store, so they are accepted and ignored
STORAGE_KEYS = ("db_path", "backend", "table", "collection", "embeddings_plugin",
                "embeddings_config", "embeddings_db_plugin", "embeddings_db_config")


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
        if not isinstance(config, dict):
            raise ValueError(f"the {self.name} block must be an object")
        self.config = config
        self.reader = reader
        ignored = [k for k in STORAGE_KEYS if k in config]
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


def int_key(config: dict, key: str, default: int, low: int = 0, high: int = 10_000) -> int:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{key} must be an integer in [{low}, {high}], got {value!r}")
    return value


def optional_number(config: dict, key: str, low: float = None, high: float = None):
    value = config.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{key} must be a number in [{low}, {high}] or null, got {value!r}")
    return float(value)


def llm_client(config: dict, default_api_url: str):
    """The seed's endpoint keys (``api_url``, ``model``, ``request_timeout``) and
    ``api_key``, as a client; None when ``api_url`` is "" (no LLM)."""
    from ovos_memory_service.learning.llm_client import ChatClient
    api_url = config.get("api_url", default_api_url)
    if not api_url:
        return None
    if not isinstance(api_url, str) or not api_url.startswith(("http://", "https://")):
        raise ValueError(f"api_url must be an http(s) URL or \"\", got {api_url!r}")
    for key in ("model", "api_key"):
        if not isinstance(config.get(key, "") or "", str):
            raise ValueError(f"{key} must be a string")
    timeout = optional_number(config, "request_timeout", 0.1, 600) or 30.0
    return ChatClient(api_url, config.get("model") or "", config.get("api_key") or "", timeout)
