"""What the views share: the request's session and words, whose memories a
request may reach, form fields read and checked, templates rendered
(Bottle's SimpleTemplate: ``{{value}}`` is always HTML-escaped)."""
import time
from datetime import datetime
from pathlib import Path
from typing import List, Optional
from urllib.parse import urlencode

from bottle import HTTPError, HTTPResponse, SimpleTemplate, request

from ovos_memory_service.common.errors import InvalidRequest
from ovos_memory_service.common.items import KINDS
from ovos_memory_service.common.scope import Scope, check_id
from ovos_memory_service.common.wire import MAX_CONTENT_BYTES, iso_time
from ovos_memory_service.edge.page.access import Session
from ovos_memory_service.edge.page.words import LANG_NAMES, LANGS, Words, page_lang

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"
_templates = {}


def current() -> Optional[Session]:
    return request.environ.get("page.session")


def signed_in() -> Session:
    """The request's session; the "signed out" page (401) without one."""
    session = current()
    if session is None:
        raise HTTPError(401, "error.signed_out")
    return session


def words(page) -> Words:
    session = current()
    return Words(session.lang if session and session.lang else page.config["lang"] or "en-us")


def reachable_user(field: str = "user") -> str:
    """The user a request names (query or form), checked against the session:
    a user-scoped session reaches its own user only (403 otherwise)."""
    session = signed_in()
    value = request.params.getunicode(field) if field in request.params else None
    if value is None and not session.owner:
        value = session.user_id
    try:
        user_id = check_id(value, "user")
    except InvalidRequest:
        raise HTTPError(400, "error.bad_request")
    if not session.may_see(user_id):
        raise HTTPError(403, "error.other_user")
    return user_id


def scope_of(page, user_id: str, persona: Optional[str] = None, session: Optional[str] = None) -> Scope:
    """The scope the page acts in for a user: not a speaker (no access level
    gates it: the person signed in with the owner's link), in the page's language."""
    return Scope(user_id=user_id, session_id=session or "default", persona_id=persona or None,
                 lang=words(page).lang)


def field(name: str, default: Optional[str] = None) -> Optional[str]:
    value = request.forms.getunicode(name) if name in request.forms else None
    if value is None:
        value = request.query.getunicode(name) if name in request.query else None
    return default if value is None or value == "" else value


def text_field(name: str) -> str:
    """A memory's text or a question: required, at most 32 KiB, no lone surrogates."""
    value = (field(name) or "").strip()
    if not value:
        raise HTTPError(400, "error.empty")
    if len(value.encode("utf-8", "surrogatepass")) > MAX_CONTENT_BYTES:
        raise HTTPError(413, "error.too_long")
    return value


def id_field(name: str, required: bool = False) -> Optional[str]:
    value = field(name)
    if value is None:
        if required:
            raise HTTPError(400, "error.bad_request")
        return None
    try:
        return check_id(value, name)
    except InvalidRequest:
        raise HTTPError(400, "error.bad_request")


def ids_field(name: str = "ids", most: int = 1000) -> List[str]:
    values = request.forms.getall(name)
    if len(values) > most:
        raise HTTPError(413, "error.too_many")
    try:
        return list(dict.fromkeys(check_id(v.encode("latin1").decode("utf-8"), name) for v in values))
    except (InvalidRequest, UnicodeError):
        raise HTTPError(400, "error.bad_request")


def kinds_field() -> List[str]:
    kind = field("kind")
    if kind is None:
        return list(KINDS)
    if kind not in KINDS:
        raise HTTPError(400, "error.bad_request")
    return [kind]


def number_field(name: str, default: Optional[float], low: float, high: float) -> Optional[float]:
    """A number from ``low`` to ``high`` (``default`` when not given)."""
    value = field(name)
    if value is None:
        return default
    try:
        value = float(value)
    except ValueError:
        raise HTTPError(400, "error.bad_request")
    if not low <= value <= high:  # NaN is not
        raise HTTPError(400, "error.bad_request")
    return value


def day_field(name: str) -> Optional[float]:
    """A date (YYYY-MM-DD) as the epoch at its start in the device's time zone."""
    value = field(name)
    if value is None:
        return None
    try:
        return time.mktime(datetime.strptime(value, "%Y-%m-%d").timetuple())
    except (ValueError, OverflowError):
        raise HTTPError(400, "error.bad_date")


def link(path: str, **params) -> str:
    """A page's address with ids in its query (never a memory's text)."""
    given = {k: v for k, v in params.items() if v not in (None, "")}
    return path + ("?" + urlencode(given) if given else "")


def local_path(value: Optional[str], default: str) -> str:
    """``value`` if it is a path on this page (never another site), else ``default``."""
    if value and value.startswith("/") and not value.startswith("//") and "\\" not in value:
        return value
    return default


def see_other(url: str):
    raise HTTPResponse(status=303, headers={"Location": url})


def local_time(epoch: Optional[float]) -> str:
    return datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M") if epoch else ""


def size(n: Optional[int]) -> str:
    if n is None:
        return ""
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def render(page, name: str, title: str, **values) -> str:
    """A template inside the layout: ``v`` holds what every page needs (the
    words ``t``, the session's CSRF token, the user, the live state...)."""
    session = current()
    say = words(page)
    if name not in _templates:
        _templates[name] = SimpleTemplate(name=name, lookup=[str(TEMPLATES)])
    user = values.get("user")
    live = bool(user and session)
    reloadable = request.method == "GET"
    v = {
        "t": say, "lang": say.lang, "langs": [(code, LANG_NAMES[code]) for code in LANGS], "title": title,
        "session": session, "csrf": session.csrf if session else "", "user": user, "link": link,
        "when": local_time, "iso": iso_time, "size": size, "notice": _take_notice(session),
        "here": request.path, "reloadable": reloadable,
        "back": request.fullpath + ("?" + request.query_string if request.query_string else "")
        if reloadable else link("/memories", user=user) if user else "/",
        "state_url": link("/state", user=user) if live else "", "state": state_of(page, user) if live else "",
        "refresh": page.settings["refresh_seconds"],
    }
    return _templates[name].render(v=v, user=user, **{k: val for k, val in values.items() if k != "user"})


def notify(key: str, **fields):
    """A message for the next page this session sees (after a redirect)."""
    session = current()
    if session is not None:
        session.notice = (key, fields)


def _take_notice(session) -> Optional[tuple]:
    if session is None:
        return None
    notice, session.notice = session.notice, None
    return notice


def state_of(page, user_id: str) -> str:
    """What changes when the user's memories change anywhere (voice, another
    tab, the command line): counts and newest times per kind, pauses, and
    the forgets and pauses the page heard of. No memory text."""
    mine = next(iter(page.engine.users(user_id)), {})
    parts = [str(mine.get(k, 0)) for k in KINDS] + [str(mine.get("newest")), str(page.changes.get(user_id, 0)),
                                                      str(len(page.engine.pauses(user_id)))]
    return "-".join(parts)


def lang_choice(value) -> Optional[str]:
    return page_lang(value) if value in LANGS else None
