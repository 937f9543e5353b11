"""``ovos-memory page``: a one-time link to the memory page, asked of the
daemon over the messagebus (``memory.admin.page``), printed with a QR code to
open it from a phone; ``--revoke`` signs everyone out."""
import io
import json
import sys

import click
import segno

from ovos_memory_service.common.client import MemoryClient, MemoryTimeout, ResilientBusClient

NOT_RUNNING = ("the memory page is served by ovos-memory-service, which does not answer on the messagebus; "
               "is it running?")


def ask_daemon(data: dict, timeout: float = 10) -> dict:
    bus = ResilientBusClient()
    bus.run_in_thread()
    try:
        if not bus.connected_event.wait(5):
            raise click.ClickException(NOT_RUNNING)
        client = MemoryClient(bus)
        try:
            reply = client.request("memory.admin.page", data, timeout=timeout)
        except MemoryTimeout:
            raise click.ClickException(NOT_RUNNING)
        finally:
            client.close()
    finally:
        bus.close()
    if not reply.get("ok"):
        error = reply.get("error") or {}
        raise click.ClickException(f"{error.get('code', 'internal')}: {error.get('message', 'failed')}")
    return reply


def qr_code(url: str) -> str:
    """The link as a QR code of text blocks, for a terminal (light on dark or dark on light alike)."""
    out = io.StringIO()
    segno.make(url, error="l").terminal(out=out, compact=True)
    return out.getvalue()


@click.command()
@click.option("--user", help="a link for this user only (a household member's): it shows their memories and "
                             "nothing else")
@click.option("--revoke", is_flag=True, help="sign out every browser and cancel every unused link (with --user: "
                                             "that user's only)")
@click.option("--qr/--no-qr", default=None, help="draw the link as a QR code (default: when writing to a terminal)")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def page(user, revoke, qr, as_json):
    """Print a one-time link to the memory page, and a QR code to open it from a phone."""
    data = {"action": "revoke" if revoke else "link"}
    if user:
        data["user_id"] = user
    reply = ask_daemon(data)
    reply = {k: v for k, v in reply.items() if k not in ("ok", "request_id")}
    if as_json:
        click.echo(json.dumps(reply, ensure_ascii=False, indent=2))
        return
    if revoke:
        click.echo(f"signed out and cancelled: {reply['revoked']} (browsers and unused links"
                   + (f" of {user})" if user else ")"))
        return
    whose = f"{user}'s memories only" if user else "every user's memories (the owner's link)"
    click.echo(f"Open this link once, before {reply['expires_at']}, to see {whose}:\n\n  {reply['url']}\n")
    if qr if qr is not None else sys.stdout.isatty():
        click.echo(qr_code(reply["url"]))
    if reply.get("loopback_only"):
        click.echo("The page listens on this machine only. To open it from a phone, set "
                   "memory_service.page.host to \"0.0.0.0\" (docs/page.md), or forward the port over SSH.",
                   err=True)
