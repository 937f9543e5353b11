"""Filled stores for benchmarks/bench_latency.py, and their cache.

A store of 300k turns cannot be embedded turn by turn here (hours), so a store
is filled through the store's own import path (``Store.import_rows``, records
checked by ``records.check_record``) and each turn gets the vector of its text
from a pool of distinct sentences embedded once with the real embedder: the
embedding jobs that the import queues are claimed by this module, in the
import's own transaction, and completed with ``Store.save_vectors``, exactly
as the embedding worker completes them (which is stopped meanwhile, so it
never races the fill). The other fill, ``update``, stores every conversation
through ``MemoryEngine.update_history`` and lets the real worker embed it (the
service's own path, too slow for the large sizes but a check of the first at
small ones).

Filled stores are kept under a cache folder, one per (fill, turns, users, seed,
pool, FILL_VERSION), written to a temporary folder and renamed once complete,
so an interrupted fill is never reused.

Imported only after tests.isolation.isolate (bench_latency.py does).
"""
import json
import os
import shutil
import time
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from ovos_memory_service.models.embedder import embed_text
from ovos_memory_service.common.config import build_config
from ovos_memory_service.engine.engine import MemoryEngine
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.store.records import check_record
from ovos_memory_service.common.wire import iso_time, parse_messages

FILL_VERSION = 1          # bump when the generated data or the fill changes: old caches are not reused
IMPORT_BATCH_TURNS = 5000  # turns per import transaction (and per vector write)

# one stored conversation: its scope, its id, and its turns [(role, text, created_at)]
Conversation = Tuple[Scope, str, List[Tuple[str, str, float]]]


def open_engine(directory: Path, store: Optional[dict] = None) -> MemoryEngine:
    """The engine on ``directory`` (or on the ``store`` block given), opened as
    the daemon opens it (the model and the vectors loaded, and read ahead, in
    the background), once they are loaded (embeddings enabled, as by default)."""
    engine = MemoryEngine(build_config({"data_dir": str(directory), "embeddings": {"enabled": True},
                                        **({"store": store} if store else {})}))
    engine.open(holder="daemon", semantic="background")
    engine.wait_idle(timeout=600)
    if engine.background.embedding is None:
        reason = engine.reader.semantic_error
        engine.close()
        raise RuntimeError(f"semantic recall is unavailable, the benchmark needs it: {reason}")
    return engine


def embedder_of(engine: MemoryEngine):
    return engine.background.embedding.embedder


def turn_text(role: str, text: str) -> str:
    """What the embedding worker embeds for a turn (learning/embedding_worker.py)."""
    return embed_text({"kind": "turn", "role": role, "name": None, "content": text})


def embed_pool(engine: MemoryEngine, pool: Sequence[Tuple[str, str]]) -> Dict[Tuple[str, str], object]:
    """(role, text) -> the vector the worker would store for that turn."""
    vectors = embedder_of(engine).embed([turn_text(role, text) for role, text in pool])
    return dict(zip(pool, vectors))


def _records(conversation: Conversation, ids: Iterable[str]) -> List[dict]:
    scope, conversation_id, turns = conversation
    return [{"id": memory_id, "kind": "turn", "user_id": scope.user_id, "persona_id": scope.persona_id,
             "session_id": scope.session_id, "conversation_id": conversation_id, "role": role,
             "content": text, "created_at": iso_time(at)}
            for memory_id, (role, text, at) in zip(ids, turns)]


def fill_by_import(directory: Path, conversations: Iterable[Conversation], new_id: Callable[[], str],
                   pool_vectors: Callable[[MemoryEngine], Dict[Tuple[str, str], object]],
                   log=print) -> dict:
    """Store ``conversations`` through Store.import_rows and give every turn
    its pooled vector through Store.save_vectors; returns what was stored."""
    engine = open_engine(directory)
    try:
        vectors = pool_vectors(engine)
        engine.background.embedding.stop()  # this fill completes the embedding jobs itself
        store = engine.store
        started, batch, stored, last_log = time.monotonic(), [], 0, time.monotonic()

        def flush():
            nonlocal stored
            rows = [check_record(record) for record in batch]
            key = {row["id"]: (row["role"], row["content"]) for row in rows}
            with store.transaction():
                added = store.import_rows(rows)
                # claimed before the import commits: no worker can take them first
                jobs = store.claim(("embed",), len(added) + 1, time.time(), lease_s=3600)
            found = {row["id"]: row for row in store.get_memories([job.subject for job in jobs])}
            foreign = [job for job in jobs if job.subject not in key]
            if foreign or len(jobs) != len(added):
                raise RuntimeError(f"unexpected embedding jobs: {len(jobs)} claimed for {len(added)} "
                                   f"imported turns ({len(foreign)} not from this import)")
            saved = store.save_vectors({job.id: (found[job.subject], vectors[key[job.subject]])
                                        for job in jobs})
            if saved != len(added):
                raise RuntimeError(f"{saved} vectors saved for {len(added)} imported turns")
            store.maintain_vectors()
            stored += len(added)
            batch.clear()

        for conversation in conversations:
            ids = [new_id() for _ in conversation[2]]
            batch.extend(_records(conversation, ids))
            if len(batch) >= IMPORT_BATCH_TURNS:
                flush()
                if time.monotonic() - last_log > 30:
                    last_log = time.monotonic()
                    log(f"    {stored} turns imported ({time.monotonic() - started:.0f} s)")
        if batch:
            flush()
        store.maintain_vectors(force=True)  # one compacted vector table, as the worker leaves it
        return check_filled(engine, stored)
    finally:
        engine.close()


def fill_by_update(directory: Path, conversations: Iterable[Conversation], log=print) -> dict:
    """Store ``conversations`` through MemoryEngine.update_history; the real worker embeds them."""
    engine = open_engine(directory)
    try:
        for scope, _, turns in conversations:
            messages = [{"role": role, "content": text, "created_at": iso_time(at)} for role, text, at in turns]
            engine.update_history(scope, parse_messages(messages))
        engine.wait_idle(timeout=24 * 3600)
        return check_filled(engine, None)
    finally:
        engine.close()


def add_live(directory: Path, conversations: Iterable[Conversation]) -> dict:
    """The conversations going on now (one per user), through update_history,
    embedded by the real worker; then the store's state, checked."""
    engine = open_engine(directory)
    try:
        for scope, _, turns in conversations:
            messages = [{"role": role, "content": text, "created_at": iso_time(at)} for role, text, at in turns]
            engine.update_history(scope, parse_messages(messages))
        engine.wait_idle(timeout=3600)
        state = check_filled(engine, None)
        state["model"] = embedder_of(engine).name
        return state
    finally:
        engine.close()


def check_filled(engine: MemoryEngine, expected_turns: Optional[int]) -> dict:
    """Every memory embedded and nothing queued, or RuntimeError."""
    health = engine.health()
    memories = engine.store.count()
    turns = sum(n for _, kind, n, _ in engine.store.users_overview() if kind == "turn")
    waiting = health["pending_jobs"] - health["llm_jobs"]
    if waiting or health["vectors"] != memories or (expected_turns is not None and turns != expected_turns):
        raise RuntimeError(f"store not ready to measure: {turns} turns (expected {expected_turns}), "
                           f"{memories} memories, {health['vectors']} vectors, {waiting} jobs pending")
    return {"turns": turns, "memories": memories, "vectors": health["vectors"],
            "users": len({user for user, _, _, _ in engine.store.users_overview()}),
            "model": embedder_of(engine).name}


def cached_store(cache_dir: Optional[Path], key: str, fill: Callable[[Path], dict], refill: bool,
                 scratch: Path) -> Tuple[Path, dict, bool]:
    """The filled store's folder, its manifest, and whether it came from the
    cache; ``fill(folder)`` makes it when missing (or with ``refill``)."""
    home = (cache_dir / key) if cache_dir is not None else scratch / key
    manifest = home / "manifest.json"
    if cache_dir is not None and manifest.exists() and not refill:
        return home / "store", json.loads(manifest.read_text()), True
    for left in home.parent.glob(f"{home.name}.partial-*"):  # fills interrupted earlier
        if not _alive(int(left.name.rsplit("-", 1)[1])):
            shutil.rmtree(left, ignore_errors=True)
    partial = home.with_name(f"{home.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    started = time.monotonic()
    state = fill(partial / "store")
    state["filled_in_s"] = round(time.monotonic() - started, 1)
    state["filled_at"] = iso_time(time.time())
    (partial / "manifest.json").write_text(json.dumps(state, indent=1))
    shutil.rmtree(home, ignore_errors=True)
    os.replace(partial, home)
    return home / "store", state, False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
