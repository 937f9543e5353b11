"""Memory that stays flat: the causes found under the soak (benchmarks/soak.py),
each checked without timing.


- Every LanceDB write converts its rows with pyarrow, whose default pool
  (mimalloc) kept the freed pages: RSS grew by about 35 MB per 200 writes,
  without end, while pyarrow counted nothing allocated. pyarrow now uses the
  system allocator, with few malloc arenas (LanceDB's threads come and go).
- fastembed pads a batch to its longest text: a batch of 16 long turns needed
  ~100 MB of activations, which onnxruntime's arena then keeps. Batches are
  cut so that (texts x longest) stays within a token budget.
"""
import json
import subprocess
import sys
import textwrap

import pytest

from ovos_memory_service.models.embedder import TOKEN_BUDGET, plan_batches


def test_batches_stay_within_the_token_budget_and_keep_the_order():
    lengths = [3, 250, 40, 8, 256, 120, 7, 7, 60, 30, 5, 200, 9, 11, 256, 2] * 3
    batches = plan_batches(lengths, batch_size=16, budget=TOKEN_BUDGET)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for batch in batches:
        assert 1 <= len(batch) <= 16
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= TOKEN_BUDGET
    # short texts are still embedded many at a time
    assert max(len(b) for b in batches) == 16


def test_one_text_longer_than_the_budget_gets_a_batch_of_its_own():
    assert plan_batches([5000, 3], batch_size=16, budget=100) == [[1], [0]]


VECTOR_WRITES = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    import numpy as np
    from ovos_memory_service.store.sqlite.lance_index import COMPACT_WRITES, VectorIndex

    def rss_mb():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024

    index = VectorIndex(Path(sys.argv[1]), 384)
    rng = np.random.default_rng(0)
    seq, samples = 0, []
    for write in range(480):
        rows = []
        for _ in range(1 + write % 16):
            seq += 1
            rows.append((seq, f"m{seq}", f"user-{seq % 10}", rng.standard_normal(384).astype(np.float32)))
        index.upsert(rows)
        if index.writes >= COMPACT_WRITES:
            index.compact()
        if write % 96 == 95:
            samples.append(rss_mb())
    print(json.dumps(samples))
""")


@pytest.mark.stack
def test_vector_writes_and_compactions_do_not_grow_rss(tmp_path):
    """480 LanceDB writes (10 compactions) in a fresh process: before the fix
    RSS rose by ~85 MB from the first sample to the last; now by little."""
    out = subprocess.run([sys.executable, "-c", VECTOR_WRITES, str(tmp_path / "vectors")],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    samples = json.loads(out.stdout.strip().splitlines()[-1])
    print("RSS MB after every 96 writes:", samples)
    assert samples[-1] - samples[0] < 30, samples


EMBEDDING_LOAD = textwrap.dedent("""
    import json, random, sys, threading
    from pathlib import Path
    from ovos_memory_service.common.native_memory import release_free_memory, tune_malloc
    from ovos_memory_service.models.embedder import DEFAULT_MODEL, Embedder, bundled_model_folder
    tune_malloc()

    def rss_mb():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024

    embedder = Embedder(DEFAULT_MODEL, bundled_model_folder(Path(sys.argv[1])))
    words = "garden tomato bicycle passport guitar sister doctor meeting kitten lisbon".split()

    def text(rng):
        return " ".join(rng.choice(words) for _ in range(rng.choice((3, 12, 60, 120))))

    def batches(seed):
        rng = random.Random(seed)
        for _ in range(20):
            embedder.embed([text(rng) for _ in range(rng.randint(1, 16))])

    def queries(seed):
        rng = random.Random(seed)
        for _ in range(20):
            embedder.embed_query(text(rng))

    samples = [rss_mb()]
    for round in range(3):  # as in the daemon: the queue's batches and six request threads at once
        threads = [threading.Thread(target=batches, args=(round,))]
        threads += [threading.Thread(target=queries, args=(10 * round + i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        release_free_memory()  # as the semantic index does every 10 s
        samples.append(rss_mb())
    print(json.dumps(samples))
""")


@pytest.mark.stack
def test_embedding_under_concurrent_load_keeps_rss_near_the_loaded_model(tmp_path):
    """Batches of mixed lengths and six query threads at once: with
    onnxruntime's arena (and whole batches of 16) RSS rose by 60-80 MB over
    the loaded model and stayed there; now by little."""
    import pytest
    from ovos_memory_service.common.errors import EmbeddingsUnavailable
    from ovos_memory_service.models.embedder import bundled_model_folder
    try:
        bundled_model_folder(tmp_path / "models")
    except EmbeddingsUnavailable as e:
        pytest.skip(str(e))
    out = subprocess.run([sys.executable, "-c", EMBEDDING_LOAD, str(tmp_path / "models")],
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    samples = json.loads(out.stdout.strip().splitlines()[-1])
    print("RSS MB loaded, then after each round:", samples)
    assert max(samples) - samples[0] < 30, samples


def test_the_models_threads_sleep_between_queries(tmp_path):
    """onnxruntime's workers spin after each run by default, on the cores a
    build's keyword member (and the rest of the device: STT, TTS) needs."""
    import pytest
    from ovos_memory_service.common.errors import EmbeddingsUnavailable
    from ovos_memory_service.models.embedder import DEFAULT_MODEL, Embedder, bundled_model_folder
    try:
        folder = bundled_model_folder(tmp_path)
    except EmbeddingsUnavailable as e:
        pytest.skip(str(e))
    session = Embedder(DEFAULT_MODEL, folder).model.model.model
    assert session.get_session_options().get_session_config_entry("session.intra_op.allow_spinning") == "0"
