"""Whose memory a request acts on (PROTOCOL.md, "Scope: whose memory")."""
import re
from dataclasses import dataclass
from typing import Optional

from ovos_memory_service.errors import InvalidRequest

DEFAULT_SESSION = "default"
MAX_ID_LENGTH = 100
# control characters (C0, DEL, C1) and lone surrogates
_NOT_IN_IDS = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


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


def check_id(value, field: str, max_length: int = MAX_ID_LENGTH) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= max_length:
        raise InvalidRequest(f"{field} must be a string of 1 to {max_length} characters")
    if _NOT_IN_IDS.search(value):
        raise InvalidRequest(f"{field} must not contain control characters or lone surrogates")
    return value


def _pick(field: str, *candidates):
    """The first candidate that is not None; every one given must be a valid id."""
    given = [check_id(value, field) for value in candidates if value is not None]
    return given[0] if given else None


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
