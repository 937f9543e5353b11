"""The voice commands as a device runs them: a real ovos-messagebus, the real
daemon (which hosts the skill), and ovos-core's intent service on the same bus
in this process, matching with padacioso."""
import json
import threading
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.stack
pytest.importorskip("ovoscope")  # the test extra that brings ovos-core

from ovos_bus_client.message import Message  # noqa: E402

from ovos_memory_service.edge.skill import SKILL_ID  # noqa: E402
from tests.helpers import padacioso_in_threads  # noqa: E402
from tests.voice.test_skill import FACT, FIRST_ANSWER, LANGS, TOPIC, YES, examples, verified  # noqa: E402

PIPELINE = ["ovos-stop-pipeline-plugin-high", "ovos-converse-pipeline-plugin",
            "ovos-padacioso-pipeline-plugin-high", "ovos-padacioso-pipeline-plugin-medium",
            "ovos-fallback-pipeline-plugin-low"]
SECONDARY = ["pt-PT", "es-ES", "de-DE"]
INTENTS = sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "locale" / "en-us"
                                  / "intents").glob("*.intent"))


class Device:
    """ovos-core's intent service on the stack's bus, and a microphone/speaker
    stand-in that says utterances and hears the replies of one session."""

    def __init__(self, stack):
        from ovos_config import Configuration
        from ovos_core.intent_services import IntentService
        self.stack, self.bus = stack, stack.bus
        config = Configuration()
        self._langs = config.get("secondary_langs")
        config["secondary_langs"] = SECONDARY  # padacioso reads the languages at construction
        self.restore_padacioso = padacioso_in_threads()
        self.intents = IntentService(self.bus)
        self.registered = []
        self.bus.on("padatious:register_intent", self._on_register)
        self.bus.on("speak", self._play)

    def _play(self, message):
        """The audio service: each line is played, then its end is reported
        (the skill waits for it before it listens for an answer)."""
        for event in ("recognizer_loop:audio_output_start", "recognizer_loop:audio_output_end"):
            self.bus.emit(message.forward(event))

    def _on_register(self, message):
        self.registered.append((message.data["name"], message.data["lang"].lower()))

    def close(self):
        from ovos_config import Configuration
        self.bus.remove("padatious:register_intent", self._on_register)
        self.bus.remove("speak", self._play)
        self.intents.shutdown()
        # pipeline plugins that are OVOS applications (the stop pipeline) say
        # goodbye on the bus when garbage-collected, and an emit on a closed
        # client waits forever: say it now, once, while the bus is up
        for plugin in self.intents.pipeline_plugins.values():
            if hasattr(plugin, "default_shutdown"):
                plugin.default_shutdown()
                plugin.default_shutdown = plugin.shutdown = lambda: None
        self.restore_padacioso()
        Configuration()["secondary_langs"] = self._langs

    def say(self, utterance, lang, user_id, session=None, until="mycroft.skill.handler.complete", level=3,
            authenticated=True):
        """Say an utterance; returns the speak messages of its session until the
        skill's handler completes (or until a question waits for an answer)."""
        session = session or {"session_id": f"s-{user_id or 'guest'}", "lang": lang, "pipeline": PIPELINE}
        identity = {} if user_id is None else {"user_id": user_id, **verified(level)}
        if not authenticated:
            identity.pop("authenticated_at", None)
        heard, done = [], threading.Event()

        def on_speak(message):
            if message.context.get("session", {}).get("session_id") == session["session_id"]:
                heard.append(message)

        def on_done(message):
            if message.context.get("session", {}).get("session_id") == session["session_id"]:
                if message.msg_type != "speak":  # a speak is heard already
                    heard.append(message)
                done.set()
        self.bus.on("speak", on_speak)
        self.bus.on(until, on_done)
        try:
            self.bus.emit(Message("recognizer_loop:utterance", {"utterances": [utterance], "lang": lang},
                                  {"session": session, **identity}))
            assert done.wait(30), f"no answer to {utterance!r}"
        finally:
            self.bus.remove("speak", on_speak)
            self.bus.remove(until, on_done)
        return heard


def dialogs(heard):
    return [m.data["meta"]["dialog"] for m in heard if m.msg_type == "speak"]


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    from tests.sandbox import Stack
    stack = Stack(tmp_path_factory.mktemp("voice"))
    conf_path = Path(stack.env["XDG_CONFIG_HOME"]) / "mycroft" / "mycroft.conf"
    conf = json.loads(conf_path.read_text())
    conf_path.write_text(json.dumps({**conf, "secondary_langs": SECONDARY}))
    device = Device(stack)  # listening before the daemon registers its intents
    stack.start_service()
    yield device
    device.close()
    stack.close()


def new_user():
    return f"u-{uuid.uuid4().hex[:8]}"


def test_the_daemon_registers_every_intent_in_every_language(device):
    expected = {(f"{SKILL_ID}:{intent}.intent", lang) for intent in INTENTS for lang in LANGS}
    assert expected <= set(device.registered)


@pytest.mark.parametrize("lang", LANGS)
def test_every_command_answers_over_the_bus(device, lang):
    first = {}
    for intent, utterance, _ in examples(lang):
        first.setdefault(intent, utterance)
    for intent, utterance in first.items():
        assert dialogs(device.say(utterance, lang, new_user())) == [FIRST_ANSWER[intent]], utterance


@pytest.mark.parametrize("lang", LANGS)
def test_remember_recall_and_forget_with_confirmation(device, lang):
    me, other = new_user(), new_user()
    device.stack.ok("memory.remember", {"content": "my pin is 4711"}, user_id=other)
    assert dialogs(device.say(f"{_first(lang, 'remember.fact')}".format(fact=FACT[lang]), lang, me)) == [
        "remember.done"]
    heard = device.say(_first(lang, "recall.topic").format(topic=TOPIC[lang]), lang, me)
    assert dialogs(heard) == ["recall.list"] and FACT[lang] in heard[0].data["utterance"].lower()
    assert "4711" not in heard[0].data["utterance"]
    # a persona that records every spoken line sends the read-back: it is not stored
    stored = device.stack.ok("memory.history.update", {"messages": [
        {"role": "assistant", "content": heard[0].data["utterance"]}]},
        session={"session_id": f"s-{me}"}, user_id=me)
    assert stored["stored"] == 0
    # forget everything: the question, then "yes" in the session the question came in
    asked = device.say(_first(lang, "forget.everything"), lang, me, until=f"{SKILL_ID}.get_response.waiting")
    done = device.say(YES[lang], lang, me, session=asked[-1].context["session"], until="speak")
    assert dialogs(asked) + dialogs(done) == ["forget.everything.confirm", "forget.everything.done"]
    assert device.stack.ok("memory.list", {}, user_id=me)["total"] == 0
    assert device.stack.ok("memory.list", {}, user_id=other)["total"] == 1


def _first(lang, intent):
    return next(u for i, u, _ in _templates(lang) if i == intent)


def _templates(lang):
    root = Path(__file__).resolve().parents[2] / "locale" / lang / "intents"
    for path in sorted(root.glob("*.intent")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                yield path.stem, line, None


def _registered_again(device, since):
    expected = {(f"{SKILL_ID}:{intent}.intent", lang) for intent in INTENTS for lang in LANGS}
    return lambda: expected <= set(device.registered[since:])


def test_intents_are_registered_again_when_ovos_core_restarts(device):
    from tests.helpers import eventually
    since = len(device.registered)
    device.bus.emit(Message("mycroft.skills.initialized"))  # a restarted ovos-core knows none of them
    assert eventually(_registered_again(device, since))
    assert dialogs(device.say("what do you remember about me", "en-us", new_user())) == [
        FIRST_ANSWER["what.do.you.remember"]]


def padacioso_intents(device):
    """How many times ovos-core's padacioso holds each of our intents (once per language)."""
    from collections import Counter
    plugin = device.intents.pipeline_plugins["ovos-padacioso-pipeline-plugin"]
    return Counter(name for name in plugin.registered_intents if name.startswith(SKILL_ID + ":"))


def test_after_a_crash_the_next_run_registers_each_intent_once(device):
    import signal
    from tests.helpers import eventually
    stack = device.stack
    once = {f"{SKILL_ID}:{intent}.intent": len(LANGS) for intent in INTENTS}
    assert eventually(lambda: padacioso_intents(device) == once), padacioso_intents(device)
    stack.stop_service(signal.SIGKILL)  # no detach_skill: ovos-core keeps the intents
    # while the daemon is down, its commands still match and nothing answers them
    matched = device.say("what do you remember about me", "en-us", new_user(),
                         until=f"{SKILL_ID}:what.do.you.remember.intent")
    assert dialogs(matched) == []
    since = len(device.registered)
    stack.start_service()
    assert eventually(_registered_again(device, since))
    assert dialogs(device.say("what do you remember about me", "en-us", new_user())) == [
        FIRST_ANSWER["what.do.you.remember"]]
    assert padacioso_intents(device) == once


def test_sighup_switches_the_voice_commands_off_and_on(device):
    """Last in this module: it switches the commands off, then on again."""
    import signal
    from tests.helpers import eventually
    from tests.sandbox import write_config
    stack = device.stack
    detached = []
    device.bus.on("detach_skill", lambda m: detached.append(m.data.get("skill_id")))
    write_config(stack.env, stack.port, {**stack.memory_config, "voice_commands": False})
    stack.service.send_signal(signal.SIGHUP)
    assert eventually(lambda: SKILL_ID in detached)
    heard = device.say("what do you remember about me", "en-us", new_user(), until="complete_intent_failure")
    assert dialogs(heard) == []  # nothing answers it any more
    since = len(device.registered)
    write_config(stack.env, stack.port, {**stack.memory_config, "voice_commands": True})
    stack.service.send_signal(signal.SIGHUP)
    assert eventually(_registered_again(device, since))
    assert dialogs(device.say("what do you remember about me", "en-us", new_user())) == [
        FIRST_ANSWER["what.do.you.remember"]]


# ------------------------------------------------- who is speaking (issue 37)
def lines_of(lang, dialog):
    path = Path(__file__).resolve().parents[2] / "locale" / lang / "dialog" / f"{dialog}.dialog"
    return [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("lang", LANGS)
def test_below_the_level_the_voice_says_so_in_the_listeners_language_and_reveals_nothing(device, lang):
    me, other = new_user(), new_user()
    device.stack.ok("memory.remember", {"content": f"{FACT[lang]} 4711"}, user_id=me)
    device.stack.ok("memory.remember", {"content": f"{FACT[lang]} 9090"}, user_id=other)
    for level, authenticated in ((2, True), (4, False)):  # below 3, and a level 4 that expired
        for intent in ("what.do.you.remember", "recall.topic"):
            heard = device.say(_first(lang, intent).format(topic=TOPIC[lang]), lang, me, level=level,
                               authenticated=authenticated)
            assert dialogs(heard) == ["access.read_aloud.denied"], (intent, level)
            assert heard[0].data["utterance"] in lines_of(lang, "access.read_aloud.denied")
            assert "4711" not in heard[0].data["utterance"] and "9090" not in heard[0].data["utterance"]
        for intent in ("forget.everything", "forget.last", "forget.topic"):
            heard = device.say(_first(lang, intent).format(topic=TOPIC[lang]), lang, me, level=level,
                               authenticated=authenticated)
            assert dialogs(heard) == ["access.forget.denied"], (intent, level)
            assert heard[0].data["utterance"] in lines_of(lang, "access.forget.denied")
    assert device.stack.ok("memory.list", {}, user_id=me)["total"] == 1
    assert device.stack.ok("memory.list", {}, user_id=other)["total"] == 1
    # at level 3 the same question reads the speaker's own memory, never the other's
    heard = device.say(_first(lang, "recall.topic").format(topic=TOPIC[lang]), lang, me, level=3)
    assert dialogs(heard) == ["recall.list"] and "4711" in heard[0].data["utterance"]
    assert "9090" not in heard[0].data["utterance"]


def test_a_guest_hears_the_households_memories_and_no_identified_speakers(device):
    guest_session = {"session_id": f"s-guest-{uuid.uuid4().hex[:6]}", "lang": "en-us", "pipeline": PIPELINE}
    device.stack.ok("memory.remember", {"content": "my bike lock code is 5150"},
                    session={"session_id": guest_session["session_id"]})
    device.stack.ok("memory.remember", {"content": "my bike lock code is 8080"}, user_id=new_user())
    heard = device.say(_first("en-us", "recall.topic").format(topic="my bike lock code"), "en-us", None,
                       session=guest_session)
    assert dialogs(heard) == ["recall.list"]
    assert "5150" in heard[0].data["utterance"] and "8080" not in heard[0].data["utterance"]
