"""A small client for the service's bus protocol, correlating replies by
``request_id`` (the bus broadcasts every reply to every client)."""
import json
import re
import socket
import threading
import uuid
from typing import Optional

from ovos_bus_client import Message, MessageBusClient
from ovos_utils.log import LOG


class MemoryTimeout(TimeoutError):
    pass


# larger frames are skipped unread; ovos-messagebus's max_msg_size (10 MiB by
# default) is smaller, so a request the bus forwards gets a reply (too_large)
MAX_FRAME_BYTES = 16 * 1024 * 1024


class ResilientBusClient(MessageBusClient):
    """A bus client that no frame from another local client can knock offline.

    - websocket-client checks the UTF-8 of text frames in pure Python (seconds
      for a frame of some MB) and drops the connection on invalid UTF-8, which
      ovos-messagebus sends whenever a client sends a binary frame: here the
      frame is decoded in on_message instead, and skipped if it is not UTF-8.
    - frames over MAX_FRAME_BYTES, and frames that are not a JSON object with
      a string ``type``, are skipped before any other work.
    - ovos-bus-client 1.5 parses ``context.session`` of every message; when
      data, context or session are not objects it raises, or reads them as
      empty. Such messages are delivered as sent (without session tracking),
      so that handlers can refuse them with an error.

    ``arrival_hooks`` are called with each message (a dict) on the receiving
    thread, in the bus's order, before any handler runs (handlers run in a pool).
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.arrival_hooks = []

    def run_forever(self):
        self.started_running = True
        self.client.run_forever(skip_utf8_validation=True)

    def on_message(self, *args):
        _quick_ack(self.client)
        frame = _frame_text(args[-1])
        if frame is None:
            return
        try:
            raw = json.loads(frame)
        except RecursionError:  # nested deeper than the decoder can recurse
            raw = too_deep_message(frame)
            if raw is None:
                LOG.warning("skipped a bus message nested too deep to read")
                return
        except ValueError:
            LOG.warning("skipped a bus message that is not JSON")
            return
        if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
            LOG.warning("skipped a bus message without a type")
            return
        for hook in self.arrival_hooks:
            try:
                hook(raw)
            except Exception:
                LOG.exception("a bus arrival hook failed")
        if _well_formed(raw) and not (raw.get("context") or {}).get(TOO_DEEP):
            try:
                return super().on_message(*args[:-1], frame)
            except Exception:
                LOG.debug("a bus message ovos-bus-client cannot read; delivered as sent")
        message = Message(raw["type"])
        message.data = {} if raw.get("data") is None else raw["data"]
        message.context = {} if raw.get("context") is None else raw["context"]
        self.emitter.emit(message.msg_type, message)


# JSON's tokens but "," (strings, other scalars, brackets, the colon after a member's name)
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[-+.\w]+|[][{}:]')
TOO_DEEP = "__too_deep__"  # context key of a message read by too_deep_message


def too_deep_message(frame: str) -> Optional[dict]:
    """A frame that Python's JSON decoder, which recurses, cannot read for its
    depth, as ``{"type", "data": {"request_id"}, "context": {TOO_DEEP: True}}``
    so that its handler can answer it; None if it has no string ``type``.
    Only ``type`` and ``data.request_id`` are read, walking the tokens in a loop."""
    path = []          # per open container: the member it is the value of (None: top, or in a list)
    name = None        # the member whose value comes next
    candidate = None   # a string that is a member's name if a colon follows
    found = {}
    for token in _JSON_TOKENS.finditer(frame):
        text = token.group()
        if text == ":":
            name, candidate = candidate, None
        elif text in ("{", "["):
            path.append(name)
            name = candidate = None
        elif text in ("}", "]"):
            if path:
                path.pop()
            name = candidate = None
        elif name is None:
            candidate = text
        else:
            if (path, name) in (([None], '"type"'), ([None, '"data"'], '"request_id"')):
                found.setdefault(name, text)
            name = None
    values = {}
    for key, text in found.items():
        try:
            values[json.loads(key)] = json.loads(text)
        except ValueError:
            pass
    if not isinstance(values.get("type"), str):
        return None
    data = {"request_id": values["request_id"]} if "request_id" in values else {}
    return {"type": values["type"], "data": data, "context": {TOO_DEEP: True}}


def _quick_ack(app):
    """Re-arm TCP_QUICKACK on the bus socket (Linux): ovos-messagebus (tornado,
    without TCP_NODELAY) holds each small write until the previous one is
    acknowledged, and a delayed ACK takes about 40 ms; the kernel drops the
    option again after a while, hence after every receive."""
    quick_ack = getattr(socket, "TCP_QUICKACK", None)
    sock = getattr(getattr(app, "sock", None), "sock", None)
    if quick_ack is not None and sock is not None:
        try:
            sock.setsockopt(socket.IPPROTO_TCP, quick_ack, 1)
        except OSError:  # closed meanwhile
            pass


def _frame_text(frame) -> Optional[str]:
    """A frame as text, or None (logged) if it is too large or not UTF-8."""
    if len(frame) > MAX_FRAME_BYTES:
        LOG.warning(f"skipped a bus message of {len(frame)} bytes (the limit is {MAX_FRAME_BYTES})")
        return None
    if isinstance(frame, str):
        return frame
    try:
        return frame.decode("utf-8")
    except UnicodeDecodeError:
        LOG.warning("skipped a bus frame that is not UTF-8")
        return None


def _well_formed(raw: dict) -> bool:
    """True if ovos-bus-client reads the message as sent."""
    data, context = raw.get("data"), raw.get("context")
    if not isinstance(data, (dict, type(None))) or not isinstance(context, (dict, type(None))):
        return False
    return isinstance((context or {}).get("session"), (dict, type(None)))


class MemoryClient:
    def __init__(self, bus: MessageBusClient):
        self.bus = bus
        self._pending = {}
        self._lock = threading.Lock()
        self._listening = set()

    def request(self, msg_type: str, data: Optional[dict] = None, context: Optional[dict] = None,
                timeout: float = 10.0) -> dict:
        """Send a request and return its reply's data (``ok``, ``error``...)."""
        data = dict(data or {})
        request_id = data.setdefault("request_id", uuid.uuid4().hex)
        reply_type = f"{msg_type}.response"
        waiter = {"event": threading.Event(), "data": None}
        with self._lock:
            if reply_type not in self._listening:
                self.bus.on(reply_type, self._on_reply)
                self._listening.add(reply_type)
            self._pending[request_id] = waiter
        try:
            self.bus.emit(Message(msg_type, data, context or {}))
            if not waiter["event"].wait(timeout):
                raise MemoryTimeout(f"no reply to {msg_type} within {timeout} s")
            return waiter["data"]
        finally:
            with self._lock:
                self._pending.pop(request_id, None)

    def _on_reply(self, message: Message):
        request_id = message.data.get("request_id") if isinstance(message.data, dict) else None
        with self._lock:
            waiter = self._pending.get(request_id) if isinstance(request_id, (str, int)) else None
        if waiter is not None:
            waiter["data"] = message.data
            waiter["event"].set()

    def close(self):
        with self._lock:
            for reply_type in self._listening:
                self.bus.remove(reply_type, self._on_reply)
            self._listening.clear()
