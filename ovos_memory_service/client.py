"""A small client for the service's bus protocol, correlating replies by
``request_id`` (the bus broadcasts every reply to every client)."""
import json
import threading
import uuid
from typing import Optional

from ovos_bus_client import Message, MessageBusClient
from ovos_utils.log import LOG


class MemoryTimeout(TimeoutError):
    pass


class ResilientBusClient(MessageBusClient):
    """A bus client that one malformed message cannot knock offline.

    ovos-bus-client 1.5 parses ``context.session`` of every message it
    receives; when that is not an object it raises inside the websocket
    callback and the client drops its connection for 5 s or more. Any local
    client could do that to the service, so such messages are delivered anyway
    (without session tracking), and with their data as sent even when that is
    not an object, so that handlers can answer them with an error.
    """

    def on_message(self, *args):
        try:
            super().on_message(*args)
        except Exception:
            try:
                raw = json.loads(args[-1])
                context = raw.get("context")
                parsed = Message(str(raw["type"]), {}, context if isinstance(context, dict) else {})
                parsed.data = raw.get("data")
            except Exception:
                LOG.warning("skipped an undecodable bus message")
                return
            self.emitter.emit(parsed.msg_type, parsed)


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
