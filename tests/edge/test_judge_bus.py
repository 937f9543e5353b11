"""The judge of recall (engine/judge.py) through a real messagebus and the real
daemon: what it finds is recalled and listed by a forget's dry run, it reads
only the memories of the one who asks, and an endpoint gone leaves recall as
it is without one."""
import re

import pytest

from tests.helpers import eventually
from tests.openai_stub import OpenAIStub
from tests.sandbox import Stack

pytestmark = pytest.mark.stack
TRIP = "we went hiking in the alps last summer"


def verdict(messages):
    """The memories that say "alps" answer "travel"; nothing answers anything else."""
    prompt = messages[-1]["content"]
    found = [n for n, text in re.findall(r"^(\d+)\. (.*)$", prompt, re.M) if "alps" in text]
    return ", ".join(found) if found and "travel" in prompt else "none"


@pytest.fixture(scope="module")
def judge():
    server = OpenAIStub(answer=verdict).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def stack(tmp_path_factory, judge):
    stack = Stack(tmp_path_factory.mktemp("judge"), {"judge": {"api_url": judge.url, "model": "m",
                                                               "request_timeout": 2}})
    stack.start_service()
    yield stack
    stack.close()


def tell(stack, user, said, reply):
    stack.ok("memory.history.update", {"user_id": user, "messages": [
        {"role": "user", "content": said}, {"role": "assistant", "content": reply}]}, session_id="kitchen")
    eventually(lambda: stack.ok("memory.stats", {"user_id": user})["pending_jobs"] == 0, what="facts and vectors")


def test_what_the_judge_finds_is_recalled_and_listed_for_the_one_who_asks(stack, judge):
    tell(stack, "ana", TRIP, "Lovely.")
    tell(stack, "rui", "rui went to the alps for skiing", "Nice.")
    tell(stack, "ana", "my sister lives in porto", "Okay.")
    recalled = stack.ok("memory.recall", {"query": "travel", "user_id": "ana"}, session_id="kitchen")["memories"]
    assert [m["content"] for m in recalled][:1] == [TRIP]
    listed = stack.ok("memory.forget", {"query": "travel", "user_id": "ana", "dry_run": True},
                      session_id="kitchen")
    assert {m["content"] for m in listed["memories"]} == {TRIP, "Lovely."}
    asked = judge.chats("travel")
    assert asked and not any("rui" in str(r["messages"]) for r in asked)


def test_with_the_endpoint_gone_recall_answers_without_it(stack, judge):
    tell(stack, "eva", "my son eli is eight", "Okay.")
    asked = {"query": "what is eli's teacher called", "user_id": "eva", "threshold": 0.0}
    judged = stack.ok("memory.recall", asked, session_id="kitchen")["memories"]
    judge.stop()
    try:
        unjudged = stack.ok("memory.recall", asked, session_id="kitchen")["memories"]
    finally:
        judge.start()
    assert {m["content"] for m in judged} == {m["content"] for m in unjudged}
    said = next(m for m in unjudged if m["content"] == "my son eli is eight")
    assert next(m for m in judged if m["id"] == said["id"])["score"] <= 0.05 < said["score"]
