"""ovos-memory-service: conversational memory for every OVOS persona, on the device."""
from ovos_memory_service.version import __version__

__all__ = ["__version__"]
