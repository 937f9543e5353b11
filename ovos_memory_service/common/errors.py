"""Named errors raised by the core; each edge decides how to show them.

The bus edge turns them into ``{"ok": false, "error": {"code", "message"}}``
replies with the codes of docs/protocol.md.
"""
import sqlite3
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


# what SQLite (or the OS) says about the store, in words a person understands
_STORAGE_PROBLEMS = (
    ("database or disk is full", "the memory store's disk is full; nothing was stored"),
    ("no space left", "the memory store's disk is full; nothing was stored"),
    ("disk i/o error", "the memory store's disk could not be read or written; nothing was stored"),
    ("unable to open", "the memory store's files could not be opened; nothing was stored"),
    ("readonly database", "the memory store is read-only; nothing was stored"),
    ("read-only file system", "the memory store is read-only; nothing was stored"),
    ("malformed", "the memory store's file is damaged; nothing was stored"),
    ("database is locked", "the memory store is busy; nothing was stored, try again"),
)


def storage_unavailable(error: BaseException) -> Optional[Unavailable]:
    """The Unavailable to answer for a storage failure, None for any other error."""
    if type(error).__module__.split(".")[0] in ("psycopg", "psycopg_pool"):  # the shared store
        from ovos_memory_service.store.postgresql.connection import storage_problem
        problem = storage_problem(error)
        return Unavailable(problem) if problem else None
    if not isinstance(error, (sqlite3.DatabaseError, OSError)):
        return None
    said = str(error).lower()
    for words, message in _STORAGE_PROBLEMS:
        if words in said:
            return Unavailable(message)
    return None
