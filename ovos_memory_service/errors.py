"""Named errors raised by the core; each edge decides how to show them.

The bus edge turns them into ``{"ok": false, "error": {"code", "message"}}``
replies with the codes of PROTOCOL.md.
"""


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
