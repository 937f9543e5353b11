"""The bus edge: the daemon's lifecycle and one reply for every request."""
import threading
from typing import Callable, Optional

from ovos_bus_client import Message, MessageBusClient
from ovos_utils.log import LOG
from ovos_utils.process_utils import ProcessStatus, StatusCallbackMap

from ovos_memory_service import systemd
from ovos_memory_service.client import ResilientBusClient
from ovos_memory_service.config import build_config, read_mycroft_conf
from ovos_memory_service.engine import MemoryEngine
from ovos_memory_service.errors import InvalidRequest, MemoryServiceError
from ovos_memory_service.handlers import HANDLERS
from ovos_memory_service.scope import resolve_scope
from ovos_memory_service.store import StoreLocked

MAX_REQUEST_ID = 128
DRAIN_TIMEOUT_S = 30


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
        self._config_given = config is not None
        self.config = build_config(config if self._config_given else read_mycroft_conf())
        self.bus = bus
        self._own_bus = bus is None
        self.engine = MemoryEngine(self.config)
        self.status = ProcessStatus("memory", callback_map=StatusCallbackMap(
            on_ready=ready_hook, on_error=error_hook, on_stopping=stopping_hook))
        self._inflight = 0
        self._idle = threading.Condition()
        self._accepting = False
        self.skill = None  # the voice commands (skill.py), hosted once the bus is up

    # ----------------------------------------------------------------- life
    def start(self, stop_event: Optional[threading.Event] = None) -> bool:
        """Open the store, join the bus (waiting for it if it is not up yet),
        answer requests. False if ``stop_event`` was set while waiting."""
        self.status.set_started()
        while True:  # the store's lock: ovos-memory may be importing into it
            try:
                self.engine.open(lock_timeout=5)
                break
            except StoreLocked:
                LOG.info("waiting for the memory store, held by another process")
                if stop_event is not None and stop_event.is_set():
                    return False
        if self.bus is None:
            self.bus = ResilientBusClient()
            self.bus.run_in_thread()
        self.status.bind(self.bus)
        for msg_type in HANDLERS:
            self.bus.on(msg_type, self._serve)
        while not self.bus.connected_event.wait(1):
            if stop_event is not None and stop_event.is_set():
                return False
            LOG.debug("waiting for the messagebus")
        self._accepting = True
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
            for msg_type in HANDLERS:
                self.bus.remove(msg_type, self._serve)
        self.engine.close()
        if self._own_bus and self.bus is not None:
            self.bus.close()

    def reload(self):
        """SIGHUP: read mycroft.conf again; a bad config keeps the old one."""
        try:
            from ovos_config import Configuration
            Configuration.reload()
            config = build_config(read_mycroft_conf())
            self.engine.reload(config)
        except Exception:
            LOG.exception("configuration reload failed; keeping the running configuration")
            return
        self.config = config
        if self.skill is not None:
            self.skill.memory_config = config
        if self.bus is not None and self._accepting and config["voice_commands"]:
            self.host_skill()
        elif not config["voice_commands"]:
            self.unhost_skill()
        LOG.info("configuration reloaded")

    # ------------------------------------------------------- voice commands
    def host_skill(self):
        """Register the voice commands with ovos-core over this process's bus
        connection; the memory service runs on without them if they fail."""
        if self.skill is not None or not self.config["voice_commands"]:
            return
        try:
            from ovos_memory_service.skill import MemorySkill
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
        reply = {}
        if isinstance(request_id, (str, int, float)) and not isinstance(request_id, bool):
            reply["request_id"] = request_id
        if not self._enter():
            reply.update(ok=False, error={"code": "unavailable",
                                          "message": "the memory service is busy or stopping"})
            return self._reply(message, reply)
        try:
            if data is None:
                raise InvalidRequest("message data must be an object")
            if request_id is not None and (not isinstance(request_id, str)
                                           or len(request_id) > MAX_REQUEST_ID):
                raise InvalidRequest(f"request_id must be a string of at most {MAX_REQUEST_ID} characters")
            context = message.context if isinstance(message.context, dict) else {}
            scope = resolve_scope(data, context, self.config["users"], self.config["lang"])
            reply.update(ok=True, **HANDLERS[message.msg_type](self.engine, scope, data))
        except MemoryServiceError as e:
            reply.update(ok=False, error={"code": e.code, "message": str(e)})
        except Exception as e:
            LOG.exception(f"{message.msg_type} failed")
            reply.update(ok=False, error={"code": "internal", "message": f"{type(e).__name__}"})
        finally:
            self._leave()
        self._reply(message, reply)

    def _reply(self, message: Message, data: dict):
        try:
            self.bus.emit(message.response(data))
        except Exception:
            LOG.exception(f"could not reply to {message.msg_type}")
            error = {"code": "internal", "message": "the reply could not be sent"}
            fallback = {k: v for k, v in data.items() if k == "request_id"}
            self.bus.emit(message.response({**fallback, "ok": False, "error": error}))

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
