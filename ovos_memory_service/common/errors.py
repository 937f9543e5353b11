"""Named errors raised by the core; each edge decides how to show them.

The bus edge turns them into ``{"ok": false, "error": {"code", "message"}}``
replies with the codes of docs/protocol.md; what a store's own failures mean
is the store's to say (``store.storage_unavailable``).
"""
from typing import Optional


class MemoryServiceError(Exception):
    code = "internal"


class InvalidRequest(MemoryServiceError, ValueError):
    code = "invalid_request"


class NotFound(MemoryServiceError, KeyError):
    code = "not_found"

    def __str__(self):  # KeyError would repr() the message
        return self.args[0] if self.args else "not found"


class TooLarge(MemoryServiceError):
    code = "too_large"


class Unavailable(MemoryServiceError):
    code = "unavailable"


class EmbeddingsUnavailable(RuntimeError):
    """Semantic recall cannot run here (no model, no vector index); the message says why."""


HOLDERS = {"daemon": "ovos-memory-service", "cli": "ovos-memory"}


class StoreLocked(RuntimeError):
    """Another process (the daemon, or ovos-memory) has the store open.
    ``holder`` ("daemon", "cli", or None when unknown) and ``pid`` say which."""

    def __init__(self, directory: str, holder: Optional[str] = None, pid: Optional[int] = None):
        self.holder, self.pid = holder, pid
        who = HOLDERS.get(holder, "another process") + (f" (pid {pid})" if pid else "")
        super().__init__(f"the memory store in {directory} is held by {who}")
