"""systemd's notify protocol: one datagram to $NOTIFY_SOCKET (Type=notify)."""
import os
import socket


def notify(state: str) -> bool:
    """Send e.g. ``READY=1``; False when not run by systemd (no NOTIFY_SOCKET)."""
    address = os.environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):  # abstract namespace socket
        address = "\0" + address[1:]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.connect(address)
        sock.sendall(state.encode())
    return True
