"""Login links, asked for over the bus (``memory.admin.page``, which
``ovos-memory page`` sends), and the address they point to."""
import fcntl
import ipaddress
import socket
import struct
from typing import List

from ovos_memory_service.common.errors import InvalidRequest, Unavailable
from ovos_memory_service.common.scope import Scope, check_id
from ovos_memory_service.common.wire import iso_time
from ovos_memory_service.edge.page.guard import is_loopback

SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address
ACTIONS = ("link", "revoke")


def lan_addresses() -> List[str]:
    """This machine's IPv4 addresses other than loopback, read from its
    interfaces (no packet is sent, no name is resolved)."""
    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for _, name in socket.if_nameindex():
            try:
                answer = fcntl.ioctl(probe.fileno(), SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
            except OSError:  # no IPv4 address on it
                continue
            address = socket.inet_ntoa(answer[20:24])
            if not ipaddress.ip_address(address).is_loopback and address not in found:
                found.append(address)
    return found


def page_url(settings: dict, host: str, port: int) -> str:
    """The page's base URL: ``page.url`` if set; else the address it listens
    on, and for every address (0.0.0.0, ::) the machine's first LAN address."""
    if settings.get("url"):
        return settings["url"].rstrip("/")
    if host in ("0.0.0.0", "::", "[::]"):
        lan = lan_addresses()
        host = lan[0] if lan else "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}"


def page_request(server, scope: Scope, data: dict) -> dict:
    """``memory.admin.page``: ``action`` "link" (a one-time login link, the
    owner's, or with ``user_id`` that user's only) or "revoke" (every link
    and session, or that user's)."""
    if server is None or server.bound is None:
        raise Unavailable("the memory page is off (memory_service.page.enabled), or could not listen")
    action = data.get("action", "link")
    if action not in ACTIONS:
        raise InvalidRequest('action must be "link" or "revoke"')
    user_id = data.get("user_id")
    if user_id is not None:
        check_id(user_id, "user_id")
    if action == "revoke":
        return {"revoked": server.access.revoke(user_id)}
    token, expires_at = server.access.new_link(user_id)
    return {"url": f"{server.url}/login?token={token}", "user_id": user_id, "expires_at": iso_time(expires_at),
            "loopback_only": is_loopback(server.bound[0])}
