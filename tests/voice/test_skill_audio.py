"""Confirmations without an audio service: a headless device or a HiveMind hub
has no ovos-audio to report the end of a question's speech, so the voice
commands must listen at once instead of waiting for an event that never comes
(before: 15 s per question). With an audio service, they wait for it.
ovos-core's intent pipeline (ovoscope's MiniCroft, padacioso) and a real engine."""
import threading
import uuid

import pytest

ovoscope = pytest.importorskip("ovoscope")

from ovos_bus_client.message import Message  # noqa: E402

from ovos_memory_service.edge import skill as skill_module  # noqa: E402
from ovos_memory_service.edge.skill import SKILL_ID, MemorySkill  # noqa: E402
from tests.voice.test_skill import intent_pipeline, verified  # noqa: E402

WAIT = 60  # seconds a step may take before the test fails (no step takes near this)
QUESTIONS = []  # the questions the skill spoke in a test


@pytest.fixture(scope="module")
def core(tmp_path_factory):
    with intent_pipeline(tmp_path_factory) as pipeline:
        yield pipeline


@pytest.fixture
def device(core, monkeypatch):
    """The skill as the daemon creates it (it waits for speech to end when
    there is audio), with that wait made endless: a wait for an end of speech
    that never comes fails the test instead of passing late."""
    minicroft, engine, config = core
    monkeypatch.setattr(skill_module, "SPEECH_TIMEOUT", 3600)
    config = {**config, "voice": dict(config["voice"])}
    skill = MemorySkill(bus=minicroft.bus, skill_id=SKILL_ID, engine=engine, config=config)
    skill.config_core.setdefault("skills", {})
    yield minicroft.bus, engine, skill
    for question in QUESTIONS:  # release a wait that failed the test
        minicroft.bus.emit(question.forward("recognizer_loop:audio_output_end"))
    QUESTIONS.clear()
    skill.default_shutdown()


def an_audio_service(bus):
    """Answers ovos-audio's readiness query, as ProcessStatus('audio') does."""
    def on_alive(message):
        bus.emit(message.response({"status": True}))
    bus.on("mycroft.audio.is_alive", on_alive)
    return lambda: bus.remove("mycroft.audio.is_alive", on_alive)


def forget_everything(bus, engine, skill, on_question=None, events=None):
    """A user with a memory says "forget everything about me"; on the skill's
    get_response.waiting (it listens), says "yes". Returns the dialogs."""
    user_id = f"u-{uuid.uuid4().hex[:8]}"
    from tests.helpers import scope
    engine.remember(scope(user=user_id, session=f"s-{user_id}"), "I like jazz", None)
    listening, asked, dialogs = threading.Event(), {}, []

    def on_waiting(message):
        asked["session"] = message.context["session"]
        if events is not None:
            events.append("listening")
        listening.set()

    def on_speak(message):
        dialogs.append(message.data.get("meta", {}).get("dialog"))
        QUESTIONS.append(message)
        if on_question and dialogs[-1] == "forget.everything.confirm":
            on_question(message)
    bus.on(f"{SKILL_ID}.get_response.waiting", on_waiting)
    bus.on("speak", on_speak)
    session = {"session_id": f"s-{user_id}", "lang": "en-us"}
    context = {"session": session, "user_id": user_id, **verified()}
    command = threading.Thread(target=bus.emit, args=(Message(
        "recognizer_loop:utterance", {"utterances": ["forget everything about me"], "lang": "en-us"}, context),), daemon=True)
    command.start()
    try:
        if not listening.wait(WAIT):
            raise TimeoutError(f"the skill never listened for the answer; it said {dialogs}")
        bus.emit(Message("recognizer_loop:utterance", {"utterances": ["yes"], "lang": "en-us"},
                         {"session": asked["session"], "user_id": user_id, **verified()}))
        command.join(WAIT)
        if command.is_alive():
            raise TimeoutError(f"the command did not finish; it said {dialogs}")
    finally:
        bus.remove(f"{SKILL_ID}.get_response.waiting", on_waiting)
        bus.remove("speak", on_speak)
    return dialogs, engine.list(scope(user=user_id), ("fact", "preference"), 10, 0, "all")[1]


def test_without_an_audio_service_a_question_listens_at_once(device):
    bus, engine, skill = device
    dialogs, left = forget_everything(bus, engine, skill)
    assert dialogs == ["forget.everything.confirm", "forget.everything.done"]
    assert left == 0


def test_with_an_audio_service_it_listens_once_the_question_is_spoken(device):
    bus, engine, skill = device
    remove = an_audio_service(bus)
    events = []

    def end_of_speech_later(message):
        def report():  # the question takes a moment to say
            events.append("end of speech")
            bus.emit(message.forward("recognizer_loop:audio_output_end"))
        threading.Timer(0.2, report).start()
    try:
        dialogs, left = forget_everything(bus, engine, skill, on_question=end_of_speech_later,
                                         events=events)
    finally:
        remove()
    assert events == ["end of speech", "listening"]
    assert dialogs == ["forget.everything.confirm", "forget.everything.done"] and left == 0


def test_wait_for_audio_false_listens_at_once_even_with_an_audio_service(device):
    bus, engine, skill = device
    skill.memory_config["voice"]["wait_for_audio"] = False
    remove = an_audio_service(bus)
    try:
        dialogs, left = forget_everything(bus, engine, skill)
    finally:
        remove()
    assert dialogs == ["forget.everything.confirm", "forget.everything.done"] and left == 0
