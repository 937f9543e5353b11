"""The ovos-persona memory plugin: an ``opm.agents.memory`` plugin whose
``AgentContextManager`` keeps the persona's memory in the ovos-memory-service
daemon, over the messagebus.

ovos-persona gives the plugin only its block of the persona JSON and a
session_id, so the plugin works out the rest:

- the persona: the block's ``persona_id``, else the persona named by the bus
  message being handled (``dig_for_message()``: its ``persona_id``/``persona``
  data, else its ``session.persona_id``), else a hash of the block;
- the session and the speaker: the ``session`` of that bus message, and its
  identity (``session.user_id``, else the ``user_id``, ``auth_level`` and
  ``authenticated_at`` an identity transformer put in its context: ovos-core
  forwards sessions without them), sent along with every request;
- the daemon-side backend: the block's ``memory_module`` and that module's own
  block, sent once with ``memory.persona.configure``.

If the daemon is down or slow, the persona keeps working from a local window of
recent turns, one per speaker (persona_window.py), and updates that could not
be delivered are queued and sent, in order and with their original
``created_at``, when the daemon answers again. Updates leave in the order the
bus carried the lines they record, whatever order ovos-persona's handler
threads reach the plugin in (persona_order.py). The window drops what the
daemon announces as forgotten (``memory.forgotten``), takes nothing while the
speaker's memory is paused (``memory.paused``, and the daemon's replies), and
never takes the daemon's voice skill's lines or the commands they answer.

A block that is not valid raises ValueError, as ovos-memory-plugins does: at
load time what this process can check (the built-in backends' blocks, read by
common/blocks.py as the daemon reads them; no backend is built here), then the
daemon's own answer to ``memory.persona.configure`` (at load time when the
block names its ``persona_id`` and the daemon answers, else on first use).
"""
import atexit
import bisect
import hashlib
import json
import threading
import time
import uuid
from typing import Dict, List, NamedTuple, Optional, Tuple

from ovos_bus_client.message import Message, dig_for_message
from ovos_plugin_manager.templates.agents import AgentContextManager, AgentMessage, MessageRole
from ovos_utils.log import LOG

from ovos_memory_service.common import blocks
from ovos_memory_service.common.agent_messages import ToolCall, agent_to_wire, wire_to_agent
from ovos_memory_service.common.client import MemoryClient, MemoryTimeout, ResilientBusClient
from ovos_memory_service.common.config import read_bus_settings, read_mycroft_conf
from ovos_memory_service.common.errors import InvalidRequest
from ovos_memory_service.common.scope import resolve_scope
from ovos_memory_service.common.wire import iso_time
from ovos_memory_service.plugins.persona_order import ArrivalOrder
from ovos_memory_service.plugins.persona_window import LocalWindows, WindowKey, shared_pauses

RETRYABLE = ("unavailable",)  # error codes worth sending again later
VOICE_SKILL_ID = "ovos-memory-service.openvoiceos"  # skill.SKILL_ID: the daemon's voice commands
PLUGIN_NAME = blocks.PERSONA_PLUGIN
# what of the handled message's context goes with each request: its session, and the
# speaker's identity where an identity transformer puts it (ovos-core drops the session's)
CONTEXT_KEYS = ("session", "user_id", "auth_level", "authenticated_at", "lang")

DEFAULTS = {
    "timeout": 3.0,          # seconds to wait for a reply
    "retry_interval": 5.0,   # seconds between attempts while the daemon is away
    "local_window": 10,      # messages kept per session for when the daemon is away
    "max_queued": 1000,      # undelivered updates kept (oldest dropped beyond this)
}


# ------------------------------------------------------------- the block
def check_block(config: dict):
    """What can be checked in this process; ValueError naming the problem.
    A built-in backend's block is checked as the daemon reads it (common/blocks.py);
    any other module may be a plugin installed beside the daemon only, so the daemon checks it."""
    for key, default in DEFAULTS.items():
        value = config.get(key, default)
        whole = isinstance(default, int)
        if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)) or value <= 0:
            raise ValueError(f"{PLUGIN_NAME}: {key} must be a {'whole ' if whole else ''}number above 0, "
                             f"got {value!r}")
    persona_id = config.get("persona_id")
    if persona_id is not None and (not isinstance(persona_id, str) or not 1 <= len(persona_id) <= 100):
        raise ValueError(f"{PLUGIN_NAME}: persona_id must be a string of 1 to 100 characters")
    module = config.get("memory_module")
    if module is None:
        return
    if not isinstance(module, str) or not module.strip():
        raise ValueError(f"{PLUGIN_NAME}: memory_module must be a backend name")
    try:
        blocks.check_block(module, config.get(module) or {})
    except ValueError as e:
        raise ValueError(f"{PLUGIN_NAME}: {module}: {e}") from e


def said_by_voice_skill(message: Optional[Message]) -> bool:
    """A line the daemon's voice skill speaks (ovos-persona 0.9.0a25 records every
    skill's ``speak``; the skill's lines are not conversation)."""
    if message is None:
        return False
    data = message.data if isinstance(message.data, dict) else {}
    meta = data.get("meta") if isinstance(data.get("meta"), dict) else {}
    return VOICE_SKILL_ID in (message.context.get("skill_id"), meta.get("skill"))


# ------------------------------------------------- one bus connection per process
_clients: Dict[tuple, MemoryClient] = {}
_clients_lock = threading.Lock()


def bus_settings(block: dict) -> dict:
    """Where the messagebus is: mycroft.conf's ``websocket``, overridden by the block's ``bus``."""
    return {**read_bus_settings(), **(block.get("bus") or {})}


def shared_client(settings: dict) -> MemoryClient:
    """The process's one connection to that bus, opened on first use; its
    ``order`` numbers the messages ovos-persona records as they arrive."""
    key = (settings["host"], int(settings["port"]), settings["route"], bool(settings.get("ssl")))
    with _clients_lock:
        if key not in _clients:
            bus = ResilientBusClient(host=key[0], port=key[1], route=key[2], ssl=key[3])
            client = MemoryClient(bus)
            client.order = ArrivalOrder()
            bus.arrival_hooks.append(client.order.heard)
            bus.run_in_thread()
            if not _clients:
                atexit.register(close_connections)
            _clients[key] = client
        return _clients[key]


def users_map() -> dict:
    """mycroft.conf's ``memory_service.users`` (the daemon's session -> user map)."""
    users = read_mycroft_conf().get("users")
    return users if isinstance(users, dict) else {}


def close_connections():
    """Close the shared bus connections (registered with atexit)."""
    with _clients_lock:
        clients = list(_clients.values())
        _clients.clear()
    for client in clients:
        client.close()
        client.bus.close()


# ---------------------------------------------------- AgentMessage <-> wire dicts
def to_agent_message(msg: dict) -> Optional[AgentMessage]:
    """OPM 2.2 has no tool messages: there the recalled context of the ``tool``
    inject mode comes as a system message, and the empty tool call is left out."""
    if ToolCall is None:
        if msg.get("tool_calls") and not msg.get("content"):
            return None
        if msg.get("role") == "tool":
            msg = {**msg, "role": "system"}
    return wire_to_agent(msg)


def to_agent_messages(messages: List[dict]) -> List[AgentMessage]:
    return [m for m in map(to_agent_message, messages) if m is not None]


# ------------------------------------------------------------------ the plugin
class Update(NamedTuple):
    """An update waiting to be sent, in the order of ``number`` (persona_order.py)."""
    number: float
    persona_id: str
    context: dict
    data: dict
    entries: List[dict]     # its messages' entries in the local window
    key: WindowKey


class MemoryServiceContextManager(AgentContextManager):
    """Forwards build/update/get to ovos-memory-service; see the module docstring."""

    def __init__(self, config: Optional[dict] = None):
        super().__init__(config)
        check_block(self.config)
        self.settings = {**DEFAULTS, **{k: self.config[k] for k in DEFAULTS if k in self.config}}
        self.memory = shared_client(bus_settings(self.config))
        self.module = self.config.get("memory_module")
        self.refused: Optional[str] = None  # why the daemon refused the block
        self._configured = set()       # persona_ids the daemon has been told about
        self._queue: List[Update] = []  # undelivered updates, by number
        self._send_lock = threading.Lock()
        self.windows = LocalWindows(self.settings["local_window"])
        self.pauses = shared_pauses()
        self.users = users_map()       # the daemon's session -> user map, for whose window
        self._down_until = 0.0         # skip the bus until then after a failure
        self._hold_until = 0.0         # the first update waits for an earlier line until then
        self._retrier = None
        if self.module and self.config.get("persona_id"):
            self._ready(self.config["persona_id"])  # the daemon's check, if it answers now
            self._check_refused()
        self.bus.on("memory.forgotten", self._on_forgotten)
        self.bus.on("memory.paused", self._on_paused)

    @property
    def bus(self):
        return self.memory.bus

    @property
    def system_prompt(self) -> str:
        nested = self.config.get(self.module) if self.module else None
        return (nested or {}).get("system_prompt") or self.config.get("system_prompt", "")

    # ------------------------------------------------------- the three calls
    def build_conversation_context(self, utterance: str, session_id: str) -> List[AgentMessage]:
        persona_id, context, key = self._scope(session_id, dig_for_message(max_records=30))
        if self._daemon_ready(persona_id):
            reply = self._request("memory.context.build", {"utterance": utterance},
                                  persona_id, session_id, context)
            if reply is not None and reply.get("ok"):
                return self._with_system_prompt(to_agent_messages(reply["messages"]))
        return self._local_context(key, utterance)

    def update_history(self, new_messages: List[AgentMessage], session_id: str):
        self._check_refused()
        message = dig_for_message(max_records=30)
        number = self.memory.order.place(message, self.settings["timeout"])
        try:
            self._queue_update(new_messages, session_id, message, number)
        finally:
            self.memory.order.release(number)
        self._deliver_queue()
        self._check_refused()

    def _queue_update(self, new_messages: List[AgentMessage], session_id: str, message: Optional[Message],
                      number: float):
        persona_id, context, key = self._scope(session_id, message)
        if said_by_voice_skill(message):
            self.windows.drop_last_user_turn(key)
            new_messages = [m for m in new_messages if str(getattr(m.role, "value", m.role)) != "assistant"]
        if not new_messages:
            return
        now = iso_time(time.time())
        wire = [{**agent_to_wire(m), "created_at": now} for m in new_messages]
        entries = [] if self.pauses.paused(key[2], session_id) else self.windows.add(key, wire)
        data = {"messages": wire, "session_id": session_id, "persona_id": persona_id,
                "request_id": uuid.uuid4().hex}  # kept on retries: stored once
        with self._send_lock:
            bisect.insort(self._queue, Update(number, persona_id, context, data, entries, key),
                          key=lambda update: update.number)
            while len(self._queue) > self.settings["max_queued"]:
                self._queue.pop(0)
                LOG.warning("memory service away too long: dropped the oldest queued update")

    def get_history(self, session_id: str) -> List[AgentMessage]:
        persona_id, context, key = self._scope(session_id, dig_for_message(max_records=30))
        if self._daemon_ready(persona_id):
            reply = self._request("memory.history.get", {}, persona_id, session_id, context)
            if reply is not None and reply.get("ok"):
                return to_agent_messages(reply["messages"])
        return to_agent_messages(self.windows.messages(key))

    # ------------------------------------------------------------ whose memory
    def _scope(self, session_id: str, message: Optional[Message]) -> Tuple[str, dict, WindowKey]:
        """The persona_id, the request context and the local window's key, from
        the bus message being handled (its session, and its speaker's identity)."""
        context = {}
        named = None
        if message is not None:
            for key in CONTEXT_KEYS:
                if message.context.get(key) is not None:
                    context[key] = message.context[key]
            data = message.data if isinstance(message.data, dict) else {}
            named = data.get("persona_id") or data.get("persona")
            session = message.context.get("session")
            if not isinstance(named, str) and isinstance(session, dict):
                named = session.get("persona_id")
        if not isinstance(context.get("session"), dict) or \
                context["session"].get("session_id") != session_id:
            context["session"] = {"session_id": session_id}
        persona_id = self.persona_id(named if isinstance(named, str) else None)
        return persona_id, context, (persona_id, session_id, self._speaker(context, session_id))

    def _speaker(self, context: dict, session_id: str) -> str:
        """The user the daemon will resolve (common/scope.py): each speaker has a window."""
        try:
            return resolve_scope({}, context, self.users).user_id
        except InvalidRequest:  # the daemon refuses it too; never another speaker's window
            return f"invalid:{session_id}"

    def persona_id(self, named: Optional[str] = None) -> str:
        if self.config.get("persona_id"):
            return self.config["persona_id"]
        if named:
            return named
        block = {k: v for k, v in self.config.items() if k not in ("bus", *DEFAULTS)}
        digest = hashlib.sha256(json.dumps(block, sort_keys=True, default=str).encode()).hexdigest()
        return f"persona-{digest[:12]}"

    # ------------------------------------------------------------- the daemon
    def _request(self, msg_type: str, data: dict, persona_id: str, session_id: str,
                 context: dict) -> Optional[dict]:
        """The reply's data, or None when the daemon did not answer (then it counts as away)."""
        if time.monotonic() < self._down_until:
            return None
        if not self.bus.connected_event.wait(self.settings["timeout"]):  # else emit() blocks
            self._away(f"no messagebus connection for {msg_type}")
            return None
        data = {"session_id": session_id, "persona_id": persona_id, **data}
        try:
            reply = self.memory.request(msg_type, data, context, timeout=self.settings["timeout"])
        except MemoryTimeout as e:
            self._away(str(e))
            return None
        if not reply.get("ok") and (reply.get("error") or {}).get("code") in RETRYABLE:
            self._away(f"{msg_type}: {reply['error']}")
            return None
        if not reply.get("ok"):
            LOG.error(f"memory service refused {msg_type}: {reply.get('error')}")
        return reply

    def _daemon_ready(self, persona_id: str) -> bool:
        """The queue delivered and the persona configured; ValueError if the daemon refused the block."""
        ready = self._deliver_queue() and self._ready(persona_id)
        self._check_refused()
        return ready

    def _check_refused(self):
        if self.refused is not None:
            raise ValueError(self.refused)

    def _ready(self, persona_id: str) -> bool:
        """Tell the daemon about this persona's backend once; False if it is away
        or refused the block (then ``refused`` says why)."""
        if self.refused is not None:
            return False
        if not self.module or persona_id in self._configured:
            return time.monotonic() >= self._down_until
        reply = self._request("memory.persona.configure",
                              {"memory_module": self.module, "config": self.config.get(self.module) or {}},
                              persona_id, "default", {})
        if reply is None:
            return False
        if not reply.get("ok"):
            self.refused = f"{PLUGIN_NAME}: the memory service refused {self.module}: " \
                           f"{(reply.get('error') or {}).get('message')}"
            return False
        self._configured.add(persona_id)
        return True

    def _deliver_queue(self) -> bool:
        """Send queued updates in order; False if the daemon did not take them
        (away, or the persona not configured), True once the queue is empty or
        only waits for an earlier line (persona_order.py). After the daemon
        refused the block the queue is dropped: nothing it holds would be kept
        the way the persona was configured."""
        held = False
        with self._send_lock:
            while self._queue:
                update = self._queue[0]
                hold = self.memory.order.hold_until(update.number, update.data["session_id"])
                if hold is not None:  # an earlier line of the session is still on its way
                    self._hold_until, held = hold, True
                    break
                if not self._ready(update.persona_id):
                    break
                reply = self._request("memory.history.update", update.data, update.persona_id,
                                      update.data["session_id"], update.context)
                if reply is None:
                    break
                self._queue.pop(0)
                self._settle(update, reply)
            if self.refused is not None and self._queue:
                LOG.error(f"{self.refused}; dropped {len(self._queue)} undelivered updates")
                self._queue.clear()
            pending = bool(self._queue)
        if pending:
            self._start_retrier()
        return held or not pending

    def _settle(self, update: Update, reply: dict):
        """The daemon's answer to an update: the window keeps what it stored and
        drops what it did not (paused, or refused); the speaker's pause is known."""
        paused = bool(reply.get("paused"))
        if reply.get("ok"):
            self.pauses.replied(update.key[2], update.key[1], paused)
        if reply.get("ok") and not paused:
            self.windows.note_ids(update.entries, reply.get("ids") or [])
        else:
            self.windows.drop(update.entries)

    def _away(self, why: str):
        if time.monotonic() >= self._down_until:
            LOG.warning(f"memory service not answering ({why}); using the local window")
        self._down_until = time.monotonic() + self.settings["retry_interval"]

    def _start_retrier(self):
        """A background thread that delivers the queue once the daemon answers again."""
        if self._retrier is not None and self._retrier.is_alive():
            return

        def retry():
            while self._queue:
                time.sleep(max(0.0, self._down_until - time.monotonic(), self._hold_until - time.monotonic()) + 0.05)
                self._deliver_queue()

        self._retrier = threading.Thread(target=retry, daemon=True, name="memory-plugin-retry")
        self._retrier.start()

    def _with_system_prompt(self, messages: List[AgentMessage]) -> List[AgentMessage]:
        """Without a ``memory_module`` of its own the daemon does not know the block's
        ``system_prompt``: put it first, before the daemon's own system messages."""
        prompt = self.system_prompt.strip()
        if self.module or not prompt:
            return messages
        return [AgentMessage(role=MessageRole.SYSTEM, content=prompt), *messages]

    # ------------------------------------------------------ the local window
    def _on_forgotten(self, message: Message):
        """``memory.forgotten`` ({"user_id", "ids"}): forgotten is forgotten here too."""
        ids = message.data.get("ids") if isinstance(message.data, dict) else None
        if isinstance(ids, list):
            self.windows.forget({i for i in ids if isinstance(i, str)})

    def _on_paused(self, message: Message):
        """``memory.paused`` ({"user_id", "session_id", "paused"}): from now on
        the speaker's turns enter the local window, or not."""
        data = message.data if isinstance(message.data, dict) else {}
        user_id, session_id = data.get("user_id"), data.get("session_id")
        if isinstance(user_id, str) and isinstance(session_id, (str, type(None))) \
                and isinstance(data.get("paused"), bool):
            self.pauses.announced(user_id, session_id, data["paused"])

    def _local_context(self, key: WindowKey, utterance: str) -> List[AgentMessage]:
        """[system prompt] + recent window + [user utterance], as a plain short-term memory."""
        history = [m for m in self.windows.messages(key) if m["role"] != "system"]
        while history and history[-1]["role"] == "user":  # e.g. this utterance, already recorded
            history.pop()
        while history and history[0]["role"] != "user":
            history.pop(0)
        messages = [{"role": "system", "content": self.system_prompt.strip()}] \
            if self.system_prompt.strip() else []
        messages += history + [{"role": "user", "content": utterance.strip()}]
        return to_agent_messages(messages)
