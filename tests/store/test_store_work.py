"""The store's background work as a user meets it: a reindex while a batch
is being embedded loses no vector, what leaves the store takes its vector
and queued jobs with it, and turns imported from ovos-memory-plugins are
learnt from. Real SQLite and LanceDB files, the real model."""
import json
import threading

from click.testing import CliRunner

from ovos_memory_service.edge.cli import cli
from ovos_memory_service.common.items import KINDS
from tests.helpers import eventually, exchange, open_configured, scope


def the_embedder(engine):
    # the worker's embedder (engine.semantic before the store refactor)
    worker = getattr(engine, "semantic", None) or engine.background.embedding
    return worker.embedder


def held_embedder(engine):
    """The embedder, made to hold the batch it was given until released."""
    embedder = the_embedder(engine)
    holding, release = threading.Event(), threading.Event()
    real = embedder.embed

    def embed(texts):
        holding.set()
        assert release.wait(60), "the test never released the batch"
        return real(texts)
    embedder.embed = embed
    return holding, release, lambda: vars(embedder).pop("embed")


def test_a_reindex_while_a_batch_is_embedded_loses_no_vector(engine):
    sc = scope()
    for i in range(20):
        exchange(engine, sc, f"note {i}: the parcel goes to shelf {i}", f"shelf {i} it is")
    engine.wait_idle()
    holding, release, restore = held_embedder(engine)
    try:
        for i in range(8):  # new turns: their jobs are in flight when the reindex comes
            exchange(engine, sc, f"later note {i}: call the plumber on day {i}", "noted")
        assert holding.wait(30), "the worker never took a batch"
        engine.rebuild_vectors()
    finally:
        release.set()
    restore()
    engine.wait_idle(120)
    stats = engine.stats(sc)
    stored = sum(stats["counts"].values())
    assert stats["pending_jobs"] == 0
    assert stats["vectors"] == stored, f"{stored - stats['vectors']} memories were left without a vector"


def test_a_forgotten_memory_takes_its_vector_and_its_jobs(engine):
    sc = scope()
    exchange(engine, sc, "the spare key is under the blue pot", "got it")
    engine.wait_idle()
    vectors = engine.stats(sc)["vectors"]
    holding, release, restore = held_embedder(engine)
    try:
        gone = exchange(engine, sc, "my bank pin hint is the lighthouse", "understood")["ids"]
        assert holding.wait(30)
        # forgotten while its batch is being embedded: the batch must not bring it back
        assert {m.id for m in engine.forget(sc, ids=gone)} >= set(gone)
    finally:
        release.set()
    restore()
    engine.wait_idle(60)
    stats = engine.stats(sc)
    assert stats["vectors"] == vectors and stats["pending_jobs"] == 0
    assert not {m.id for m in engine.recall(sc, "bank pin hint lighthouse", threshold=0)} & set(gone)


def test_turns_imported_from_ovos_memory_plugins_are_learnt_from(tmp_path, make_engine):
    seed = tmp_path / "recency_memory.json"
    seed.write_text(json.dumps({"default": {"buffer": [
        {"ts": 1700000000.0, "role": "user", "content": "My dog is called Rex"},
        {"ts": 1700000001.0, "role": "assistant", "content": "What a nice name"}]}}))
    store = tmp_path / "memory"
    result = CliRunner().invoke(cli, ["--data-dir", str(store), "import", "--from", "ovos-memory-plugins",
                                      str(seed)])
    assert result.exit_code == 0, (result.output, result.exception)
    engine = make_engine()  # the same data directory: the jobs the import queued are worked now
    engine.wait_idle(60)
    sc = scope(user="default", session="default")
    facts = [m.content for m in engine.list(sc, kinds=["fact"])[0]]
    assert facts == ["Has a dog called Rex"]
    assert engine.stats(sc)["vectors"] == 3  # both turns and the fact


def test_an_imported_export_learns_nothing_again(tmp_path, make_engine):
    """An export carries what was learnt: a fact the user forgot, whose turn
    was kept, does not come back when the export is imported elsewhere."""
    first = make_engine(data_dir=str(tmp_path / "first"))
    sc = scope()
    exchange(first, sc, "My dog is called Rex", "What a nice name")
    first.wait_idle()
    fact = first.list(sc, kinds=["fact"])[0][0]
    first.forget(sc, ids=[fact.id])
    records = first.export()["records"]
    assert {r["kind"] for r in records} == {"turn"}
    second = make_engine(data_dir=str(tmp_path / "second"))
    assert second.import_records(records)["imported"] == 2
    second.wait_idle(60)
    assert second.list(sc, kinds=["fact"])[1] == 0


def test_a_build_does_not_wait_for_a_write_in_progress(engine):
    """Reads run on their own connections: a build answers while the
    background holds a write transaction open (a batch of facts, a forget)."""
    sc = scope()
    exchange(engine, sc, "the spare key is under the blue pot", "got it")
    engine.wait_idle()
    holding, release, built = threading.Event(), threading.Event(), []

    def long_write():
        with engine.store.transaction():
            engine.store.start_conversation(scope(user="bob"), 0.0)
            holding.set()
            release.wait(30)
    writer = threading.Thread(target=long_write)
    writer.start()
    try:
        assert holding.wait(10)
        reader = threading.Thread(target=lambda: built.append(engine.build_context(sc, "where is the spare key")))
        reader.start()
        reader.join(10)
        assert built, "the build waited for the write to finish"
        assert "blue pot" in str([m.content for m in built[0].messages])
    finally:
        release.set()
        writer.join(10)


def test_forgetting_everything_leaves_no_trace_of_the_user_in_the_keyword_index(make_engine, tmp_path):
    engine = make_engine()  # the SQLite files themselves
    import sqlite3
    sc = scope(user="ana-maria")
    exchange(engine, sc, "my locker code is 4417", "noted")
    engine.wait_idle()
    engine.forget(sc, everything=True)
    check = sqlite3.connect(tmp_path / "memory" / "memory.db")
    assert check.execute("SELECT count(*) FROM users WHERE user_id = 'ana-maria'").fetchone()[0] == 0
    assert check.execute("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH '4417'").fetchone()[0] == 0


def test_the_daemon_answers_while_the_model_loads(make_engine, monkeypatch):
    """Loading in the background: stats say "loading", builds and recalls answer
    by keywords meanwhile, and semantic recall joins once the model is there."""
    from ovos_memory_service.engine import engine as engine_module
    first = make_engine()
    sc = scope()
    exchange(first, sc, "My dog is called Rex", "What a nice name")
    first.wait_idle()
    first.close()
    loading, release = threading.Event(), threading.Event()
    real = engine_module.load_embedder

    def slow_load(*args, **kwargs):
        loading.set()
        assert release.wait(60)
        return real(*args, **kwargs)
    monkeypatch.setattr(engine_module, "load_embedder", slow_load)
    from ovos_memory_service.engine.engine import MemoryEngine
    engine = MemoryEngine(first.config)
    engine.open(semantic="background")
    try:
        assert loading.wait(30)
        assert engine.stats(sc)["semantic_recall"] == "loading"
        assert [m.content for m in engine.recall(sc, "dog Rex", kinds=["turn"])] == ["My dog is called Rex"]
        release.set()
        from tests.helpers import eventually
        eventually(lambda: engine.stats(sc)["semantic_recall"] is True, what="the model")
        found = engine.recall(sc, "what is the name of my pet?", kinds=["turn"], threshold=0)
        assert found[0].content == "My dog is called Rex"
    finally:
        release.set()
        engine.close()


def test_forgetting_without_the_model_removes_the_vectors_too(make_engine, tmp_path):
    """A command that never loads the model (forget --id) still takes the
    forgotten memory's vector out of the vector files."""
    from ovos_memory_service.engine.engine import MemoryEngine
    first = make_engine()
    sc = scope()
    ids = exchange(first, sc, "my bank pin hint is the lighthouse", "understood")["ids"]
    first.wait_idle()
    assert first.stats(sc)["vectors"] == 2
    first.close()
    cli_like = MemoryEngine(first.config)
    cli_like.open(semantic="off")
    cli_like.forget(sc, ids=ids)
    cli_like.close()
    again = MemoryEngine(first.config)
    again.open()
    try:
        assert again.stats(sc)["vectors"] == 0
    finally:
        again.close()


def test_background_batches_wait_for_the_reply_being_built(engine, monkeypatch):
    """A build in progress holds back the next background batch (up to a bound)."""
    sc = scope()
    backend = engine.backend(None)
    building, finish = threading.Event(), threading.Event()
    real_build = backend.build

    def slow_build(*args):
        building.set()
        assert finish.wait(30)
        return real_build(*args)
    monkeypatch.setattr(backend, "build", slow_build)
    monkeypatch.setattr(type(engine.background.foreground), "MAX_YIELD_S", 30)
    build = threading.Thread(target=lambda: engine.build_context(sc, "hello"))
    build.start()
    assert building.wait(10)
    yielded = threading.Event()
    waiter = threading.Thread(target=lambda: (engine.background.foreground.yield_to_replies(), yielded.set()))
    waiter.start()
    assert not yielded.wait(0.5), "a worker went ahead while the reply was being built"
    finish.set()
    build.join(10)
    assert yielded.wait(10), "the worker never went on after the reply"


def _nice(native_id: int) -> int:
    """A thread's nice value (Linux: field 19 of /proc/self/task/<id>/stat)."""
    from pathlib import Path
    stat = Path(f"/proc/self/task/{native_id}/stat").read_text()
    return int(stat[stat.rindex(")") + 2:].split()[16])


def test_background_work_gets_the_cores_after_the_replies(engine):
    """On a busy device the OS gives the cores to the turns and replies first:
    every background worker thread runs niced, the callers' threads do not."""
    import sys
    import pytest
    if not sys.platform.startswith("linux"):
        pytest.skip("per-thread priorities are Linux's")
    sc = scope()
    mine = _nice(threading.get_native_id())
    exchange(engine, sc, "my sister Marta lives in Porto", "noted")  # every worker has run
    engine.wait_idle(60)
    engine.build_context(sc, "where does my sister live?")
    workers = {w._thread.name: _nice(w._thread.native_id) for w in engine.background.workers}
    assert set(workers) >= {"memory-facts", "memory-llm", "memory-embedder"}
    assert all(nice >= min(19, mine + 10) for nice in workers.values()), workers
    assert _nice(threading.get_native_id()) == mine, "the caller's thread was niced"
    members = [_nice(t.native_id) for t in engine.reader.member_pool._threads]  # the threads a build's members run on
    assert members and all(nice == mine for nice in members), members


def test_replies_that_never_pause_do_not_starve_the_embeddings(engine, monkeypatch):
    """On a hub whose builds and recalls never stop, background batches still
    get their share of the time: a worker yields for a while, never for ever."""
    sc = scope()
    monkeypatch.setattr(type(engine.background.foreground), "MAX_YIELD_S", 600)  # only the share bounds it
    with engine.background.foreground():  # a reply always being built
        for i in range(40):  # three batches of 16
            exchange(engine, sc, f"note {i}: the spare key is under stone {i}", "noted")
        eventually(lambda: engine.stats(sc)["pending_jobs"] == 0, timeout=120,
                   what="the embeddings while replies never pause")
    assert engine.stats(sc)["vectors"] >= 80


def test_a_shared_store_failure_is_answered_as_unavailable():
    """PostgreSQL's failures get the same clear "unavailable" reply as SQLite's."""
    import pytest
    from ovos_memory_service.common.errors import Unavailable
    from ovos_memory_service.store import storage_unavailable
    pool = pytest.importorskip("psycopg_pool")
    reply = storage_unavailable(pool.PoolTimeout("couldn't get a connection after 30 sec"))
    assert isinstance(reply, Unavailable) and "no free connection" in str(reply)
    assert storage_unavailable(ValueError("not storage")) is None


def test_stats_while_the_vectors_are_being_created(tmp_path, monkeypatch):
    """A stats request while the background loader creates the vector table
    (a fresh store) answers: it waits for the table, it does not fail."""
    from ovos_memory_service.store.sqlite import lance_index as index
    store = open_configured({"data_dir": str(tmp_path / "memory")})
    creating, go_on = threading.Event(), threading.Event()
    real_init = index.VectorIndex.__init__

    def slow_init(self, folder, dim):
        real_init(self, folder, dim)  # the table's folder exists from here on
        if dim is not None:
            creating.set()
            assert go_on.wait(30)
    monkeypatch.setattr(index.VectorIndex, "__init__", slow_init)
    loader = threading.Thread(target=store.open_vectors, args=("test/model", 8))
    loader.start()
    try:
        assert creating.wait(30)
        counted = []
        counter = threading.Thread(target=lambda: counted.append(store.vector_count()))
        counter.start()
        counter.join(0.5)
        assert counter.is_alive() and not counted, "stats opened the vector files while they were being made"
        go_on.set()
        counter.join(30)
        assert counted == [0]
    finally:
        go_on.set()
        loader.join(30)
        store.close()


def held_vector_writes(engine):
    """SQLite's vector files, made to hold each write until released; the
    third event is set once a held write has landed."""
    vectors = engine.store._vectors
    holding, release, landed = threading.Event(), threading.Event(), threading.Event()
    real = vectors.upsert

    def upsert(rows):
        holding.set()
        assert release.wait(60), "the test never released the write"
        real(rows)
        landed.set()
    vectors.upsert = upsert
    return holding, release, landed


def stored_meanwhile(engine, sc) -> bool:
    """Whether an exchange is stored within 10 s, from another thread."""
    stored = []
    writer = threading.Thread(target=lambda: stored.append(
        exchange(engine, sc, "my sister Marta lives in Porto", "noted")))
    writer.start()
    writer.join(10)
    return bool(stored) and stored[0]["stored"] == 2


def test_a_turn_is_stored_while_vectors_are_being_written(make_engine):
    """A LanceDB write (several ms, more on a large table) never holds the turns back."""
    engine = make_engine()
    sc = scope()
    holding, release, _ = held_vector_writes(engine)
    try:
        exchange(engine, sc, "the spare key is under the blue pot", "got it")
        assert holding.wait(30)  # the worker is writing their vectors
        assert stored_meanwhile(engine, sc), "the turn waited for the vector write"
    finally:
        release.set()
    engine.wait_idle(60)
    assert engine.stats(sc)["vectors"] >= 4 and engine.stats(sc)["pending_jobs"] == 0


def test_a_turn_is_stored_while_facts_are_learnt_from_another(make_engine, monkeypatch):
    """Learning facts from a turn (the rules, pure Python) never holds the
    next turn back: only recording what was learnt takes the store."""
    from ovos_memory_service.learning import fact_worker as facts
    engine = make_engine()
    sc = scope()
    learning, release = threading.Event(), threading.Event()
    real = facts.extract_facts

    def held_extract(text, lang):
        learning.set()
        assert release.wait(60), "the test never let the rules go on"
        return real(text, lang)
    monkeypatch.setattr(facts, "extract_facts", held_extract)
    try:
        exchange(engine, sc, "my favourite colour is green", "nice")
        assert learning.wait(30)  # the fact worker is in the rules
        assert stored_meanwhile(engine, sc), "the turn waited for the fact rules"
    finally:
        release.set()
    engine.wait_idle(60)
    learnt, _ = engine.list(sc, kinds=[k for k in KINDS if k != "turn"])
    assert any("green" in m.content for m in learnt), "nothing was learnt once the rules went on"


def test_a_memory_forgotten_while_its_vector_is_written_keeps_no_vector(make_engine):
    engine = make_engine()
    sc = scope()
    exchange(engine, sc, "the spare key is under the blue pot", "got it")
    engine.wait_idle(60)
    before = engine.stats(sc)["vectors"]
    holding, release, landed = held_vector_writes(engine)
    forgotten = []
    try:
        gone = exchange(engine, sc, "my bank pin hint is zq60433d89774", "understood")["ids"]
        assert holding.wait(30)
        forget = threading.Thread(target=lambda: forgotten.extend(engine.forget(sc, ids=gone)))
        forget.start()
        forget.join(10)
    finally:
        release.set()
    forget.join(30)
    assert {m.id for m in forgotten} >= set(gone)
    assert landed.wait(30)  # the batch in flight wrote the forgotten memories' vectors, then
    eventually(lambda: not engine.store._vectors.ids() & set(gone), what="the forgotten memories' vectors gone")
    engine.wait_idle(60)
    assert engine.stats(sc)["vectors"] == before


def test_a_vector_whose_memory_is_gone_leaves_the_files_at_start(make_engine, tmp_path):
    """A crash between a forget and its file upkeep leaves a vector without its
    memory: the next start takes it out of the files."""
    import numpy as np
    from ovos_memory_service.store.sqlite.lance_index import VectorIndex
    engine = make_engine()
    sc = scope()
    exchange(engine, sc, "the spare key is under the blue pot", "got it")
    engine.wait_idle(60)
    kept = engine.stats(sc)["vectors"]
    dim = engine.store._vectors.dim
    engine.close()
    files = VectorIndex(tmp_path / "memory" / "vectors", dim)
    files.upsert([(10 ** 9, "orphan0123456789", "alice", np.ones(dim, np.float32) / np.sqrt(dim))])
    del files
    again = make_engine()
    assert again.stats(sc)["vectors"] == kept
    assert "orphan0123456789" not in again.store._vectors.ids()


def test_the_old_models_vectors_leave_the_disk_after_a_crash_that_ended_a_model_change(make_engine, tmp_path,
                                                                                     monkeypatch):
    """The process ends between the commit that ends a model change and the
    removal of the old vectors: the next start removes them."""
    import shutil
    multilingual = "google/universal-sentence-encoder-multilingual-3"
    engine = make_engine()
    sc = scope()
    exchange(engine, sc, "the spare key is under the blue pot", "got it")
    engine.wait_idle(60)
    engine.close()
    monkeypatch.setattr(shutil, "rmtree", lambda *args, **kwargs: None)  # the crash: nothing removed
    engine = make_engine(embeddings={"model": multilingual})
    engine.wait_idle(60) and engine.stats(sc)["embedding_model"] == multilingual
    engine.close()
    monkeypatch.undo()
    assert (tmp_path / "memory" / "vectors").exists()
    engine = make_engine(embeddings={"model": multilingual})
    assert sorted(f.name for f in (tmp_path / "memory").glob("vectors*")) == \
        ["vectors-of-google-universal-sentence-encoder-multilingual-3"]
    assert engine.stats(sc)["vectors"] == sum(engine.stats(sc)["counts"].values())


def test_a_search_whose_vectors_a_model_change_removes_meanwhile_is_asked_again(tmp_path):
    """A search reading a user's vectors from the files just as the change that
    replaces them ends (and removes them) is told so, to compare with the new
    model (the reader does), instead of failing."""
    import numpy as np
    import pytest
    from ovos_memory_service.store import ModelChanged, Visible
    from tests.store.test_store_contract import ALICE, DIM, MODEL, Writer, embed_all, embed_next, unit
    store = open_configured({"data_dir": str(tmp_path / "memory")}, 5, "daemon")
    try:
        store.open_vectors(MODEL, DIM)
        memory_id = Writer(store, ALICE).turn("user", "hello")
        embed_all(store, {memory_id: unit(1)})
        store.begin_reembedding("test/model-b", DIM)
        embed_next(store, {memory_id: unit(0, 1)})
        old = store._vectors
        read = old.search

        def search_as_the_change_ends(*args):
            store.end_reembedding("test/model-b")  # the old files go
            return read(*args)
        old.search = search_as_the_change_ends
        old._users.clear()  # the user's vectors are read from the files
        with pytest.raises(ModelChanged) as changed:
            store.nearest(Visible(ALICE), np.asarray(unit(1)), 1, 100, model=MODEL)
        assert changed.value.model == "test/model-b"
        assert [r["id"] for r in store.nearest(Visible(ALICE), unit(0, 1), 1, 100, model="test/model-b")] \
            == [memory_id]
    finally:
        store.close()
