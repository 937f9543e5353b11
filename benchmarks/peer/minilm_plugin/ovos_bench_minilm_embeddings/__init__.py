"""all-MiniLM-L6-v2 (int8 ONNX) as an ``opm.embeddings.text`` plugin, loaded
by fastembed from a local folder and never downloaded: the peer's side of
benchmarks/bench_peer.py, the same model files the project embeds with
(``bundled_model_folder`` links them into one folder).

Config: ``model_path`` (that folder, required), ``threads`` (onnxruntime's
intra-op threads; default: fastembed's, all cores).

It is what anyone would write for the peer: fastembed's own session
(the project rewrites the graph and sizes onnxruntime itself, see
ovos_memory_service/vectors/embedder.py), one text per call, as
LocalRAGMemory asks for one document or query at a time.
"""
import os

import numpy as np
from ovos_plugin_manager.templates.embeddings import TextEmbedder

MODEL = "sentence-transformers/all-MiniLM-L6-v2"  # fastembed's description: mean pooling, normalized


class MiniLMEmbeddings(TextEmbedder):
    def __init__(self, config=None):
        super().__init__(config)
        folder = self.config.get("model_path")
        if not folder or not os.path.isdir(os.path.expanduser(folder)):
            raise ValueError(f"model_path must name the prepared model folder, got {folder!r}")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder: never ask the hub
        from fastembed import TextEmbedding
        self.model = TextEmbedding(MODEL, specific_model_path=os.path.expanduser(folder),
                                   threads=self.config.get("threads") or None)

    def get_embeddings(self, text: str) -> np.ndarray:
        return next(iter(self.model.embed([text])))
