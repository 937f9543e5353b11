"""The page's HTTP server: the standard library's WSGI server, one thread
per connection, owned by the daemon (edge/service.py starts it after the
store is open and stops it before the store closes).

Bounded: at most MAX_CONNECTIONS at once (more are closed at once), each
socket times out after TIMEOUT_S, bodies are capped (``page.max_upload_mb``),
and the access log names the method, the path without its query, the
status and the client's address (refusals at INFO, the rest at DEBUG):
never a token or a memory's text.
"""
import socket
import threading
from socketserver import ThreadingMixIn
from typing import Optional
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from ovos_utils.log import LOG

from ovos_memory_service.edge.page.access import PageAccess
from ovos_memory_service.edge.page.app import build_app
from ovos_memory_service.edge.page.links import page_url
from ovos_memory_service.engine.engine import MemoryEngine

MAX_CONNECTIONS = 32
TIMEOUT_S = 15


class _Handler(WSGIRequestHandler):
    timeout = TIMEOUT_S
    server_version = "ovos-memory-page"
    sys_version = ""

    def log_request(self, code="-", size="-"):
        """Refusals at INFO (an operator sees who knocks), the rest at DEBUG."""
        path = (self.path or "").split("?", 1)[0]
        status = int(code) if str(code).isdigit() else 0
        (LOG.info if status >= 400 else LOG.debug)(f"page: {self.command} {path} {code} from {self.client_address[0]}")

    def log_message(self, format, *args):  # errors of the HTTP layer: no request line (it has the query)
        LOG.debug(f"page: {self.address_string()} refused a malformed request")


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = False
    block_on_close = True  # server_close() waits for the requests being answered
    allow_reuse_address = True
    request_queue_size = 16

    def __init__(self, address, family):
        self.address_family = family
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(address, _Handler)

    def server_bind(self):
        if self.address_family == socket.AF_INET6:  # "::" is IPv6 only, as written
            self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        super().server_bind()

    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)  # full: closed at once, no thread
            return
        try:
            super().process_request(request, client_address)
        except Exception:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request, client_address):
        LOG.exception("page: a request failed")


class PageServer:
    """``start()`` binds and serves in the ``memory-page`` thread; ``stop()``
    stops taking connections, waits for those being answered and closes."""

    def __init__(self, engine: MemoryEngine, config: dict, access: Optional[PageAccess] = None):
        # the service's configuration (the same dict the engine reads): its "page" block
        self.config = config
        self.engine = engine
        self.access = access or PageAccess(lambda: self.config["page"])
        self.changes = {}  # user_id -> how many changes the page has seen (live updates)
        self._server: Optional[_ThreadingServer] = None
        self._thread: Optional[threading.Thread] = None
        self.bound = None  # (host, port) once started

    @property
    def settings(self) -> dict:
        return self.config["page"]

    def start(self):
        host, port = self.settings["host"], self.settings["port"]
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._server = _ThreadingServer((host.strip("[]"), port), family)
        self.bound = (host, self._server.server_address[1])
        self._server.set_app(build_app(self))
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="memory-page", daemon=True)
        self._thread.start()
        self.engine.forget_listeners.append(self._forgotten)
        self.engine.pause_listeners.append(self._paused)
        LOG.info(f"the memory page listens on {self.url} (ovos-memory page prints a link to open it)")

    def stop(self):
        if self._server is None:
            return
        for listeners, listener in ((self.engine.forget_listeners, self._forgotten),
                                    (self.engine.pause_listeners, self._paused)):
            if listener in listeners:
                listeners.remove(listener)
        self._server.shutdown()
        self._thread.join()
        self._server.server_close()  # joins the request threads
        self._server = self._thread = None

    @property
    def url(self) -> str:
        return page_url(self.settings, *self.bound)

    # ------------------------------------------------------- live updates
    def changed(self, user_id: str):
        self.changes[user_id] = self.changes.get(user_id, 0) + 1

    def _forgotten(self, user_id: str, ids):
        self.changed(user_id)

    def _paused(self, scope, where, paused):
        self.changed(scope.user_id)
