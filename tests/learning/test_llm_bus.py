"""The LLM backends through a real messagebus and the real daemon: summaries
and facts appear after the reply, and a hung endpoint slows no request."""
import statistics
import time

import pytest

from tests.helpers import eventually
from tests.openai_stub import OpenAIStub
from tests.sandbox import Stack

pytestmark = pytest.mark.stack
FACT = '[{"statement": "Lives in Porto", "kind": "fact", "slot": "residence", "value": "Porto"}]'


def answer(messages):
    prompt = messages[-1]["content"]
    if "Exchange:" in prompt:
        return FACT if "home is Porto" in prompt else "[]"
    return "The user talked about Porto and asked questions."


@pytest.fixture(scope="module")
def stub():
    server = OpenAIStub(answer=answer).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def llm_stack(tmp_path_factory, stub):
    endpoint = {"api_url": stub.url, "model": "m", "request_timeout": 20}
    persona = {"memory_module": "ovos-memory-plugin-composite", "ovos-memory-plugin-composite": {
        "members": [
            {"module": "ovos-memory-plugin-longterm",
             "config": {**endpoint, "summarize_every": 2, "recent_window": 1}},
            {"module": "ovos-memory-plugin-entity", "config": endpoint},
            {"module": "ovos-memory-plugin-lexical"}]}}
    stack = Stack(tmp_path_factory.mktemp("llm"), {"personas": {"sage": persona}})
    stack.start_service()
    yield stack
    stack.close()


def update(stack, session, question, answer_text):
    started = time.monotonic()
    stack.ok("memory.history.update", {"persona_id": "sage", "messages": [
        {"role": "user", "content": question}, {"role": "assistant", "content": answer_text}]},
             session_id=session)
    return time.monotonic() - started


def build(stack, session, utterance):
    started = time.monotonic()
    reply = stack.ok("memory.context.build", {"persona_id": "sage", "utterance": utterance}, session_id=session)
    return time.monotonic() - started, reply


def test_summary_and_facts_arrive_after_the_reply(llm_stack, stub):
    update(llm_stack, "kitchen", "These days home is Porto for me", "Lovely.")
    update(llm_stack, "kitchen", "What should I cook tonight?", "Francesinha!")

    def kinds():
        items = llm_stack.ok("memory.list", {"persona_id": "sage"}, session_id="kitchen")["memories"]
        return {i["kind"] for i in items} >= {"summary", "fact"} and items
    items = eventually(kinds)
    assert items, "no summary or fact appeared"
    assert "Lives in Porto" in [i["content"] for i in items if i["kind"] == "fact"]
    _, reply = build(llm_stack, "kitchen", "where do I live?")
    system = "\n".join(m["content"] for m in reply["messages"] if m["role"] == "system")
    assert "[Conversation summary so far]\nThe user talked about Porto" in system
    assert "Known facts about the user:\n- Lives in Porto" in system
    assert {"summary", "fact"} <= {m["kind"] for m in reply["memories"]}


def test_a_hung_endpoint_slows_no_request(llm_stack, stub):
    healthy = [update(llm_stack, "hall", f"question {i}", f"answer {i}") +
               build(llm_stack, "hall", f"question {i}?")[0] for i in range(4)]
    held = len(stub.held)
    stub.mode = "hung"
    try:
        update(llm_stack, "hall", "These days home is Porto for me", "Nice.")
        eventually(lambda: len(stub.held) > held, what="the daemon's call to the hung endpoint")
        hung = [update(llm_stack, "hall", f"more {i}", f"reply {i}") +
                build(llm_stack, "hall", f"more {i}?")[0] for i in range(4)]
        stats = llm_stack.ok("memory.stats", {"persona_id": "sage"}, session_id="hall")
    finally:
        stub.heal()
    print(f"update+build median: healthy {statistics.median(healthy) * 1000:.0f} ms, "
          f"hung {statistics.median(hung) * 1000:.0f} ms")
    # a request that waited for the endpoint would take its 20 s deadline
    assert max(hung) < 5
    assert stats["llm_jobs"] >= 1  # the work waits in the queue, not in the turns
