"""The voice commands: an OVOS skill that the memory daemon hosts on its own
bus connection, calling the engine directly.

Every command acts on the speaking user's memories in every persona
(``where="all"``); the user comes from the bus message as for any request.
The skill's own lines, and the commands it answers, are kept out of memory:
a persona that records every spoken line would otherwise store them.
"""
import re
import threading
import time
from functools import lru_cache, wraps
from typing import Dict, List, NamedTuple, Optional, Tuple

from ovos_bus_client.message import Message, dig_for_message
from ovos_bus_client.session import SessionManager
from ovos_number_parser import extract_number
from ovos_utils import classproperty
from ovos_utils.log import LOG
from ovos_utils.process_utils import RuntimeRequirements
from ovos_workshop.decorators import intent_handler
from ovos_workshop.skills.ovos import OVOSSkill, join_word_list
from ovos_yes_no_solver import YesNoSolver

from ovos_memory_service.common.access import allows
from ovos_memory_service.learning.facts.extract import is_question
from ovos_memory_service.learning.facts.wording import read_back
from ovos_memory_service.common.errors import InvalidRequest, MemoryServiceError, NotFound
from ovos_memory_service.common.items import KINDS, USER_FACT_KINDS, MemoryItem
from ovos_memory_service.common.resources import locale_dir, match_lang, read_list
from ovos_memory_service.common.scope import Scope, resolve_scope

SKILL_ID = "ovos-memory-service.openvoiceos"
EVERYWHERE = "all"          # every persona of the speaking user
# memory_service.voice settings and their defaults
SPOKEN_ITEMS = 3            # spoken_items: a list is read whole up to this many, else counted
FORGET_LIMIT = 20           # forget_limit: "forget <topic>" finds at most this many
MAX_WORDS_PER_ITEM = 20     # a long memory is cut short when read aloud
SPEECH_TIMEOUT = 15         # seconds to wait for a question to be spoken
AUDIO_ASK_TIMEOUT = 2       # seconds for the audio service to answer mycroft.audio.is_alive
AUDIO_ASK_AGAIN_S = 60      # no audio service answered: ask again after this long
COUNT_KEPT_S = 300          # "forget all N ..." acts on a count said this recently
SLOT = "memoryslot{}x"      # stand-in for a dialog's data while the template is rendered
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


class Counted(NamedTuple):
    """What "forget <topic>" counted aloud without reading it: "forget all N
    about <topic>" forgets exactly these ids (``count``: N, as said; a
    reply that goes with the turn it answered is not counted apart)."""
    topic: str
    ids: List[str]
    count: int
    until: float

    def matches(self, topic: str, count: Optional[float]) -> bool:
        return same_topic(self.topic, topic) and count == self.count and time.monotonic() < self.until


def same_topic(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


def spoken_number(text: str, lang: str) -> Optional[float]:
    """A number as STT writes it ("4", "four", "vier"); None if there is none."""
    try:
        number = extract_number(text or "", lang=lang.split("-")[0])
    except Exception:  # a language the parser does not know
        LOG.debug("no number understood", exc_info=True)
        return None
    return None if number is False or number is None else number


@lru_cache(maxsize=8)
def forget_all_phrasings(lang: str) -> Tuple[re.Pattern, ...]:
    """The phrasings of "forget all {count} ... {topic}" as patterns. Intent
    engines cannot tell them from "forget {topic}" (padacioso scores both
    alike), so "forget <topic>" checks its utterance against them too."""
    folder = match_lang(lang)
    path = locale_dir() / (folder or "") / "intents" / "forget.topic.all.intent"
    if folder is None or not path.exists():
        return ()
    slots = {"count": "(?P<count>.+?)", "topic": "(?P<topic>.+)"}
    return tuple(re.compile("".join(slots[part] if n % 2 else re.escape(part) for n, part in
                                    enumerate(re.split(r"{(count|topic)}", line))), re.IGNORECASE)
                 for line in read_list(path))


def forget_all_request(utterance: str, lang: str) -> Optional[Tuple[float, str]]:
    """(N, topic) if the utterance is a "forget all N ... <topic>", else None."""
    text = " ".join((utterance or "").split())
    for pattern in forget_all_phrasings(lang):
        match = pattern.fullmatch(text)
        count = match and spoken_number(match["count"], lang)
        if count:
            return count, match["topic"]
    return None


@lru_cache(maxsize=8)
def _second_person(lang: str) -> Tuple[re.Pattern, Dict[str, str]]:
    folder = match_lang(lang)
    path = locale_dir() / (folder or "") / "second_person.list"
    pairs = dict(line.split("=", 1) for line in read_list(path)) if folder and path.exists() else {}
    pairs = {first.strip(): second.strip() for first, second in pairs.items()}
    words = sorted(pairs, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w'])(%s)(?![\w'])" % "|".join(map(re.escape, words)), re.IGNORECASE) \
        if words else re.compile(r"(?!x)x")
    return pattern, pairs


def second_person(text: str, lang: str) -> str:
    """What the user said about themselves as the assistant says it back:
    "my job" -> "your job", "a minha irmã" -> "a tua irmã"
    (locale/<lang>/second_person.list)."""
    pattern, pairs = _second_person(lang)
    return pattern.sub(lambda m: pairs[" ".join(m.group(1).lower().split())], text)


def spoken_item(item: MemoryItem, lang: str = "") -> str:
    """A memory as it is read aloud: a fact in the listener's language where its
    slot is known (learning/facts/wording.py), cut short when long."""
    content = item.content
    if item.kind in USER_FACT_KINDS and item.slot:
        content = read_back(content, item.slot, item.value, lang)
    words = content.split()
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
        self._counted: Dict[Tuple[str, str], Counted] = {}  # (user, session): the last count
        self._audio_seen = False     # an audio service answered, or reported speech
        self._audio_asked_at = None  # when no audio service answered
        super().__init__(*args, resources_dir=str(locale_dir().parent), **kwargs)
        for event in ("recognizer_loop:audio_output_start", "recognizer_loop:audio_output_end"):
            self.add_event(event, self._on_audio_output, speak_errors=False)

    @classmethod
    def create(cls, bus, engine, config: dict) -> "MemorySkill":
        """The skill, registered with ovos-core; first the intents that a
        previous run of the daemon left registered (it crashed, or was
        killed) are detached, so that each is registered once."""
        bus.emit(Message("detach_skill", {"skill_id": SKILL_ID}, {"skill_id": SKILL_ID}))
        return cls(bus=bus, skill_id=SKILL_ID, engine=engine, config=config)

    @classproperty
    def runtime_requirements(self):
        return RuntimeRequirements(internet_before_load=False, network_before_load=False,
                                   requires_internet=False, requires_network=False,
                                   no_internet_fallback=True, no_network_fallback=True)

    def voice_setting(self, key: str, default: int, low: int = 1, high: int = 200) -> int:
        """``memory_service.voice.<key>``: a whole number in [low, high], else the default."""
        value = (self.memory_config.get("voice") or {}).get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            LOG.warning(f"memory_service.voice.{key} must be a whole number in [{low}, {high}]; "
                        f"using {default}")
            return default
        return value

    @property
    def spoken_items(self) -> int:
        return self.voice_setting("spoken_items", SPOKEN_ITEMS, 1, 20)

    @property
    def forget_limit(self) -> int:
        return self.voice_setting("forget_limit", FORGET_LIMIT, 1, 50)

    def _on_audio_output(self, message=None):
        self._audio_seen = True

    def audio_reports_speech(self) -> bool:
        """Does an audio service report the end of speech, so that a question
        should listen only once it is said? ``memory_service.voice.wait_for_audio``:
        true, false, or "auto" (the default): whether an audio service answers
        ``mycroft.audio.is_alive`` (asked once; after no answer, again after
        AUDIO_ASK_AGAIN_S), or has been heard speaking. Without ovos-audio (a
        headless device, a HiveMind hub whose satellites speak) nothing would
        report it, and each question would wait SPEECH_TIMEOUT for nothing."""
        setting = (self.memory_config.get("voice") or {}).get("wait_for_audio", "auto")
        if isinstance(setting, bool):
            return setting
        if setting != "auto":
            LOG.warning(f"memory_service.voice.wait_for_audio must be true, false or \"auto\", "
                        f"got {setting!r}; using \"auto\"")
        if self._audio_seen:
            return True
        if self._audio_asked_at is not None and time.monotonic() - self._audio_asked_at < AUDIO_ASK_AGAIN_S:
            return False
        try:
            reply = self.bus.wait_for_response(Message("mycroft.audio.is_alive", context={"skill_id": SKILL_ID}),
                                               timeout=AUDIO_ASK_TIMEOUT)
        except Exception:
            LOG.exception("could not ask the audio service whether it runs")
            reply = None
        if reply is not None and reply.data.get("status"):
            self._audio_seen = True
            return True
        if self._audio_asked_at is None:
            LOG.info("no audio service answers mycroft.audio.is_alive: questions listen at once "
                     "(memory_service.voice.wait_for_audio)")
        self._audio_asked_at = time.monotonic()
        return False

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

    def render(self, key: str, data: Optional[dict] = None) -> str:
        """A line of the dialog ``key`` with ``data`` put in as plain text: the
        template is rendered with stand-ins, so memory text is never read as
        template syntax (``| [ ] ( ) { }``, markdown)."""
        data = data or {}
        names = list(data)
        if self.dialog_renderer is None:
            return key.replace(".", " ")
        line = self.dialog_renderer.render(key, {k: SLOT.format(n) for n, k in enumerate(names)})
        return re.sub(SLOT.format(r"(\d+)"), lambda m: str(data[names[int(m.group(1))]]), line)

    def speak_dialog(self, key: str, data: Optional[dict] = None, expect_response: bool = False,
                     wait=False, render_callback=None):
        """As OVOSSkill's, with the data rendered as plain text (see ``render``)."""
        utterance = self.render(key, data)
        if render_callback is not None:
            utterance = render_callback(utterance, self.lang)
        self.speak(utterance, expect_response, wait, meta={"dialog": key, "data": data or {}})

    def speak(self, utterance: str, expect_response: bool = False, wait=False, meta=None):
        """Every line the skill says is kept out of the session's memory first.
        ``wait`` blocks until the audio service reports the end of this
        session's speech (the workshop's own wait needs a SessionManager bound
        to the bus, which only ovos-core's process has)."""
        try:
            self.engine.exclude_turn(self.scope(), "assistant", utterance)
        except Exception:
            LOG.exception("could not keep a spoken line out of memory")
        if not wait or not self.audio_reports_speech():
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

    def may(self, scope: Scope, action: str, *also: str) -> bool:
        """Whether the speaker's authentication level allows ``action`` and
        ``also`` (common/access.py); if not, says so for ``action`` and nothing else:
        no memory, no count, and never another speaker's memories instead."""
        if all(allows(scope, self.memory_config, a) for a in (action, *also)):
            return True
        self.speak_dialog(f"access.{action}.denied")
        return False

    def summary(self, items: List[MemoryItem], total: int) -> str:
        """The first few items, then how many more (a listing, never a confirmation)."""
        first = [spoken_item(i, self.lang) for i in items[:self.spoken_items]]
        if total > len(first):
            return self.render("list.more", {"list": "; ".join(first), "count": total - len(first)})
        return self.every_item(first)

    def with_replies(self, found: List[MemoryItem]) -> List[str]:
        """What a forget confirmation reads: every item, a reply that goes with
        the turn it answered read after that turn ("..., to which I answered: ...")."""
        replies = {i.answers: i for i in found if i.answers}
        return [self.render("forget.with.reply", {"said": spoken_item(i, self.lang),
                                                  "reply": spoken_item(replies[i.id], self.lang)})
                if i.id in replies else spoken_item(i, self.lang)
                for i in found if not (i.answers and i.answers in {f.id for f in found})]

    def every_item(self, texts: List[str]) -> str:
        return join_word_list(texts, "and", ";", self.lang)

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
        if not self.may(scope, "read_aloud"):
            return
        items, total = self.engine.list(scope, USER_FACT_KINDS, self.spoken_items, 0, EVERYWHERE)
        if total:
            self.speak_dialog("remembered.list", {"list": self.summary(items, total), "count": total})
            return
        turns = self.engine.list(scope, ("turn",), 0, 0, EVERYWHERE)[1]
        self.speak_dialog("remembered.turns.only" if turns else "remembered.none", {"count": turns})

    @intent_handler("recall.topic.intent")
    @answers_errors
    def handle_recall_topic(self, message):
        scope, topic = self.handled(message), message.data.get("topic", "")
        if not self.may(scope, "read_aloud"):
            return
        # a question the user asked is not something they told
        items = [i for i in self.engine.recall(scope, topic, kinds=RECALLED_KINDS, where=EVERYWHERE)
                 if not (i.kind == "turn" and i.role == "user" and is_question(i.content, self.lang))]
        heard = second_person(topic, self.lang)
        if not items:
            self.speak_dialog("recall.none", {"topic": heard})
            return
        self.speak_dialog("recall.list", {"topic": heard, "list": self.summary(items, len(items))})

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
        if not self.may(scope, "forget"):
            return
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
        if not self.may(scope, "forget", "read_aloud"):  # what it finds is read back or counted
            return
        asked = forget_all_request(message.data.get("utterance", ""), self.lang)
        if asked:  # "forget all 4 memories about jazz" taken for "forget <topic>"
            self.forget_counted(scope, *asked)
        else:
            self.forget_topic(scope, topic)

    @intent_handler("forget.topic.all.intent")
    @answers_errors
    def handle_forget_topic_all(self, message):
        scope, topic = self.handled(message), message.data.get("topic", "")
        if not self.may(scope, "forget", "read_aloud"):
            return
        self.forget_counted(scope, spoken_number(message.data.get("count", ""), self.lang), topic)

    def forget_counted(self, scope: Scope, count: Optional[float], topic: str):
        """"forget all N memories about <topic>": exactly the N counted aloud
        for that topic just before; anything else is counted (or read) first."""
        counted = self._counted.pop((scope.user_id, scope.session_id), None)
        if counted is None or not counted.matches(topic, count):
            self.forget_topic(scope, topic)
            return
        self.engine.forget(scope, ids=counted.ids, where=EVERYWHERE)
        self.speak_dialog("forget.topic.done", {"topic": second_person(topic, self.lang), "count": counted.count})

    def forget_topic(self, scope: Scope, topic: str):
        """Up to ``spoken_items`` memories are read back, every one, and
        forgotten on a yes; more are only counted, and "forget all N ..." is
        what forgets them. Nothing is forgotten that was not read or counted."""
        found = self.engine.forget(scope, query=topic, where=EVERYWHERE, dry_run=True,
                                   limit=self.forget_limit)
        heard = second_person(topic, self.lang)
        if not found:
            self.speak_dialog("forget.topic.none", {"topic": heard})
            return
        spoken = self.with_replies(found)
        if len(spoken) > self.spoken_items:
            self._counted[(scope.user_id, scope.session_id)] = Counted(
                topic, [i.id for i in found], len(spoken), time.monotonic() + COUNT_KEPT_S)
            self.speak_dialog("forget.topic.many", {"topic": heard, "count": len(spoken)})
            return
        data = {"topic": heard, "count": len(spoken), "list": self.every_item(spoken)}
        one = ".one" if len(spoken) == 1 else ""
        confirmed = self.confirmed("forget.topic.confirm" + one, data, scope)
        if confirmed:  # exactly what was read back, nothing found since
            self.engine.forget(scope, ids=[i.id for i in found], where=EVERYWHERE)
        self.speak_outcome(confirmed, "forget.topic.done" + one, data)

    @intent_handler("forget.everything.intent")
    @answers_errors
    def handle_forget_everything(self, message):
        scope = self.handled(message)
        if not self.may(scope, "forget", "read_aloud"):  # the confirmation counts them
            return
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
