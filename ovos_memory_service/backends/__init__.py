"""Backend names and loading: the seed's entry-point names, their short
forms, and any other ``opm.agents.memory`` plugin installed on the device."""
from ovos_memory_service.backends.base import Backend, Context
from ovos_memory_service.backends.composite import CompositeBackend
from ovos_memory_service.backends.entity import EntityBackend
from ovos_memory_service.backends.lexical import LexicalBackend
from ovos_memory_service.backends.longterm import LongtermBackend
from ovos_memory_service.backends.recency import RecencyBackend, ShortTermBackend
from ovos_memory_service.backends.retrieval import RetrievalBackend
from ovos_memory_service.backends.local_rag import LocalRagBackend

BUILTIN = {
    "recency": RecencyBackend,
    "short-term": ShortTermBackend,
    "lexical": LexicalBackend,
    "local-rag": LocalRagBackend,
    "composite": CompositeBackend,
    "entity": EntityBackend,
    "longterm": LongtermBackend,
}
ENTRY_POINT_NAMES = {
    "ovos-memory-plugin-recency": "recency",
    "ovos-memory-plugin-lexical": "lexical",
    "ovos-memory-plugin-local-rag": "local-rag",
    "ovos-memory-plugin-composite": "composite",
    "ovos-memory-plugin-entity": "entity",
    "ovos-memory-plugin-longterm": "longterm",
    "ovos-agents-short-term-memory-plugin": "short-term",
}


# this project's own opm.agents.memory entry point (persona side): never loaded in the daemon
PERSONA_PLUGIN = "ovos-memory-service-plugin"


def canonical_name(name: str) -> str:
    """``ovos-memory-plugin-lexical`` and ``lexical`` are the same backend."""
    return ENTRY_POINT_NAMES.get(name, name)


def block_for(persona: dict, name: str) -> dict:
    """A persona JSON keys the backend's block by the name it used, long or short."""
    canonical = canonical_name(name)
    aliases = [n for n, short in ENTRY_POINT_NAMES.items() if short == canonical]
    for key in (name, canonical, *aliases):
        if key in persona:
            return persona[key] or {}
    return {}


def create_backend(name: str, config: dict, reader) -> Backend:
    """Instantiate a backend; ValueError when the name or its config is not valid."""
    if not isinstance(name, str) or not name:
        raise ValueError("memory_module must be a backend name")
    cls = BUILTIN.get(canonical_name(name))
    if cls is not None:
        return cls(config, reader)
    if name == PERSONA_PLUGIN:
        raise ValueError(f"{PERSONA_PLUGIN} connects a persona to this service; inside the service, "
                         "name a backend (e.g. ovos-memory-plugin-composite)")
    from ovos_plugin_manager.agents import load_memory_plugin
    from ovos_memory_service.backends.plugin import PluginBackend
    plugin_class = load_memory_plugin(name)
    if plugin_class is None:
        raise ValueError(f"unknown memory_module {name!r}: not a built-in backend "
                         "and no opm.agents.memory plugin of that name is installed")
    return PluginBackend(name, plugin_class, config, reader)


def can_recall(backend: Backend) -> bool:
    return isinstance(backend, (RetrievalBackend, CompositeBackend))


__all__ = ["Backend", "Context", "BUILTIN", "canonical_name", "block_for", "create_backend",
           "can_recall"]
