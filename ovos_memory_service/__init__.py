"""ovos-memory-service: conversational memory for every OVOS persona, on the device."""
# first: telemetry off-switches, before any library that reads them is imported
from ovos_memory_service.common import privacy  # noqa: F401
from ovos_memory_service.version import __version__

__all__ = ["__version__"]
