"""What every request passes before a view runs, and what every response
carries: the Host header checked against the addresses the page answers on
(a page on 127.0.0.1 is otherwise open to DNS rebinding from any site the
owner visits), the session cookie, CSRF on every change, and the headers
that keep the browser strict (CSP, no framing, no referrer, no caching)."""
import ipaddress
from urllib.parse import urlsplit
from typing import Iterable, Optional, Tuple

COOKIE = "ovos_memory_page"
# scripts, styles and images only from the page itself; no inline code, no framing, forms to itself
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
    "Cache-Control": "no-store",
    "Server": "ovos-memory-page",  # not the Python version
}
LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def split_host(value: str) -> Optional[Tuple[str, Optional[int]]]:
    """(host, port) of a Host header (``[::1]:8760``, ``name``), lower case; None if malformed."""
    value = (value or "").strip().lower()
    if not value or any(c.isspace() or c in "/?#@\\" for c in value):
        return None
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else None
        if rest and port is None:
            return None
    else:
        host, _, port = value.partition(":")
        port = port or None
    if port is not None and not (port.isdigit() and 0 < int(port) < 65536):
        return None
    return host, int(port) if port else None


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


def own_names(settings: dict) -> list:
    """The names the owner gave the page: ``allowed_hosts``, and the host of ``url``
    (the links name it, so it must open)."""
    names = list(settings["allowed_hosts"])
    if settings.get("url"):
        names.append(urlsplit(settings["url"]).hostname or "")
    return [n for n in names if n]


def host_allowed(header: str, bound_host: str, port: int, allowed_names: Iterable[str]) -> bool:
    """Whether a request's Host header names this page. Addresses cannot be
    rebound by a DNS answer, names can: a name must be ``localhost`` or one
    the owner gave (``own_names``, any port: a reverse proxy's).
    On a loopback address only loopback addresses and localhost are accepted."""
    parsed = split_host(header)
    if parsed is None:
        return False
    host, given_port = parsed
    if host in {n.strip().lower() for n in allowed_names}:
        return True
    if given_port not in (port, None if port == 80 else port):
        return False
    if host in LOOPBACK_NAMES:
        return True
    if not _is_address(host):
        return False
    return is_loopback(host) if is_loopback(bound_host) else True


def from_this_page(fetch_site: Optional[str], origin: Optional[str], host_header: str) -> bool:
    """Whether a POST comes from the page itself. A browser says where a
    request comes from in ``Sec-Fetch-Site``, which no page can forge: only
    "same-origin" passes ("same-site" is another port of this machine, whose
    requests carry the SameSite cookie). Under the page's no-referrer policy
    Chromium sends ``Origin: null`` even for its own forms, so "null" passes
    only with that header. Clients that send neither header (older browsers,
    scripts) are judged by Origin when they send one; the CSRF token is
    required of everyone besides."""
    if fetch_site is not None:
        if fetch_site.strip().lower() != "same-origin":
            return False
    elif origin is not None and origin.strip().lower() == "null":
        return False
    if origin is None or origin.strip().lower() == "null":
        return True
    origin = origin.strip().lower()
    for scheme in ("http://", "https://"):
        if origin.startswith(scheme):
            return origin[len(scheme):].rstrip("/") == (host_header or "").strip().lower()
    return False


def cookie_header(value: str, max_age: int) -> str:
    """The session cookie: script cannot read it, other sites never send it."""
    return f"{COOKIE}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age}"
