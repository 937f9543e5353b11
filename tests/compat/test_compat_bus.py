"""The rows of the README's compatibility table that say "same", through the
persona plugin on a real bus and daemon: a persona JSON written for
ovos-memory-plugins 1.2.3a1, its block nested in the plugin's, behaves as the
seed's did. One stack for the module; each test has its own persona and user."""
import json
import time

import pytest
from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_memory_service.plugins import persona_plugin
from ovos_memory_service.plugins.persona_plugin import MemoryServiceContextManager
from tests.openai_stub import OpenAIStub
from tests.sandbox import Stack

pytestmark = pytest.mark.stack
SYS = "You are a careful assistant."


@pytest.fixture(autouse=True)
def close_shared_connections():
    yield
    persona_plugin.close_connections()


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """One bus and daemon for the module; the sessions of one person map to one user."""
    sessions = ("s-old", "s-new", "s-other", "s-comp")
    s = Stack(tmp_path_factory.mktemp("compat"), {"users": {session: "ana" for session in sessions}})
    s.start_service()
    yield s
    s.close()


@pytest.fixture(scope="module")
def stub():
    server = OpenAIStub(answer=lambda messages: "[]").start()
    yield server
    server.stop()


def persona(stack, persona_id, module, **block):
    """The plugin as ovos-persona loads it for a persona JSON whose old block
    (``module``: ``block``) now sits inside ``ovos-memory-service-plugin``."""
    return MemoryServiceContextManager({"bus": {"host": "127.0.0.1", "port": stack.port},
                                        "persona_id": persona_id, "memory_module": module, module: block})


def said(*texts):
    """user, assistant, user, ... as AgentMessages."""
    return [AgentMessage(MessageRole.USER if i % 2 == 0 else MessageRole.ASSISTANT, text)
            for i, text in enumerate(texts)]


def pairs(messages):
    return [(m.role.value, m.content) for m in messages]


def idle(stack, timeout=60.0):
    """Wait until the daemon's background work (facts, summaries, vectors) is done; raise on timeout."""
    deadline = time.monotonic() + timeout
    while stack.ok("memory.stats")["pending_jobs"]:
        if time.monotonic() > deadline:
            raise TimeoutError(f"background work still pending after {timeout} s")
        time.sleep(0.1)


# ------------------------------------------------------------------ recency
def test_recency_max_history_and_system_prompt(stack):
    short = persona(stack, "c-recency", "ovos-memory-plugin-recency", max_history=2, system_prompt=SYS)
    short.update_history(said("one", "two", "three", "four"), "s-rec")
    assert pairs(short.build_conversation_context("five", "s-rec")) == [
        ("system", SYS), ("user", "three"), ("assistant", "four"), ("user", "five")]
    whole = persona(stack, "c-recency-0", "ovos-memory-plugin-recency", max_history=0)
    whole.update_history(said(*[f"turn {i}" for i in range(14)]), "s-rec")
    assert len(whole.build_conversation_context("next", "s-rec")) == 15  # 0 = unbounded


def test_recency_max_age(stack):
    memory = persona(stack, "c-age", "ovos-memory-plugin-recency", max_age=3600)
    old = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 2 * 3600))
    stack.ok("memory.history.update", {"persona_id": "c-age", "messages": [
        {"role": "user", "content": "an old question", "created_at": old},
        {"role": "assistant", "content": "an old answer", "created_at": old}]}, session_id="s-age")
    memory.update_history(said("a new question", "a new answer"), "s-age")
    assert pairs(memory.build_conversation_context("and now?", "s-age")) == [
        ("user", "a new question"), ("assistant", "a new answer"), ("user", "and now?")]


def test_ovos_personas_own_default_keeps_five(stack):
    memory = persona(stack, "c-short", "ovos-agents-short-term-memory-plugin")
    memory.update_history(said(*[f"turn {i}" for i in range(8)]), "s-short")
    # the newest 5 stored turns, trimmed to open on a user turn
    assert pairs(memory.build_conversation_context("next", "s-short"))[0] == ("user", "turn 4")


# ------------------------------------------------------ lexical, local-rag
HEADER = "Recalled:"


def recall_persona(stack, persona_id, module="ovos-memory-plugin-lexical", **block):
    """A retriever persona that said "My locker number is 4471" in another session."""
    memory = persona(stack, persona_id, module, system_prompt=SYS, **block)
    memory.update_history(said("My locker number is 4471", "Noted.", "I like green tea", "Nice."), "s-old")
    memory.update_history(said("hi", "hello"), "s-new")
    idle(stack)
    return memory


@pytest.mark.parametrize("mode", ["system", "developer", "system_prompt", "user"])
def test_inject_modes_and_context_keys(stack, mode):
    memory = recall_persona(stack, f"c-inject-{mode}", inject_mode=mode,
                            context={"header": HEADER, "chunk_prefix": "* "},
                            system_prompt_template="{system}|{header}|{context}",
                            user_template="{header}|{context}|{utterance}")
    got = pairs(memory.build_conversation_context("what is my locker number?", "s-new"))
    history = [("user", "hi"), ("assistant", "hello")]
    if mode in ("system", "developer"):
        assert got[0] == ("system", SYS) and got[2:] == history + [("user", "what is my locker number?")]
        assert got[1][0] == mode and got[1][1].startswith(f"{HEADER}\n\nContext:\n* ")
        assert "4471" in got[1][1]
    elif mode == "system_prompt":
        assert got[0][0] == "system" and got[0][1].startswith(f"{SYS}|{HEADER}|* ") and "4471" in got[0][1]
        assert got[1:] == history + [("user", "what is my locker number?")]
    else:
        assert got[:3] == [("system", SYS)] + history
        assert got[3][0] == "user" and got[3][1].startswith(f"{HEADER}|* ") and "4471" in got[3][1]
        assert got[3][1].endswith("|what is my locker number?")


def test_retrieval_keys(stack):
    memory = recall_persona(stack, "c-retrieval", retrieval={"max_num_results": 1},
                            context={"include_sources": True, "chunk_separator": "\n~\n"})
    block = memory.build_conversation_context("my locker number and my tea?", "s-new")[1].content
    assert block.count("\n~\n") == 0 and block.split("Context:\n")[1].startswith("- [")  # one, with its id
    two = recall_persona(stack, "c-retrieval-2", context={"chunk_separator": "\n~\n"})
    assert "\n~\n" in two.build_conversation_context("my locker number and my tea?", "s-new")[1].content


def test_query_mode_history(stack):
    question = "remind me what it was"
    for mode, recalled in (("utterance", False), ("history", True)):
        memory = recall_persona(stack, f"c-query-{mode}", retrieval={"query_mode": mode, "query_history_turns": 2})
        memory.update_history(said("I forgot my locker", "Oh?"), "s-new")
        got = memory.build_conversation_context(question, "s-new")
        assert any("4471" in m.content for m in got) is recalled


def test_scope_session_and_global(stack):
    for scope, recalled in (("session", False), ("global", True)):
        memory = recall_persona(stack, f"c-scope-{scope}", scope=scope)
        got = memory.build_conversation_context("what is my locker number?", "s-new")
        assert any("4471" in m.content for m in got) is recalled


def test_retriever_max_history(stack):
    memory = persona(stack, "c-rag-window", "ovos-memory-plugin-lexical", max_history=2)
    memory.update_history(said("one", "two", "three", "four"), "s-win")
    assert pairs(memory.build_conversation_context("five", "s-win"))[-3:] == [
        ("user", "three"), ("assistant", "four"), ("user", "five")]


def test_local_rag_takes_its_seed_block(stack):
    memory = recall_persona(stack, "c-rag", "ovos-memory-plugin-local-rag",
                            embeddings_plugin="ovos-gguf-embeddings-plugin", collection="ovos_local_rag",
                            embeddings_db_plugin="ovos-chromadb-embeddings-plugin",
                            retrieval={"max_num_results": 2})
    got = memory.build_conversation_context("what is my locker number?", "s-new")
    assert any("4471" in m.content for m in got) and pairs(got)[-1] == ("user", "what is my locker number?")


def test_tool_mode_names_the_tool(stack):
    """OPM 2.6+ carries it as a tool call (OPM 2.2, here, has no tool messages):
    the daemon's reply to the plugin has the seed's shape."""
    recall_persona(stack, "c-tool", inject_mode="tool", context={"tool_name": "look_up"})
    reply = stack.ok("memory.context.build", {"persona_id": "c-tool", "utterance": "what is my locker number?"},
                     session_id="s-new")
    roles = [m["role"] for m in reply["messages"]]
    assert roles == ["system", "user", "assistant", "assistant", "tool", "user"]
    call = reply["messages"][3]["tool_calls"][0]
    assert call["name"] == "look_up" and call["arguments"] == {"query": "what is my locker number?"}
    assert reply["messages"][4]["tool_call_id"] == call["id"] and reply["messages"][4]["name"] == "look_up"


# ---------------------------------------------------------------- composite
def lock_codes(stack, memory):
    """Two lock codes, said in two sessions; the window (2 turns) keeps neither."""
    memory.update_history(said("My gym lock code is 9876", "Noted."), "s-other")
    memory.update_history(said("My bike lock code is 1234", "Noted.", "the weather is nice", "It is.",
                               "I had soup", "Tasty."), "s-comp")
    idle(stack)


def test_composite_members_primary_and_blocks(stack):
    memory = persona(stack, "c-comp", "ovos-memory-plugin-composite", system_prompt=SYS,
                     members=[{"module": "ovos-memory-plugin-recency", "config": {"max_history": 2}},
                              {"module": "ovos-memory-plugin-lexical", "weight": 1.0},
                              {"module": "no-such-memory-plugin"},  # fails to load: skipped
                              {"module": "ovos-memory-plugin-entity", "config": {"api_url": "",
                                                                                "facts_header": "Facts:"}}],
                     primary="ovos-memory-plugin-recency", fusion="rrf", rrf_k=60, max_num_results=1,
                     member_fetch_k=4, dedup=True, inject_mode="system")
    stack.ok("memory.remember", {"persona_id": "c-comp", "content": "Rides a red bike"}, session_id="s-comp")
    lock_codes(stack, memory)
    got = pairs(memory.build_conversation_context("what is my bike lock code?", "s-comp"))
    assert got[0] == ("system", SYS)
    assert got[1][0] == "system" and got[1][1].startswith("Facts:\n")  # a plain member's block
    assert "- Rides a red bike" in got[1][1].splitlines()  # (with what ana said to other personas)
    assert got[2][1].startswith("Use the following recalled context") and got[2][1].count("\n- ") == 1
    assert got[3:] == [("user", "I had soup"), ("assistant", "Tasty."), ("user", "what is my bike lock code?")]


@pytest.mark.parametrize("fusion, gym", [("priority", False), ("rrf", True)])
def test_priority_takes_the_first_member_with_hits(stack, fusion, gym):
    memory = persona(stack, f"c-prio-{fusion}", "ovos-memory-plugin-composite", fusion=fusion,
                     members=[{"module": "ovos-memory-plugin-lexical", "config": {"scope": "session", "max_history": 2}},
                              {"module": "ovos-memory-plugin-lexical"}])
    lock_codes(stack, memory)
    text = " ".join(m.content for m in memory.build_conversation_context("what is my lock code?", "s-comp"))
    assert "1234" in text and ("9876" in text) is gym


def test_composite_scope_reaches_its_members(stack):
    for scope, gym in (("session", False), ("global", True)):
        memory = persona(stack, f"c-cscope-{scope}", "ovos-memory-plugin-composite", scope=scope,
                         members=[{"module": "ovos-memory-plugin-lexical", "config": {"max_history": 2}}])
        lock_codes(stack, memory)
        text = " ".join(m.content for m in memory.build_conversation_context("what is my lock code?", "s-comp"))
        assert "1234" in text and ("9876" in text) is gym


@pytest.mark.parametrize("fusion", ["merge", "interleave", "weighted"])
def test_other_fusions(stack, fusion):
    memory = persona(stack, f"c-fuse-{fusion}", "ovos-memory-plugin-composite", fusion=fusion,
                     members=[{"module": "ovos-memory-plugin-lexical", "config": {"max_history": 2}},
                              {"module": "ovos-memory-plugin-local-rag", "weight": 0.5}])
    lock_codes(stack, memory)
    text = " ".join(m.content for m in memory.build_conversation_context("what is my lock code?", "s-comp"))
    assert "1234" in text and text.count("My bike lock code is 1234") == 1  # dedup


# ------------------------------------------------------------------- entity
SEED_PROMPT = "Exchange:\n{exchange}\n\nList the durable facts as a JSON array of short strings."
REPLIES = {  # the shapes a model gives to the seed's prompt
    "marathon": 'Sure! Here they are: ["User is training for a marathon"] Anything else?',
    "tomatoes": '["User grows tomatoes"]\n["User has a balcony"]',
    "vinyl": "[1] User collects vinyl records",
}


def test_entity_block_through_the_plugin(stack, stub):
    stub.answer = lambda messages: next((r for k, r in REPLIES.items() if k in messages[-1]["content"]), "[]")
    memory = persona(stack, "c-entity", "ovos-memory-plugin-entity", api_url=stub.url, model="",
                     extraction_prompt=SEED_PROMPT, max_extract_tokens=64, max_facts=3,
                     facts_header="What I know:", system_prompt=SYS)
    for text in ("I am training for a marathon", "I grow tomatoes on my balcony", "I collect vinyl records"):
        memory.update_history(said(text, "Nice."), "s-entity")
        idle(stack)  # learnt in this order
    got = pairs(memory.build_conversation_context("what do you know about me?", "s-entity"))
    # oldest first, in the model's words, the newest max_facts; no turns (the seed has none)
    assert got == [("system", SYS),
                   ("system", "What I know:\n- User grows tomatoes\n- User has a balcony\n"
                              "- User collects vinyl records"),
                   ("user", "what do you know about me?")]
    requests = stub.chats("durable facts as a JSON array")
    assert requests and all(r["max_tokens"] == 64 for r in requests)
    assert "User: I collect vinyl records\nAssistant: Nice." in requests[-1]["messages"][-1]["content"]
    assert stub.model_lookups >= 1  # model "" asks the server


def test_entity_facts_header_default(stack):
    memory = persona(stack, "c-entity-default", "ovos-memory-plugin-entity", api_url="")
    stack.ok("memory.remember", {"persona_id": "c-entity-default", "content": "Likes long walks"},
             session_id="s-ed")
    got = pairs(memory.build_conversation_context("hi", "s-ed"))
    assert got[0][0] == "system" and got[0][1].startswith("Known facts about the user:\n- ")


# ----------------------------------------------------------------- longterm
def test_longterm_summary_and_window(stack, stub):
    stub.answer = lambda messages: "The user asked two questions."
    memory = persona(stack, "c-long", "ovos-memory-plugin-longterm", api_url=stub.url, model="m",
                     summarize_every=2, recent_window=1, max_summary_tokens=99, system_prompt=SYS)
    memory.update_history(said("question 1", "answer 1", "question 2", "answer 2"), "s-long")
    idle(stack)
    got = pairs(memory.build_conversation_context("question 3", "s-long"))
    assert got == [("system", f"{SYS}\n\n[Conversation summary so far]\nThe user asked two questions."),
                   ("user", "question 2"), ("assistant", "answer 2"), ("user", "question 3")]
    summaries = [r for r in stub.requests if r.get("max_tokens") == 99]
    assert summaries and "question 1" in json.dumps(summaries[0]["messages"])
    # get_history, as the seed: the turns the summary has not folded yet
    assert pairs(memory.get_history("s-long")) == [("user", "question 2"), ("assistant", "answer 2")]


def test_entity_get_history_is_empty(stack):
    memory = persona(stack, "c-entity-history", "ovos-memory-plugin-entity", api_url="")
    memory.update_history(said("hi there", "hello"), "s-eh")
    assert memory.get_history("s-eh") == []  # as the seed: facts, no verbatim window
