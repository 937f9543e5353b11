"""Semantic recall with the real all-MiniLM-L6-v2 model and real LanceDB files."""
import os
import subprocess
import sys
import time

import lancedb
import pytest

from ovos_memory_service.store.sqlite.lance_index import TABLE
from tests.helpers import exchange, scope

RAG = "ovos-memory-plugin-local-rag"
MULTILINGUAL = "google/universal-sentence-encoder-multilingual-3"


def rag_engine(make_engine, **config):
    return make_engine(memory_module=RAG, **config)


def test_meaning_is_found_without_shared_words(make_engine):
    engine = rag_engine(make_engine)
    sc = scope()
    exchange(engine, sc, "My dog is called Rex", "What a good boy")
    exchange(engine, sc, "I bought a new bicycle yesterday", "Enjoy the rides")
    engine.wait_idle()
    hits = engine.recall(sc, "what is the name of my pet?", threshold=0)
    assert hits[0].content == "My dog is called Rex"
    assert 0 < hits[0].score <= 1 and hits[0].kind == "turn"
    # the meaning alone finds it (no word of the question is in it)
    assert engine.reader.semantic_search(sc, "what is the name of my pet?", 1, ["turn"])[0].content \
        == "My dog is called Rex"


def test_the_multilingual_model_finds_a_portuguese_paraphrase(make_engine):
    engine = rag_engine(make_engine, embeddings={"model": MULTILINGUAL})
    sc = scope(lang="pt-pt")
    exchange(engine, sc, "O meu cão chama-se Rex.", "Que nome bonito.")
    exchange(engine, sc, "Comprei uma bicicleta nova ontem.", "Boas voltas!")
    exchange(engine, sc, "A minha mulher chama-se Clara.", "Muito prazer.")
    engine.wait_idle()
    assert engine.stats(sc)["embedding_model"] == MULTILINGUAL and engine.stats(sc)["pending_jobs"] == 0
    # no content word shared; all-MiniLM-L6-v2 ranks the wife first here
    found = engine.reader.semantic_search(sc, "qual é o nome do meu animal de estimação?", 1, ["turn"])
    assert found[0].content == "O meu cão chama-se Rex."


@pytest.mark.parametrize("lang", ["pt-pt", "es-es", "de-de", "fr-fr"])
def test_a_device_in_another_language_embeds_with_the_multilingual_model_by_default(make_engine, lang):
    engine = make_engine(lang=lang)
    assert engine.stats(scope(lang=lang))["embedding_model"] == MULTILINGUAL


def test_an_english_device_keeps_the_english_model_by_default(make_engine):
    engine = make_engine(lang="en-us")
    assert engine.stats(scope())["embedding_model"] == "sentence-transformers/all-MiniLM-L6-v2"


def test_a_change_of_language_embeds_the_store_again_and_recalls_by_meaning_meanwhile(make_engine,
                                                                                    multilingual_gate):
    engine = make_engine(lang="en-us")
    sc = scope()
    exchange(engine, sc, "My dog is called Rex", "What a good boy")
    exchange(engine, sc, "I bought a new bicycle yesterday", "Enjoy the rides")
    engine.wait_idle()
    engine.close()
    engine = make_engine(lang="pt-pt")  # the device's language changed in mycroft.conf
    # the English model answers by meaning until the store is embedded again
    assert engine.reader.semantic_search(sc, "what is the name of my pet?", 1, ["turn"])[0].content \
        == "My dog is called Rex"
    multilingual_gate.opened.set()
    engine.wait_idle()
    assert engine.stats(sc)["embedding_model"] == MULTILINGUAL and engine.stats(sc)["pending_jobs"] == 0
    assert engine.reader.semantic_search(sc, "what is the name of my pet?", 1, ["turn"])[0].content \
        == "My dog is called Rex"


def test_another_model_embeds_the_store_again_in_the_background(make_engine):
    engine = make_engine()
    sc = scope()
    exchange(engine, sc, "My dog is called Rex", "What a good boy")
    exchange(engine, sc, "I bought a new bicycle yesterday", "Enjoy the rides")
    engine.wait_idle()
    embedded = engine.stats(sc)["vectors"]
    engine.close()
    engine = make_engine(embeddings={"model": MULTILINGUAL})  # 512 dimensions, not 384
    assert engine.recall(sc, "my bicycle", threshold=0)[0].content.startswith("I bought")  # keywords meanwhile
    engine.wait_idle()
    stats = engine.stats(sc)
    assert stats["semantic_recall"] is True and stats["embedding_model"] == MULTILINGUAL
    assert stats["vectors"] == embedded >= 4 and stats["pending_jobs"] == 0
    assert engine.reader.semantic_search(sc, "what is the name of my pet?", 1, ["turn"])[0].content \
        == "My dog is called Rex"


def test_a_model_change_keeps_recall_by_meaning_until_the_new_model_is_done(make_engine, tmp_path,
                                                                             multilingual_gate):
    """While every memory is embedded again with the new model, the old one
    still answers by meaning; then the new one does, for what was said and
    forgotten meanwhile too."""
    engine = make_engine()
    sc = scope()
    exchange(engine, sc, "My dog is called Rex", "What a good boy")
    exchange(engine, sc, "I bought a new bicycle yesterday", "Enjoy the rides")
    secret = exchange(engine, sc, "My locker combination is 4512", "I will keep it safe")["ids"]
    engine.wait_idle()
    embedded = engine.stats(sc)["vectors"]
    engine.close()

    engine = make_engine(embeddings={"model": MULTILINGUAL})
    # by meaning alone (no word shared), with the old model's vectors
    assert engine.reader.semantic_search(sc, "what is the name of my pet?", 1, ["turn"])[0].content \
        == "My dog is called Rex"
    stats = engine.stats(sc)
    assert stats["reembedding"] == {"model": MULTILINGUAL, "pending": embedded}
    assert stats["embedding_model"].endswith("all-MiniLM-L6-v2")  # still the one answering
    later = exchange(engine, sc, "O meu gato chama-se Tareco.", "Que nome engraçado.")["ids"]
    assert [i.id for i in engine.forget(sc, ids=secret)] == secret

    multilingual_gate.opened.set()
    engine.wait_idle()
    stats = engine.stats(sc)
    assert stats["embedding_model"] == MULTILINGUAL and stats["reembedding"] is None
    # a vector for every memory kept, none for the forgotten exchange
    assert stats["vectors"] == sum(stats["counts"].values()) and stats["pending_jobs"] == 0
    # the new model answers, for what was said during the change too
    found = engine.reader.semantic_search(scope(lang="pt-pt"), "qual é o nome do meu animal de estimação?",
                                          2, ["turn"])
    assert later[0] in [f.id for f in found]
    # the old model's vectors left the disk
    assert [f for f in os.listdir(tmp_path / "memory") if f.startswith("vectors")] == \
        ["vectors-of-google-universal-sentence-encoder-multilingual-3"]
    engine.close()
    engine = make_engine(embeddings={"model": MULTILINGUAL})  # and a restart keeps the new vectors
    assert engine.stats(sc)["reembedding"] is None and engine.stats(sc)["vectors"] == stats["vectors"]


def test_going_back_to_the_old_model_during_a_change_keeps_its_vectors(make_engine, tmp_path, multilingual_gate):
    engine = make_engine()
    sc = scope()
    exchange(engine, sc, "My dog is called Rex", "What a good boy")
    engine.wait_idle()
    embedded = engine.stats(sc)["vectors"]
    engine.close()
    multilingual_gate.failing = True  # the change cannot end
    engine = make_engine(embeddings={"model": MULTILINGUAL})
    assert engine.stats(sc)["reembedding"]["model"] == MULTILINGUAL
    engine.close()

    engine = make_engine()  # the old model again, before the new one was done
    stats = engine.stats(sc)
    assert stats["reembedding"] is None and stats["vectors"] == embedded and stats["pending_jobs"] == 0
    assert [f for f in os.listdir(tmp_path / "memory") if f.startswith("vectors")] == ["vectors"]
    assert engine.reader.semantic_search(sc, "what is the name of my pet?", 1, ["turn"])[0].content \
        == "My dog is called Rex"


def test_embedding_happens_after_the_reply_in_the_background(make_engine):
    engine = rag_engine(make_engine)
    sc = scope()
    exchange(engine, sc, "The garage code is on the fridge", "ok")
    stats = engine.stats(sc)
    assert stats["semantic_recall"] is True and stats["embedding_model"].endswith("all-MiniLM-L6-v2")
    engine.wait_idle()
    stats = engine.stats(sc)
    assert stats["pending_jobs"] == 0 and stats["vectors"] == 2


def test_pending_jobs_survive_a_restart(make_engine):
    offline = make_engine(embeddings={"enabled": False})
    sc = scope()
    exchange(offline, sc, "I keep my passport in the blue drawer", "noted")
    assert offline.stats(sc)["semantic_recall"] is False
    offline.close()
    engine = make_engine()  # the same store, now with the model
    engine.wait_idle()
    assert engine.stats(sc)["vectors"] == 2
    assert engine.recall(sc, "where is my travel document?", threshold=0)[0].content.startswith(
        "I keep my passport")


def test_the_index_can_be_rebuilt_from_sqlite(make_engine, tmp_path):
    engine = make_engine()
    sc = scope()
    for i in range(5):
        exchange(engine, sc, f"fact number {i} about the garden", "ok")
    engine.wait_idle()
    assert engine.rebuild_vectors() == 10
    assert engine.stats(sc)["vectors"] == 0
    engine.wait_idle()
    assert engine.stats(sc)["vectors"] == 10


def test_forgetting_removes_vectors_from_every_version(make_engine, tmp_path):
    engine = make_engine()
    sc = scope()
    kept = exchange(engine, sc, "I like green tea", "me too")["ids"]
    gone = exchange(engine, sc, "My secret hideout is behind the waterfall", "I'll never tell")["ids"]
    engine.wait_idle()
    folder = tmp_path / "memory" / "vectors"
    table = lancedb.connect(str(folder)).open_table(TABLE)
    assert len(table.list_versions()) > 1
    engine.forget(sc, ids=gone)
    table = lancedb.connect(str(folder)).open_table(TABLE)
    assert len(table.list_versions()) == 1
    left = set(table.to_arrow()["id"].to_pylist())
    assert set(kept) <= left and not left & set(gone)
    for path in folder.rglob("*"):
        if path.is_file():
            assert not any(i.encode() in path.read_bytes() for i in gone), path
    assert all(h.id not in gone for h in engine.recall(sc, "hideout waterfall", threshold=0))


def test_vector_table_is_compacted_on_a_schedule(make_engine, tmp_path):
    engine = make_engine(vector_compact_minutes=0.01, embeddings={"batch_size": 2})
    sc = scope()
    for i in range(6):
        exchange(engine, sc, f"note {i} about the kitchen", "ok")
        engine.wait_idle()
    table = lancedb.connect(str(tmp_path / "memory" / "vectors")).open_table(TABLE)
    deadline = time.monotonic() + 20
    while _fragments(table) > 1:
        assert time.monotonic() < deadline, "never compacted"
        engine.background.wake()
        time.sleep(0.5)
        table = lancedb.connect(str(tmp_path / "memory" / "vectors")).open_table(TABLE)
    assert table.count_rows() == 12


def _fragments(table) -> int:
    return table.stats()["fragment_stats"]["num_fragments"]


def test_environment_variable_overrides_the_model(make_engine, monkeypatch):
    monkeypatch.setenv("OVOS_MEMORY_EMBEDDINGS_MODEL", "no-such-org/no-such-model")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    engine = make_engine(memory_module=RAG)
    stats = engine.stats(scope())
    assert stats["semantic_recall"] is False and "no-such-org/no-such-model" in stats["semantic_error"]
    exchange(engine, scope(), "I collect vinyl records", "cool")
    assert engine.recall(scope(), "vinyl")[0].content == "I collect vinyl records"  # keywords still work


@pytest.mark.stack
def test_without_lancedb_the_service_runs_with_keyword_recall(tmp_path):
    """A board with no lancedb wheel: the import fails, the service still answers."""
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text("import sys\nsys.modules['lancedb'] = None\n")
    code = (
        "from ovos_memory_service.common.config import build_config\n"
        "from ovos_memory_service.engine.engine import MemoryEngine\n"
        "from tests.helpers import exchange, scope\n"
        f"e = MemoryEngine(build_config({{'data_dir': {str(tmp_path / 'm')!r}}})); e.open()\n"
        "exchange(e, scope(), 'my locker number is 42', 'ok')\n"
        "s = e.stats(scope()); print('OUT:', s['semantic_recall'], s['semantic_error'])\n"
        "print('OUT:', e.recall(scope(), 'locker number')[0].content)\n"
        "print('OUT:', 'my locker number is 42' in e.build_context(scope(session='other'), 'locker').messages[0].content)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocker), os.getcwd()])}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert out.returncode == 0, out.stderr
    lines = [line[5:] for line in out.stdout.splitlines() if line.startswith("OUT: ")]
    assert lines[0].startswith("False") and "lancedb" in lines[0]
    assert lines[1] == "my locker number is 42"
    assert lines[2] == "True"


@pytest.mark.stack
def test_a_model_changed_in_mycroft_conf_answers_by_meaning_throughout_over_the_bus(fresh_stack):
    """The daemon restarted with another embeddings.model: every recall by
    meaning alone (local-rag) over the bus finds the memory, from the first
    request after the restart until the new model answers."""
    from tests.helpers import eventually
    from tests.sandbox import write_config
    stack, persona, session = fresh_stack, "rag", "kitchen"

    def ask(query):
        return [h["content"] for h in stack.ok("memory.recall", {"query": query, "persona_id": persona,
                                                                  "threshold": 0, "limit": 3},
                                               session_id=session)["memories"]]

    def stats():
        return stack.ok("memory.stats", {"persona_id": persona}, session_id=session)
    stack.start_service()
    stack.ok("memory.persona.configure", {"persona_id": persona, "memory_module": RAG, "config": {}})
    stack.ok("memory.history.update", {"messages": [{"role": "user", "content": "O meu cão chama-se Rex."},
                                                    {"role": "assistant", "content": "Boa!"}],
                                       "persona_id": persona}, session_id=session)
    for batch in range(4):  # enough for the change to take a while
        notes = [m for i in range(batch * 40, batch * 40 + 40)
                 for m in ({"role": "user", "content": f"Note {i}: the parcel for flat {i} is on shelf {i % 7}."},
                           {"role": "assistant", "content": "Noted."})]
        stack.ok("memory.history.update", {"messages": notes, "persona_id": persona}, session_id=session,
                 timeout=30)
    eventually(lambda: stats()["pending_jobs"] == 0, timeout=120, what="the turns embedded")
    stack.stop_service()

    write_config(stack.env, stack.port, {**stack.memory_config, "embeddings": {"model": MULTILINGUAL}})
    stack.start_service()
    while True:
        now = stats()
        assert "O meu cão chama-se Rex." in ask("what is my pet called?"), now
        if now["reembedding"] is None and now["embedding_model"] == MULTILINGUAL:
            break
    assert now["vectors"] == sum(now["counts"].values())
    assert ask("qual é o nome do meu animal de estimação?")[0] == "O meu cão chama-se Rex."


def test_recall_embeddings_limit_bounds_the_vectors_compared(make_engine):
    engine = make_engine(recall_embeddings_limit=4)
    sc = scope()
    exchange(engine, sc, "My grandmother was born in Angola", "Interesting")
    exchange(engine, sc, "I bought apples", "ok")
    exchange(engine, sc, "I bought pears", "ok")
    engine.wait_idle()
    newest_four = engine.reader.semantic_search(sc, "family history in Africa", 10, ["turn"])
    assert len(newest_four) == 4
    assert "Angola" not in " ".join(m.content for m in newest_four)
    engine.close()
    everything = make_engine()
    assert "Angola" in everything.reader.semantic_search(sc, "family history in Africa", 1, ["turn"])[0].content
