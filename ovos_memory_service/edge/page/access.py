"""Who may open the page: one-time login links, the sessions they start,
their CSRF tokens, the rate limit on failed logins, and revocation.

Everything lives in the daemon's memory and nothing in a file: a restart
signs everyone out. Secrets are kept as their SHA-256 only, so a dump of the
process holds no usable link or cookie. A link or session is either the
owner's (any user's memories: ``user_id`` None) or one user's.
"""
import hashlib
import hmac
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Dict, Optional

ATTEMPT_WINDOW_S = 60
# all addresses together may fail this many times the per-address limit in a window
ALL_ADDRESSES_FACTOR = 4


class LoginRefused(Exception):
    """A login link that is wrong, used, expired or revoked (one message for
    all: the page does not tell a guesser which)."""


class TooManyAttempts(LoginRefused):
    """Too many failed logins from this address (or from all) in the last minute."""


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class Link:
    user_id: Optional[str]  # None: the owner's link
    expires_at: float


@dataclass
class Session:
    user_id: Optional[str]  # None: the owner, who picks a user
    expires_at: float
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    lang: Optional[str] = None  # None: the device's language
    notice: Optional[tuple] = None  # (words key, fields): shown on the next page, once

    @property
    def owner(self) -> bool:
        return self.user_id is None

    def may_see(self, user_id: str) -> bool:
        return self.user_id is None or self.user_id == user_id

    def csrf_matches(self, given) -> bool:
        return isinstance(given, str) and hmac.compare_digest(given.encode(), self.csrf.encode())


class PageAccess:
    """Links, sessions and failed attempts; thread-safe. ``settings`` is the
    page block of the service's configuration (read at each use: a reload
    changes the durations for what is made after it)."""

    def __init__(self, settings: Callable[[], dict], clock: Callable[[], float] = time.time):
        self.settings, self.clock = settings, clock
        self._links: Dict[str, Link] = {}
        self._sessions: Dict[str, Session] = {}
        self._failures: Dict[str, deque] = {}
        self._all_failures: deque = deque()
        self._lock = threading.Lock()

    # ------------------------------------------------------------ links
    def new_link(self, user_id: Optional[str] = None) -> (str, float):
        """A one-time login token, and when it expires."""
        token = secrets.token_urlsafe(32)
        expires_at = self.clock() + self.settings()["link_minutes"] * 60
        with self._lock:
            self._drop_expired()
            self._links[_digest(token)] = Link(user_id, expires_at)
        return token, expires_at

    def redeem(self, token, address: str) -> (str, Session):
        """Spend a link: a new session and its cookie value. LoginRefused when
        the link is not valid, TooManyAttempts while this address (or every
        address together) failed too often in the last minute, whatever the
        token (so that guessing cannot go on)."""
        now = self.clock()
        with self._lock:
            self._check_attempts(address, now)
            link = self._links.pop(_digest(token), None) if isinstance(token, str) and token else None
            if link is None or link.expires_at <= now:
                self._fail(address, now)
                raise LoginRefused("this link is not valid: it is wrong, used, expired or revoked")
            cookie = secrets.token_urlsafe(32)
            session = Session(link.user_id, now + self.settings()["session_minutes"] * 60)
            self._sessions[_digest(cookie)] = session
            return cookie, session

    def _check_attempts(self, address: str, now: float):
        limit = self.settings()["login_attempts_per_minute"]
        for attempts, allowed in ((self._failures.get(address), limit),
                                  (self._all_failures, limit * ALL_ADDRESSES_FACTOR)):
            while attempts and attempts[0] <= now - ATTEMPT_WINDOW_S:
                attempts.popleft()
            if attempts is not None and len(attempts) >= allowed:
                raise TooManyAttempts("too many attempts: wait a minute")

    def _fail(self, address: str, now: float):
        self._failures.setdefault(address, deque()).append(now)
        self._all_failures.append(now)
        if len(self._failures) > 1000:  # forget quiet addresses
            self._failures = {a: d for a, d in self._failures.items() if d and d[-1] > now - ATTEMPT_WINDOW_S}

    # --------------------------------------------------------- sessions
    def session(self, cookie) -> Optional[Session]:
        """The live session of a cookie value, or None."""
        if not isinstance(cookie, str) or not cookie:
            return None
        key = _digest(cookie)
        with self._lock:
            session = self._sessions.get(key)
            if session is not None and session.expires_at <= self.clock():
                del self._sessions[key]
                return None
            return session

    def end(self, cookie: str):
        with self._lock:
            self._sessions.pop(_digest(cookie), None)

    def revoke(self, user_id: Optional[str] = None) -> int:
        """Unused links and open sessions: every one (``user_id`` None), or
        those of one user. Returns how many ended."""
        with self._lock:
            links = [k for k, v in self._links.items() if user_id is None or v.user_id == user_id]
            sessions = [k for k, v in self._sessions.items() if user_id is None or v.user_id == user_id]
            for key in links:
                del self._links[key]
            for key in sessions:
                del self._sessions[key]
            return len(links) + len(sessions)

    def _drop_expired(self):
        now = self.clock()
        self._links = {k: v for k, v in self._links.items() if v.expires_at > now}
        self._sessions = {k: v for k, v in self._sessions.items() if v.expires_at > now}
