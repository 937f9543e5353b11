"""The Store interface (store/base.py), exercised directly on both stores:
SQLite on files in the test's directory and PostgreSQL on a real server
(tests/pg.py), the same tests for each. What only a shared database can do
(two store objects claiming at once, notifications, concurrent migrations)
is tested on PostgreSQL alone, at the end."""
import itertools
import json
import threading
import time

import numpy as np
import pytest

from ovos_memory_service.common.items import new_id
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.store import Exclude, ModelChanged, Visible
from ovos_memory_service.store.records import FIELDS, check_record, to_record
from tests.helpers import open_configured

ALICE = Scope("alice", "kitchen", "bob-persona", "en-us")
ALICE_OTHER_PERSONA = Scope("alice", "kitchen", "other", "en-us")
ALICE_CAR = Scope("alice", "car", "bob-persona", "en-us")
CAROL = Scope("carol", "hall", "bob-persona", "en-us")
DIM = 8
MODEL = "test/model-a"


@pytest.fixture
def open_stores(store_backend, tmp_path):
    """Stores on the test's data (each call: another store object on it, PostgreSQL
    only; SQLite lets one process in), all closed afterwards."""
    stores = []

    def make(**overrides):
        store = open_configured({"data_dir": str(tmp_path / "memory"), "lang": "en-us",
                                 "store": {**store_backend, **overrides}}, lock_timeout=5, holder="daemon")
        stores.append(store)
        return store
    yield make
    for store in stores:
        store.close()


@pytest.fixture
def store(open_stores):
    return open_stores()


def unit(*values) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[:len(values)] = values
    return v / np.linalg.norm(v)


class Writer:
    """Turns and facts of one scope, at increasing times."""

    starts = itertools.count()

    def __init__(self, store, scope: Scope):
        # each writer's times after the previous writer's: no two memories share one
        self.store, self.scope, self.now = store, scope, 1_700_000_000.0 + 10_000 * next(Writer.starts)
        self.conversation = store.start_conversation(scope, self.now)

    def turn(self, role: str, content: str, **columns) -> str:
        self.now += 10
        scope = self.scope
        return self.store.insert_memory({
            "id": new_id(), "kind": "turn", "user_id": scope.user_id, "persona_id": scope.persona_key,
            "session_id": scope.session_id, "conversation_id": self.conversation, "role": role,
            "content": content, "created_at": self.now, **columns})

    def fact(self, content: str, kind: str = "fact", **columns) -> str:
        self.now += 10
        scope = self.scope
        return self.store.insert_memory({
            "id": new_id(), "kind": kind, "user_id": scope.user_id, "persona_id": scope.persona_key,
            "session_id": scope.session_id, "content": content, "created_at": self.now, **columns})


def ids_of(rows):
    return [r["id"] for r in rows]


def embed_all(store, vectors: dict):
    """Claim every embed job and save the given vectors (id -> vector) for them."""
    jobs = store.claim(("embed",), 1000, time.time())
    rows = {r["id"]: r for r in store.get_memories([j.subject for j in jobs])}
    return store.save_vectors({j.id: (rows[j.subject], vectors[j.subject]) for j in jobs if j.subject in vectors})


# ------------------------------------------------------------------ rows
def test_rows_in_and_out(store):
    w = Writer(store, ALICE)
    first = w.turn("user", "I have a dog called Rex", name="Alice")
    second = w.turn("assistant", "Rex is a fine name")
    rows = store.get_memories([second, first, "missing"])
    assert ids_of(rows) == [first, second]  # storage order
    assert set(FIELDS) | {"seq"} <= set(rows[0])
    assert rows[0]["name"] == "Alice" and rows[0]["persona_id"] == "bob-persona" and rows[0]["status"] == "current"
    assert rows[0]["updated_at"] == rows[0]["created_at"] and rows[0]["seq"] < rows[1]["seq"]
    assert store.existing([first, "missing"]) == {first}
    store.update_memory(second, content="Rex is a lovely name", updated_at=w.now + 1)
    assert store.get_memories([second])[0]["content"] == "Rex is a lovely name"
    with pytest.raises(ValueError):
        store.insert_memory({"id": new_id(), "kind": "fact", "user_id": "u", "session_id": "s", "content": "x",
                             "created_at": 1.0, "colour": "red"})
    with pytest.raises(ValueError):
        store.update_memory(second, colour="red")


def test_a_delete_takes_the_rows_their_vectors_jobs_and_summary_state(store):
    store.open_vectors(MODEL, DIM)
    w = Writer(store, ALICE)
    turns = [w.turn("user", "my dog is called Rex"), w.turn("assistant", "noted, Rex")]
    kept = w.turn("user", "the cat is called Tom")
    summary = w.fact("Alice has a dog", kind="summary", conversation_id=w.conversation,
                     sources=json.dumps(turns))
    store.set_summary_state(w.conversation, summary, 2)
    assert embed_all(store, {t: unit(1, i) for i, t in enumerate([*turns, kept, summary])}) == 4
    store.enqueue("facts", turns, lang="en-us")
    assert store.vector_count() == 4 and store.pending(("facts",)) == 2

    assert store.delete([*turns, summary, "never-stored"]) == 3
    assert store.existing([*turns, summary, kept]) == {kept}
    assert store.vector_count() == 1 and store.pending(("facts", "embed")) == 0
    assert store.summary_state(w.conversation) is None
    assert store.similarities("alice", unit(1, 0), [*turns, kept]).keys() == {kept}
    everything = Visible(ALICE, where="all", history=True)
    assert store.keyword_search(everything, ["rex"], 10) == []
    assert ids_of(store.keyword_search(everything, ["tom"], 10)) == [kept]
    assert store.delete([]) == 0


def test_forgetting_a_user_entirely_leaves_nothing_of_them(store):
    w = Writer(store, CAROL)
    ids = [w.turn("user", "secret plans for the party"), w.fact("Carol likes jazz")]
    assert store.users_overview("carol")
    store.delete(ids)
    assert store.users_overview("carol") == [] and store.count(user_id="carol") == 0
    assert store.keyword_search(Visible(CAROL, where="all"), ["party"], 5) == []


# ------------------------------------------------------------ visibility
def test_who_sees_what(store):
    mine = Writer(store, ALICE)
    other = Writer(store, ALICE_OTHER_PERSONA)
    car = Writer(store, ALICE_CAR)
    turn = mine.turn("user", "hello from the kitchen")
    tool = mine.turn("tool", "tool output")
    other_turn = other.turn("user", "hello from another persona")
    car_turn = car.turn("user", "hello from the car")
    fact = other.fact("Alice lives in Porto")
    attribute = other.fact("I am a pirate", kind="attribute")
    old = mine.fact("Alice lived in Lisbon", status="superseded")
    carol = Writer(store, CAROL).turn("user", "hello from carol")

    def visible(scope=ALICE, **kw):
        return set(ids_of(store.list_visible(Visible(scope, **kw), 100)))
    assert visible() == {turn, car_turn, fact}  # facts are shared, turns and attributes per persona
    assert visible(share_turns=True) == {turn, car_turn, other_turn, fact}
    assert visible(share_facts=False) == {turn, car_turn}
    assert visible(where="session") == {turn, fact}  # the kitchen: this persona's turns, shared facts
    assert visible(where="all") == {turn, car_turn, other_turn, fact, attribute}
    assert visible(where="all", history=True) == {turn, car_turn, other_turn, fact, attribute, old}
    assert visible(ALICE_OTHER_PERSONA) == {other_turn, fact, attribute}
    assert visible(kinds=("fact",)) == {fact}
    assert tool not in visible(where="all") and carol not in visible(where="all")
    assert store.count_visible(Visible(ALICE)) == 3
    assert ids_of(store.list_visible(Visible(ALICE), 2)) == [car_turn, fact]  # newest first
    assert ids_of(store.list_visible(Visible(ALICE), 2, offset=1)) == [fact, turn]
    assert ids_of(store.select_visible(Visible(ALICE), [turn, other_turn, carol, fact])) == [fact, turn]


def test_slots_derived_memories_and_counts(store):
    w = Writer(store, ALICE)
    source = w.turn("user", "I live in Porto")
    porto = w.fact("Alice lives in Porto", slot="residence", value="Porto", extractor="rules",
                   sources=json.dumps([source]))
    w.fact("Alice lived in Lisbon", slot="residence", value="Lisbon", status="superseded")
    w.fact("Alice likes jazz", kind="preference", slot="likes", value="jazz", extractor="user")
    assert ids_of(store.in_slot(Visible(ALICE, ("fact",)), "residence")) == [porto]
    assert len(store.in_slot(Visible(ALICE, ("fact",), history=True), "residence")) == 2
    assert [(r["id"], r["extractor"]) for r in store.derived("alice")] == [(porto, "rules")]
    assert store.count_by_kind("alice") == {"turn": 1, "fact": 2, "preference": 1, "skill": 0,
                                            "attribute": 0, "summary": 0}
    assert store.count() == 4 and store.count(user_id="alice", session_id="kitchen") == 4
    assert store.count(persona_id="nobody") == 0
    overview = store.users_overview()
    assert sorted((u, k, n) for u, k, n, _ in overview) == [("alice", "fact", 2), ("alice", "preference", 1),
                                                            ("alice", "turn", 1)]
    assert max(newest for *_, newest in overview) == w.now


# ----------------------------------------------------------------- turns
def test_conversations_and_their_turns(store):
    w = Writer(store, ALICE)
    assert store.latest_conversation(ALICE)["id"] == w.conversation
    turns = [w.turn("user", "one"), w.turn("assistant", "two"), w.turn("user", "three"),
             w.turn("assistant", "four")]
    conv = store.get_conversation(w.conversation)
    assert (conv["user_id"], conv["persona_id"], conv["session_id"]) == ("alice", "bob-persona", "kitchen")
    store.touch_conversation(w.conversation, w.now)
    store.touch_conversation(w.conversation, w.now - 100)  # never back in time
    assert store.get_conversation(w.conversation)["updated_at"] == w.now
    assert ids_of(store.conversation_turns(w.conversation)) == turns
    assert ids_of(store.conversation_turns(w.conversation, limit=2)) == turns[2:]
    seq = store.get_memories([turns[1]])[0]["seq"]
    assert ids_of(store.conversation_turns(w.conversation, after_seq=seq)) == turns[2:]
    assert ids_of(store.exchange(turns[2])) == turns[2:]
    assert ids_of(store.last_exchange(ALICE)) == turns
    assert ids_of(store.recent_turns(ALICE, "user", w.now - 15)) == [turns[2]]
    adjacent = store.adjacent_turns(Visible(ALICE), [turns[1]])
    assert sorted(ids_of(adjacent[turns[1]])) == sorted([turns[0], turns[2]])
    assert ids_of(store.adjacent_turns(Visible(ALICE), [turns[1]], Exclude(ids=[turns[0]]))[turns[1]]) == [turns[2]]
    newer = store.start_conversation(ALICE, w.now + 5)
    assert store.latest_conversation(ALICE)["id"] == newer
    assert store.get_conversation("missing") is None and store.latest_conversation(CAROL) is None


def test_summaries(store):
    w = Writer(store, ALICE)
    turn = w.turn("user", "hello")
    assert store.summary_state(w.conversation) is None and store.latest_summary(ALICE) is None
    summary = w.fact("They said hello", kind="summary", conversation_id=w.conversation, sources=json.dumps([turn]))
    store.set_summary_state(w.conversation, summary, 7)
    assert store.summary_state(w.conversation) == (summary, "They said hello", 7)
    store.set_summary_state(w.conversation, summary, 9)
    assert store.latest_summary(ALICE) == (summary, "They said hello", 9)
    assert store.latest_summary(ALICE_CAR) is None


# ---------------------------------------------------------------- recall
def test_keyword_search_ranks_within_the_user_and_leaves_out_what_it_is_told(store):
    w = Writer(store, ALICE)
    other = w.turn("user", "I bought bread")
    question = w.turn("user", "what is the name of my dog?")
    answer = w.turn("assistant", "Your dog is called Rex")
    both = w.turn("user", "Rex the dog loves the dog park")
    Writer(store, CAROL).turn("user", "carol's dog is Fido")
    found = store.keyword_search(Visible(ALICE), ["dog", "rex"], 10)
    assert ids_of(found)[0] == both and set(ids_of(found)) == {question, answer, both}
    assert all(isinstance(r["rank"], float) for r in found) and found[0]["rank"] >= found[-1]["rank"]
    assert other not in ids_of(found)
    assert ids_of(store.keyword_search(Visible(ALICE), ["rex"], 1)) == [both]
    assert set(ids_of(store.keyword_search(Visible(ALICE), ["dog"], 10, Exclude(ids=[both])))) == {question, answer}
    assert both not in ids_of(store.keyword_search(Visible(ALICE), ["dog"], 10,
                                                   Exclude(utterance=" Rex the dog loves the dog park ")))
    # the turn before a reply is its context: the answer is found by the question's words
    assert answer in ids_of(store.keyword_search(Visible(ALICE), ["name"], 10))
    assert store.keyword_search(Visible(ALICE), [], 10) == [] and store.keyword_search(Visible(ALICE), ["x"], 0) == []
    assert store.keyword_search(Visible(Scope("nobody", "s")), ["dog"], 10) == []
    # user text is data: quotes and query syntax match as words or nothing
    assert store.keyword_search(Visible(ALICE), ['"', "OR", "dog's", "rex)", "-", "*"], 10)


def test_a_word_said_after_a_search_is_found_by_the_next(store):
    """Keyword search leaves out words no memory says (SQLite asks its index's
    vocabulary, and remembers the answer until the next write)."""
    w = Writer(store, ALICE)
    jazz = w.turn("user", "I like jazz and e-mail")
    assert ids_of(store.keyword_search(Visible(ALICE), ["violin", "jazz"], 10)) == [jazz]
    assert store.keyword_search(Visible(ALICE), ["violin", "e-violin"], 10) == []
    assert ids_of(store.keyword_search(Visible(ALICE), ["e-mail"], 10)) == [jazz]  # two terms, both said
    violin = w.turn("user", "I play the violin")
    assert ids_of(store.keyword_search(Visible(ALICE), ["violin"], 10)) == [violin]
    store.delete([violin])
    assert store.keyword_search(Visible(ALICE), ["violin"], 10) == []
    seq = store.get_memories([jazz])[0]["seq"]
    assert store.coverage(["music"], [seq], {"music": ("violin", "jazz")})[1][seq] == pytest.approx(1.0)


def test_coverage_is_the_idf_weighted_share_of_the_words_of_the_memory_itself(store):
    w = Writer(store, ALICE)
    question = w.turn("user", "what is the name of my dog?")
    answer = w.turn("assistant", "Your dog is called Rex")
    cat = w.turn("user", "my cat sleeps on the sofa")
    seqs = {r["id"]: r["seq"] for r in store.get_memories([question, answer, cat])}
    direct, topical = store.coverage(["dog", "rex"], list(seqs.values()), {"dog": ("cat", "puppy")})
    assert direct[seqs[answer]] == pytest.approx(1.0)
    assert 0 < direct[seqs[question]] < 0.5  # "dog" is commoner than "rex"
    # the cat talks about the dog's topic: the share "dog" has, through it
    assert direct[seqs[cat]] == 0 and topical[seqs[cat]] == pytest.approx(direct[seqs[question]])
    assert topical[seqs[answer]] == 0  # found directly already
    assert store.coverage([], [seqs[cat]], {}) == ({seqs[cat]: 0.0}, {seqs[cat]: 0.0})
    assert store.coverage(["dog"], [], {}) == ({}, {})
    assert store.coverage(["__"], [seqs[cat]], {})[0] == {seqs[cat]: 0.0}  # no token, no match


def test_a_word_with_an_accent_is_not_the_word_without(store):
    """The search folds accents (speech-to-text drops them), but "carné" (a licence)
    is not "carne" (meat): it covers nothing, directly or through a topic, while
    "violin" written without its accent still covers "violín"."""
    w = Writer(store, ALICE)
    licence = w.turn("user", "quiero sacarme el carné de moto")
    meat = w.turn("user", "me encanta la carne asada")
    violin = w.turn("user", "toco el violin")
    seqs = {r["id"]: r["seq"] for r in store.get_memories([licence, meat, violin])}
    direct, _ = store.coverage(["carne"], list(seqs.values()), {})
    assert direct == {seqs[licence]: 0.0, seqs[meat]: 1.0, seqs[violin]: 0.0}
    _, topical = store.coverage(["comida", "música"], list(seqs.values()),
                                {"comida": ("carne",), "música": ("violín",)})
    assert topical[seqs[licence]] == 0 and topical[seqs[meat]] > 0 and topical[seqs[violin]] > 0


def test_coverage_follows_the_words_of_the_store_as_it_grows(store):
    """Word counts are kept between queries (store/idf.py), never beyond a
    1% change of the store: a word that became common weighs less at once."""
    w = Writer(store, ALICE)
    dog = w.turn("user", "my dog barks at night")
    for i in range(5):
        w.turn("user", f"the weather note {i}")
    seq = store.get_memories([dog])[0]["seq"]
    before = store.coverage(["dog", "rex"], [seq], {})[0][seq]
    for i in range(10):
        w.turn("user", f"Rex the neighbour called {i}")
    after = store.coverage(["dog", "rex"], [seq], {})[0][seq]
    assert 0 < before < after < 1  # "rex" is commoner now: "dog" is a larger share of the query
    store.delete([r["id"] for r in store.export(0, 100) if "Rex" in r["content"]])
    assert store.coverage(["dog", "rex"], [seq], {})[0][seq] == pytest.approx(before)


def test_nearest_and_similarities(store):
    store.open_vectors(MODEL, DIM)
    w = Writer(store, ALICE)
    ids = [w.turn("user", f"memory number {i}") for i in range(6)]
    hidden = Writer(store, ALICE_OTHER_PERSONA).turn("user", "another persona's turn")
    carol = Writer(store, CAROL).turn("user", "carol's turn")
    vectors = {memory_id: unit(1, i * 0.5) for i, memory_id in enumerate(ids)}
    vectors.update({hidden: unit(1, 0.01), carol: unit(1, 0)})
    assert embed_all(store, vectors) == 8
    query = unit(1, 0)
    found = store.nearest(Visible(ALICE), query, 3, newest=100)
    assert ids_of(found) == ids[:3]
    # SQLite's store compares int8 copies of the vectors (store/sqlite/lance_index.py)
    assert found[0]["similarity"] == pytest.approx(1.0, abs=5e-3)
    assert found[1]["similarity"] == pytest.approx(float(query @ vectors[ids[1]]), abs=5e-3)
    assert ids_of(store.nearest(Visible(ALICE), query, 3, newest=2)) == [ids[4], ids[5]]  # the newest only
    assert ids_of(store.nearest(Visible(ALICE), query, 2, 100, Exclude(ids=[ids[0]]))) == ids[1:3]
    assert ids_of(store.nearest(Visible(ALICE), query, 2, 100, Exclude(utterance="MEMORY NUMBER 0"))) == ids[1:3]
    similar = store.similarities("alice", query, [ids[0], ids[5], hidden, carol, "missing"])
    assert similar.keys() == {ids[0], ids[5], hidden}  # the user's own vectors
    assert similar[ids[5]] == pytest.approx(float(query @ vectors[ids[5]]), abs=5e-3)
    assert store.vector_count() == 8
    store.open_vectors(MODEL, DIM)  # again: nothing changes
    assert store.vector_count() == 8


def test_another_model_embeds_every_memory_again(store):
    """Its queries cannot be compared with another model's vectors: those go
    and every memory is queued again, for the new model's worker."""
    assert store.open_vectors(MODEL, DIM) == 0
    w = Writer(store, ALICE)
    ids = [w.turn("user", "hello"), w.turn("assistant", "hi"), Writer(store, CAROL).turn("user", "hey")]
    embed_all(store, {i: unit(1) for i in ids})
    assert store.vector_count() == 3 and store.vector_model() == MODEL

    assert store.open_vectors("test/model-b", DIM) == 3
    assert store.vector_model() == "test/model-b"
    assert store.vector_count() == 0 and store.pending(("embed",)) == 3
    assert store.nearest(Visible(ALICE), unit(1), 5, 100) == []  # nothing of model a is compared
    assert embed_all(store, {ids[0]: unit(1, 1), ids[1]: unit(1, 0), ids[2]: unit(1, 1)}) == 3
    assert ids_of(store.nearest(Visible(ALICE), unit(1, 1), 5, 100)) == ids[:2]
    assert store.open_vectors("test/model-b", DIM) == 0  # the same model again: nothing changes
    assert store.vector_count() == 3


def test_a_model_of_another_dimension_embeds_every_memory_again(store):
    store.open_vectors(MODEL, DIM)
    w = Writer(store, ALICE)
    memory_id = w.turn("user", "hello")
    embed_all(store, {memory_id: unit(1)})
    assert store.open_vectors("test/model-wide", DIM * 2) == 1
    wide = np.zeros(DIM * 2, dtype=np.float32)
    wide[0] = 1
    assert embed_all(store, {memory_id: wide}) == 1
    assert store.similarities("alice", wide, [memory_id]) == {memory_id: pytest.approx(1.0)}


def embed_next(store, vectors: dict, model: str = "test/model-b"):
    """Claim every reembed job and save the given vectors of ``model`` for those it has."""
    jobs = store.claim(("reembed",), 1000, time.time())
    rows = {r["id"]: r for r in store.get_memories([j.subject for j in jobs])}
    saved = store.save_vectors({j.id: (rows[j.subject], vectors[j.subject]) for j in jobs if j.subject in vectors},
                               model)
    store.release_claims()  # the others: due again
    return saved


def test_a_new_model_fills_its_own_vectors_while_the_old_ones_are_searched(store):
    """A model change: the old model's vectors answer until the new model's
    are complete, for the memories written and forgotten meanwhile too."""
    store.open_vectors(MODEL, DIM)
    w = Writer(store, ALICE)
    ids = [w.turn("user", "hello"), w.turn("assistant", "hi"), Writer(store, CAROL).turn("user", "hey")]
    embed_all(store, {ids[0]: unit(1), ids[1]: unit(0, 1), ids[2]: unit(1)})

    wide = DIM * 2
    assert store.begin_reembedding("test/model-b", wide) == 3 and store.reembedding() == "test/model-b"
    ids.append(w.turn("user", "written during the change"))
    assert store.pending(("reembed",)) == 4 and store.pending(("embed",)) == 1  # both models embed it
    assert embed_all(store, {ids[3]: unit(1, 1)}) == 1  # the old model's, searched at once

    def b(*values):
        v = np.zeros(wide, dtype=np.float32)
        v[:len(values)] = values
        return v / np.linalg.norm(v)
    assert embed_next(store, {ids[0]: b(0, 1), ids[1]: b(1)}) == 2
    assert not store.end_reembedding("test/model-b")  # two memories lack the new model's vector
    assert ids_of(store.nearest(Visible(ALICE), unit(1), 3, 100, model=MODEL)) == [ids[0], ids[3], ids[1]]
    with pytest.raises(ModelChanged):
        store.nearest(Visible(ALICE), b(1), 3, 100, model="test/model-b")
    store.delete([ids[3]])
    assert store.pending(("reembed",)) == 1  # carol's
    assert embed_next(store, {ids[2]: b(1)}) == 1

    assert store.end_reembedding("test/model-b")
    assert store.vector_model() == "test/model-b" and store.reembedding() is None
    with pytest.raises(ModelChanged) as changed:
        store.nearest(Visible(ALICE), unit(1), 3, 100, model=MODEL)
    assert changed.value.model == "test/model-b"
    assert ids_of(store.nearest(Visible(ALICE), b(1), 3, 100, model="test/model-b")) == [ids[1], ids[0]]
    assert store.similarities("carol", b(1), [ids[2]], "test/model-b") == {ids[2]: pytest.approx(1.0, abs=5e-3)}
    assert store.vector_count() == 3  # the forgotten memory's went with it
    assert store.end_reembedding("test/model-b")  # already ended: still true
    assert store.open_vectors("test/model-b", wide) == 0  # the next start: nothing to embed again
    assert store.vector_count() == 3


def test_vectors_of_a_model_no_longer_searched_are_refused(store):
    store.open_vectors(MODEL, DIM)
    memory_id = Writer(store, ALICE).turn("user", "hello")
    store.begin_reembedding("test/model-b", DIM)
    jobs = store.claim(("embed",), 10, time.time())
    rows = {r["id"]: r for r in store.get_memories([memory_id])}
    assert embed_next(store, {memory_id: unit(0, 1)}) == 1
    assert store.end_reembedding("test/model-b")
    with pytest.raises(ModelChanged):  # a batch of the old model, embedded before the change ended
        store.save_vectors({j.id: (rows[j.subject], unit(1)) for j in jobs}, MODEL)
    assert store.pending(("embed",)) == 1  # its job stays, for the new model
    assert store.similarities("alice", unit(0, 1), [memory_id], "test/model-b") == \
        {memory_id: pytest.approx(1.0, abs=5e-3)}


def test_a_model_change_given_up_leaves_the_old_vectors_as_they_were(store):
    store.open_vectors(MODEL, DIM)
    memory_id = Writer(store, ALICE).turn("user", "hello")
    embed_all(store, {memory_id: unit(1)})
    store.begin_reembedding("test/model-b", DIM)
    assert store.begin_reembedding("test/model-b", DIM) == 1  # again, the same model: goes on
    embed_next(store, {memory_id: unit(0, 1)})
    assert store.begin_reembedding("test/model-b", DIM) == 0  # what it has stays
    store.cancel_reembedding()
    assert store.reembedding() is None and store.pending(("reembed",)) == 0
    assert not store.end_reembedding("test/model-b")
    assert store.vector_model() == MODEL and store.vector_count() == 1
    assert ids_of(store.nearest(Visible(ALICE), unit(1), 1, 100, model=MODEL)) == [memory_id]
    Writer(store, ALICE).turn("user", "after")
    assert store.pending(("reembed",)) == 0  # no second set: new memories join "embed" only


def back_and_forth(store) -> str:
    """Model b tried and kept, then the old model again (its vectors dropped and
    made anew, as for a model that is not kept meanwhile): one memory."""
    store.open_vectors(MODEL, DIM)
    memory_id = Writer(store, ALICE).turn("user", "hello")
    embed_all(store, {memory_id: unit(1)})
    store.begin_reembedding("test/model-b", DIM)
    embed_next(store, {memory_id: unit(0, 1)})
    assert store.end_reembedding("test/model-b")
    assert store.open_vectors(MODEL, DIM) == 1
    embed_all(store, {memory_id: unit(1)})
    return memory_id


def test_a_model_tried_again_never_fills_or_removes_the_vectors_searched(open_stores):
    store = open_stores()
    memory_id = back_and_forth(store)
    store.begin_reembedding("test/model-b", DIM)  # b again
    store.cancel_reembedding()  # and given up
    assert store.vector_count() == 1
    assert ids_of(store.nearest(Visible(ALICE), unit(1), 1, 100, model=MODEL)) == [memory_id]
    store.begin_reembedding("test/model-b", DIM)  # b once more, to the end
    embed_next(store, {memory_id: unit(0, 1)})
    assert store.end_reembedding("test/model-b") and store.vector_count() == 1
    store.close()
    store = open_stores()
    assert store.open_vectors("test/model-b", DIM) == 0 and store.vector_count() == 1
    assert ids_of(store.nearest(Visible(ALICE), unit(0, 1), 1, 100, model="test/model-b")) == [memory_id]


def test_vectors_of_an_unrecorded_model_are_kept_when_the_dimension_fits(store):
    """Stores from before the model was recorded (or moved from one) keep their
    vectors for the configured model of their dimension."""
    store.open_vectors(None, DIM)
    w = Writer(store, ALICE)
    memory_id = w.turn("user", "hello")
    embed_all(store, {memory_id: unit(1)})
    assert store.vector_model() is None
    assert store.open_vectors(MODEL, DIM) == 0
    assert store.vector_model() == MODEL and store.vector_count() == 1


def test_vectors_are_saved_only_for_jobs_still_queued(store):
    store.open_vectors(MODEL, DIM)
    w = Writer(store, ALICE)
    rewritten, forgotten, kept = w.turn("user", "one"), w.turn("user", "two"), w.turn("user", "three")
    jobs = store.claim(("embed",), 10, time.time())
    rows = {r["id"]: r for r in store.get_memories([j.subject for j in jobs])}
    store.update_memory(rewritten, content="one, rewritten")  # a new job for the new text
    store.delete([forgotten])
    assert store.save_vectors({j.id: (rows[j.subject], unit(1)) for j in jobs}) == 1
    assert store.similarities("alice", unit(1), [rewritten, forgotten, kept]).keys() == {kept}
    assert [j.subject for j in store.claim(("embed",), 10, time.time())] == [rewritten]


def test_rebuilding_vectors_drops_them_and_queues_every_memory_again(store):
    store.open_vectors(MODEL, DIM)
    w = Writer(store, ALICE)
    ids = [w.turn("user", "one"), w.turn("assistant", "two"), w.turn("tool", "three")]
    embed_all(store, {i: unit(1) for i in ids})
    assert store.vector_count() == 2 and store.pending(("embed",)) == 0
    assert store.rebuild_vectors() == 2  # tool turns are never embedded
    assert store.vector_count() == 0
    store.maintain_vectors(force=True)


def test_rebuilding_keywords_keeps_search(store):
    w = Writer(store, ALICE)
    memory_id = w.turn("user", "the blue bicycle")
    store.rebuild_keywords()
    assert ids_of(store.keyword_search(Visible(ALICE), ["bicycle"], 5)) == [memory_id]


# ------------------------------------------------------------------ jobs
def test_jobs_keep_their_id_until_queued_again(store):
    store.enqueue("facts", ["a", "b"], lang="en-us")
    store.enqueue("facts", ["a"], lang="en-us")  # already queued: keeps its job
    jobs = {j.subject: j for j in store.claim(("facts",), 10, 100.0)}
    assert set(jobs) == {"a", "b"} and store.pending(("facts",)) == 2
    assert jobs["a"].lang == "en-us" and jobs["a"].attempts == 0
    store.enqueue("facts", ["a"], persona_id="p", lang="pt-pt", again=True)  # new text: a new job
    assert store.finish([jobs["a"].id]) == set()  # the old id finishes nothing
    assert store.pending(("facts",)) == 2
    again = store.claim(("facts",), 10, 100.0)
    assert [(j.subject, j.persona_id, j.lang) for j in again] == [("a", "p", "pt-pt")]
    assert again[0].id > max(j.id for j in jobs.values())
    assert store.finish([again[0].id, jobs["b"].id]) == {again[0].id, jobs["b"].id}
    assert store.pending(("facts",)) == 0
    with pytest.raises(ValueError):
        store.enqueue("nope", ["x"])


def test_claims_lease_postpone_requeue_and_due_again(store):
    store.enqueue("llm_facts", ["x"], due=50.0)
    store.enqueue("llm_facts", ["y"], due=10.0)
    assert store.claim(("llm_facts",), 10, 5.0) == []  # not due
    claimed = store.claim(("llm_facts",), 10, 60.0, lease_s=30)
    assert [j.subject for j in claimed] == ["y", "x"]  # oldest due first
    assert store.claim(("llm_facts",), 10, 60.0) == []  # held
    assert [j.subject for j in store.claim(("llm_facts",), 10, 91.0)] == ["y", "x"]  # the lease lapsed
    y = claimed[0]
    store.postpone(y.id, 1000, "boom")
    retried = {j.subject: j for j in store.claim(("llm_facts",), 10, time.time() + 2000)}
    assert retried["y"].attempts == 1 and retried["y"].id == y.id
    store.requeue(y.id)
    assert [j.subject for j in store.claim(("llm_facts",), 10, 1.0)] == ["y"]  # due at once; x only at 50
    store.release_claims()
    assert {j.subject: j.attempts for j in store.claim(("llm_facts",), 10, 100.0)} == {"x": 0, "y": 0}
    store.release_claims()
    store.postpone(y.id, 1000, "boom")
    store.due_again("llm_facts", 0.0, failed_only=True)
    assert "y" in [j.subject for j in store.claim(("llm_facts",), 10, 100.0)]
    store.release_claims()
    store.due_again("llm_facts", 0.0)
    assert len(store.claim(("llm_facts",), 10, 0.0)) == 2
    assert store.pending(("llm_facts", "embed")) == 2


def test_newest_first_claims_and_a_conversations_untried_exchanges(store):
    w = Writer(store, ALICE)
    turns = [w.turn("user", f"turn {i}") for i in range(3)]
    assert [j.subject for j in store.claim(("embed",), 2, time.time(), newest_first=True)] == turns[:0:-1]
    store.enqueue("llm_facts", turns, due=1e12)
    store.due_again("llm_facts", 5.0, conversation_id=w.conversation)
    assert len(store.claim(("llm_facts",), 10, 6.0)) == 3


# ------------------------------------------------- the service's own tables
def test_pauses(store):
    assert not store.is_paused(ALICE)
    store.set_paused(ALICE, "session", True)
    assert store.is_paused(ALICE) and not store.is_paused(ALICE_CAR)
    store.set_paused(ALICE, "user", True)
    assert store.is_paused(ALICE_CAR) and not store.is_paused(CAROL)
    store.set_paused(ALICE, "session", False)
    assert store.is_paused(ALICE)  # the user's pause still holds
    store.set_paused(ALICE, "session", True)
    store.set_paused(ALICE, "user", False)  # resuming the user resumes every session
    assert not store.is_paused(ALICE) and not store.is_paused(ALICE_CAR)


def test_a_pause_holds_from_when_it_was_first_set(store):
    """What reached the daemon before the pause is not held back by it; pausing
    again does not move the pause later (what was said in between stays out)."""
    import time
    before = time.time()
    store.set_paused(ALICE, "session", True)
    between = time.time()
    assert store.is_paused(ALICE) and store.is_paused(ALICE, between) and not store.is_paused(ALICE, before - 1)
    time.sleep(0.01)
    store.set_paused(ALICE, "session", True)
    assert store.is_paused(ALICE, between)


def test_pauses_are_listed_by_user(store):
    assert store.pauses() == []
    store.set_paused(CAROL, "user", True)
    store.set_paused(ALICE, "session", True)
    assert store.pauses() == [{"user_id": "alice", "session_id": "kitchen"}, {"user_id": "carol", "session_id": None}]
    assert store.pauses("carol") == [{"user_id": "carol", "session_id": None}]


def test_request_ids(store):
    assert store.find_request(ALICE, "r1") is None
    store.save_request(ALICE, "r1", ["a", "b"], 100.0)
    assert store.find_request(ALICE, "r1") == ["a", "b"] and store.find_request(ALICE_CAR, "r1") is None
    store.purge_requests(50.0)
    assert store.find_request(ALICE, "r1") == ["a", "b"]
    store.purge_requests(150.0)
    assert store.find_request(ALICE, "r1") is None


def test_personas(store):
    assert store.persona("bob") is None
    store.save_persona("bob", "ovos-memory-plugin-lexical", {"max_num_results": 3}, 1.0)
    store.save_persona("bob", "ovos-memory-plugin-recency", {"max_messages": 4}, 2.0)
    assert store.persona("bob") == ("ovos-memory-plugin-recency", {"max_messages": 4})


# ---------------------------------------------------------------- upkeep
def test_export_then_import_into_another_store(store, store_backend, tmp_path):
    w = Writer(store, ALICE)
    turns = [w.turn("user", "I moved to Porto", name="Alice"), w.turn("assistant", "Porto is lovely",
                                                                     tool_calls=json.dumps([{"id": "1"}]))]
    w.fact("Alice lives in Porto", slot="residence", value="Porto", sources=json.dumps(turns[:1]),
           extractor="rules", confidence=0.8)
    summary = w.fact("They talked about Porto", kind="summary", conversation_id=w.conversation,
                     sources=json.dumps(turns))
    records = [to_record(r) for r in store.export(0, 100)]
    assert len(records) == 4 and [r["id"] for r in store.export(1, 2)] == [r["id"] for r in records[1:3]]
    assert [r["id"] for r in store.export(0, 10, user_id="alice", session_id="kitchen")] == [r["id"] for r in records]
    other_config = {"data_dir": str(tmp_path / "other"), "store": store_backend if
                                 store_backend["backend"] == "sqlite" else {**store_backend,
                                                                            "schema": store_backend["schema"] + "b"}}
    other = open_configured(other_config, 5, "cli")
    try:
        added = other.import_rows([check_record(r) for r in records])
        assert [r["id"] for r in added] == [r["id"] for r in records]
        assert other.import_rows([check_record(r) for r in records]) == []  # known ids are skipped
        assert [to_record(r) for r in other.export(0, 100)] == records
        conv = other.get_conversation(w.conversation)
        assert conv["started_at"] == other.get_memories([turns[0]])[0]["created_at"]
        state = other.summary_state(w.conversation)
        assert state[0] == summary and state[2] == other.get_memories([turns[1]])[0]["seq"]
        assert other.pending(("embed",)) == 4
        assert ids_of(other.keyword_search(Visible(ALICE), ["porto"], 10))
    finally:
        other.close()
        if store_backend["backend"] == "postgresql":
            import psycopg
            with psycopg.connect(store_backend["dsn"], autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA {store_backend['schema']}b CASCADE")


def test_a_failed_transaction_leaves_nothing(store):
    with pytest.raises(RuntimeError):
        with store.transaction():
            w = Writer(store, ALICE)
            w.turn("user", "never stored")
            store.enqueue("facts", ["x"])
            store.set_paused(ALICE, "user", True)
            store.save_persona("p", "m", {}, 1.0)
            raise RuntimeError("boom")
    assert store.count() == 0 and store.pending(("embed", "facts")) == 0
    assert not store.is_paused(ALICE) and store.persona("p") is None and store.latest_conversation(ALICE) is None
    assert store.keyword_search(Visible(ALICE), ["stored"], 5) == []
    with pytest.raises(RuntimeError):
        with store.transaction():
            Writer(store, ALICE).turn("user", "never stored either")
            with store.transaction():  # nested: part of the outer one
                store.enqueue("facts", ["y"])
            raise RuntimeError("boom")
    assert store.count() == 0 and store.pending(("embed", "facts")) == 0
    with store.transaction():
        kept = Writer(store, ALICE).turn("user", "kept")
        with store.transaction():
            store.enqueue("facts", [kept])
        assert store.existing([kept]) == {kept}  # a read in the transaction sees its writes
    assert store.count() == 1 and store.pending(("facts",)) == 1


def test_compaction_keeps_everything(store):
    w = Writer(store, ALICE)
    kept = w.turn("user", "a memory that stays")
    store.delete([w.turn("user", "a memory that goes")])
    store.compact()
    assert ids_of(store.keyword_search(Visible(ALICE), ["memory"], 5)) == [kept]


# ------------------------------------------------- the same numbers on both
CORPUS = [
    ("user", "My dog Rex loves the park near the river"),
    ("assistant", "Rex sounds like a happy dog!"),
    ("user", "I don't like running in the rain, but my sister does"),
    ("assistant", "Running in the rain can be refreshing."),
    ("user", "We moved to Lisbon in 2019; the café downstairs is great"),
    ("assistant", "Lisbon's cafes are famous. Which café?"),
    ("user", "The e-mail from Dr. Smith arrived at 9:30"),
    ("user", "Generously, they gave us the generators' manuals"),
    ("assistant", "Ha ha ha, generous indeed"),
    ("user", "São Paulo é uma cidade enorme e eu gosto de gatos"),
    ("user", "Ich wohne in München und habe zwei Katzen"),
    ("user", "my cats and my dogs play together"),
    ("assistant", "Cats and dogs together: lovely"),
    ("user", "x_y z__ 42 4.2 C++ and C# are languages"),
]
QUERIES = [["dog", "rex"], ["rain", "running", "sister"], ["lisbon", "cafe"], ["café"], ["email", "mail", "smith"],
           ["generous", "generator"], ["ha"], ["são", "paulo", "gatos"], ["münchen", "katzen"], ["cats", "dogs"],
           ["don", "don't"], ["42", "x_y", "c"], ["nothing", "matches"]]
RELATED = {"dog": ("cat", "puppy"), "cats": ("kitten",), "cafe": ("coffee", "espresso")}


def fill(store):
    for owner in (ALICE, CAROL):
        w = Writer(store, owner)
        for role, content in CORPUS:
            w.turn(role, content if owner is ALICE else content + " " + owner.user_id)
    return {r["id"]: r for r in store.export(0, 1000)}


@pytest.mark.stack
def test_coverage_is_the_same_number_on_both_stores(pg_schema, tmp_path):
    stores = [open_configured({"data_dir": str(tmp_path / "sqlite")}, 5, "cli"),
              open_configured({"store": pg_schema}, 5, "cli")]
    try:
        Writer.starts = itertools.count()  # the same times, hence the same rows, in both
        seqs = []
        for store in stores:
            rows = store.get_memories(list(fill(store)))
            seqs.append({r["content"]: r["seq"] for r in rows})
        assert seqs[0].keys() == seqs[1].keys()
        for words in QUERIES:
            related = {w: RELATED[w] for w in words if w in RELATED}
            found = [store.coverage(words, list(by_text.values()), related) for store, by_text in zip(stores, seqs)]
            for which in (0, 1):  # direct, topical
                on_sqlite = {text: found[0][which][seq] for text, seq in seqs[0].items()}
                on_postgresql = {text: found[1][which][seq] for text, seq in seqs[1].items()}
                for text in on_sqlite:
                    assert on_postgresql[text] == pytest.approx(on_sqlite[text], abs=1e-9), (words, text, which)
            assert any(found[0][0].values()) or words == ["nothing", "matches"]
    finally:
        for store in stores:
            store.close()


@pytest.mark.stack
def test_keyword_search_finds_the_same_memories_on_both_stores(pg_schema, tmp_path):
    """The same candidates for words both stemmers agree on (SQLite's porter and
    the snowball stemmer of the memory's language may split other words differently)."""
    stores = [open_configured({"data_dir": str(tmp_path / "sqlite")}, 5, "cli"),
              open_configured({"store": pg_schema}, 5, "cli")]
    try:
        Writer.starts = itertools.count()
        for store in stores:
            fill(store)
        for words in (["dog", "rex"], ["rain"], ["lisbon"], ["cafe"], ["smith"], ["cats"], ["nothing"]):
            found = [[r["content"] for r in store.keyword_search(Visible(ALICE), words, 50)] for store in stores]
            assert set(found[0]) == set(found[1]), words
            assert found[0][:1] == found[1][:1], words  # the same best match
    finally:
        for store in stores:
            store.close()


# ------------------------------------------- PostgreSQL: many daemons, one store
@pytest.fixture
def pg_stores(pg_schema):
    """PostgreSQL store objects on one schema, as daemons would hold them."""
    stores = []

    def make(**overrides):
        store = open_configured({"lang": "en-us", "store": {**pg_schema, **overrides}}, 5, "daemon")
        stores.append(store)
        return store
    yield make
    for store in stores:
        store.close()


def wait_for(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.mark.stack
def test_two_daemons_never_claim_the_same_job(pg_stores):
    stores = [pg_stores(), pg_stores()]
    stores[0].enqueue("facts", [f"subject-{i}" for i in range(300)])
    claimed = [[], []]

    def work(which):
        while True:
            jobs = stores[which].claim(("facts",), 7, time.time())
            if not jobs:
                return
            claimed[which] += [j.id for j in jobs]
    threads = [threading.Thread(target=work, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not set(claimed[0]) & set(claimed[1])
    assert len(claimed[0]) + len(claimed[1]) == 300 and claimed[0] and claimed[1]


@pytest.mark.stack
def test_a_live_daemons_claims_stay_its_own_and_a_dead_ones_are_free_at_once(pg_stores):
    first = pg_stores()
    first.enqueue("facts", ["a", "b"])
    held = first.claim(("facts",), 10, time.time(), lease_s=3600)
    second = pg_stores()  # a new daemon: it releases its own claims only
    second.release_claims()
    assert second.claim(("facts",), 10, time.time()) == []
    first.release_claims()  # a daemon letting go
    assert len(second.claim(("facts",), 10, time.time())) == 2
    second.release_claims()
    held = first.claim(("facts",), 10, time.time(), lease_s=3600)
    assert len(held) == 2
    first._presence.close()  # its session ends, as when the daemon is killed
    taken = []  # free once the server has ended that session (a moment after its socket closed),
    # not at the end of the hour's lease (under load the first claim came before it had: CI, 2026-12-07)
    wait_for(lambda: taken.extend(second.claim(("facts",), 10, time.time())) or taken, timeout=5)
    assert sorted(j.id for j in taken) == sorted(j.id for j in held)
    assert first.finish([j.id for j in held]) == {j.id for j in held}  # whoever finishes first, once
    assert second.finish([j.id for j in taken]) == set()


@pytest.mark.stack
def test_forgets_and_personas_reach_the_other_daemons(pg_stores):
    listening, other = pg_stores(), pg_stores()
    heard = []
    listening.listen(lambda event, data: heard.append((event, data)))
    w = Writer(other, ALICE)
    ids = [w.turn("user", f"turn {i}") for i in range(300)]  # more ids than one notification holds
    other.delete(ids)
    wait_for(lambda: sum(len(d["ids"]) for e, d in heard if e == "forgotten") == 300)
    assert {d["user_id"] for e, d in heard} == {"alice"}
    assert sorted(i for e, d in heard for i in d["ids"]) == sorted(ids)
    assert len([e for e, _ in heard]) > 1
    heard.clear()
    other.save_persona("pirate", "ovos-memory-plugin-recency", {}, 1.0)
    wait_for(lambda: heard)
    assert heard == [("personas", {"persona_id": "pirate"})]
    heard.clear()
    listening.delete([Writer(listening, ALICE).turn("user", "mine")])  # its own: nothing to hear
    listening.save_persona("pirate", "ovos-memory-plugin-recency", {"max_messages": 2}, 2.0)
    other.set_paused(ALICE, "user", True)
    assert listening.is_paused(ALICE)  # pauses are read from the database each time
    time.sleep(1.5)
    assert heard == []


@pytest.mark.stack
def test_daemons_starting_together_migrate_the_schema_once(pg_stores, pg_schema):
    import psycopg
    opened, failed = [], []

    def start():
        try:
            opened.append(pg_stores())
        except Exception as e:  # pragma: no cover - reported below
            failed.append(e)
    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failed and len(opened) == 4
    with psycopg.connect(pg_schema["dsn"]) as conn:
        names = [r[0] for r in conn.execute(f"SELECT name FROM {pg_schema['schema']}.schema_migrations")]
    from ovos_memory_service.store.postgresql.migrations import MIGRATIONS
    assert names == [name for name, _ in MIGRATIONS]


@pytest.mark.stack
def test_a_forget_vacuums_what_it_deleted(pg_stores, pg_schema):
    import psycopg
    store = pg_stores()
    store.open_vectors(MODEL, DIM)
    w = Writer(store, ALICE)
    ids = [w.turn("user", f"a secret number {i}") for i in range(20)]
    embed_all(store, {i: unit(1) for i in ids})
    with psycopg.connect(pg_schema["dsn"]) as conn:
        before = conn.execute("SELECT now()").fetchone()[0]
    store.delete(ids)
    assert store.settle(30)
    with psycopg.connect(pg_schema["dsn"]) as conn:
        vacuumed = dict(conn.execute("SELECT relname, last_vacuum >= %s FROM pg_stat_user_tables "
                                     "WHERE schemaname = %s", [before, pg_schema["schema"]]).fetchall())
    assert all(vacuumed[t] for t in ("memories", "memory_text", "jobs", "summaries", "memory_vectors"))


@pytest.mark.stack
def test_memories_are_searched_in_their_sessions_language(pg_stores):
    store = pg_stores()
    lisbon = Scope("ana", "sala", None, "pt-pt")
    with store.transaction():  # as an update: the turns, then their jobs with the session's lang
        w = Writer(store, lisbon)
        said = w.turn("user", "Os meus gatos dormem no sofá")
        store.enqueue("facts", [said], lang="pt-pt")
    reply = w.turn("assistant", "Os gatos gostam de dormir")
    fact = w.fact("A Ana tem gatos")
    english = Writer(store, Scope("ana", "hall", None, "en-us")).turn("user", "the cats are sleeping")

    def config(memory_id):
        with store._cursor() as cur:
            return cur.execute("SELECT t.ts_config FROM memory_text t JOIN memories m ON m.seq = t.seq "
                               "WHERE m.id = %s", [memory_id]).fetchone()["ts_config"]
    assert [config(i) for i in (said, reply, fact, english)] == ["portuguese"] * 3 + ["english"]
    # the Portuguese stemmer: "gato" finds "gatos"; diacritics folded ("sofa" finds "sofá")
    assert set(ids_of(store.keyword_search(Visible(lisbon, where="all"), ["gato"], 10))) == {said, reply, fact}
    assert said in ids_of(store.keyword_search(Visible(lisbon), ["sofa"], 10))
    assert set(ids_of(store.keyword_search(Visible(Scope("ana", "hall")), ["sleep"], 10))) == {english}


@pytest.mark.stack
def test_a_users_transactions_wait_for_each_other_and_no_one_else(pg_stores):
    first, second = pg_stores(), pg_stores()
    inside, release = threading.Event(), threading.Event()

    def hold_alice():
        with first.transaction():
            first.is_paused(ALICE)  # reads of a user in a transaction take the user
            inside.set()
            release.wait(10)
    holder = threading.Thread(target=hold_alice)
    holder.start()
    inside.wait(5)
    Writer(second, CAROL).turn("user", "not waiting")  # another user: at once
    done = threading.Event()
    threading.Thread(target=lambda: (Writer(second, ALICE).turn("user", "waits"), done.set())).start()
    assert not done.wait(0.5)  # still waiting while alice is held
    release.set()
    assert done.wait(5)
    holder.join()
    assert second.count(user_id="alice") == 1


@pytest.mark.stack
def test_a_daemon_stops_comparing_when_another_embeds_the_shared_store_with_its_model(pg_schema, make_engine):
    """Two daemons, one PostgreSQL, two models: the one started last re-embeds
    the store; the other hears it and answers by keywords, never comparing its
    queries with the other model's vectors."""
    from tests.helpers import eventually, exchange, scope
    first = make_engine(store=pg_schema)  # all-MiniLM-L6-v2
    sc = scope()
    exchange(first, sc, "My dog is called Rex", "What a good boy")
    first.wait_idle()
    assert first.stats(sc)["semantic_recall"] is True
    second = make_engine(store=pg_schema, embeddings={"model": "google/universal-sentence-encoder-multilingual-3"})
    eventually(lambda: first.stats(sc)["semantic_recall"] is False, what="the first daemon hearing of it")
    assert "universal-sentence-encoder" in first.stats(sc)["semantic_error"]
    assert first.stats(sc)["embedding_model"] is None  # its embedding worker stopped
    assert first.recall(sc, "my dog Rex", threshold=0)[0].content == "My dog is called Rex"
    second.wait_idle()
    assert second.stats(sc)["semantic_recall"] is True and second.stats(sc)["pending_jobs"] == 0


@pytest.mark.stack
def test_daemons_changing_model_together_fill_the_new_vectors_and_all_switch(pg_schema, make_engine,
                                                                             multilingual_gate):
    """Two daemons on one PostgreSQL restarted with a new model: both embed
    the store again (the old model answering meanwhile); when one ends the
    change, the other hears it and answers with the new model too."""
    from tests.helpers import eventually, exchange, scope
    multilingual = "google/universal-sentence-encoder-multilingual-3"
    old = make_engine(store=pg_schema)
    sc = scope()
    exchange(old, sc, "My dog is called Rex", "What a good boy")
    exchange(old, sc, "I bought a new bicycle yesterday", "Enjoy the rides")
    old.wait_idle()
    old.close()
    first = make_engine(store=pg_schema, embeddings={"model": multilingual})
    second = make_engine(store=pg_schema, embeddings={"model": multilingual})
    for daemon in (first, second):
        assert daemon.stats(sc)["reembedding"]["model"] == multilingual
        assert daemon.reader.semantic_search(sc, "what is the name of my pet?", 1, ["turn"])[0].content \
            == "My dog is called Rex"
    multilingual_gate.opened.set()
    for daemon in (first, second):
        eventually(lambda: daemon.stats(sc)["embedding_model"] == multilingual
                   and daemon.stats(sc)["reembedding"] is None, what="the daemon switching")
        stats = daemon.stats(sc)
        assert stats["semantic_recall"] is True and stats["vectors"] == sum(stats["counts"].values())
        found = daemon.reader.semantic_search(sc, "wie heißt mein Haustier?", 1, ["turn"])
        assert found[0].content == "My dog is called Rex"


@pytest.mark.stack
def test_an_old_models_batch_saved_as_another_daemon_ends_the_change_stays_out_of_the_new_vectors(
        pg_stores, monkeypatch):
    first, second = pg_stores(), pg_stores()  # two daemons changing together
    for daemon in (first, second):
        daemon.open_vectors(MODEL, DIM)
    memory_id = Writer(first, ALICE).turn("user", "hello")
    embed_all(first, {memory_id: unit(1)})
    for daemon in (first, second):
        daemon.begin_reembedding("test/model-b", DIM)  # the same dimension
    first.update_memory(memory_id, content="hello again")  # new jobs in both queues
    jobs = first.claim(("embed",), 10, time.time())  # first's worker: a batch of the old model in hand
    rows = {r["id"]: r for r in first.get_memories([memory_id])}
    assert embed_next(second, {memory_id: unit(0, 1)}) == 1
    ending, still_queued = [], type(first)._still_queued

    def second_ends_the_change_meanwhile(self, cur, ids):
        if self is first and not ending:
            ending.append(threading.Thread(target=second.end_reembedding, args=("test/model-b",)))
            ending[0].start()
            time.sleep(0.5)
        return still_queued(self, cur, ids)
    monkeypatch.setattr(type(first), "_still_queued", second_ends_the_change_meanwhile)
    first.save_vectors({j.id: (rows[j.subject], unit(1)) for j in jobs}, MODEL)
    ending[0].join(10)
    assert second.vector_model() == "test/model-b"
    assert second.similarities("alice", unit(0, 1), [memory_id], "test/model-b")[memory_id] == \
        pytest.approx(1.0, abs=5e-3)  # the new model's vector, not the old one's


@pytest.mark.stack
def test_a_daemon_filling_one_model_never_fills_the_table_of_another(pg_stores):
    second, third = pg_stores(), pg_stores()
    for daemon in (second, third):
        daemon.open_vectors(MODEL, DIM)
    memory_id = Writer(second, ALICE).turn("user", "hello")
    embed_all(second, {memory_id: unit(1)})
    second.begin_reembedding("test/model-b", DIM)
    third.begin_reembedding("test/model-c", DIM)  # a daemon started with a third model
    with pytest.raises(ModelChanged):
        embed_next(second, {memory_id: unit(0, 1)})
    assert third.pending(("reembed",)) == 1  # the job is model c's still


@pytest.mark.stack
def test_a_daemon_whose_change_another_gives_up_goes_on_with_the_old_model(pg_schema, make_engine,
                                                                          multilingual_gate):
    from tests.helpers import eventually, exchange, scope
    multilingual = "google/universal-sentence-encoder-multilingual-3"
    old = make_engine(store=pg_schema)
    sc = scope()
    exchange(old, sc, "My dog is called Rex", "What a good boy")
    old.wait_idle()
    old.close()
    multilingual_gate.failing = True
    changing = make_engine(store=pg_schema, embeddings={"model": multilingual})
    assert changing.stats(sc)["reembedding"]["model"] == multilingual
    back = make_engine(store=pg_schema)  # started with the old model: it gives the change up
    assert back.stats(sc)["reembedding"] is None
    eventually(lambda: changing.stats(sc)["reembedding"] is None, what="the changing daemon giving up")
    changing.wait_idle(30)
    for daemon in (changing, back):
        assert daemon.stats(sc)["embedding_model"].endswith("all-MiniLM-L6-v2")
        assert daemon.reader.semantic_search(sc, "what is the name of my pet?", 1, ["turn"])[0].content \
            == "My dog is called Rex"


@pytest.mark.stack
def test_a_daemon_that_missed_the_notification_of_a_model_change_stops_comparing_at_its_next_search(
        pg_schema, make_engine):
    from ovos_memory_service.common.errors import Unavailable
    from tests.helpers import exchange, scope
    first = make_engine(store=pg_schema)  # all-MiniLM-L6-v2, and deaf from now on
    sc = scope()
    exchange(first, sc, "My dog is called Rex", "What a good boy")
    first.wait_idle()
    first.store._presence._received = lambda channel, payload: None
    second = make_engine(store=pg_schema, embeddings={"model": "google/universal-sentence-encoder-multilingual-3"})
    second.wait_idle(60) and second.stats(sc)["reembedding"] is None
    with pytest.raises(Unavailable):
        first.reader.semantic_search(sc, "what is the name of my pet?", 1, ["turn"])
    stats = first.stats(sc)
    assert stats["semantic_recall"] is False and "universal-sentence-encoder" in stats["semantic_error"]
    assert first.recall(sc, "my dog Rex", threshold=0)[0].content == "My dog is called Rex"  # by keywords


@pytest.mark.stack
def test_nearest_through_the_hnsw_index_finds_what_an_exact_scan_finds(pg_stores, monkeypatch):
    from ovos_memory_service.store.postgresql import vectors
    store = pg_stores()
    store.open_vectors(MODEL, DIM)
    w = Writer(store, ALICE)
    rng = np.random.default_rng(7)
    ids = [w.turn("user", f"memory {i}") for i in range(60)]
    hidden = Writer(store, ALICE_OTHER_PERSONA).turn("user", "another persona")
    embed_all(store, {**{i: unit(*rng.normal(size=DIM)) for i in ids}, hidden: unit(1)})
    query = unit(1, 0.1)
    exact = ids_of(store.nearest(Visible(ALICE), query, 5, newest=40))
    monkeypatch.setattr(vectors, "EXACT_NEWEST", 10)
    assert ids_of(store.nearest(Visible(ALICE), query, 5, newest=40)) == exact
    assert hidden not in ids_of(store.nearest(Visible(ALICE), query, 5, newest=1000))


@pytest.mark.stack
def test_an_empty_dsn_uses_the_pg_environment_variables(pg_server, pg_schema, monkeypatch):
    for part in pg_server.dsn.split():
        key, value = part.split("=", 1)
        monkeypatch.setenv({"host": "PGHOST", "port": "PGPORT", "user": "PGUSER", "dbname": "PGDATABASE"}[key], value)
    store = open_configured({"store": {**pg_schema, "dsn": ""}}, 5, "cli")
    try:
        Writer(store, ALICE).turn("user", "hello")
        assert store.count() == 1
    finally:
        store.close()


# ------------------------------------------------------- the engine on both
def test_an_engine_remembers_recalls_and_forgets_on_either_store(make_engine, store_backend):
    """make_engine(store=store_backend) runs an engine on each store."""
    from ovos_memory_service.common.wire import ChatMessage
    engine = make_engine(store=store_backend)
    scope = Scope("alice", "kitchen", None, "en-us")
    stored = engine.update_history(scope, [ChatMessage(role="user", content="my dog is called Rex"),
                                           ChatMessage(role="assistant", content="Rex is a good name")])
    assert stored["stored"] == 2
    engine.wait_idle(60)
    found = engine.recall(scope, "what is my dog called?", threshold=0.3)
    assert any("Rex" in item.content for item in found)
    engine.forget(scope, everything=True)
    assert engine.store.count(user_id="alice") == 0 and engine.store.vector_count() == 0


@pytest.mark.stack
def test_sessions_the_server_ended_are_made_again(pg_stores, pg_schema):
    import psycopg
    from ovos_memory_service.store.postgresql.connection import storage_problem
    store = pg_stores()
    heard = []
    store.listen(lambda event, data: heard.append(event))
    Writer(store, ALICE).turn("user", "before")
    claimant = store.claimant
    with psycopg.connect(pg_schema["dsn"], autocommit=True) as conn:  # as a server restart or failover does
        ended = conn.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                             "WHERE application_name = %s", [store._application_name]).fetchone()[0]
    assert ended >= 2  # the pool's and the store's own session
    assert store.count() == 1  # pooled connections are checked before use
    wait_for(lambda: "resync" in heard)  # the listening session is back, and says it may have missed something
    assert store.claimant == claimant  # its claimant lock was free again: its claims stay its own
    assert storage_problem(psycopg.OperationalError("server closed the connection unexpectedly"))
    assert storage_problem(ValueError("not a storage error")) is None
