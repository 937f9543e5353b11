"""The bus edge: the daemon's lifecycle and one reply for every request."""
import threading
import time
from typing import Callable, Optional

from ovos_bus_client import Message, MessageBusClient
from ovos_utils.log import LOG
from ovos_utils.process_utils import ProcessStatus, StatusCallbackMap

from ovos_memory_service.edge import systemd
from ovos_memory_service.common.client import TOO_DEEP, ResilientBusClient
from ovos_memory_service.common.config import build_config, read_mycroft_conf, reload_mycroft_conf
from ovos_memory_service.engine.engine import MemoryEngine
from ovos_memory_service.common.errors import InvalidRequest, MemoryServiceError, StoreLocked
from ovos_memory_service.edge.handlers import HANDLERS
from ovos_memory_service.edge.page.access import PageAccess
from ovos_memory_service.edge.page.links import page_request
from ovos_memory_service.edge.page.server import PageServer
from ovos_memory_service.edge.skill import MemorySkill
from ovos_memory_service.common.scope import Scope, check_id, resolve_scope
from ovos_memory_service.store import storage_unavailable
from ovos_memory_service.common.wire import MAX_DEPTH, check_json, has_surrogate, iso_time, json_problem

MAX_REQUEST_ID = 128
DRAIN_TIMEOUT_S = 30
# requests the daemon answers itself, beside the engine's (edge/handlers.py)
SERVICE_REQUESTS = ("memory.admin.page",)
# a success of one of these clears the last storage error memory.stats reports
WRITES = ("memory.history.update", "memory.remember", "memory.forget", "memory.pause", "memory.resume",
          "memory.session.new", "memory.persona.configure", "memory.admin.import",
          "memory.admin.reindex", "memory.admin.compact")


def _log_ready():
    LOG.info("memory service ready")


def _log_error(e="unknown"):
    LOG.error(f"memory service failed: {e}")


def _log_stopping():
    LOG.info("memory service stopping")


class MemoryService:
    """Constructed with no side effects; ``start()`` opens the store and joins
    the bus, ``shutdown()`` finishes in-flight requests and closes everything."""

    def __init__(self, bus: Optional[MessageBusClient] = None, config: Optional[dict] = None,
                 ready_hook: Callable = _log_ready, error_hook: Callable = _log_error,
                 stopping_hook: Callable = _log_stopping):
        # the service's configuration, held here and by the engine (the same dict)
        self.config = build_config(config if config is not None else read_mycroft_conf())
        self.bus = bus
        self._own_bus = bus is None
        self.engine = MemoryEngine(self.config)
        self.status = ProcessStatus("memory", callback_map=StatusCallbackMap(
            on_ready=ready_hook, on_error=error_hook, on_stopping=stopping_hook))
        self._inflight = 0
        self._idle = threading.Condition()
        self._accepting = False
        self.skill = None  # the voice commands (edge/skill.py), hosted once the bus is up
        self.page = None  # the memory page (edge/page/), served once the store is open
        # who may open the page: kept across the page's restarts (a reload that moves it)
        self.page_access = PageAccess(lambda: self.config["page"])
        self.handlers = {**HANDLERS, "memory.admin.page": lambda engine, scope, data: page_request(
            self.page, scope, data)}

    # ----------------------------------------------------------------- life
    def start(self, stop_event: Optional[threading.Event] = None) -> bool:
        """Open the store, join the bus (waiting for it if it is not up yet),
        answer requests. False if ``stop_event`` was set while waiting."""
        self.status.set_started()
        while True:  # the store's lock: ovos-memory may be importing into it
            try:
                self.engine.open(lock_timeout=5, holder="daemon", semantic="background")
                break
            except StoreLocked as e:
                if e.holder == "daemon":
                    raise  # another daemon serves this store and never lets go
                LOG.info(f"waiting: {e}")
                if stop_event is not None and stop_event.is_set():
                    return False
        self.engine.forget_listeners.append(self._announce_forgotten)
        self.engine.pause_listeners.append(self._announce_pause)
        if self.bus is None:
            self.bus = ResilientBusClient()
            self.bus.run_in_thread()
        self.status.bind(self.bus)
        for msg_type in self.handlers:
            self.bus.on(msg_type, self._serve)
        while not self.bus.connected_event.wait(1):
            if stop_event is not None and stop_event.is_set():
                return False
            LOG.debug("waiting for the messagebus")
        self._accepting = True
        self.serve_page()
        self.host_skill()
        self.bus.on("mycroft.skills.initialized", self._rehost_skill)
        self.status.set_ready()
        systemd.notify("READY=1")
        return True

    def shutdown(self):
        self.status.set_stopping()
        systemd.notify("STOPPING=1")
        self._accepting = False
        with self._idle:  # finish the requests already being served
            if not self._idle.wait_for(lambda: self._inflight == 0, DRAIN_TIMEOUT_S):
                LOG.error(f"{self._inflight} requests still running at shutdown")
        if self.bus is not None:
            self.bus.remove("mycroft.skills.initialized", self._rehost_skill)
            self.unhost_skill()
            for msg_type in self.handlers:
                self.bus.remove(msg_type, self._serve)
        self.stop_page()
        self.engine.close()
        if self._own_bus and self.bus is not None:
            self.bus.close()

    def reload(self):
        """SIGHUP: read mycroft.conf again; a bad config keeps the old one."""
        try:
            config = build_config(reload_mycroft_conf())
            page_before = dict(self.config["page"])
            self.engine.reload(config)
        except Exception:
            LOG.exception("configuration reload failed; keeping the running configuration")
            return
        if self._accepting and self.config["page"] != page_before:
            self.stop_page()
            self.serve_page()
        if self.bus is not None and self._accepting and self.config["voice_commands"]:
            self.host_skill()
        elif not self.config["voice_commands"]:
            self.unhost_skill()
        LOG.info("configuration reloaded")

    # ------------------------------------------------------------ the page
    def serve_page(self):
        """Serve the memory page (docs/page.md); the memory service runs on
        without it if it cannot listen (the port is taken, say)."""
        if self.page is not None or not self.config["page"]["enabled"]:
            return
        page = PageServer(self.engine, self.config, self.page_access)
        try:
            page.start()
        except OSError as e:
            LOG.error(f"the memory page cannot listen on {self.config['page']['host']}:"
                      f"{self.config['page']['port']} ({e}); the memory service runs without it")
            return
        self.page = page

    def stop_page(self):
        if self.page is not None:
            self.page.stop()
            self.page = None

    # ------------------------------------------------------- voice commands
    def host_skill(self):
        """Register the voice commands with ovos-core over this process's bus
        connection; the memory service runs on without them if they fail."""
        if self.skill is not None or not self.config["voice_commands"]:
            return
        try:
            self.skill = MemorySkill.create(self.bus, self.engine, self.config)
            self.bus.emit(Message("mycroft.skills.train"))  # intent engines that train (padatious)
        except Exception:
            LOG.exception("voice commands unavailable; the memory service runs without them")

    def unhost_skill(self):
        if self.skill is None:
            return
        try:
            self.skill.default_shutdown()  # detaches its intents from ovos-core
        except Exception:
            LOG.exception("voice commands did not shut down cleanly")
        self.skill = None

    def _rehost_skill(self, _message=None):
        """ovos-core (re)started and knows no intents of ours: register them again."""
        self.unhost_skill()
        self.host_skill()

    # ------------------------------------------------------------- requests
    def _serve(self, message: Message):
        """Exactly one reply per request, whatever happens."""
        data = message.data if isinstance(message.data, dict) else None
        request_id = data.get("request_id") if data else None
        reply = {"request_id": request_id} if _can_echo(request_id) else {}
        if not self._enter():
            reply.update(ok=False, error={"code": "unavailable",
                                          "message": "the memory service is busy or stopping"})
            return self._reply(message, reply)
        try:
            scope = self._checked_scope(message, data)
            reply.update(ok=True, **self.handlers[message.msg_type](self.engine, scope, data))
            if message.msg_type in WRITES:
                self.engine.storage_error = None
        except MemoryServiceError as e:
            reply.update(ok=False, error={"code": e.code, "message": str(e)})
        except Exception as e:
            reply.update(ok=False, error=self._unexpected(message.msg_type, e))
        finally:
            self._leave()
        self._reply(message, reply)

    def _checked_scope(self, message: Message, data: Optional[dict]) -> Scope:
        """Check what every request shares, then resolve whose memory it acts on."""
        if data is None:
            raise InvalidRequest("message data must be an object")
        context = {} if message.context is None else message.context
        if not isinstance(context, dict):
            raise InvalidRequest("message context must be an object")
        if context.get(TOO_DEEP):  # too deep for the JSON decoder (client.too_deep_message)
            raise InvalidRequest(f"the message nests deeper than {MAX_DEPTH} levels")
        check_json(data, "data")
        check_json(context, "context")
        if data.get("request_id") not in (None, ""):
            check_id(data["request_id"], "request_id", MAX_REQUEST_ID)
        return resolve_scope(data, context, self.config["users"], self.config["lang"])

    def _unexpected(self, msg_type: str, error: Exception) -> dict:
        """The reply's error for an exception no handler expected."""
        unavailable = storage_unavailable(error)
        if unavailable is None:
            LOG.exception(f"{msg_type} failed")
            return {"code": "internal", "message": type(error).__name__}
        LOG.error(f"{msg_type}: storage error: {type(error).__name__}: {error}")
        self.engine.storage_error = {"message": str(unavailable), "at": iso_time(time.time())}
        return {"code": unavailable.code, "message": str(unavailable)}

    def _reply(self, message: Message, data: dict):
        """Send the reply; without the request's context if that cannot be
        copied, and as a bare error if the data cannot be sent."""
        reply_type = f"{message.msg_type}.response"
        for build in (lambda: message.response(data), lambda: Message(reply_type, data),
                      lambda: Message(reply_type, _unsent(data))):
            try:
                return self.bus.emit(_sendable(build()))
            except Exception as e:  # expected for a refused context; a lost ok reply is news
                log = LOG.warning if data.get("ok") else LOG.debug
                log(f"could not send a reply to {message.msg_type}: {type(e).__name__}")

    def _announce_forgotten(self, user_id: str, ids: list):
        """Tell the bus which memories are gone (ids only: other clients may cache them)."""
        if self.bus is not None:
            self.bus.emit(Message("memory.forgotten", {"user_id": user_id, "ids": list(ids)}))

    def _announce_pause(self, scope: Scope, where: str, paused: bool):
        """Tell the bus a user's memory was paused or resumed (``session_id``
        null: every session of the user): the persona plugins' local windows
        stop taking what is said while paused, even when the daemon is away."""
        if self.bus is not None:
            self.bus.emit(Message("memory.paused", {
                "user_id": scope.user_id, "session_id": scope.session_id if where == "session" else None,
                "paused": paused}))

    def _enter(self) -> bool:
        with self._idle:
            if not self._accepting or self._inflight >= self.config["max_pending_requests"]:
                return False
            self._inflight += 1
            return True

    def _leave(self):
        with self._idle:
            self._inflight -= 1
            self._idle.notify_all()


def _can_echo(request_id) -> bool:
    """Whether a request_id, valid or not, can go back in the reply."""
    if isinstance(request_id, str):
        return not has_surrogate(request_id)
    return isinstance(request_id, (int, float)) and not isinstance(request_id, bool)


def _sendable(message: Message) -> Message:
    """The message, once it is known to serialize (emit would only log the failure)."""
    message.serialize().encode("utf-8")
    return message


def _unsent(data: dict) -> dict:
    """The error reply to send when ``data`` could not be sent."""
    error = data.get("error")
    if data.get("ok") is not False or json_problem(error) is not None:
        error = {"code": "internal", "message": "the reply could not be sent"}
    return {**{k: v for k, v in data.items() if k == "request_id"}, "ok": False, "error": error}
