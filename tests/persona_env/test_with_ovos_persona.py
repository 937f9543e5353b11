"""End to end: the real ovos-persona ``PersonaService`` on a real messagebus,
with the memory service as its memory through the persona plugin.

Runs only in the second environment (tests/persona_env/README.md): ovos-persona
0.9.0a25 pulls OPM pre-releases, which the main environment never installs.
A local chat engine stands in for the LLM: it answers from the context it is
given ("what is my name" finds "my name is X" in it), so the answers show
what the memory delivered.
"""
import json
import os
import re
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.stack
pytest.importorskip("ovos_persona")

from ovos_bus_client import Message  # noqa: E402
from ovos_config import Configuration  # noqa: E402
from ovos_plugin_manager.agents import find_memory_plugins  # noqa: E402
from ovos_plugin_manager.templates.agents import AgentMessage, ChatEngine, MessageRole  # noqa: E402

from ovos_memory_service.plugins import persona_plugin  # noqa: E402
from tests.sandbox import Stack, connect  # noqa: E402

PLUGIN = "ovos-memory-service-plugin"
CHAT = "test-recalling-chat"


class RecallingChat(ChatEngine):
    """A local stand-in for an LLM chat plugin: it answers from its context."""
    seen = []  # (session_id, [(role, content)...]) of every call

    def continue_chat(self, messages, session_id="default", lang=None, units=None, tools=None):
        RecallingChat.seen.append((session_id, [(m.role.value, m.content) for m in messages]))
        question = messages[-1].content.lower()
        if "my name" in question and "?" in question:
            for m in reversed(messages[:-1]):
                found = re.search(r"my name is (\w+)", m.content, re.I)
                if found:
                    return AgentMessage(MessageRole.ASSISTANT, f"Your name is {found.group(1)}")
            return AgentMessage(MessageRole.ASSISTANT, "I do not know your name")
        return AgentMessage(MessageRole.ASSISTANT, f"Noted: {messages[-1].content}")


def register_entry_points(folder: Path):
    """The local chat engine (and the memory plugin, if setup.py does not register
    it yet) as installed entry points: ovos-persona loads only those."""
    lines = ["[opm.agents.chat]", f"{CHAT} = {__name__}:RecallingChat"]
    if PLUGIN not in find_memory_plugins():
        lines += ["[opm.agents.memory]",
                  f"{PLUGIN} = ovos_memory_service.plugins.persona_plugin:MemoryServiceContextManager"]
    info = folder / "persona_e2e_plugins-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: persona-e2e-plugins\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    import sys
    sys.path.insert(0, str(folder))


PERSONAS = {
    # the daemon-side backend selected as in the seed's persona examples
    "Butler": {"name": "Butler", "solvers": [CHAT], "memory_module": PLUGIN,
               PLUGIN: {"persona_id": "butler", "timeout": 1, "retry_interval": 0.5,
                        "memory_module": "ovos-memory-plugin-recency",
                        "ovos-memory-plugin-recency": {"max_history": 10,
                                                       "system_prompt": "You are a butler."}}},
    # no persona_id: it comes from the bus message (the persona's name)
    "Pirate": {"name": "Pirate", "solvers": [CHAT], "memory_module": PLUGIN,
               PLUGIN: {"system_prompt": "Talk like a pirate."}},
}


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """The bus and the service, with this process's own mycroft.conf pointing at
    that bus (conftest put HOME and XDG in a sandbox): the plugin finds the bus
    as on a device."""
    register_entry_points(tmp_path_factory.mktemp("entry-points"))
    s = Stack(Path(os.environ["HOME"]))
    Configuration.reload()
    s.start_service()
    yield s
    s.close()
    persona_plugin.close_connections()


class Persona:
    """A running PersonaService and a way to talk to it as ovos-core would."""

    def __init__(self, stack, folder: Path):
        from ovos_persona import PersonaService
        folder.mkdir(parents=True, exist_ok=True)
        for name, persona in PERSONAS.items():
            (folder / f"{name}.json").write_text(json.dumps(persona))
        self.stack = stack
        self.bus = connect(stack.port)  # the persona's own connection, as its own process
        self.service = PersonaService(self.bus, config={"personas_path": str(folder),
                                                        "default_persona": "Butler",
                                                        "ignore_plugin_personas": True})
        self.spoken = []
        self.answered = threading.Condition()
        stack.bus.on("speak", self._on_speak)

    def _on_speak(self, message):
        with self.answered:
            self.spoken.append(message)
            self.answered.notify_all()

    def memory(self, name):
        return self.service.personas[name].memory

    def say(self, utterance, session_id, persona="Butler", active=None, timeout=15, identity=None,
            recorded=True):
        """recognizer_loop:utterance, then the persona pipeline's persona:query match.
        ``identity``: context keys of the speaker (as an identity transformer adds
        them); ``recorded`` False: the local window is not expected to take it (paused)."""
        session = {"session_id": session_id, "lang": "en-US"}
        if active:
            session["persona_id"] = active
        context = {"session": session, **(identity or {})}
        count = len(self.spoken)
        self.stack.bus.emit(Message("recognizer_loop:utterance",
                                    {"utterances": [utterance], "lang": "en-US"}, context))
        if recorded:
            wait_for(lambda: self._recorded(persona, session_id, utterance), "the utterance recorded")
        self.stack.bus.emit(Message("persona:query", {"utterance": utterance, "lang": "en-US",
                                                      "persona": persona}, context))
        with self.answered:
            self.answered.wait_for(lambda: any(
                m.context["session"]["session_id"] == session_id for m in self.spoken[count:]),
                timeout)
        answers = [m.data["utterance"] for m in self.spoken[count:]
                   if m.context["session"]["session_id"] == session_id]
        assert answers, f"no answer to {utterance!r}"
        # the spoken line is recorded too (0.9.0a25 records every speak)
        if recorded:
            wait_for(lambda: self._recorded(persona, session_id, answers[-1]), "the answer recorded")
        return answers[-1]

    def _recorded(self, persona, session_id, text):
        return any(last.endswith(text) for last in self.memory(persona).windows.last_contents(session_id))

    def close(self):
        from ovos_utils.fakebus import FakeBus
        self.stack.bus.remove("speak", self._on_speak)
        self.service.default_shutdown()  # as ovos-core unloads it
        # its __del__ shuts it down again: not on a closed connection, which would block
        self.service.bus = FakeBus()
        self.service.gui = None
        self.bus.close()


def wait_for(condition, what, timeout=15):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture
def persona(stack, tmp_path):
    p = Persona(stack, tmp_path / "personas")
    yield p
    p.close()


def history(stack, persona_id, session_id, expected=None):
    """The daemon's history, once it equals ``expected`` (updates land just after the answer)."""
    def get():
        reply = stack.ok("memory.history.get", {"persona_id": persona_id}, session_id=session_id)
        return [(m["role"], m["content"]) for m in reply["messages"]]
    if expected is not None:
        deadline = time.monotonic() + 10
        while get() != expected and time.monotonic() < deadline:
            time.sleep(0.1)
    return get()


def test_the_exchange_lands_in_the_daemon_and_the_next_turn_carries_it(stack, persona):
    assert persona.say("my name is Ana", "e2e-1") == "Noted: my name is Ana"
    expected = [("user", "my name is Ana"), ("assistant", "Noted: my name is Ana")]
    assert history(stack, "butler", "e2e-1", expected) == expected
    assert persona.say("what is my name?", "e2e-1") == "Your name is Ana"
    session_id, context = RecallingChat.seen[-1]
    assert context == [("system", "You are a butler."), ("user", "my name is Ana"),
                       ("assistant", "Noted: my name is Ana"), ("user", "what is my name?")]
    expected += [("user", "what is my name?"), ("assistant", "Your name is Ana")]
    assert history(stack, "butler", "e2e-1", expected) == expected


def test_two_personas_in_one_session_stay_separate(stack, persona):
    persona.say("my name is Ana", "e2e-2", persona="Butler")
    persona.say("my name is Jack", "e2e-2", persona="Pirate", active="Pirate")
    assert persona.say("what is my name?", "e2e-2", persona="Butler") == "Your name is Ana"
    assert persona.say("what is my name?", "e2e-2", persona="Pirate", active="Pirate") \
        == "Your name is Jack"
    assert RecallingChat.seen[-1][1][0] == ("system", "Talk like a pirate.")
    for persona_id, name in (("Pirate", "Jack"), ("butler", "Ana")):
        expected = [("user", f"my name is {name}"), ("assistant", f"Noted: my name is {name}"),
                    ("user", "what is my name?"), ("assistant", f"Your name is {name}")]
        assert history(stack, persona_id, "e2e-2", expected) == expected


def test_ovos_persona_query_reads_memory_and_writes_nothing(stack, persona):
    persona.say("my name is Ana", "e2e-3")
    before = [("user", "my name is Ana"), ("assistant", "Noted: my name is Ana")]
    assert history(stack, "butler", "e2e-3", before) == before
    reply = stack.bus.wait_for_response(
        Message("ovos.persona.query", {"persona_id": "Butler", "utterance": "what is my name?"},
                {"session": {"session_id": "e2e-3", "lang": "en-US"}}),
        reply_type="ovos.persona.answer", timeout=15)
    assert reply is not None and reply.data["response"] == "Your name is Ana"
    time.sleep(0.5)
    assert history(stack, "butler", "e2e-3") == before
    assert not persona.memory("Butler")._queue


def test_the_daemon_stopped_mid_conversation_does_not_break_the_persona(stack, persona):
    persona.say("my name is Ana", "e2e-4")
    stack.stop_service()
    try:
        started = time.monotonic()
        assert persona.say("I live in Porto", "e2e-4") == "Noted: I live in Porto"
        assert persona.say("what is my name?", "e2e-4") == "Your name is Ana"  # the local window
        assert time.monotonic() - started < 10
        assert persona.memory("Butler")._queue
    finally:
        stack.start_service()
    wait_for(lambda: not persona.memory("Butler")._queue, "the queued turns delivered")
    expected = [("user", "my name is Ana"), ("assistant", "Noted: my name is Ana"),
                ("user", "I live in Porto"), ("assistant", "Noted: I live in Porto"),
                ("user", "what is my name?"), ("assistant", "Your name is Ana")]
    assert history(stack, "butler", "e2e-4", expected) == expected
    assert persona.say("what is my name?", "e2e-4") == "Your name is Ana"


def test_the_local_window_keeps_out_what_is_forgotten_and_the_voice_skills_lines(stack, persona):
    """"forget that" answered by the daemon's voice skill; then the daemon crashes,
    and the persona answers from its local window."""
    import signal
    from ovos_memory_service.edge.skill import SKILL_ID
    persona.say("my name is Ana", "e2e-5")
    persona.say("my favourite colour is blue", "e2e-5")
    session = {"session_id": "e2e-5", "lang": "en-US"}
    stack.bus.emit(Message("recognizer_loop:utterance", {"utterances": ["forget that"], "lang": "en-US"},
                           {"session": session}))
    wait_for(lambda: persona._recorded("Butler", "e2e-5", "forget that"), "the command recorded")
    # ovos-core matched the command: the daemon's voice skill forgets and speaks
    stack.bus.emit(Message(f"{SKILL_ID}:forget.last.intent", {"utterance": "forget that", "lang": "en-US"},
                           {"session": session}))
    kept = [("user", "my name is Ana"), ("assistant", "Noted: my name is Ana")]
    assert history(stack, "butler", "e2e-5", kept) == kept
    # the forgotten exchange and the command leave the window; the skill's line never enters it
    wait_for(lambda: persona._recorded("Butler", "e2e-5", "Noted: my name is Ana"), "the window cleared")
    stack.stop_service(signal.SIGKILL)
    try:
        persona.say("what is my favourite colour?", "e2e-5")
        assert RecallingChat.seen[-1][1] == [("system", "You are a butler."), *kept,
                                             ("user", "what is my favourite colour?")]
    finally:
        stack.start_service()


def test_tool_messages_on_the_newer_opm(stack):
    """OPM pre-releases have ToolCall: the tool inject mode arrives as real tool messages."""
    from ovos_plugin_manager.templates.agents import ToolCall
    memory = persona_plugin.MemoryServiceContextManager({
        "persona_id": "e2e-tools", "memory_module": "ovos-memory-plugin-lexical",
        "ovos-memory-plugin-lexical": {"inject_mode": "tool", "max_history": 2}})
    memory.update_history([AgentMessage(MessageRole.USER, "my bicycle is red"),
                           AgentMessage(MessageRole.ASSISTANT, "a red bicycle, nice")], "e2e-tools")
    memory.update_history([AgentMessage(MessageRole.USER, "hello"),
                           AgentMessage(MessageRole.ASSISTANT, "hi")], "e2e-tools")
    context = memory.build_conversation_context("what colour is my bicycle?", "e2e-tools")
    calls = [m for m in context if m.tool_calls]
    tools = [m for m in context if m.role == MessageRole.TOOL]
    assert calls and isinstance(calls[0].tool_calls[0], ToolCall)
    assert tools and tools[0].tool_call_id == calls[0].tool_calls[0].id and "bicycle" in tools[0].content
    assert context[-1].content == "what colour is my bicycle?"


# ------------------------------------------------- who is speaking (issue 37)
def full_history(stack, persona_id, session_id, context=None):
    reply = stack.client.request("memory.history.get", {"persona_id": persona_id, "limit": 500},
                                 {"session": {"session_id": session_id}, **(context or {})}, timeout=15)
    return [(m["role"], m["content"]) for m in reply["messages"]]


def test_spoken_lines_reach_the_daemon_in_the_order_they_were_said(stack, persona):
    """ovos-persona records each line in a thread of a pool: three lines emitted
    in order used to leave the plugin in any order (2, 3, 1 on a device)."""
    session_id = "e2e-order"
    context = {"session": {"session_id": session_id, "lang": "en-US"}}
    expected = []
    for n in range(15):
        question = f"question number {n}"
        stack.bus.emit(Message("recognizer_loop:utterance", {"utterances": [question], "lang": "en-US"}, context))
        lines = [f"answer {n}, sentence {k}." for k in (1, 2, 3)]
        for line in lines:
            stack.bus.emit(Message("speak", {"utterance": line, "lang": "en-US"}, context))
        expected += [("user", question), ("assistant", "\n".join(lines))]
    wait_for(lambda: len(full_history(stack, "butler", session_id)) >= len(expected)
             and not persona.memory("Butler")._queue, "every line stored")
    assert full_history(stack, "butler", session_id) == expected


def test_nothing_said_while_paused_reaches_the_llm_daemon_up_or_down(stack, persona):
    """"stop remembering" through the daemon's voice skill; a secret said while
    paused (the daemon up), then the daemon crashes and the persona answers
    from its local window, then a second secret with the daemon down."""
    import signal
    from ovos_memory_service.edge.skill import SKILL_ID
    session_id = "e2e-pause"
    session = {"session_id": session_id, "lang": "en-US"}
    persona.say("my name is Ana", session_id)
    paused, replies = threading.Event(), []
    stack.bus.on("memory.paused", lambda m: paused.set() if m.data.get("paused") else None)
    stack.bus.on("memory.history.update.response", lambda m: replies.append(m.data))
    stack.bus.emit(Message("recognizer_loop:utterance", {"utterances": ["stop remembering"], "lang": "en-US"},
                           {"session": session}))
    stack.bus.emit(Message(f"{SKILL_ID}:stop.remembering.intent", {"utterance": "stop remembering",
                                                                    "lang": "en-US"}, {"session": session}))
    assert paused.wait(10)
    count = len(replies)
    persona.say("my secret diary password is hunter2", session_id, recorded=False)
    wait_for(lambda: sum(1 for r in replies[count:] if r.get("paused")) >= 2, "the paused replies")
    stack.stop_service(signal.SIGKILL)
    try:
        persona.say("my other password is swordfish", session_id, recorded=False)
        persona.say("what are my passwords?", session_id, recorded=False)
        sent = json.dumps(RecallingChat.seen[-1][1])
        assert "hunter2" not in sent and "swordfish" not in sent and "my name is Ana" in sent
    finally:
        stack.start_service()
    wait_for(lambda: not persona.memory("Butler")._queue, "the queued updates delivered")
    assert "hunter2" not in str(full_history(stack, "butler", session_id))
    assert "swordfish" not in str(full_history(stack, "butler", session_id))
    stack.ok("memory.resume", {}, session_id=session_id)


def test_two_speakers_on_one_session_have_their_own_local_windows(stack, persona):
    """Identities as ovos-core forwards them with an identity transformer
    (context.user_id and the level); the daemon down, each speaker's local
    window holds only what they said."""
    import signal
    session_id = "e2e-speakers"
    alice = {"user_id": "e2e-alice", "auth_level": 3, "authenticated_at": time.time()}
    bob = {"user_id": "e2e-bob", "auth_level": 3, "authenticated_at": time.time()}
    persona.say("my name is Alice", session_id, identity=alice)
    persona.say("my name is Bob", session_id, identity=bob)
    stack.stop_service(signal.SIGKILL)
    try:
        assert persona.say("what is my name?", session_id, identity=alice) == "Your name is Alice"
        assert "Bob" not in json.dumps(RecallingChat.seen[-1][1])
        assert persona.say("what is my name?", session_id, identity=bob) == "Your name is Bob"
        assert "Alice" not in json.dumps(RecallingChat.seen[-1][1])
    finally:
        stack.start_service()
    wait_for(lambda: not persona.memory("Butler")._queue, "the queued updates delivered")
    assert "Bob" not in str(full_history(stack, "butler", session_id, {"user_id": "e2e-alice"}))
    assert "Alice" not in str(full_history(stack, "butler", session_id, {"user_id": "e2e-bob"}))
