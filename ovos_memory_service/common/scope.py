"""Whose memory a request acts on (docs/protocol.md, "Scope: whose memory")."""
import math
import re
from dataclasses import dataclass
from typing import Optional, Tuple

from ovos_memory_service.common.errors import InvalidRequest
from ovos_memory_service.common.wire import parse_time

DEFAULT_SESSION = "default"
MAX_ID_LENGTH = 100
# control characters (C0, DEL, C1) and lone surrogates
_NOT_IN_IDS = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
# OVOS-USER-ID-1's authentication levels: 0 anonymous ... 5 a pass phrase
MAX_LEVEL = 5
DEFAULT_SESSION_LEVEL = 1  # the device's own session is shared by the room: never more
VERIFIED_LEVEL = 3         # from this level on, a level needs its authenticated_at


@dataclass(frozen=True)
class Scope:
    user_id: str
    session_id: str
    persona_id: Optional[str] = None  # None: the service's default persona namespace
    lang: str = ""
    # the speaker's authentication level as it counts (capped, 0 when expired)
    auth_level: int = 0
    # the user was named by the request (data, session or context user_id), not by
    # the users map or the guest rule: the access levels (common/access.py) apply to it
    identified: bool = False
    # long-term memories may be read (False: a context build below its access level)
    long_term: bool = True

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
    """Resolve (user, persona, session) and the speaker's level from a
    request's data and context (docs/protocol.md, "Scope: whose memory").

    ``users`` maps a session_id or site_id to a user_id (service config).
    """
    session = context.get("session")
    if session is None:
        session = {}
    if not isinstance(session, dict):
        raise InvalidRequest("context.session must be a serialized Session object")
    session_id = _pick("session_id", data.get("session_id"), session.get("session_id")) or DEFAULT_SESSION
    persona_id = _pick("persona_id", data.get("persona_id"), session.get("persona_id"))
    speaker = _pick("user_id", data.get("user_id"), session.get("user_id"), context.get("user_id"))
    level = speaker_level(session, context, session_id) if speaker is not None else 0
    user_id = speaker
    if user_id is None:
        site_id = session.get("site_id") if isinstance(session.get("site_id"), str) else None
        user_id = _pick("user_id", users.get(session_id) or (users.get(site_id) if site_id else None))
    if user_id is None:  # a guest: the household on the device's session, else the session itself
        user_id = "default" if session_id == DEFAULT_SESSION else session_id
    lang = session.get("lang") or context.get("lang") or default_lang
    return Scope(user_id=user_id, session_id=session_id, persona_id=persona_id,
                 lang=lang if isinstance(lang, str) else default_lang,
                 auth_level=level, identified=speaker is not None)


def speaker_level(session: dict, context: dict, session_id: str) -> int:
    """The level that counts: the session's ``auth_level`` (else the one an
    identity transformer copied into the context, where ovos-core drops the
    session's), 0 if absent; 0 when 3 or more has no ``authenticated_at``
    (expired); at most 1 on the device's session."""
    level, authenticated_at = _level_fields(session if "auth_level" in session else context)
    if level >= VERIFIED_LEVEL and authenticated_at is None:
        level = 0
    if session_id == DEFAULT_SESSION:
        level = min(level, DEFAULT_SESSION_LEVEL)
    return level


def _level_fields(source: dict) -> Tuple[int, Optional[float]]:
    """(auth_level, authenticated_at as epoch seconds or None), checked."""
    level = source.get("auth_level")
    if level is None:
        level = 0
    if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_LEVEL:
        raise InvalidRequest(f"auth_level must be an integer from 0 to {MAX_LEVEL}")
    stamp = source.get("authenticated_at")
    if stamp is None:
        return level, None
    if isinstance(stamp, str):
        return level, parse_time(stamp, "authenticated_at")
    if isinstance(stamp, bool) or not isinstance(stamp, (int, float)) or not math.isfinite(stamp) or stamp < 0:
        raise InvalidRequest("authenticated_at must be epoch seconds or an ISO 8601 time")
    return level, float(stamp)
