"""The device recipe of docs/device.md, end to end: the mycroft.conf and the
persona JSON read out of that page, ovos-messagebus, ovos-memory-service and
ovos-core (its intent pipeline with ovos-persona's stages and padacioso) as
the processes a device runs, ovos-persona's chat plugin (ovos-openai-plugin)
talking to a local OpenAI-compatible stand-in for the LLM.

One conversation in two sessions of one user (the `users` map): a fact said in
the kitchen reaches the chat model's request in the bedroom, and the voice
commands answer beside the persona.

Runs only in the device environment (tests/device_env/README.md).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.stack
pytest.importorskip("ovos_persona")
pytest.importorskip("ovos_core")

from ovos_bus_client import Message  # noqa: E402

from ovos_memory_service.common.client import MemoryClient  # noqa: E402
from tests.device_env.chat_stub import ChatStub  # noqa: E402
from tests.sandbox import connect, free_port, stop, wait_ready  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DEVICE_MD = ROOT / "docs" / "device.md"
BIN = Path(sys.executable).parent


def device_files() -> dict:
    """The files docs/device.md gives, by name: each code block that follows a
    ``<!-- device-file: NAME -->`` line."""
    text = DEVICE_MD.read_text(encoding="utf-8")
    found = re.findall(r"<!-- device-file: (\S+) -->\s*```\w*\n(.*?)```", text, re.S)
    return {name: json.loads(body) for name, body in found}


class Device:
    """The device's processes in a home of their own under ``root``."""

    def __init__(self, root: Path, llm_url: str):
        self.root, self.procs = root, []
        files = device_files()
        self.conf, self.persona = files["mycroft.conf"], files["Butler.json"]
        self.port = free_port()
        self.conf["websocket"]["port"] = self.port
        self.persona["ovos-chat-openai-plugin"]["api_url"] = llm_url
        env = {k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"}
        env["HOME"] = str(root)
        for key, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                         ("XDG_CACHE_HOME", ".cache"), ("XDG_STATE_HOME", ".local/state")):
            env[key] = str(root / sub)
            os.makedirs(env[key], exist_ok=True)
        # no system-wide or distribution config may leak in
        env["XDG_CONFIG_DIRS"] = str(root / "etc-xdg")
        env["MYCROFT_SYSTEM_CONFIG"] = str(root / "etc-mycroft.conf")
        env["OVOS_DISTRIBUTION_CONFIG"] = str(root / "distribution.conf")
        env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
        self.env = env
        (root / ".config" / "mycroft").mkdir(parents=True, exist_ok=True)
        (root / ".config" / "mycroft" / "mycroft.conf").write_text(json.dumps(self.conf))
        (root / ".config" / "ovos_persona").mkdir(parents=True, exist_ok=True)
        (root / ".config" / "ovos_persona" / "Butler.json").write_text(json.dumps(self.persona))

    def run(self, command: str) -> subprocess.Popen:
        """A console script of the venv, as the systemd units start them."""
        log = open(self.root / f"{command}.log", "ab")
        proc = subprocess.Popen([str(BIN / command)], env=self.env, cwd=self.root,
                                stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(proc)
        return proc

    def close(self):
        for proc in reversed(self.procs):
            stop(proc)


class Speaker:
    """A text client: says an utterance in a session and returns the lines
    spoken in that session until ``until`` arrives; it keeps the session
    ovos-core hands back, as docs/device.md's say.py does."""

    def __init__(self, bus, session_id: str, lang: str = "en-US"):
        self.bus, self.session = bus, {"session_id": session_id, "lang": lang}

    def say(self, utterance: str, until: str = "ovos.utterance.handled", timeout: float = 90) -> list:
        heard, done = [], threading.Event()
        mine = self.session["session_id"]

        def on_speak(message):
            if message.context.get("session", {}).get("session_id") == mine:
                self.session = message.context["session"]
                heard.append(message.data["utterance"])
                if until == "speak":
                    done.set()

        def on_until(message):
            if message.context.get("session", {}).get("session_id") == mine:
                done.set()
        self.bus.on("speak", on_speak)
        if until != "speak":
            self.bus.on(until, on_until)
        try:
            self.bus.emit(Message("recognizer_loop:utterance",
                                  {"utterances": [utterance], "lang": self.session["lang"]},
                                  {"session": self.session}))
            if not done.wait(timeout):
                raise TimeoutError(f"no {until} for {utterance!r}; heard {heard}")
        finally:
            self.bus.remove("speak", on_speak)
            if until != "speak":
                self.bus.remove(until, on_until)
        return heard


# an answer of two sentences, which ovos-persona speaks one after the other
TWO_SENTENCES = ("I work in a bakery", "Very good. What do you bake there?")


def chat_answer(messages):
    """The stand-in LLM: answers the last user line, naming nothing it was told."""
    return TWO_SENTENCES[1] if messages[-1]["content"] == TWO_SENTENCES[0] else "Very good."


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    llm = ChatStub(answer=chat_answer).start()
    device = Device(tmp_path_factory.mktemp("device"), llm.url)
    device.llm = llm
    try:
        device.run("ovos-messagebus")
        device.bus = connect(device.port)
        # the daemon registers its voice commands, and again once ovos-core announces itself
        initialized, registered = threading.Event(), threading.Event()
        device.bus.on("mycroft.skills.initialized", lambda m: initialized.set())
        device.bus.on("padatious:register_intent", lambda m: initialized.is_set() and "what.do.you.remember"
                      in m.data.get("name", "") and registered.set())
        device.run("ovos-memory-service")
        device.memory = MemoryClient(device.bus)
        wait_ready(device.memory, timeout=120)
        device.run("ovos-core")
        # ovos-core's skills service: ready once its pipeline is loaded; while it starts it
        # answers "not ready" at once, so the wait is by the clock, not by the answers
        deadline = time.monotonic() + 120
        while True:
            ready = device.bus.wait_for_response(Message("mycroft.skills.is_ready"), timeout=2)
            if ready and ready.data.get("status"):
                break
            if time.monotonic() > deadline:
                raise TimeoutError("ovos-core did not become ready in 120 s")
            time.sleep(0.5)
        if not registered.wait(120):
            raise TimeoutError("the voice commands were not registered with ovos-core")
        yield device
    finally:
        for name in ("ovos-core", "ovos-memory-service"):
            log = device.root / f"{name}.log"
            if log.exists():
                shutil.copy(log, device.root / f"{name}.kept.log")
        if getattr(device, "bus", None) is not None:
            device.bus.close()
        device.close()
        llm.stop()


def facts(device, user_id):
    reply = device.memory.request("memory.list", {"kinds": ["fact"], "scope": "all"}, {"user_id": user_id})
    return [m["content"] for m in reply.get("memories", [])]


def test_a_fact_said_in_one_session_reaches_the_llm_in_the_next(device):
    from tests.helpers import eventually
    kitchen = Speaker(device.bus, "kitchen")
    assert kitchen.say("I live in Porto") == ["Very good."]  # the persona answered, through the LLM
    asked = device.llm.chats("I live in Porto")
    assert asked and asked[-1]["messages"][-1]["content"] == "I live in Porto"
    # the fact is learnt after the reply, in the background; the users map makes it Ana's
    learnt = eventually(lambda: [f for f in facts(device, "ana") if "Porto" in f], timeout=60)
    assert learnt, facts(device, "ana")

    bedroom = Speaker(device.bus, "bedroom")
    assert bedroom.say("where do I live") == ["Very good."]
    request = device.llm.chats("where do I live")[-1]["messages"]
    assert request[-1] == {"role": "user", "content": "where do I live"}
    told = "\n".join(m["content"] for m in request if m["role"] == "system")
    assert "Known facts about the user" in told and "Porto" in told, request
    # the bedroom's verbatim history is its own: the kitchen's turn is not in it as a turn
    assert {"role": "user", "content": "I live in Porto"} not in request


def test_the_voice_commands_answer_beside_the_persona(device):
    bedroom = Speaker(device.bus, "bedroom")
    before = len(device.llm.requests)
    heard = bedroom.say("what do you remember about me")
    assert any("Porto" in line for line in heard), heard
    assert len(device.llm.requests) == before  # a voice command, not the chat model


# ------------------------------------------------- who is speaking (issue 37)
class IdentifiedSpeaker(Speaker):
    """A speaker a voice print recognized (OVOS-USER-ID-1's session fields,
    written again on every utterance as a recognition plugin does): ovos-core
    hands the session back without them."""

    def __init__(self, bus, session_id: str, user_id: str, level: int = 3):
        super().__init__(bus, session_id)
        self.identity = {"user_id": user_id, "auth_level": level}

    def say(self, utterance: str, **kw) -> list:
        import time
        self.session = {**self.session, **self.identity, "authenticated_at": time.time()}
        return super().say(utterance, **kw)


def test_two_speakers_on_one_session_each_ask_about_what_only_the_other_said(device):
    """Through ovos-core (and the identity transformer of docs/device.md) and
    ovos-persona: each speaker's LLM request carries their own conversation
    and nothing the other said, and the voice commands read only their own."""
    alice = IdentifiedSpeaker(device.bus, "livingroom", "alice")
    bob = IdentifiedSpeaker(device.bus, "livingroom", "bob")
    assert alice.say("my doctor told me I have diabetes") == ["Very good."]
    assert bob.say("I am planning a surprise party for Alice on Friday") == ["Very good."]

    assert bob.say("do I have any health problems") == ["Very good."]
    request = json.dumps(device.llm.chats("do I have any health problems")[-1]["messages"])
    assert "diabetes" not in request and "surprise party" in request, request  # his own turn, not hers
    assert alice.say("what am I doing on Friday") == ["Very good."]
    request = json.dumps(device.llm.chats("what am I doing on Friday")[-1]["messages"])
    assert "surprise party" not in request and "diabetes" in request, request

    heard = " ".join(bob.say("what do you remember about me"))
    assert "diabetes" not in heard
    stored = device.memory.request("memory.list", {"scope": "all", "limit": 50}, {"user_id": "alice"})
    assert "diabetes" in json.dumps(stored) and "surprise" not in json.dumps(stored)


# ------------------------------------------------- the page's helper script
def say_py() -> str:
    """docs/device.md's say.py: the python block that starts with its name."""
    text = DEVICE_MD.read_text(encoding="utf-8")
    return re.search(r"```python\n(# ~/.venvs/ovos/bin/python say.py\n.*?)```", text, re.S).group(1)


def sample_output() -> list:
    """The page's sample output of say.py: the block right after the script, as (who, line)."""
    text = DEVICE_MD.read_text(encoding="utf-8")
    block = re.search(r"python say.py\n.*?```\s*```\n(.*?)```", text, re.S).group(1)
    return [tuple(part.strip() for part in line.split(":", 1)) for line in block.splitlines() if ":" in line]


def dialog_lines(name: str, lang: str = "en-us") -> list:
    """A dialog of the voice commands as patterns: what the device may say for it."""
    path = ROOT / "locale" / lang / "dialog" / f"{name}.dialog"
    return [re.compile(re.sub(r"\\{\w+\\}", ".+", re.escape(line.strip())))
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def turns_of(printed: str) -> list:
    """say.py's output as what the device said after each prompt."""
    return [[line[len("device: "):] for line in part.splitlines() if line.startswith("device: ")]
            for part in re.split(r"(?m)^you: ", printed)[1:]]


def test_say_py_waits_for_the_whole_answer_and_prints_what_the_device_says(device, tmp_path):
    """The page's script, run as the page says (the venv's python, the device's home):
    every line of an answer is printed before the next prompt, and what the voice
    commands say is what the page shows them saying."""
    script = tmp_path / "say.py"
    script.write_text(say_py())
    said = subprocess.run([sys.executable, str(script)], env=device.env, cwd=device.root, timeout=180,
                          input=f"{TWO_SENTENCES[0]}\nwhat do you remember about me\n",
                          capture_output=True, text=True)
    answers = turns_of(said.stdout)
    assert answers[0] == TWO_SENTENCES[1].replace(". ", ".\n").splitlines(), said.stdout
    assert said.returncode == 0, said.stderr
    remembered = dialog_lines("remembered.list")
    assert len(answers[1]) == 1 and any(p.fullmatch(answers[1][0]) for p in remembered), said.stdout
    assert answers[2:] == [[]], said.stdout  # the last prompt, then the end of the input
    sample = sample_output()
    assert [who for who, _ in sample] == ["you", "device", "you", "device"], sample
    assert sample[2][1] == "what do you remember about me"
    assert any(p.fullmatch(sample[3][1]) for p in remembered), sample[3]
    assert sample[3][1].startswith("I remember this about you"), sample[3]
    # a question of the voice commands: the script lets the person answer it
    forgot = subprocess.run([sys.executable, str(script)], env=device.env, cwd=device.root, timeout=180,
                            input="forget everything about me\nyes\n", capture_output=True, text=True)
    assert forgot.returncode == 0, forgot.stderr
    asked, done = turns_of(forgot.stdout)[:2]
    assert any(p.fullmatch(asked[-1]) for p in dialog_lines("forget.everything.confirm")), forgot.stdout
    assert any(p.fullmatch(done[-1]) for p in dialog_lines("forget.everything.done")), forgot.stdout
    assert facts(device, "ana") == []
