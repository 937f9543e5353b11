"""The backends by name: the built-in ones (names and blocks: common/blocks.py)
and any other ``opm.agents.memory`` plugin installed on the device."""
from ovos_plugin_manager.agents import load_memory_plugin

from ovos_memory_service.backends.base import Backend, Context
from ovos_memory_service.backends.composite import CompositeBackend
from ovos_memory_service.backends.entity import EntityBackend
from ovos_memory_service.backends.lexical import LexicalBackend
from ovos_memory_service.backends.local_rag import LocalRagBackend
from ovos_memory_service.backends.longterm import LongtermBackend
from ovos_memory_service.backends.plugin import PluginBackend
from ovos_memory_service.backends.recency import RecencyBackend, ShortTermBackend
from ovos_memory_service.backends.retrieval import RetrievalBackend
from ovos_memory_service.common.blocks import PERSONA_PLUGIN, PERSONA_PLUGIN_INSIDE, canonical_name

BUILTIN = {cls.name: cls for cls in (RecencyBackend, ShortTermBackend, LexicalBackend, LocalRagBackend,
                                      CompositeBackend, EntityBackend, LongtermBackend)}


def create_backend(name: str, config: dict, reader) -> Backend:
    """Instantiate a backend; ValueError when the name or its config is not valid."""
    if not isinstance(name, str) or not name:
        raise ValueError("memory_module must be a backend name")
    cls = BUILTIN.get(canonical_name(name))
    if cls is CompositeBackend:  # its members are loaded the same way
        return CompositeBackend(config, reader, create_backend)
    if cls is not None:
        return cls(config, reader)
    if name == PERSONA_PLUGIN:
        raise ValueError(PERSONA_PLUGIN_INSIDE)
    plugin_class = load_memory_plugin(name)
    if plugin_class is None:
        raise ValueError(f"unknown memory_module {name!r}: not a built-in backend "
                         "and no opm.agents.memory plugin of that name is installed")
    return PluginBackend(name, plugin_class, config, reader)


def can_recall(backend: Backend) -> bool:
    return isinstance(backend, (RetrievalBackend, CompositeBackend))


__all__ = ["Backend", "Context", "BUILTIN", "create_backend", "can_recall"]
