"""The ovos-persona memory plugin against a real messagebus and the real
service (OPM 2.2: no ovos-persona here; tests/persona_env/ runs the real one)."""
import subprocess
import sys
import textwrap
import time

import pytest
from ovos_bus_client import Message
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_memory_service.plugins import persona_plugin
from ovos_memory_service.plugins.persona_plugin import MemoryServiceContextManager


@pytest.fixture(autouse=True)
def close_shared_connections():
    yield
    persona_plugin.close_connections()


def plugin(stack, **block):
    return MemoryServiceContextManager({"bus": {"host": "127.0.0.1", "port": stack.port}, **block})


def handle(message: Message, call, *args):
    """Call the plugin the way ovos-persona does: inside a bus handler of ``message``."""
    return call(*args)


def said(*pairs):
    return [AgentMessage(MessageRole.USER if role == "user" else MessageRole.ASSISTANT, text)
            for role, text in pairs]


def contents(messages):
    return [(getattr(m.role, "value", m["role"] if isinstance(m, dict) else m.role),
             m["content"] if isinstance(m, dict) else m.content) for m in messages]


def stored(stack, persona_id, session_id, **data):
    reply = stack.ok("memory.history.get", {"persona_id": persona_id, **data}, session_id=session_id)
    return [(m["role"], m["content"]) for m in reply["messages"]]


@pytest.mark.stack
def test_update_get_and_build_go_to_the_daemon(stack):
    memory = plugin(stack, persona_id="fwd-butler")
    memory.update_history(said(("user", "My cat is called Tom"), ("assistant", "Hello Tom!")), "s-fwd")
    assert stored(stack, "fwd-butler", "s-fwd") == [("user", "My cat is called Tom"),
                                                   ("assistant", "Hello Tom!")]
    assert contents(memory.get_history("s-fwd")) == [("user", "My cat is called Tom"),
                                                    ("assistant", "Hello Tom!")]
    context = memory.build_conversation_context("What is my cat called?", "s-fwd")
    assert contents(context)[-1] == ("user", "What is my cat called?")
    assert ("assistant", "Hello Tom!") in contents(context)
    assert not memory._queue
    # another session of the same persona has its own history
    assert memory.get_history("s-fwd-other") == []


@pytest.mark.stack
def test_single_turns_as_ovos_persona_0_9_0a25_records_them(stack):
    memory = plugin(stack, persona_id="fwd-a25")
    for role, text in [("user", "hi"), ("assistant", "hello"), ("assistant", "how are you?"),
                       ("user", "fine")]:
        memory.update_history(said((role, text)), "s-a25")
    # the daemon merged the two spoken lines and the build does not repeat "fine"
    assert stored(stack, "fwd-a25", "s-a25") == [("user", "hi"), ("assistant", "hello\nhow are you?"),
                                                ("user", "fine")]
    context = contents(memory.build_conversation_context("fine", "s-a25"))
    assert [c for c in context if c[0] != "system"] == [
        ("user", "hi"), ("assistant", "hello\nhow are you?"), ("user", "fine")]


@pytest.mark.stack
def test_both_recording_styles_of_ovos_persona_give_the_same_memory(stack):
    memory = plugin(stack, persona_id="styles")
    exchanges = [("my dog is Rex", "Rex is a fine name"), ("he is three", "A young dog")]
    for question, answer in exchanges:  # 0.9.0a35: one exchange after the answer
        memory.update_history(said(("user", question), ("assistant", answer)), "s-a35")
    for question, answer in exchanges:  # 0.9.0a25: each utterance and spoken line as it happens
        memory.update_history(said(("user", question)), "s-a25b")
        memory.update_history(said(("assistant", answer)), "s-a25b")
    assert stored(stack, "styles", "s-a35") == stored(stack, "styles", "s-a25b")
    assert contents(memory.build_conversation_context("how old is Rex?", "s-a35")) == \
        contents(memory.build_conversation_context("how old is Rex?", "s-a25b"))


@pytest.mark.stack
def test_the_block_configures_the_persona_backend(stack):
    memory = plugin(stack, persona_id="cfg-butler", memory_module="ovos-memory-plugin-recency",
                    **{"ovos-memory-plugin-recency": {"max_history": 2,
                                                      "system_prompt": "You are a butler."}})
    memory.update_history(said(("user", "one"), ("assistant", "two"),
                               ("user", "three"), ("assistant", "four")), "s-cfg")
    context = contents(memory.build_conversation_context("five", "s-cfg"))
    assert context == [("system", "You are a butler."), ("user", "three"), ("assistant", "four"),
                       ("user", "five")]
    assert memory.system_prompt == "You are a butler."


@pytest.mark.stack
def test_two_personas_keep_separate_histories_in_one_session(stack):
    a = plugin(stack, persona_id="sep-a")
    b = plugin(stack, persona_id="sep-b")
    a.update_history(said(("user", "I am talking to A"), ("assistant", "A here")), "s-sep")
    b.update_history(said(("user", "I am talking to B"), ("assistant", "B here")), "s-sep")
    assert contents(a.get_history("s-sep")) == [("user", "I am talking to A"), ("assistant", "A here")]
    assert contents(b.get_history("s-sep")) == [("user", "I am talking to B"), ("assistant", "B here")]


@pytest.mark.stack
def test_persona_id_from_the_message_being_handled_then_a_hash_of_the_block(stack):
    memory = plugin(stack)  # no persona_id in the block
    session = {"session_id": "s-fallback", "persona_id": "Ana's Assistant"}
    handle(Message("recognizer_loop:utterance", {"utterances": ["hi"]}, {"session": session}),
           memory.update_history, said(("user", "hi from the session")), "s-fallback")
    assert stored(stack, "Ana's Assistant", "s-fallback") == [("user", "hi from the session")]

    # ovos.persona.query names its persona in the data, whatever the session's persona
    handle(Message("ovos.persona.query", {"persona_id": "Quizzer", "utterance": "x"},
                   {"session": session}),
           memory.update_history, said(("user", "hi to the quizzer")), "s-fallback")
    assert stored(stack, "Quizzer", "s-fallback") == [("user", "hi to the quizzer")]

    # no message: a hash of the block, stable across instances and processes
    memory.update_history(said(("user", "hi from nowhere")), "s-fallback")
    hashed = memory.persona_id()
    assert hashed.startswith("persona-") and hashed == plugin(stack).persona_id()
    assert hashed != plugin(stack, system_prompt="other").persona_id()
    assert stored(stack, hashed, "s-fallback") == [("user", "hi from nowhere")]


@pytest.mark.stack
def test_session_and_user_come_from_the_message_being_handled(stack):
    memory = plugin(stack, persona_id="who-butler")
    message = Message("speak", {"utterance": "x"},
                      {"session": {"session_id": "s-who", "lang": "en-us"}, "user_id": "ana"})
    handle(message, memory.update_history, said(("user", "I am Ana")), "s-who")
    assert stored(stack, "who-butler", "s-who", user_id="ana") == [("user", "I am Ana")]
    assert stored(stack, "who-butler", "s-who") == []  # not the session's default user


@pytest.mark.stack
def test_daemon_away_keeps_the_persona_working_and_catches_up_in_order(fresh_stack):
    stack = fresh_stack
    stack.start_service()
    memory = plugin(stack, persona_id="away-butler", timeout=1, retry_interval=0.5,
                    memory_module="ovos-memory-plugin-recency",
                    **{"ovos-memory-plugin-recency": {"system_prompt": "Be brief."}})
    memory.update_history(said(("user", "my name is Ana"), ("assistant", "hi Ana")), "s-away")

    stack.stop_service()
    memory.update_history(said(("user", "I live in Porto")), "s-away")
    said_at = time.time()
    memory.update_history(said(("assistant", "Porto is lovely")), "s-away")
    memory.update_history(said(("user", "where do I live?")), "s-away")
    started = time.monotonic()
    context = contents(memory.build_conversation_context("where do I live?", "s-away"))
    assert time.monotonic() - started < 1.5  # the daemon is known to be away: no second wait
    assert context == [("system", "Be brief."), ("user", "my name is Ana"), ("assistant", "hi Ana"),
                       ("user", "I live in Porto"), ("assistant", "Porto is lovely"),
                       ("user", "where do I live?")]
    assert len(memory._queue) == 3
    assert contents(memory.get_history("s-away"))[-1] == ("user", "where do I live?")

    time.sleep(1.5)
    stack.start_service()
    deadline = time.monotonic() + 15
    while memory._queue and time.monotonic() < deadline:  # the retry thread delivers
        time.sleep(0.1)
    assert not memory._queue
    reply = stack.ok("memory.history.get", {"persona_id": "away-butler"}, session_id="s-away")
    assert [(m["role"], m["content"]) for m in reply["messages"]] == [
        ("user", "my name is Ana"), ("assistant", "hi Ana"), ("user", "I live in Porto"),
        ("assistant", "Porto is lovely"), ("user", "where do I live?")]
    from ovos_memory_service.common.wire import parse_time
    spoken = parse_time(reply["messages"][3]["created_at"])
    assert abs(spoken - said_at) < 1  # the time it was said, not the time it was delivered
    context = contents(memory.build_conversation_context("where do I live?", "s-away"))
    assert ("assistant", "Porto is lovely") in context and context[-1] == ("user", "where do I live?")


@pytest.mark.stack
def test_no_daemon_at_all_from_the_start(fresh_stack):
    memory = plugin(fresh_stack, persona_id="never", timeout=0.5, system_prompt="Hi.")
    memory.update_history(said(("user", "hello"), ("assistant", "hey")), "s-never")
    assert contents(memory.build_conversation_context("again", "s-never")) == [
        ("system", "Hi."), ("user", "hello"), ("assistant", "hey"), ("user", "again")]


# ------------------------------------------------------------- an invalid block
@pytest.mark.stack
@pytest.mark.parametrize("module, block, problem", [
    ("ovos-memory-plugin-composite", {"inject_mode": "nope"}, "inject_mode"),
    ("ovos-memory-plugin-composite", {"fusion": "average"}, "fusion"),
    ("ovos-memory-plugin-lexical", {"scope": "everywhere"}, "scope"),
    ("ovos-memory-service-plugin", {}, "connects a persona"),
])
def test_an_invalid_block_is_refused_at_load_even_with_the_daemon_away(fresh_stack, module, block, problem):
    with pytest.raises(ValueError, match=problem):
        plugin(fresh_stack, persona_id="bad-away", timeout=0.5, memory_module=module, **{module: block})


@pytest.mark.stack
def test_the_daemon_refuses_a_block_at_load(stack):
    """A module this process cannot check (not a built-in: maybe a plugin the daemon has)."""
    with pytest.raises(ValueError, match="unknown memory_module 'not-a-backend'"):
        plugin(stack, persona_id="bad-here", memory_module="not-a-backend")
    assert stack.request("memory.history.get", {"persona_id": "bad-here"}, session_id="s-bad")["messages"] == []


@pytest.mark.stack
def test_a_block_the_daemon_refuses_later_fails_every_call(fresh_stack):
    """Away at load, and no persona_id to configure: the daemon's answer comes on first use."""
    stack = fresh_stack
    memory = plugin(stack, timeout=0.5, retry_interval=0.2, memory_module="not-a-backend")
    stack.start_service()
    with pytest.raises(ValueError, match="unknown memory_module 'not-a-backend'"):
        memory.build_conversation_context("hello again", "s-later")
    for call, args in ((memory.update_history, (said(("user", "more")), "s-later")),
                       (memory.get_history, ("s-later",)),
                       (memory.build_conversation_context, ("again", "s-later"))):
        with pytest.raises(ValueError, match="not-a-backend"):
            call(*args)
    assert stored(stack, memory.persona_id(), "s-later") == []  # nothing ran on the default backend


# ----------------------------------------- forgotten, and the voice skill's own lines
@pytest.mark.stack
def test_the_local_window_drops_what_is_forgotten_and_the_voice_skills_lines(fresh_stack):
    """As ovos-persona 0.9.0a25 records (every utterance, every spoken line of any
    skill), with the daemon's own voice skill answering "forget that"."""
    import signal
    import threading
    from ovos_memory_service.edge.skill import SKILL_ID
    from tests.helpers import eventually
    stack = fresh_stack
    stack.start_service()
    memory = plugin(stack, persona_id="fg-butler", timeout=1, retry_interval=30)
    session = {"session_id": "s-fg", "lang": "en-us"}

    def hear(text):
        handle(Message("recognizer_loop:utterance", {"utterances": [text], "lang": "en-us"},
                       {"session": session}), memory.update_history, said(("user", text)), "s-fg")

    def speak(message):
        handle(message, memory.update_history, said(("assistant", message.data["utterance"])), "s-fg")

    def persona_says(text):
        speak(Message("speak", {"utterance": text, "meta": {"skill": "persona.openvoiceos"}},
                      {"session": session, "skill_id": "persona.openvoiceos"}))

    hear("my name is Ana")
    persona_says("Hello Ana")
    hear("my favourite colour is blue")
    persona_says("Blue is a fine colour")
    hear("forget that")
    spoken, forgotten = [], threading.Event()
    stack.bus.on("speak", lambda m: spoken.append(m) if m.context.get("skill_id") == SKILL_ID else None)
    stack.bus.on("memory.forgotten", lambda m: forgotten.set())
    # ovos-core matched the command: the daemon's voice skill handles it
    stack.bus.emit(Message(f"{SKILL_ID}:forget.last.intent", {"utterance": "forget that", "lang": "en-us"},
                           {"session": session}))
    assert eventually(lambda: spoken) and forgotten.wait(10)
    speak(spoken[0])  # ovos-persona records the skill's line too
    assert stored(stack, "fg-butler", "s-fg") == [("user", "my name is Ana"), ("assistant", "Hello Ana")]

    stack.stop_service(signal.SIGKILL)
    hear("what is my favourite colour?")

    def local():
        return contents(memory.build_conversation_context("what is my favourite colour?", "s-fg"))
    expected = [("user", "my name is Ana"), ("assistant", "Hello Ana"), ("user", "what is my favourite colour?")]
    assert eventually(lambda: local() == expected, timeout=10), local()


@pytest.mark.stack
def test_instances_share_one_bus_connection(stack):
    a, b = plugin(stack, persona_id="share-a"), plugin(stack, persona_id="share-b")
    assert a.bus is b.bus and len(persona_plugin._clients) == 1


@pytest.mark.stack
def test_a_process_with_two_personas_uses_mycroft_conf_and_exits_cleanly(stack):
    """No ``bus`` key: the bus comes from mycroft.conf; the connection closes at exit."""
    script = textwrap.dedent("""
        from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole
        from ovos_memory_service.plugins.persona_plugin import MemoryServiceContextManager
        a = MemoryServiceContextManager({"persona_id": "proc-a"})
        b = MemoryServiceContextManager({"persona_id": "proc-b"})
        assert a.bus is b.bus
        a.update_history([AgentMessage(MessageRole.USER, "from a process")], "s-proc")
        print(len(a.get_history("s-proc")))
    """)
    out = subprocess.run([sys.executable, "-c", script], env=stack.env, capture_output=True,
                         text=True, timeout=30)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "1"
    assert stored(stack, "proc-a", "s-proc") == [("user", "from a process")]


def test_registered_as_an_opm_memory_plugin():
    """Installed without its entry point, the project is broken: ovos-persona cannot load it."""
    from ovos_plugin_manager.agents import find_memory_plugins
    plugins = find_memory_plugins()
    assert "ovos-memory-service-plugin" in plugins, \
        f"no opm.agents.memory entry point: reinstall the project (pip install -e .); found {sorted(plugins)}"
    assert plugins["ovos-memory-service-plugin"] is MemoryServiceContextManager
