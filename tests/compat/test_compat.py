"""A persona moved over from ovos-memory-plugins 1.2.3a1 (the seed) keeps
behaving as its users expect: engine level (README, "Coming from
ovos-memory-plugins"). The same rows through the persona plugin on a real bus
are in tests/compat/test_compat_bus.py."""

import pytest

from ovos_memory_service.backends import create_backend
from ovos_memory_service.learning.facts.from_llm import parse, to_facts
from ovos_memory_service.backends.fusion import fuse
from ovos_memory_service.common.items import MemoryItem
from tests.helpers import eventually, exchange, scope
from tests.learning.test_llm_facts import entity_engine
from tests.openai_stub import OpenAIStub

# ------------------------------------------------------------------ replies
# reply shapes an LLM gives to the seed's prompt ("a JSON array of short
# strings") or to ours; each must give the facts that were said
SAID = "User: my cat is called Pixel and I live in Lisbon\nAssistant: Hello Pixel!"
TWO = ["My cat is called Pixel", "I live in Lisbon"]
SHAPES = {
    "array": '["My cat is called Pixel", "I live in Lisbon"]',
    "array in prose": 'Sure! Here are the facts: ["My cat is called Pixel", "I live in Lisbon"] Hope that helps.',
    "arrays on separate lines": '["My cat is called Pixel"]\n["I live in Lisbon"]',
    "arrays in prose on separate lines": 'From the first sentence: ["My cat is called Pixel"]\n'
                                         'And from the second: ["I live in Lisbon"]',
    "numbered [1]": "[1] My cat is called Pixel\n[2] I live in Lisbon",
    "numbered 1.": "1. My cat is called Pixel\n2. I live in Lisbon",
    "numbered 1)": "Facts:\n1) My cat is called Pixel\n2) I live in Lisbon",
    "bullets": "- My cat is called Pixel\n- I live in Lisbon",
    "fenced array": '```json\n["My cat is called Pixel", "I live in Lisbon"]\n```',
    "array cut by max_tokens": '["My cat is called Pixel", "I live in Lisbon", "Likes cat fo',
    "objects": '[{"statement": "My cat is called Pixel"}, {"statement": "I live in Lisbon"}]',
    "objects in prose": 'Here: {"statement": "My cat is called Pixel"} and {"statement": "I live in Lisbon"}',
}


@pytest.mark.parametrize("shape", SHAPES)
def test_every_reply_shape_is_read(shape):
    found = to_facts(parse(SHAPES[shape]), SAID, "en-us", ["t1"])
    assert [f.content for f in found] == TWO


@pytest.mark.parametrize("reply", ["[]", "NONE", "```json\n[]\n```", "There is nothing to keep: []"])
def test_an_explicit_nothing(reply):
    assert parse(reply) == []


def test_numbers_alone_are_not_facts():
    assert parse("[1]\n[2]") is None  # no statement at all: unreadable, tried again


def test_the_wording_is_kept():
    """The seed stores what the model wrote: "User is a pilot" stays."""
    found = to_facts(parse('["User is a pilot", "User\'s name is Marta"]'),
                     "User: my name is Marta and I am a pilot\nAssistant: Hi Marta", "en-us", [])
    assert [f.content for f in found] == ["User is a pilot", "User's name is Marta"]


def test_a_plain_statement_takes_the_slot_the_rules_find():
    """So "User lives in Lisbon" from the model and "Lives in Lisbon" from the
    rules are one fact, and a later move updates it."""
    found = to_facts(parse('["User lives in Lisbon"]'), "I live in Lisbon", "en-us", [])
    assert [(f.content, f.slot, f.value) for f in found] == [("User lives in Lisbon", "residence", "Lisbon")]


# ---------------------------------------------------------------- the engine
def replying(replies):
    """A stand-in model: the reply whose key is in the exchange, else []."""
    def answer(messages):
        text = messages[-1]["content"]
        return next((reply for key, reply in replies.items() if key in text), "[]")
    return answer


@pytest.fixture
def stub():
    server = OpenAIStub().start()
    yield server
    server.stop()




SAGE = scope(user="migrant", persona="sage")


def facts_block(engine, sc=SAGE, utterance="what do you know about me?"):
    first = engine.build_context(sc, utterance).messages[0]
    return first.content if first.content.startswith("Known facts") else ""


def idle(engine):
    eventually(lambda: engine.background.llm.pending() == 0, what="the LLM jobs")
    engine.wait_idle()


# the same shapes with facts the rule-based extractor does not know, so the
# block shows what the model's reply gave
MARATHON = "I am training for a marathon and I grow tomatoes on my balcony"
THEIRS = ("My cat is called Pixel", "I live in Lisbon")
OURS = ("Is training for a marathon", "Grows tomatoes on the balcony")


@pytest.mark.parametrize("shape", SHAPES)
def test_every_reply_shape_reaches_the_facts_block(make_engine, stub, shape):
    reply = SHAPES[shape].replace(THEIRS[0], OURS[0]).replace(THEIRS[1], OURS[1])
    stub.answer = replying({"marathon": reply})
    engine = entity_engine(make_engine, stub.url)
    exchange(engine, SAGE, MARATHON, "Good luck!")
    idle(engine)
    assert facts_block(engine) == "Known facts about the user:\n- " + "\n- ".join(OURS)


def test_the_facts_block_is_oldest_first_in_the_models_words(make_engine, stub):
    stub.answer = replying({"flying": '["User is a pilot"]', "vinyl": '["User collects vinyl records"]',
                            "Mondays": '["User swims on Mondays"]'})
    engine = entity_engine(make_engine, stub.url)
    for said in ("I have been flying as a pilot for years", "I collect old vinyl records",
                 "On Mondays you will find me at the pool"):
        exchange(engine, SAGE, said, "Nice.")
        idle(engine)  # learnt in this order
    assert facts_block(engine) == ("Known facts about the user:\n- User is a pilot\n"
                                   "- User collects vinyl records\n- User swims on Mondays")


def test_max_facts_leaves_out_the_oldest(make_engine, stub):
    stub.answer = replying({"flying": '["User is a pilot"]', "vinyl": '["User collects vinyl records"]',
                            "Mondays": '["User swims on Mondays"]'})
    engine = entity_engine(make_engine, stub.url, max_facts=2)
    for said in ("I have been flying as a pilot for years", "I collect old vinyl records",
                 "On Mondays you will find me at the pool"):
        exchange(engine, SAGE, said, "Nice.")
        idle(engine)
    assert facts_block(engine) == ("Known facts about the user:\n- User collects vinyl records\n"
                                   "- User swims on Mondays")


def test_a_fact_the_model_and_the_rules_both_find_is_listed_once(make_engine, stub):
    stub.answer = replying({"Lisbon": '["User lives in Lisbon"]'})
    engine = entity_engine(make_engine, stub.url)
    exchange(engine, SAGE, "I live in Lisbon", "Lovely city.")
    idle(engine)
    block = facts_block(engine).splitlines()[1:]
    assert len(block) == 1 and block[0] in ("- User lives in Lisbon", "- Lives in Lisbon")


# ---------------------------------------------------------------- composite
LEXICAL = {"module": "ovos-memory-plugin-lexical"}


def composite_engine(make_engine, **block):
    return make_engine(embeddings={"enabled": False},
                       personas={"hub": {"memory_module": "ovos-memory-plugin-composite",
                                         "ovos-memory-plugin-composite": block}})


def test_the_composites_scope_reaches_its_members(make_engine):
    engine = composite_engine(make_engine, members=[LEXICAL], scope="session")
    assert engine.backend("hub").members[0].where == "session"
    hub_a, hub_b = scope(user="u-scope", session="a", persona="hub"), scope(user="u-scope", session="b", persona="hub")
    exchange(engine, hub_a, "My locker code is 4471", "Noted.")
    engine.wait_idle()
    assert engine.build_context(hub_b, "what is my locker code?").memories == []  # another session
    # a member's own scope wins, as in the seed
    own = create_backend("composite", {"members": [{**LEXICAL, "config": {"scope": "global"}}], "scope": "session"},
                         engine.reader)
    assert own.members[0].where == "user"
    nested = create_backend("composite", {"members": [{"module": "composite", "config": {"members": [LEXICAL]}}],
                                          "scope": "session"}, engine.reader)
    assert nested.members[0].members[0].where == "session"


def test_a_composite_scope_is_checked(make_engine):
    with pytest.raises(ValueError, match="scope"):
        composite_engine(make_engine, members=[LEXICAL], scope="everywhere").backend("hub")


def hit(memory_id, score, content=None):
    return MemoryItem(id=memory_id, content=content or memory_id, kind="turn", created_at=0.0,
                      session_id="s", persona_id="p", score=score)


def test_priority_takes_only_the_first_list_with_hits():
    first, second = [hit("c", 0.9), hit("d", 0.5)], [hit("a", 0.8), hit("b", 0.7)]
    assert [h.id for h in fuse([first, second], [1, 1], "priority")] == ["c", "d"]
    assert [h.id for h in fuse([[], second], [1, 1], "priority")] == ["a", "b"]  # a fallback chain
    assert fuse([[], []], [1, 1], "priority") == []


def test_priority_in_a_composite(make_engine):
    recall = {"module": "ovos-memory-plugin-lexical", "config": {"max_history": 0}}
    strict = {"module": "ovos-memory-plugin-lexical", "config": {"retrieval": {"min_score": 0.99}}}
    engine = composite_engine(make_engine, members=[strict, recall], fusion="priority")
    old, new = scope(user="u-prio", session="old", persona="hub"), scope(user="u-prio", session="new", persona="hub")
    exchange(engine, old, "My dog Rex loves the beach", "Good dog.")
    exchange(engine, old, "Rex is a beagle", "A fine breed.")
    engine.wait_idle()
    # the first member finds nothing above its min_score: the second one answers
    assert engine.build_context(new, "tell me about Rex").memories


# ------------------------------------------------------------------ history
def test_history_of_an_entity_persona(make_engine):
    """As the seed: an entity persona has no verbatim window (the turns stay
    stored, recallable and forgettable, and a limit reads them)."""
    engine = entity_engine(make_engine, "")
    exchange(engine, SAGE, "hi", "hello")
    assert engine.get_history(SAGE) == []
    assert [m.content for m in engine.get_history(SAGE, limit=10)] == ["hi", "hello"]
    assert [m.role for m in engine.build_context(SAGE, "and now?").messages] == ["user"]  # as the seed


def test_the_context_of_a_longterm_persona_after_a_summary(make_engine, stub):
    engine = make_engine(personas={"gist": {"memory_module": "ovos-memory-plugin-longterm",
                                            "ovos-memory-plugin-longterm": {
                                                "api_url": stub.url, "model": "m",
                                                "summarize_every": 3, "recent_window": 1}}})
    gist = scope(user="u-gist", persona="gist")
    for i in range(3):
        exchange(engine, gist, f"question {i}", f"answer {i}")
    idle(engine)
    context = engine.build_context(gist, "question 3")
    assert context.messages[0].content.startswith("[Conversation summary so far]\nSummary of")
    # as the seed: the turns not summarized (the newest recent_window exchanges), then the utterance
    assert [m.content for m in context.messages[1:]] == ["question 2", "answer 2", "question 3"]
    # memory.history.get, as the seed: the window not summarized yet (a limit reads every stored turn)
    assert [m.content for m in engine.get_history(gist)] == ["question 2", "answer 2"]
    assert len(engine.get_history(gist, limit=100)) == 6
