"""What the page asks of the engine beyond the protocol: a fact corrected
through the fact model, memories narrowed to a persona or a time, chosen ids
read back within the scope, the user's personas and sessions, the disk used."""
import time

import pytest

from ovos_memory_service.common.errors import InvalidRequest, NotFound
from ovos_memory_service.store import Visible
from tests.helpers import eventually, exchange, scope


def contents(engine, sc, kinds=("fact", "preference", "skill", "attribute")):
    return sorted(m.content for m in engine.list(sc, kinds=list(kinds), limit=200, where="all")[0])


def test_a_correction_replaces_the_fact_and_keeps_no_trace_of_the_wrong_value(engine):
    sc = scope()
    wrong = engine.remember(sc, "I live in Lisbn")
    engine.wait_idle()
    right = engine.correct(sc, wrong, "I live in Lisbon")
    assert right != wrong and contents(engine, sc) == ["I live in Lisbon"]
    # no history row of the wrong value: it was never true
    rows = engine.store.in_slot(Visible(sc, ("fact",), history=True), "residence")
    assert [r["content"] for r in rows] == ["I live in Lisbon"]
    assert engine.store.get_memories([wrong]) == []
    engine.wait_idle()  # the new text is embedded, the old vector gone
    found = engine.recall(sc, "Where do I live?", kinds=["fact"], threshold=0)
    assert [m.id for m in found] == [right]
    assert engine.store.vector_count() in (0, 1)  # 0 where semantic recall is off


def test_a_correction_fills_the_slot_through_the_fact_model(engine):
    sc = scope()
    dog = engine.remember(sc, "My dog is called Rax")
    engine.remember(sc, "I like jazz")
    corrected = engine.correct(sc, dog, "My dog is called Rex")
    row = engine.store.in_slot(Visible(sc, ("fact",)), "pet.dog.name")[0]
    assert row["id"] == corrected and row["value"].lower() == "rex"
    # a correction that restates another fact merges into it
    likes = engine.list(sc, kinds=["preference"])[0][0]
    other = engine.remember(sc, "My favourite colour is blue")
    assert engine.correct(sc, other, "I like jazz") == likes.id
    assert contents(engine, sc) == ["I like jazz", "My dog is called Rex"]


def test_a_correction_keeps_the_kind_and_persona_of_what_it_corrects(engine):
    sc = scope(persona="butler")
    attribute = engine.remember(sc, "Speaks like a pirat", "attribute")
    corrected = engine.correct(scope(), attribute, "Speaks like a pirate")
    item = engine.memories(scope(persona="butler"), [corrected])[0]
    assert (item.kind, item.persona_id, item.content) == ("attribute", "butler", "Speaks like a pirate")
    note = engine.remember(sc, "Parking is behind the house", "skill")
    assert engine.memories(sc, [engine.correct(sc, note, "Parking is in front of the house")])[0].kind == "skill"


def test_a_correction_that_fails_changes_nothing(engine):
    sc = scope()
    fact = engine.remember(sc, "I have a cat called Tom")
    with pytest.raises(NotFound):  # a negation retracting nothing: the old fact stays
        engine.correct(sc, fact, "I don't like jazz any more")
    assert contents(engine, sc) == ["I have a cat called Tom"]
    engine.pause(sc, "user", True)
    with pytest.raises(InvalidRequest):
        engine.correct(sc, fact, "I have a cat called Tim")
    engine.pause(sc, "user", False)
    assert contents(engine, sc) == ["I have a cat called Tom"]


def test_turns_summaries_and_other_users_memories_are_not_corrected(engine):
    mine = exchange(engine, scope(), "My sister lives in Berlin", "Nice")["ids"]
    theirs = engine.remember(scope(user="bob"), "I live in Rome")
    for memory_id in (mine[0], theirs, "no-such-id"):
        with pytest.raises(NotFound):
            engine.correct(scope(), memory_id, "I live in Paris")
    assert contents(engine, scope(user="bob")) == ["I live in Rome"]


def test_a_correction_is_announced_as_a_forget_of_the_wrong_memory(engine):
    heard = []
    engine.forget_listeners.append(lambda user_id, ids: heard.append((user_id, ids)))
    wrong = engine.remember(scope(), "I work as a nurze")
    engine.correct(scope(), wrong, "I work as a nurse")
    assert heard == [("alice", [wrong])]


def test_memories_reads_chosen_ids_of_the_scope_only(engine):
    mine = exchange(engine, scope(), "alice said this", "ok")["ids"]
    theirs = exchange(engine, scope(user="bob"), "bob said this", "ok")["ids"]
    assert [m.id for m in engine.memories(scope(), [mine[0], theirs[0], "nope"])] == [mine[0]]
    assert engine.memories(scope(), mine, kinds=["fact"]) == []


def test_a_list_narrows_to_a_persona_and_a_time(engine):
    exchange(engine, scope(persona="a", session="kitchen"), "to a", "from a")
    exchange(engine, scope(persona="b", session="car"), "to b", "from b")
    engine.remember(scope(), "I live in Porto")
    everything, total = engine.list(scope(), where="all")
    assert total == 5
    only_a, total_a = engine.list(scope(), where="all", persona="a")
    assert total_a == 2 and {m.content for m in only_a} == {"to a", "from a"}
    assert engine.list(scope(), where="all", persona="")[1] == 1  # the default namespace: the fact
    assert {m.content for m in engine.list(scope(), where="all", session="car")[0]} == {"to b", "from b"}
    newest = max(m.created_at for m in everything)
    assert engine.list(scope(), where="all", since=newest + 1)[1] == 0
    assert engine.list(scope(), where="all", until=newest + 1)[1] == 5
    assert engine.list(scope(), where="all", since=time.time() - 3600, until=time.time() + 3600)[1] == 5
    assert engine.list(scope(), where="all", until=time.time() - 3600)[1] == 0


def test_facets_count_the_users_personas_and_sessions(engine):
    exchange(engine, scope(persona="a", session="kitchen"), "to a", "from a")
    exchange(engine, scope(persona="b", session="car"), "to b", "from b")
    exchange(engine, scope(user="bob", persona="c", session="bedroom"), "to c", "from c")
    engine.wait_idle()
    facets = engine.facets("alice")
    assert facets["personas"] == {"a": 2, "b": 2}
    assert facets["sessions"] == {"kitchen": 2, "car": 2}
    assert engine.facets("nobody") == {"personas": {}, "sessions": {}}


def test_disk_used_grows_with_what_is_stored(engine):
    before = engine.disk_used()
    assert before > 0
    for i in range(50):
        exchange(engine, scope(), f"a long sentence number {i} " * 20, "ok")
    engine.wait_idle()
    eventually(lambda: engine.disk_used() > before, what="the store to grow")
