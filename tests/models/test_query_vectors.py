"""A build's members ask for the query's vector at once (models/queries.py):
the real model embeds it once, every member gets that vector, and a failed
embedding is tried again by the next ask."""
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from ovos_memory_service.common.config import build_config
from ovos_memory_service.models.embedder import load_embedder
from ovos_memory_service.models.queries import QueryVectors


class Counted:
    """The real embedder, counting its calls; the first ``failures`` calls fail."""

    def __init__(self, embedder, failures: int = 0):
        self.embedder, self.failures = embedder, failures
        self.calls = 0
        self.started = threading.Event()
        self.release = threading.Event()
        self.name, self.query_map = embedder.name, embedder.query_map

    def embed_query(self, text):
        self.calls += 1
        self.started.set()
        assert self.release.wait(30), "the test never let the embedding finish"
        if self.calls <= self.failures:
            raise RuntimeError("the model failed")
        return self.embedder.embed_query(text)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    pytest.importorskip("fastembed")
    folder = tmp_path_factory.mktemp("models")
    return load_embedder(build_config({"data_dir": str(folder)})["embeddings"], folder, lang="en-us")


def test_members_asking_at_once_wait_for_one_embedding(model):
    counted = Counted(model)
    queries = QueryVectors(counted)
    with ThreadPoolExecutor(3) as pool:
        asked = [pool.submit(queries, "where does my sister live")]
        assert counted.started.wait(30)
        asked += [pool.submit(queries, "where does my sister live") for _ in range(2)]
        counted.release.set()
        vectors = [f.result(30) for f in asked]
    assert counted.calls == 1
    assert all(v is vectors[0] for v in vectors)
    assert np.allclose(vectors[0], model.embed_query("where does my sister live"), atol=1e-6)


def test_a_failed_embedding_is_tried_again(model):
    counted = Counted(model, failures=1)
    counted.release.set()
    queries = QueryVectors(counted)
    with pytest.raises(RuntimeError, match="the model failed"):
        queries("what is my dog called")
    assert queries("what is my dog called").shape == (model.dim,)
    assert counted.calls == 2


def test_a_query_being_embedded_is_kept_however_many_come_after(model):
    """Many other queries while one is slow to embed: its later askers share
    its vector, they do not embed it again (only finished queries are dropped)."""
    started, release, calls = threading.Event(), threading.Event(), []

    class SlowFirst:
        name, query_map = model.name, model.query_map

        def embed_query(self, text):
            calls.append(text)
            if text == "what is my dog called":
                started.set()
                assert release.wait(30), "the test never let the embedding finish"
            return model.embed_query(text)
    queries = QueryVectors(SlowFirst())
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(queries, "what is my dog called")
        assert started.wait(30)
        for i in range(40):
            queries(f"where does friend {i} live")
        again = pool.submit(queries, "what is my dog called")
        release.set()
        assert again.result(30) is first.result(30)
    assert calls.count("what is my dog called") == 1
