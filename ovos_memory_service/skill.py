"""The voice commands: an OVOS skill that the memory daemon hosts on its own
bus connection, calling the engine directly.

Every command acts on the speaking user's memories in every persona
(``where="all"``); the user comes from the bus message as for any request.
The skill's own lines, and the commands it answers, are kept out of memory:
a persona that records every spoken line would otherwise store them.
"""
import threading
from functools import wraps
from typing import List, Optional

from ovos_bus_client.message import Message, dig_for_message
from ovos_bus_client.session import SessionManager
from ovos_utils import classproperty
from ovos_utils.log import LOG
from ovos_utils.process_utils import RuntimeRequirements
from ovos_workshop.decorators import intent_handler
from ovos_workshop.skills.ovos import OVOSSkill, join_word_list
from ovos_yes_no_solver import YesNoSolver

from ovos_memory_service.errors import InvalidRequest, MemoryServiceError, NotFound
from ovos_memory_service.items import KINDS, USER_FACT_KINDS, MemoryItem
from ovos_memory_service.resources import locale_dir
from ovos_memory_service.scope import Scope, resolve_scope

SKILL_ID = "ovos-memory-service.openvoiceos"
EVERYWHERE = "all"          # every persona of the speaking user
SPOKEN_ITEMS = 3            # a long list is read as its first few, then a count
MAX_WORDS_PER_ITEM = 20     # a long memory is cut short when read aloud
FORGET_LIMIT = 20           # "forget <topic>" finds at most this many (then reads them back)
SPEECH_TIMEOUT = 15         # seconds to wait for a question to be spoken
RECALLED_KINDS = tuple(k for k in KINDS if k != "attribute")  # attributes are the persona's


def answers_errors(handler):
    """A failing engine call is answered with a dialog, not with silence."""
    @wraps(handler)
    def wrapper(self, message):
        try:
            return handler(self, message)
        except MemoryServiceError:
            LOG.exception(f"{handler.__name__} failed")
            self.speak_dialog("memory.error")
    return wrapper


def spoken_item(item: MemoryItem) -> str:
    words = item.content.split()
    text = " ".join(words[:MAX_WORDS_PER_ITEM]) + (" ..." if len(words) > MAX_WORDS_PER_ITEM else "")
    return text.rstrip(" .;,")


class MemorySkill(OVOSSkill):
    """``MemorySkill(engine=..., config=..., bus=..., skill_id=SKILL_ID)``;
    ``config`` is the service's configuration (its ``users`` map and ``lang``).
    ``wait_for_speech``: a question's answer is awaited from the end of its
    speech (as the audio service reports it) rather than from its start."""

    def __init__(self, *args, engine=None, config: Optional[dict] = None,
                 wait_for_speech: bool = True, **kwargs):
        if engine is None:
            raise ValueError("the memory skill runs inside ovos-memory-service and needs its engine")
        self.engine = engine
        self.memory_config = config or {}
        self.wait_for_speech = wait_for_speech
        super().__init__(*args, resources_dir=str(locale_dir().parent), **kwargs)

    @classmethod
    def create(cls, bus, engine, config: dict) -> "MemorySkill":
        return cls(bus=bus, skill_id=SKILL_ID, engine=engine, config=config)

    @classproperty
    def runtime_requirements(self):
        return RuntimeRequirements(internet_before_load=False, network_before_load=False,
                                   requires_internet=False, requires_network=False,
                                   no_internet_fallback=True, no_network_fallback=True)

    def default_shutdown(self):
        """Once: OVOSSkill calls it again when garbage-collected, and by then
        the daemon's bus may be closed (an emit would wait forever)."""
        if not getattr(self, "_shut_down", False):
            self._shut_down = True
            super().default_shutdown()

    # ------------------------------------------------------------ plumbing
    def scope(self, message: Optional[Message] = None) -> Scope:
        """The speaking user, as the service resolves any request (never from
        the utterance: data is empty)."""
        message = message or dig_for_message() or Message("")
        context = message.context if isinstance(message.context, dict) else {}
        return resolve_scope({}, context, self.memory_config.get("users", {}),
                             self.memory_config.get("lang", ""))

    def speak(self, utterance: str, expect_response: bool = False, wait=False, meta=None):
        """Every line the skill says is kept out of the session's memory first.
        ``wait`` blocks until the audio service reports the end of this
        session's speech (the workshop's own wait needs a SessionManager bound
        to the bus, which only ovos-core's process has)."""
        try:
            self.engine.exclude_turn(self.scope(), "assistant", utterance)
        except Exception:
            LOG.exception("could not keep a spoken line out of memory")
        if not wait:
            return super().speak(utterance, expect_response, False, meta)
        session_id, ended = SessionManager.get().session_id, threading.Event()

        def on_end(message):
            if SessionManager.get(message).session_id == session_id:
                ended.set()
        self.bus.on("recognizer_loop:audio_output_end", on_end)
        try:
            super().speak(utterance, expect_response, False, meta)
            ended.wait(SPEECH_TIMEOUT if wait is True else wait)
        finally:
            self.bus.remove("recognizer_loop:audio_output_end", on_end)

    def handled(self, message: Message) -> Scope:
        """The command itself is not a memory either (a persona may have stored it)."""
        scope = self.scope(message)
        utterance = message.data.get("utterance")
        if utterance:
            self.engine.exclude_turn(scope, "user", utterance)
        return scope

    def summary(self, items: List[MemoryItem], total: int) -> str:
        """The first few items, then how many more."""
        first = [spoken_item(i) for i in items[:SPOKEN_ITEMS]]
        if total > len(first):
            return self.dialog_renderer.render("list.more", {"list": "; ".join(first),
                                                             "count": total - len(first)})
        return join_word_list(first, "and", ";", self.lang)

    def confirmed(self, dialog: str, data: dict, scope: Scope) -> Optional[bool]:
        """Ask; True only for a clear yes, False for anything else, None for silence."""
        answer = self.get_response(dialog, data, num_retries=0, wait=self.wait_for_speech)
        if not answer:
            return None
        self.engine.exclude_turn(scope, "user", answer)
        return YesNoSolver().match_yes_or_no(answer, lang=self.lang) is True

    def speak_outcome(self, confirmed: Optional[bool], done: str, data: dict):
        if confirmed is None:
            self.speak_dialog("forget.no.answer")
        elif confirmed:
            self.speak_dialog(done, data)
        else:
            self.speak_dialog("forget.kept")

    # ------------------------------------------------------------ commands
    @intent_handler("what.do.you.remember.intent")
    @answers_errors
    def handle_what_do_you_remember(self, message):
        scope = self.handled(message)
        items, total = self.engine.list(scope, USER_FACT_KINDS, SPOKEN_ITEMS, 0, EVERYWHERE)
        if total:
            self.speak_dialog("remembered.list", {"list": self.summary(items, total), "count": total})
            return
        turns = self.engine.list(scope, ("turn",), 0, 0, EVERYWHERE)[1]
        self.speak_dialog("remembered.turns.only" if turns else "remembered.none", {"count": turns})

    @intent_handler("recall.topic.intent")
    @answers_errors
    def handle_recall_topic(self, message):
        scope, topic = self.handled(message), message.data.get("topic", "")
        items = self.engine.recall(scope, topic, kinds=RECALLED_KINDS, where=EVERYWHERE)
        if not items:
            self.speak_dialog("recall.none", {"topic": topic})
            return
        self.speak_dialog("recall.list", {"topic": topic, "list": self.summary(items, len(items))})

    @intent_handler("remember.fact.intent")
    @answers_errors
    def handle_remember_fact(self, message):
        scope, fact = self.handled(message), message.data.get("fact", "")
        try:
            self.engine.remember(scope, fact)
        except InvalidRequest:  # memory is paused for this user
            self.speak_dialog("remember.paused")
        except NotFound:  # "remember that I don't have a cat" with no cat stored
            self.speak_dialog("remember.nothing.to.retract")
        else:
            self.speak_dialog("remember.done", {"fact": fact})

    @intent_handler("forget.last.intent")
    @answers_errors
    def handle_forget_last(self, message):
        scope = self.handled(message)
        items = self.engine.last_exchange(scope)
        if not items:
            self.speak_dialog("forget.last.none")
            return
        self.engine.forget(scope, ids=[i.id for i in items], where=EVERYWHERE)
        self.speak_dialog("forget.last.done")

    @intent_handler("forget.topic.intent")
    @answers_errors
    def handle_forget_topic(self, message):
        scope, topic = self.handled(message), message.data.get("topic", "")
        found = self.engine.forget(scope, query=topic, where=EVERYWHERE, dry_run=True, limit=FORGET_LIMIT)
        if not found:
            self.speak_dialog("forget.topic.none", {"topic": topic})
            return
        data = {"topic": topic, "count": len(found), "list": self.summary(found, len(found))}
        one = ".one" if len(found) == 1 else ""
        confirmed = self.confirmed("forget.topic.confirm" + one, data, scope)
        if confirmed:  # exactly what was read back, nothing found since
            self.engine.forget(scope, ids=[i.id for i in found], where=EVERYWHERE)
        self.speak_outcome(confirmed, "forget.topic.done" + one, data)

    @intent_handler("forget.everything.intent")
    @answers_errors
    def handle_forget_everything(self, message):
        scope = self.handled(message)
        total = self.engine.list(scope, KINDS, 0, 0, EVERYWHERE)[1]
        if not total:
            self.speak_dialog("remembered.none")
            return
        confirmed = self.confirmed("forget.everything.confirm", {"count": total}, scope)
        if confirmed:
            self.engine.forget(scope, everything=True, where=EVERYWHERE)
        self.speak_outcome(confirmed, "forget.everything.done", {"count": total})

    @intent_handler("stop.remembering.intent")
    @answers_errors
    def handle_stop_remembering(self, message):
        self.engine.pause(self.handled(message), "user", True)
        self.speak_dialog("paused")

    @intent_handler("start.remembering.intent")
    @answers_errors
    def handle_start_remembering(self, message):
        self.engine.pause(self.handled(message), "user", False)
        self.speak_dialog("resumed")
