"""Explicit memories, listing, forgetting for real, and the store's files."""
import os
import stat
import sqlite3

import pytest

from ovos_memory_service.common.errors import InvalidRequest
from tests.helpers import exchange, scope


def test_remember_stores_lists_and_dedups_restatements(engine):
    sc = scope()
    first = engine.remember(sc, "I am allergic to peanuts.")
    assert engine.remember(sc, "i am allergic  to peanuts") == first
    other = engine.remember(sc, "I prefer short answers", "preference")
    items, total = engine.list(sc)
    assert total == 2 and {i.id for i in items} == {first, other}
    assert [i.kind for i in engine.list(sc, kinds=["preference"])[0]] == ["preference"]
    assert engine.recall(sc, "peanuts allergy")[0].id == first


def test_remember_rejects_kinds_that_are_not_explicit(engine):
    with pytest.raises(InvalidRequest):
        engine.remember(scope(), "x", "turn")


def test_facts_are_shared_across_personas_attributes_are_not(engine):
    engine.remember(scope(persona="a"), "My birthday is on May 3rd")
    engine.remember(scope(persona="a"), "Speaks like a pirate", "attribute")
    assert [m.kind for m in engine.list(scope(persona="b"))[0]] == ["fact"]
    assert len(engine.list(scope(persona="a"))[0]) == 2


def test_list_is_newest_first_with_total_and_paging(engine):
    sc = scope()
    for i in range(5):
        exchange(engine, sc, f"question {i}", f"answer {i}")
    items, total = engine.list(sc, limit=3, offset=0)
    assert total == 10 and [i.content for i in items] == ["answer 4", "question 4", "answer 3"]
    assert [i.content for i in engine.list(sc, limit=3, offset=9)[0]] == ["question 0"]


def test_list_session_scope(engine):
    exchange(engine, scope(session="a"), "in a", "ok")
    exchange(engine, scope(session="b"), "in b", "ok")
    assert [i.content for i in engine.list(scope(session="a"), where="session")[0]] == ["ok", "in a"]
    assert engine.list(scope(session="a"))[1] == 4


def test_forget_by_ids_only_touches_the_callers_memories(engine):
    mine = exchange(engine, scope(user="alice"), "alice secret", "ok")["ids"]
    theirs = exchange(engine, scope(user="bob"), "bob secret", "ok")["ids"]
    forgotten = engine.forget(scope(user="alice"), ids=[mine[0], theirs[0], "nope"])
    assert [m.id for m in forgotten] == [mine[0]]
    assert engine.list(scope(user="bob"))[1] == 2


def test_forget_by_query_is_what_is_clearly_about_it_with_the_replies(engine):
    sc = scope()
    hint = exchange(engine, sc, "my password hint is blue whale", "noted")["ids"]
    exchange(engine, sc, "the whale song was lovely", "yes")
    engine.wait_idle()
    strict = engine.config["forget_relevance_threshold"]
    recalled = [m.id for m in engine.recall(sc, "blue whale", threshold=strict)]
    assert hint[0] in recalled and hint[1] not in recalled
    dry = engine.forget(sc, query="blue whale", dry_run=True)
    assert [m.id for m in dry] == recalled + [hint[1]]  # "noted" answered the hint
    assert engine.recall(sc, "blue whale", threshold=strict) != []  # a dry run changes nothing
    assert [m.id for m in engine.forget(sc, query="blue whale")] == recalled + [hint[1]]
    # what is left is not forgotten for being the best of what is left
    assert engine.forget(sc, query="blue whale", dry_run=True) == []


def test_forget_all_in_session_scope_keeps_other_sessions(engine):
    exchange(engine, scope(session="a"), "kitchen talk", "ok")
    exchange(engine, scope(session="b"), "bedroom talk", "ok")
    assert len(engine.forget(scope(session="a"), everything=True, where="session")) == 2
    assert [m.content for m in engine.list(scope(session="b"))[0]] == ["ok", "bedroom talk"]
    assert engine.get_history(scope(session="a")) == []


def test_forgetting_a_turn_removes_it_from_the_next_turns_context(engine):
    sc = scope()
    ids = exchange(engine, sc, "the treasure is under the oak", "I will remember")["ids"]
    found = engine.reader.keyword_search(sc, "treasure oak", 5, ["turn"])
    assert [m.id for m in found] == ids  # the reply is found by the turn before it
    engine.forget(sc, ids=[ids[0]])
    assert engine.reader.keyword_search(sc, "treasure oak", 5, ["turn"]) == []


def test_forgotten_text_is_gone_from_the_database_files(make_engine, tmp_path):
    engine = make_engine()
    sc = scope()
    exchange(engine, sc, "my bank pin is xylophonezebra4471", "I will keep it safe")
    for i in range(50):
        exchange(engine, sc, f"filler message number {i}", "ok")
    engine.remember(sc, "the xylophonezebra4471 code")
    assert any(b"xylophonezebra4471" in f.read_bytes() for f in store_files(tmp_path / "memory"))
    # the turn, its reply and the remembered fact
    assert len(engine.forget(sc, query="xylophonezebra4471", threshold=0.9)) == 3
    for f in store_files(tmp_path / "memory"):
        assert b"xylophonezebra4471" not in f.read_bytes().lower(), f.name
    assert engine.list(sc)[1] == 100


def store_files(folder):
    return [p for p in folder.rglob("*") if p.is_file()]


def test_store_is_owner_only_wal_and_versioned(make_engine, tmp_path):
    make_engine()  # the SQLite files themselves
    folder = tmp_path / "memory"
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    for name in os.listdir(folder):
        assert stat.S_IMODE(os.stat(folder / name).st_mode) & 0o077 == 0, name
    conn = sqlite3.connect(folder / "memory.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    applied = [r[0] for r in conn.execute("SELECT name FROM _sqlite_migrations")]
    assert applied == ["m001_initial", "m002_embed_jobs", "m003_search_context", "m004_fact_model",
                       "m005_llm_work", "m006_repair_times", "m007_one_job_queue", "m008_keywords_per_user", "m009_settings",
                       "m010_auth_level"]
    columns = [r[1] for r in conn.execute("PRAGMA table_info(memories)")]
    assert {"id", "kind", "user_id", "persona_id", "session_id", "content", "created_at"} <= set(columns)


def test_an_older_store_is_upgraded_with_its_memories(tmp_path):
    """A store left by an earlier version (before the search context and the
    fact model) opens, migrates, and keeps and finds its memories."""
    from sqlite_utils import Database
    from ovos_memory_service.store.sqlite.connection import open_database
    from ovos_memory_service.store.sqlite.migrations import migrations
    folder = tmp_path / "old"
    folder.mkdir()
    db = Database(sqlite3.connect(folder / "memory.db"))
    migrations.apply(db, stop_before="m003_search_context")
    db.execute("INSERT INTO conversations VALUES ('c1', 'u', '', 's', 1, 2)")
    for seq, (role, text) in enumerate([("user", "where is the spare key"), ("assistant", "under the mat")]):
        db.execute("INSERT INTO memories (id, kind, user_id, persona_id, session_id, conversation_id, role, "
                   "content, created_at, updated_at) VALUES (?, 'turn', 'u', '', 's', 'c1', ?, ?, 1, 1)",
                   [f"t{seq}", role, text])
    db.conn.commit()
    db.conn.close()
    upgraded = open_database(str(folder))
    assert [r[0] for r in upgraded.execute("SELECT name FROM _sqlite_migrations")][-1] == "m010_auth_level"
    # memories stored before levels were kept: their level is not known
    assert upgraded.execute("SELECT count(*) FROM memories WHERE auth_level IS NULL").fetchone()[0] == 2
    assert upgraded.execute("SELECT count(*) FROM memories WHERE status = 'current'").fetchone()[0] == 2
    found = upgraded.execute("SELECT rowid FROM memories_fts WHERE memories_fts MATCH 'spare'").fetchall()
    assert len(found) == 2  # the answer is found by its question too
