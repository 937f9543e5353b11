"""Whose memory a request acts on (PROTOCOL.md, "Scope: whose memory")."""
from dataclasses import dataclass
from typing import Optional

from ovos_memory_service.errors import InvalidRequest

DEFAULT_SESSION = "default"
MAX_ID_LENGTH = 100


@dataclass(frozen=True)
class Scope:
    user_id: str
    session_id: str
    persona_id: Optional[str] = None  # None: the service's default persona namespace
    lang: str = ""

    @property
    def persona_key(self) -> str:
        """The persona as stored in SQLite ('' for the default namespace)."""
        return self.persona_id or ""


def check_id(value, field: str) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_ID_LENGTH:
        raise InvalidRequest(f"{field} must be a string of 1 to {MAX_ID_LENGTH} characters")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise InvalidRequest(f"{field} must not contain control characters")
    return value


def _pick(field: str, *candidates):
    """The first candidate that is not None, checked as an id."""
    for value in candidates:
        if value is not None:
            return check_id(value, field)
    return None


def resolve_scope(data: dict, context: dict, users: dict, default_lang: str = "") -> Scope:
    """Resolve (user, persona, session) from a request's data and context.

    ``users`` maps a session_id or site_id to a user_id (service config).
    """
    session = context.get("session")
    if session is None:
        session = {}
    if not isinstance(session, dict):
        raise InvalidRequest("context.session must be a serialized Session object")
    session_id = _pick("session_id", data.get("session_id"), session.get("session_id")) or DEFAULT_SESSION
    persona_id = _pick("persona_id", data.get("persona_id"), session.get("persona_id"))
    site_id = session.get("site_id") if isinstance(session.get("site_id"), str) else None
    mapped = users.get(session_id) or (users.get(site_id) if site_id else None)
    user_id = _pick("user_id", data.get("user_id"), context.get("user_id"), mapped)
    if user_id is None:
        user_id = "default" if session_id == DEFAULT_SESSION else session_id
    lang = session.get("lang") or context.get("lang") or default_lang
    return Scope(user_id=user_id, session_id=session_id, persona_id=persona_id,
                 lang=lang if isinstance(lang, str) else default_lang)
