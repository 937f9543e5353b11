"""entity with an LLM: facts from every exchange, in the background, through
the same fact model as the rules; nothing lost while the endpoint is down,
and no turn ever waits for it."""
import json
import time

import pytest

from ovos_memory_service.learning.facts.from_llm import parse, prompt, to_facts
from ovos_memory_service.store import Visible
from tests.helpers import eventually, exchange, scope, store, user
from tests.openai_stub import OpenAIStub

# what the stand-in model answers when a prompt contains the key
ANSWERS = {
    "home is Lisbon": '[{"statement": "Lives in Lisbon", "kind": "fact", "slot": "residence", "value": "Lisbon"}]',
    "home is Porto": '```json\n[{"statement": "Lives in Porto", "kind": "fact", "slot": "residence", '
                     '"value": "Porto", "negated": false}]\n```',
    "cycling to work": 'Sure! Here is what I found: {"statement": "Cycles to work every day", '
                       '"kind": "preference", "slot": null, "value": null} Let me know if you need more.',
    "brother Rui": '[{"statement": "Has a brother called Rui", "kind": "fact", "slot": "family.brother.name", '
                   '"value": "Rui"}, {"statement": "Rui is a ch',
    # said in ways the rules do not read, so that what is learnt comes from the model
    "Lisbon has been my home": '[{"statement": "Lives in Lisbon", "kind": "fact", "slot": "residence", '
                               '"value": "Lisbon"}]',
    "Rui, my brother": '[{"statement": "Has a brother called Rui", "kind": "fact", "slot": "family.brother.name", '
                       '"value": "Rui"}]',
    "beagle": "- Has a beagle named Bolt\n- Likes dogs",
    "weather": '[{"statement": "Asked about the wea',
    "pizza": "I'm sorry, I can't help with that.",
    "made up": '[{"statement": "Lives in Madrid", "slot": "residence", "value": "Madrid"}]',
}


def answer(messages):
    text = messages[-1]["content"].split("Exchange:")[-1]
    return next((reply for key, reply in ANSWERS.items() if key in text), "[]")


@pytest.fixture
def stub():
    server = OpenAIStub(answer=answer).start()
    yield server
    server.stop()


def entity_engine(make_engine, url, **block):
    block = {"api_url": url, "model": "m", "request_timeout": 5, **block}
    return make_engine(personas={"sage": {"memory_module": "ovos-memory-plugin-entity",
                                          "ovos-memory-plugin-entity": block}})


SAGE = scope(persona="sage")


def facts(engine, sc=SAGE, history=False):
    rows = engine.store.list_visible(Visible(sc, ("fact", "preference", "skill"), "all", history=True), 1000)
    rows.sort(key=lambda r: r["seq"])
    return [r for r in rows if history or r["status"] == "current"]


def contents(rows):
    return [r["content"] for r in rows]


# ------------------------------------------------------------ reading replies
@pytest.mark.parametrize("key, expected", [
    ("home is Porto", ["Lives in Porto"]),                       # JSON in a markdown fence
    ("cycling to work", ["Cycles to work every day"]),           # an object inside prose
    ("brother Rui", ["Has a brother called Rui"]),               # an array cut by max_tokens
    ("beagle", ["Has a beagle named Bolt", "Likes dogs"]),       # a bullet list
])
def test_malformed_replies_are_read(key, expected):
    said = {"home is Porto": "Home is Porto now", "cycling to work": "cycling to work every day",
            "brother Rui": "my brother Rui is a chef", "beagle": "our beagle Bolt loves dogs"}[key]
    found = to_facts(parse(ANSWERS[key]), said, "en-us", ["t1"])
    assert [f.content for f in found] == expected
    assert all(f.extractor == "llm" and f.sources == ["t1"] for f in found)


def test_nothing_chatter_and_fragments():
    assert parse("[]") == [] and parse("```json\n[]\n```") == [] and parse("NONE") == []
    assert to_facts(parse(ANSWERS["pizza"]), "I want a pizza", "en-us", []) == []  # not grounded
    assert parse(ANSWERS["weather"]) is None  # a fragment of JSON is unreadable


def test_the_seeds_reply_format_is_read():
    """The seed asks for one fact per line; a model may drop the "- "."""
    said = "User: my name is Marta and I live in Braga\nAssistant: Hello Marta!"
    found = to_facts(parse("User's name is Marta\n- User lives in Braga\n"), said, "en-us", [])
    assert [f.content for f in found] == ["User's name is Marta", "User lives in Braga"]  # as the model worded them


def test_a_template_written_for_the_seed_is_formatted():
    seed_style = "Extract facts as {{\"fact\": ...}} lines.\n\nExchange:\n{exchange}"
    assert prompt(seed_style, "User: hi", "en-us")[0]["content"] == (
        'Extract facts as {"fact": ...} lines.\n\nExchange:\nUser: hi')


def test_a_value_the_user_never_said_is_dropped():
    assert to_facts(parse(ANSWERS["made up"]), "I made up a story", "en-us", ["t1"]) == []


def test_slots_decide_kind_and_multi():
    found = to_facts([{"statement": "Likes jazz", "kind": "fact", "slot": "likes", "value": "jazz"},
                      {"statement": "Sister is Ana", "slot": "family.sister.name", "value": "Ana"}],
                     "I like jazz and my sister Ana", "en-us", [])
    assert [(f.kind, f.multi, f.slot) for f in found] == [
        ("preference", True, "likes"), ("fact", True, "family.sister.name")]  # several sisters


def test_the_prompt_carries_the_exchange_and_language():
    text = prompt(None, "User: olá", "pt-pt")[0]["content"]
    assert "User: olá" in text and "Portuguese (Portugal)" in text and "residence" in text
    custom = prompt("Facts from {exchange} as JSON {\"x\": 1}", "User: hi", "en-us")[0]["content"]
    assert custom == 'Facts from User: hi as JSON {"x": 1}'


# -------------------------------------------------------------- the engine
def test_facts_appear_after_the_reply_with_provenance(make_engine, stub):
    engine = entity_engine(make_engine, stub.url)
    ids = exchange(engine, SAGE, "Honestly, cycling to work every day keeps me sane", "Good for you!")["ids"]
    found = eventually(lambda: facts(engine))
    assert contents(found) == ["Cycles to work every day"]
    assert found[0]["extractor"] == "llm" and json.loads(found[0]["sources"]) == ids
    assert "Good for you!" in stub.chats("cycling")[0]["messages"][0]["content"]  # the whole exchange
    context = engine.build_context(SAGE, "what keeps me sane?")
    assert "Known facts about the user:\n- Cycles to work every day" in context.messages[0].content


def test_llm_facts_follow_the_fact_model(make_engine, stub):
    engine = entity_engine(make_engine, stub.url)
    exchange(engine, SAGE, "These days home is Lisbon for me", "Lovely city.")
    eventually(lambda: facts(engine))
    exchange(engine, SAGE, "Well, home is Porto now, we moved in May", "Congratulations!")
    exchange(engine, SAGE, "Yes, home is Porto now", "Noted.")
    assert eventually(lambda: engine.background.llm.pending() == 0)
    current = facts(engine)
    assert contents(current) == ["Lives in Porto"]  # the restatement added nothing
    assert [r["status"] for r in facts(engine, history=True)] == ["current", "superseded"]
    assert len(json.loads(current[0]["sources"])) == 4  # both exchanges that said it


def test_an_exchange_waits_for_its_reply(make_engine, stub):
    engine = entity_engine(make_engine, stub.url)
    store(engine, SAGE, user("Honestly, cycling to work every day keeps me sane"))
    # ovos-persona 0.9.0a25 stores the reply a moment later: the exchange's job waits for it
    assert engine.background.llm.pending() == 1
    assert engine.store.claim(("llm_facts",), 1, time.time(), lease_s=0) == []
    assert stub.requests == []
    store(engine, SAGE, {"role": "assistant", "content": "Good for you!"})
    assert eventually(lambda: facts(engine))


def test_unreadable_answers_are_tried_three_times(make_engine, stub, quick_retries):
    engine = entity_engine(make_engine, stub.url)
    exchange(engine, SAGE, "what is the weather", "Sunny.")
    assert eventually(lambda: engine.background.llm.pending() == 0)
    assert len(stub.chats("weather")) == 3 and facts(engine) == []


def test_nothing_is_lost_while_the_endpoint_is_down(make_engine, quick_retries):
    down = OpenAIStub(answer=answer)  # not started: connection refused
    engine = entity_engine(make_engine, down.url)
    exchange(engine, SAGE, "Lisbon has been my home for a while now", "Nice.")
    exchange(engine, SAGE, "Honestly, cycling to work every day keeps me sane", "Good.")
    exchange(engine, SAGE, "Rui, my brother, cooks for a living", "Tasty.")
    assert eventually(lambda: engine.health()["last_background_error"])
    assert facts(engine) == [] and engine.background.llm.pending() == 3
    down.start()
    try:
        found = eventually(lambda: len(facts(engine)) == 3 and facts(engine))
        assert sorted(contents(found)) == ["Cycles to work every day", "Has a brother called Rui",
                                           "Lives in Lisbon"]
    finally:
        down.stop()


def test_a_hung_endpoint_never_holds_a_turn(make_engine, stub, tmp_path):
    stub.mode = "hung"
    engine = entity_engine(make_engine, stub.url, request_timeout=30)
    exchange(engine, SAGE, "Honestly, cycling to work every day keeps me sane", "Good.")
    eventually(lambda: stub.requests)  # the worker is now inside a call that never ends
    started = time.monotonic()
    for i in range(5):
        exchange(engine, SAGE, f"question {i}", f"answer {i}")
        engine.build_context(SAGE, f"question {i}")
    # a turn that waited for the endpoint would take its 30 s deadline
    assert time.monotonic() - started < 10
    started = time.monotonic()
    engine.close()
    assert time.monotonic() - started < 10
    # the job in flight is still queued for the next start
    reopened = make_engine(personas=engine.config["personas"])
    assert reopened.background.llm.pending() == 6


@pytest.mark.parametrize("mode", ["slow", "garbage", "error", "hung"])
def test_a_bad_endpoint_delays_no_turn_and_loses_no_fact(make_engine, stub, quick_retries, mode):
    stub.mode, stub.delay = mode, 2.0
    engine = entity_engine(make_engine, stub.url, request_timeout=3)
    slowest = 0.0
    for said in ("Lisbon has been my home for a while now", "Honestly, cycling to work every day keeps me sane",
                 "Rui, my brother, cooks for a living"):
        started = time.monotonic()
        exchange(engine, SAGE, said, "I see.")
        engine.build_context(SAGE, "what do you know?")
        slowest = max(slowest, time.monotonic() - started)
        calls = len(stub.requests)
        eventually(lambda: len(stub.requests) > calls)  # the worker is busy with the endpoint
    # a turn that waited would take the endpoint's 2 s, or the call's 3 s deadline
    assert slowest < 1.0
    stub.heal()
    found = eventually(lambda: len(facts(engine)) == 3 and facts(engine), timeout=60)
    assert sorted(contents(found)) == ["Cycles to work every day", "Has a brother called Rui", "Lives in Lisbon"]


def test_forgetting_the_exchange_forgets_its_llm_facts(make_engine, stub):
    engine = entity_engine(make_engine, stub.url)
    ids = exchange(engine, SAGE, "my brother Rui is a chef", "Tasty.")["ids"]
    eventually(lambda: stub.requests and engine.background.llm.pending() == 0 and facts(engine))
    assert {r["extractor"] for r in facts(engine)} >= {"llm"}
    engine.forget(SAGE, ids=ids)
    assert facts(engine, history=True) == []


def test_the_default_configuration_calls_no_llm(engine):
    """The default composite's entity has api_url "": rules only, no network."""
    assert engine.backend(None).llm_tasks() == {}
    exchange(engine, scope(), "I moved to Porto", "Nice.")
    assert engine.background.llm.pending() == 0


def test_rambling_or_invented_statements_are_dropped():
    said = "My name is Marta and I live in Braga."
    rambling = ("My name is Marta and I live in Braga. My age is 25, and I am a 30-year-old woman "
                "with a family of 14 children")  # what SmolLM2-135M answered once
    found = to_facts([rambling, "Works as a pilot in Lisbon", "Lives in Braga"], said, "en-us", [])
    assert [f.content for f in found] == ["Lives in Braga"]


def test_a_seed_style_fact_restates_the_rules_fact(make_engine, monkeypatch):
    """The rules find "Lives in Braga"; a model answering in the seed's format
    says "User lives in Braga": one fact, with both provenances."""
    stub = OpenAIStub(answer=lambda messages: "- User lives in Braga").start()
    try:
        engine = entity_engine(make_engine, stub.url)
        exchange(engine, SAGE, "I live in Braga", "Lovely.")
        assert eventually(lambda: engine.background.llm.pending() == 0 and engine.background.facts.pending() == 0 and stub.requests)
        rows = facts(engine)
        assert contents(rows) == ["Lives in Braga"]
    finally:
        stub.stop()
