"""The LanceDB vector index on real files (store/sqlite/lance_index.py): a user's vectors
read back by the user_id index, rows written since it was made included, and
searched in memory; tables of a bounded size, so that a compaction rewrites
what was written lately, not the store."""
import tracemalloc

import numpy as np
import pytest

from ovos_memory_service.models.embedder import load_embedder
from ovos_memory_service.store.sqlite import lance_index
from ovos_memory_service.store.sqlite.lance_index import VectorIndex

DIM = 8


def unit(i: int) -> np.ndarray:
    v = np.random.default_rng(i).normal(size=DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def rows(user: str, start: int, n: int):
    return [(seq, f"{user}-{seq}", user, unit(seq)) for seq in range(start, start + n)]


def test_a_users_vectors_come_back_through_the_user_index_with_later_writes(tmp_path):
    index = VectorIndex(tmp_path / "vectors", DIM)
    for user, start in (("ana", 0), ("rui", 100), ("eva", 200)):
        index.upsert(rows(user, start, 30))
    index.compact()
    assert [i.columns for i in index.segments[0].table.list_indices()] == [["user_id"]]
    index.upsert(rows("ana", 300, 5))  # not in the index yet
    index.delete(["ana-3", "rui-101"])
    cold = VectorIndex(tmp_path / "vectors", DIM)  # nothing in memory: read from the files
    found = cold.search(unit(302), "ana", 0, 100)
    assert found[0][0] == "ana-302" and found[0][1] > 0.999
    expected = {f"ana-{s}" for s in [*range(0, 30), *range(300, 305)]} - {"ana-3"}
    assert {memory_id for memory_id, _ in found} == expected
    assert {m for m, _ in cold.search(unit(0), "rui", 0, 100)} == {f"rui-{s}" for s in range(100, 130)} - {"rui-101"}
    cold.compact()  # the later rows join the index; it is not made twice
    assert [i.columns for i in cold.segments[0].table.list_indices()] == [["user_id"]]
    assert {m for m, _ in VectorIndex(tmp_path / "vectors", DIM).search(unit(1), "ana", 0, 100)} == expected


def test_a_user_whose_vectors_are_all_deleted_leaves_no_trace_in_the_files(tmp_path):
    index = VectorIndex(tmp_path / "vectors", DIM)
    index.upsert(rows("ana", 0, 10) + rows("zelinda", 100, 10))
    index.compact()  # the user index now holds both names
    index.delete([f"zelinda-{s}" for s in range(100, 110)])
    index.purge()
    for path in (tmp_path / "vectors").rglob("*"):
        if path.is_file():
            assert b"zelinda" not in path.read_bytes(), path
    assert [m for m, _ in index.search(unit(1), "ana", 0, 3)][0] == "ana-1"


def test_searches_in_memory_give_the_models_cosines_and_order(tmp_path):
    """The in-memory copies are int8: with the real model's vectors, a search
    returns the same memories in the same order as float32 would, with cosines
    within 0.002 of theirs."""
    pytest.importorskip("fastembed")
    embedder = load_embedder({}, tmp_path / "models")
    texts = ["My sister Marta lives in Lisbon.", "I like jazz music a lot.", "The weather is nice today.",
             "My dog is called Rex.", "Remind me to buy milk.", "Ich wohne seit drei Jahren in Freiburg.",
             "O meu cão chama-se Rex.", "I need to call my bank, my card was blocked."]
    vectors = embedder.embed(texts)
    index = VectorIndex(tmp_path / "vectors", len(vectors[0]))
    index.upsert([(seq, f"m{seq}", "ana", v) for seq, v in enumerate(vectors)])
    for query in ("where does my sister live", "what is my pet's name", "music"):
        q = embedder.embed_query(query)
        exact = sorted(((f"m{seq}", float(v @ q)) for seq, v in enumerate(vectors)), key=lambda p: -p[1])
        found = index.search(q, "ana", 0, len(texts))
        assert [m for m, _ in found] == [m for m, _ in exact], query
        assert max(abs(a - b) for (_, a), (_, b) in zip(found, exact)) < 0.002, query


def test_warming_copies_the_users_heard_from_last_within_the_budget(tmp_path, monkeypatch):
    index = VectorIndex(tmp_path / "vectors", DIM)
    for user, start in (("ana", 0), ("rui", 100), ("eva", 200)):
        index.upsert(rows(user, start, 30))
    cold = VectorIndex(tmp_path / "vectors", DIM)
    monkeypatch.setattr(lance_index, "CACHE_VECTORS", 70)
    cold.warm([("eva", 30), ("ana", 30), ("rui", 30)])  # rui would pass the budget
    assert list(cold._users) == ["ana", "eva"]  # eva, heard from last, is evicted last
    assert cold.search(unit(205), "eva", 0, 1)[0][0] == "eva-205"


def test_a_new_users_vectors_are_kept_in_memory_as_they_are_written(tmp_path, monkeypatch):
    """A user with nothing in the files has all their vectors in what is written:
    their first search reads no file (at 10k exchanges over 36 users, that read
    was a build's slow tail: 8 ms of a 16 ms build). A user who has vectors in
    the files is read whole at their first search, as before."""
    index = VectorIndex(tmp_path / "vectors", DIM)
    index.upsert(rows("ana", 0, 10))
    assert list(index._users) == ["ana"]
    assert [m for m, _ in index.search(unit(3), "ana", 0, 1)] == ["ana-3"]
    reopened = VectorIndex(tmp_path / "vectors", DIM)
    reopened.upsert(rows("ana", 100, 5) + rows("eva", 200, 5))
    assert list(reopened._users) == ["eva"]  # ana's older vectors are only in the files
    assert {m for m, _ in reopened.search(unit(1), "ana", 0, 100)} == \
        {f"ana-{s}" for s in [*range(0, 10), *range(100, 105)]}
    assert {m for m, _ in reopened.search(unit(201), "eva", 0, 100)} == {f"eva-{s}" for s in range(200, 205)}
    monkeypatch.setattr(lance_index, "CACHE_VECTORS", 12)
    reopened.upsert(rows("rui", 300, 10))  # eva and ana make way
    reopened.upsert(rows("eva", 400, 3))  # eva is no longer new: read whole from the files
    assert {m for m, _ in reopened.search(unit(201), "eva", 0, 100)} == \
        {f"eva-{s}" for s in [*range(200, 205), *range(400, 403)]}


def test_vectors_written_before_a_search_are_kept_in_int8(tmp_path):
    """A fill writes many vectors before anyone searches: they wait in memory
    as int8 codes (384 bytes at 384 dimensions), not float32 (1,536), and are
    joined to the user's others every SETTLE_ROWS (a row waiting alone costs
    about 930 bytes with its objects)."""
    dim, n = 384, 4000
    index = VectorIndex(tmp_path / "vectors", dim)
    vectors = np.random.default_rng(0).standard_normal((n, dim)).astype(np.float32)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for start in range(0, n, 500):
            index.upsert([(seq, f"m{seq}", "ana", vectors[seq].copy()) for seq in range(start, start + 500)])
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept / n < 550, f"{kept / n:.0f} bytes a vector"
    assert [m for m, _ in index.search(vectors[7] / np.linalg.norm(vectors[7]), "ana", 0, 1)] == ["m7"]


def test_a_query_that_is_not_a_number_never_returns_older_rows_than_asked(tmp_path):
    index = VectorIndex(tmp_path / "vectors", DIM)
    index.upsert(rows("ana", 0, 10))
    found = index.search(np.full(DIM, np.nan, np.float32), "ana", 5, 100)
    assert {memory_id for memory_id, _ in found} <= {f"ana-{s}" for s in range(5, 10)}


def test_only_the_daemon_reads_the_users_vectors_ahead(tmp_path):
    """A command answers one request: it reads only the vectors it searches."""
    pytest.importorskip("fastembed")
    from ovos_memory_service.common.config import build_config
    from ovos_memory_service.engine.engine import MemoryEngine
    from tests.helpers import exchange, scope
    config = build_config({"data_dir": str(tmp_path / "memory")})
    daemon = MemoryEngine(config)
    daemon.open(holder="daemon", semantic="background")
    for user in ("ana", "rui"):
        exchange(daemon, scope(user), f"{user} has a red bicycle", "Nice.")
    daemon.wait_idle()
    daemon.close()
    command = MemoryEngine(config)
    command.open(lock_timeout=0, semantic="now")
    assert command.store._vectors is not None and list(command.store._vectors._users) == []
    command.close()
    daemon = MemoryEngine(config)
    daemon.open(holder="daemon", semantic="background")
    daemon.wait_idle()
    assert sorted(daemon.store._vectors._users) == ["ana", "rui"]
    daemon.close()


def data_files(folder):
    return {path: path.stat().st_size for path in folder.rglob("*.lance") if path.parent.name == "data"}


def test_a_compaction_rewrites_the_vectors_written_lately_not_the_whole_store(tmp_path, monkeypatch):
    """LanceDB's compaction rewrites a table whole: in one table, the
    compactions of a 100k fill (every 48 writes) rewrote 100,000 vectors each
    at the end, and RSS peaked at 781 MB. The index begins a new table every
    SEGMENT_ROWS vectors and compacts only those written to."""
    monkeypatch.setattr(lance_index, "SEGMENT_ROWS", 64, raising=False)
    index = VectorIndex(tmp_path / "vectors", DIM)
    for start in range(0, 320, 16):
        index.upsert(rows("ana", start, 16))
        index.compact()
    before = data_files(tmp_path / "vectors")
    index.upsert(rows("ana", 320, 10))
    index.compact()
    after = data_files(tmp_path / "vectors")
    rewritten = sum(size for path, size in after.items() if path not in before)
    assert rewritten < sum(after.values()) / 3
    assert len({m for m, _ in index.search(unit(5), "ana", 0, 1000)}) == 330


def test_tables_of_a_bounded_size_keep_every_promise_of_one(tmp_path, monkeypatch):
    """Across tables: a user's vectors come back from all of them, after a
    reopen too; a vector written again leaves its older table (no memory is
    found twice); a delete reaches every table, and a purge leaves no trace."""
    monkeypatch.setattr(lance_index, "SEGMENT_ROWS", 40, raising=False)
    folder = tmp_path / "vectors"
    index = VectorIndex(folder, DIM)
    for start in range(0, 150, 10):  # ana and zelinda in turns: both in every table
        index.upsert(rows("ana" if start % 20 == 0 else "zelinda", start, 10))
    assert len(list(folder.glob("*.lance"))) >= 4
    again = [(3, "ana-3", "ana", unit(999))]  # rewritten (a crash replayed its job) in the newest table
    index.upsert(again)
    ana = {f"ana-{s}" for start in range(0, 150, 20) for s in range(start, start + 10)}
    found = index.search(unit(999), "ana", 0, 1000)
    assert [m for m, _ in found].count("ana-3") == 1 and found[0][0] == "ana-3"
    cold = VectorIndex(folder, DIM)
    found = cold.search(unit(999), "ana", 0, 1000)
    assert {m for m, _ in found} == ana and found[0][0] == "ana-3" and len(found) == len(ana)
    assert cold.count() == 150
    zelinda = [f"zelinda-{s}" for start in range(10, 150, 20) for s in range(start, start + 10)]
    assert cold.delete(zelinda) == len(zelinda)
    cold.purge()
    for path in folder.rglob("*"):
        if path.is_file():
            assert b"zelinda" not in path.read_bytes(), path
    assert cold.ids() == ana and cold.search(unit(1), "zelinda", 0, 10) == []
    assert {m for m, _ in VectorIndex(folder, DIM).search(unit(1), "ana", 0, 1000)} == ana


def test_clearing_the_index_removes_every_table(tmp_path, monkeypatch):
    """A reindex (``clear``) starts from one empty table: no vector, and no
    table of the old ones, is left in the folder."""
    monkeypatch.setattr(lance_index, "SEGMENT_ROWS", 32)
    folder = tmp_path / "vectors"
    index = VectorIndex(folder, DIM)
    for start in range(0, 100, 10):
        index.upsert(rows("ana", start, 10))
    assert len(index.segments) > 2
    index.clear()
    assert index.count() == 0 and index.ids() == set() and index.search(unit(1), "ana", 0, 10) == []
    assert [p.name for p in folder.glob("*.lance")] == ["memory_vectors.lance"]
    reopened = VectorIndex(folder, DIM)
    assert len(reopened.segments) == 1 and reopened.count() == 0
    reopened.upsert(rows("ana", 200, 3))
    assert {m for m, _ in VectorIndex(folder, DIM).search(unit(200), "ana", 0, 10)} == {"ana-200", "ana-201", "ana-202"}
