"""A real ovos-messagebus and a real ovos-memory-service in an XDG sandbox.

ovos_config fixes its paths when it is imported, so every process gets its
own environment before Python starts (DESIGN.md).
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from ovos_bus_client import MessageBusClient

from ovos_memory_service.common.client import MemoryClient, ResilientBusClient
from ovos_memory_service.models.reranker import RERANK_LOADING


def verified(session_id: str, **session) -> dict:
    """The serialized Session of a speaker verified just now (auth_level 3,
    OVOS-USER-ID-1): a request that names a user_id needs it for that user's
    long-term memories to enter a memory.context.build (common/access.py)."""
    return {"session_id": session_id, "auth_level": 3, "authenticated_at": time.time(), **session}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sandbox_env(root: Path, port: int, memory_config: dict = None, lang: str = "en-us") -> dict:
    """Environment for processes whose whole OVOS world lives under ``root``
    (mycroft.conf's ``lang``: the device's language)."""
    env = dict(os.environ)
    for key in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        env[key] = str(root / key.lower())
        os.makedirs(env[key], exist_ok=True)
    env["HOME"] = str(root)
    env["XDG_CONFIG_DIRS"] = str(root / "etc-xdg")
    env["MYCROFT_SYSTEM_CONFIG"] = str(root / "etc-mycroft.conf")
    env["OVOS_DISTRIBUTION_CONFIG"] = str(root / "distribution.conf")
    env.pop("NOTIFY_SOCKET", None)
    write_config(env, port, memory_config, lang)
    return env


def write_config(env: dict, port: int, memory_config: dict = None, lang: str = "en-us"):
    conf_dir = Path(env["XDG_CONFIG_HOME"]) / "mycroft"
    conf_dir.mkdir(parents=True, exist_ok=True)
    conf = {"websocket": {"host": "127.0.0.1", "port": port, "route": "/core"},
            "lang": lang,
            "memory_service": memory_config or {}}
    (conf_dir / "mycroft.conf").write_text(json.dumps(conf))


def start_bus(env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "ovos_messagebus"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_service(env: dict, log_path: Path = None) -> subprocess.Popen:
    out = open(log_path, "ab") if log_path else subprocess.DEVNULL
    return subprocess.Popen([sys.executable, "-m", "ovos_memory_service"], env=env,
                            stdout=out, stderr=subprocess.STDOUT)


def stop(proc: subprocess.Popen, sig=signal.SIGTERM, timeout: float = 15) -> int:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode


def wait_port(port: int, timeout: float = 15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


def connect(port: int, timeout: float = 15) -> MessageBusClient:
    wait_port(port, timeout)
    deadline = time.monotonic() + timeout
    while True:
        bus = ResilientBusClient(host="127.0.0.1", port=port, route="/core")
        bus.run_in_thread()
        if bus.connected_event.wait(min(2, max(0.1, deadline - time.monotonic()))):
            return bus
        bus.close()
        if time.monotonic() > deadline:
            raise TimeoutError("the messagebus did not come up")


def wait_ready(client: MemoryClient, timeout: float = 30):
    """Poll mycroft.memory.is_ready until the service says it is ready."""
    from ovos_bus_client import Message
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        reply = client.bus.wait_for_response(Message("mycroft.memory.is_ready"), timeout=1)
        if reply and reply.data.get("status"):
            return
        time.sleep(0.2)
    raise TimeoutError("the memory service did not become ready")


class Stack:
    """A bus, the service, and a client, in one sandbox; ``lang`` is the
    device's language (mycroft.conf)."""

    def __init__(self, root: Path, memory_config: dict = None, lang: str = "en-us"):
        self.root = root
        self.port = free_port()
        memory_config = dict(memory_config or {})
        # the memory page on a free port of its own (8760 is one daemon's at a time)
        page = {"port": 0, **memory_config.pop("page", {})}
        self.memory_config = {"data_dir": str(root / "memory"), "page": page, **memory_config}
        self.lang = lang
        self.env = sandbox_env(root, self.port, self.memory_config, lang)
        self.log = root / "service.log"
        self.bus_proc = start_bus(self.env)
        try:
            self.bus = connect(self.port)
        except Exception:
            stop(self.bus_proc)
            raise
        self.client = MemoryClient(self.bus)
        self.service = None

    @property
    def data_dir(self) -> Path:
        return Path(self.memory_config["data_dir"])

    def start_service(self, wait=True):
        """Start the daemon; with ``wait``, until it is ready and its model loaded
        (it answers before, by keywords: tests/store/test_store_work.py)."""
        self.service = start_service(self.env, self.log)
        if wait:
            wait_ready(self.client)
            deadline = time.monotonic() + 60
            while (stats := self.request("memory.stats")).get("semantic_recall") == "loading" \
                    or stats.get("rerank_error") == RERANK_LOADING:
                if time.monotonic() > deadline:
                    raise TimeoutError("the daemon's model did not load")
                time.sleep(0.1)
        return self.service

    def stop_service(self, sig=signal.SIGTERM) -> int:
        return stop(self.service, sig)

    def restart_service(self):
        self.stop_service()
        self.start_service()

    def request(self, msg_type: str, data: dict = None, session_id: str = None, timeout=10, **ctx):
        context = dict(ctx)
        if session_id is not None:
            context["session"] = {"session_id": session_id, **context.pop("session", {})}
        return self.client.request(msg_type, data, context, timeout=timeout)

    def ok(self, msg_type: str, data: dict = None, **kw) -> dict:
        reply = self.request(msg_type, data, **kw)
        assert reply.get("ok") is True, reply
        return reply

    def page_link(self, user_id: str = None) -> str:
        """A one-time login link to the daemon's memory page (``ovos-memory page``'s request)."""
        return self.ok("memory.admin.page", {"user_id": user_id} if user_id else {})["url"]

    def close(self):
        if self.service is not None:
            stop(self.service)
        self.client.close()
        self.bus.close()
        stop(self.bus_proc)
