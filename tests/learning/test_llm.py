"""The OpenAI-compatible client: answers, the model asked for once, a total
deadline, and a circuit breaker while the endpoint is down."""
import time

import pytest

from ovos_memory_service.learning.llm_client import ChatClient, LLMUnavailable
from tests.openai_stub import MODEL, OpenAIStub


@pytest.fixture
def stub():
    server = OpenAIStub(answer=lambda messages: "<think>hmm</think> Hello there.").start()
    yield server
    server.stop()


def ask(client):
    return client.complete([{"role": "user", "content": "hi"}], max_tokens=16)


def test_answers_and_asks_for_the_model_once(stub):
    client = ChatClient(stub.url)
    assert ask(client) == "Hello there."  # a reasoning model's thinking is dropped
    assert ask(ChatClient(stub.url)) == "Hello there."
    assert stub.model_lookups == 1
    assert [r["model"] for r in stub.requests] == [MODEL, MODEL]
    assert stub.requests[0]["max_tokens"] == 16


def test_a_configured_model_and_key_are_sent(stub):
    assert ask(ChatClient(stub.url, model="llama", api_key="sk-local")) == "Hello there."
    assert stub.model_lookups == 0
    assert stub.requests[0]["model"] == "llama"
    assert stub.headers[0]["Authorization"] == "Bearer sk-local"


def test_a_hung_endpoint_fails_at_the_deadline(stub):
    stub.mode = "hung"
    client = ChatClient(stub.url, model="m", timeout=1.0)
    started = time.monotonic()
    with pytest.raises(LLMUnavailable):
        ask(client)
    assert time.monotonic() - started < 10  # the deadline, not the server, ends the call


@pytest.mark.parametrize("mode", ["garbage", "error"])
def test_a_broken_endpoint_opens_the_breaker(stub, mode):
    stub.mode = mode
    client = ChatClient(stub.url, model="m", timeout=5)
    for _ in range(3):
        with pytest.raises(LLMUnavailable):
            ask(client)
    seen = len(stub.requests)
    with pytest.raises(LLMUnavailable, match="next try in"):
        ask(client)
    assert len(stub.requests) == seen  # failed at once, without a request
    # another client of the same endpoint shares the breaker
    with pytest.raises(LLMUnavailable, match="next try in"):
        ask(ChatClient(stub.url, model="other"))


def test_a_down_endpoint_is_unavailable():
    server = OpenAIStub()
    with pytest.raises(LLMUnavailable, match="ConnectionError"):
        ask(ChatClient(server.url, model="m", timeout=5))


def test_after_a_failure_the_model_is_asked_again(stub):
    client = ChatClient(stub.url, timeout=2)
    assert ask(client) == "Hello there."
    stub.mode = "error"
    with pytest.raises(LLMUnavailable):
        ask(client)
    stub.heal()
    assert ask(client) == "Hello there."
    assert stub.model_lookups == 2  # a restarted server may serve another model
