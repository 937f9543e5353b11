"""Moving a device's SQLite store into PostgreSQL and back (store/migrate.py):
every memory, conversation, summary state, vector, pending job, pause,
request id and persona arrives, checked; running it again adds nothing."""
import json
import time

import numpy as np
import pytest

from ovos_memory_service.common.items import new_id
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.store import Visible
from ovos_memory_service.store.migrate import MigrationIncomplete, migrate
from ovos_memory_service.store.records import to_record
from tests.helpers import open_configured

pytestmark = pytest.mark.stack  # a real PostgreSQL (tests/pg.py)

ALICE = Scope("alice", "kitchen", "pirate", "en-us")
DIM = 8
MODEL = "test/model-a"


def sqlite_store(folder):
    return open_configured({"data_dir": str(folder)}, 5, "cli")


def pg_store(block):
    return open_configured({"store": block}, 5, "cli")


def vector(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[0], v[1 + i % (DIM - 1)] = 1.0, 0.5 + i / 10
    return v / np.linalg.norm(v)


def fill(store):
    """A device's store: two conversations, facts, a summary, vectors, pending work."""
    store.open_vectors(MODEL, DIM)
    now = 1_700_000_000.0
    conversation = store.start_conversation(ALICE, now)
    turns = []
    for i, (role, text) in enumerate([("user", "I moved to Porto"), ("assistant", "Porto is lovely"),
                                      ("user", "my dog is Rex"), ("assistant", "Rex!")]):
        turns.append(store.insert_memory({
            "id": new_id(), "kind": "turn", "user_id": "alice", "persona_id": "pirate", "session_id": "kitchen",
            "conversation_id": conversation, "role": role, "content": text, "created_at": now + i}))
    store.touch_conversation(conversation, now + 3)
    store.start_conversation(Scope("bob", "hall"), now + 50)  # a conversation with nothing in it yet
    fact = store.insert_memory({"id": new_id(), "kind": "fact", "user_id": "alice", "persona_id": "pirate",
                                "session_id": "kitchen", "content": "Lives in Porto", "slot": "residence",
                                "value": "Porto", "sources": json.dumps(turns[:1]), "extractor": "rules",
                                "confidence": 0.8, "created_at": now + 5})
    summary = store.insert_memory({"id": new_id(), "kind": "summary", "user_id": "alice", "persona_id": "pirate",
                                   "session_id": "kitchen", "conversation_id": conversation,
                                   "content": "Alice moved to Porto", "sources": json.dumps(turns[:2]),
                                   "extractor": "llm", "created_at": now + 6})
    store.set_summary_state(conversation, summary, store.get_memories([turns[1]])[0]["seq"])
    jobs = store.claim(("embed",), 100, time.time())
    rows = {r["id"]: r for r in store.get_memories([j.subject for j in jobs])}
    # every memory but the last turn has its vector; that one is still to embed
    store.save_vectors({j.id: (rows[j.subject], vector(i)) for i, j in enumerate(jobs) if j.subject != turns[3]})
    store.release_claims()
    store.enqueue("facts", [turns[2]], lang="en-us")
    store.enqueue("llm_summary", [conversation], "pirate", "en-us", due=now + 100)
    store.set_paused(Scope("alice", "car"), "session", True)
    store.set_paused(Scope("carol", "x"), "user", True)
    store.save_request(ALICE, "req-1", turns[:2], now)
    store.save_persona("pirate", "ovos-memory-plugin-recency", {"max_messages": 4}, now)
    return {"conversation": conversation, "turns": turns, "fact": fact, "summary": summary}


def state(store, made):
    """Everything a migration must carry, comparable between stores."""
    store_vectors = store.similarities("alice", vector(0), [*made["turns"], made["fact"], made["summary"]])
    conv = store.get_conversation(made["conversation"])
    summary = store.summary_state(made["conversation"])
    covered = store.get_memories([made["turns"][1]])[0]["seq"]
    return {
        "records": [to_record(r) for r in store.export(0, 100)],
        "conversation": {k: conv[k] for k in ("user_id", "persona_id", "session_id", "started_at", "updated_at")},
        "bob": store.latest_conversation(Scope("bob", "hall")) is not None,
        "summary": (summary[0], summary[1], summary[2] == covered),
        "vectors": store_vectors,
        "jobs": sorted((j.queue, j.subject, j.lang) for j in store.claim(("facts", "llm_summary", "embed"), 100,
                                                                          time.time() + 1000)),
        "paused": [store.is_paused(Scope("alice", "car")), store.is_paused(Scope("alice", "kitchen")),
                   store.is_paused(Scope("carol", "y"))],
        "request": store.find_request(ALICE, "req-1"),
        "persona": store.persona("pirate"),
        "keywords": [r["content"] for r in store.keyword_search(Visible(ALICE), ["porto"], 10)],
    }


def assert_same(moved: dict, original: dict):
    """Equal states; the vectors' cosines within 0.005 (SQLite's store compares
    int8 copies of the vectors, store/sqlite/lance_index.py)."""
    assert {k: v for k, v in moved.items() if k != "vectors"} == {k: v for k, v in original.items() if k != "vectors"}
    assert moved["vectors"].keys() == original["vectors"].keys()
    for memory_id, cosine in original["vectors"].items():
        assert moved["vectors"][memory_id] == pytest.approx(cosine, abs=5e-3), memory_id


def test_a_device_store_moves_into_postgresql_and_back(tmp_path, pg_schema):
    device = sqlite_store(tmp_path / "device")
    made = fill(device)
    shared = pg_store(pg_schema)
    try:
        result = migrate(device, shared)
        assert (result.memories, result.added, result.vectors, result.pauses, result.personas) == (6, 6, 5, 2, 1)
        assert result.conversations == 2 and result.jobs == 2 and result.requests == 1
        again = migrate(device, shared)  # nothing new: nothing added, nothing doubled
        assert again.added == 0 and shared.count() == 6
        original = state(device, made)
        moved = state(shared, made)
        assert_same(moved, original)
        assert shared.vector_model() == MODEL  # its vectors keep the model that made them
        assert original["jobs"] == [("embed", made["turns"][3], ""), ("facts", made["turns"][2], "en-us"),
                                    ("llm_summary", made["conversation"], "en-us")]
        shared.release_claims()
        back = sqlite_store(tmp_path / "back")
        try:
            migrate(shared, back)
            assert_same(state(back, made), original)
        finally:
            back.close()
    finally:
        device.close()
        shared.close()


def planned_rows(block, query: str) -> float:
    """The rows PostgreSQL's planner expects ``query`` to return."""
    import psycopg
    with psycopg.connect(block["dsn"], autocommit=True) as conn:
        conn.execute(f"SET search_path TO {block['schema']}, public")
        return conn.execute("EXPLAIN (FORMAT JSON) " + query).fetchone()[0][0]["Plan"]["Plan Rows"]


def test_postgresql_plans_with_the_statistics_of_what_was_moved_in(tmp_path, pg_schema):
    """Without fresh statistics the planner treats the moved-in tables as
    empty until autovacuum comes by (a 10k store's build took 64 ms instead
    of 10 ms for the first minute)."""
    device = sqlite_store(tmp_path / "device")
    store, conversation = device, device.start_conversation(ALICE, 1_700_000_000.0)
    for i in range(600):
        store.insert_memory({"id": new_id(), "kind": "turn", "user_id": f"user{i % 3}", "persona_id": "pirate",
                             "session_id": "kitchen", "conversation_id": conversation, "role": "user",
                             "content": f"note number {i}", "created_at": 1_700_000_000.0 + i})
    shared = pg_store(pg_schema)
    try:
        migrate(device, shared)
        assert planned_rows(pg_schema, "SELECT * FROM memories WHERE user_id = 'user1'") == pytest.approx(200, rel=0.2)
        assert planned_rows(pg_schema, "SELECT * FROM memory_text") == pytest.approx(600, rel=0.2)
    finally:
        device.close()
        shared.close()


def test_a_migration_that_loses_something_says_so(tmp_path, pg_schema, monkeypatch):
    device = sqlite_store(tmp_path / "device")
    fill(device)
    shared = pg_store(pg_schema)
    try:
        monkeypatch.setattr(type(shared), "import_rows", lambda self, rows: [])  # a target that drops them
        with pytest.raises(MigrationIncomplete, match="memories"):
            migrate(device, shared)
    finally:
        device.close()
        shared.close()


def test_ovos_memory_migrate_moves_a_device_store_and_back(tmp_path, pg_schema, make_engine):
    """The command a device owner runs: its memories recalled from PostgreSQL, then back."""
    from click.testing import CliRunner
    from ovos_memory_service.edge.cli import cli
    from tests.helpers import exchange, scope
    device = make_engine(data_dir=str(tmp_path / "device"))
    sc = scope()
    exchange(device, sc, "My dog is called Rex", "What a nice name")
    device.wait_idle()
    before = device.stats(sc)
    device.close()
    args = ["--dsn", pg_schema["dsn"], "--schema", pg_schema["schema"], "--json"]
    moved = CliRunner().invoke(cli, ["--data-dir", str(tmp_path / "device"), "migrate", "--to", "postgresql", *args])
    assert moved.exit_code == 0, (moved.output, moved.exception)
    assert json.loads(moved.output)["memories"] == sum(before["counts"].values()) == 3  # two turns, a fact
    shared = make_engine(store=pg_schema)
    assert [m.content for m in shared.recall(sc, "my dog Rex", kinds=["fact"])] == ["Has a dog called Rex"]
    assert shared.stats(sc)["vectors"] == before["vectors"]
    shared.close()
    back = CliRunner().invoke(cli, ["--data-dir", str(tmp_path / "back"), "migrate", "--to", "sqlite", *args])
    assert back.exit_code == 0, (back.output, back.exception)
    returned = make_engine(data_dir=str(tmp_path / "back"))
    assert returned.stats(sc)["counts"] == before["counts"] and returned.stats(sc)["vectors"] == before["vectors"]


def test_a_large_import_into_postgresql_is_planned_with_its_statistics(pg_schema, make_engine):
    """memory.admin.import of history from elsewhere: a batch that adds a
    tenth of the store or more refreshes the planner's statistics at once."""
    engine = make_engine(store=pg_schema, embeddings={"enabled": False})
    records = [{"id": new_id(), "kind": "turn", "user_id": f"user{i % 3}", "persona_id": "pirate",
                "session_id": "hall", "conversation_id": "c1", "role": "user",
                "content": f"imported note {i}", "created_at": "2026-01-01T00:00:00Z"}
               for i in range(600)]
    assert engine.import_records(records)["imported"] == 600
    assert planned_rows(pg_schema, "SELECT * FROM memories WHERE user_id = 'user2'") == pytest.approx(200, rel=0.2)
