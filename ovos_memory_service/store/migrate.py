"""Moving a store into another: a device's SQLite store into the shared
PostgreSQL one (``ovos-memory migrate --to postgresql --dsn ...``), and back
(``--to sqlite``). Either way, between two open Store objects:

1. every memory, with its id, kind, scope, times and provenance, through
   ``import_rows`` (which also records how far each rolling summary reaches);
   memories the target has already (same id) are left as they are, so a
   migration can be run again, and several devices can move into one store;
2. conversations, as they are (ids, times, those without memories too);
3. the vectors, saved through the target's embedding jobs (``save_vectors``),
   so nothing is embedded again (memories without a vector keep their job);
4. the pending background work (facts, LLM facts, summaries), pauses,
   request ids and registered personas;
5. a check that every memory, vector, pause and persona of the source is in
   the target (``MigrationIncomplete`` otherwise).

The source is only read. The daemon must not hold a SQLite store being
migrated (it holds its lock); PostgreSQL may stay in use by other daemons.
"""
import json
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

import numpy as np

from ovos_memory_service.common.scope import Scope
from ovos_memory_service.store.base import Store
from ovos_memory_service.store.records import check_record, to_record
from ovos_memory_service.store.sqlite import SqliteStore

PAGE = 500


class MigrationIncomplete(RuntimeError):
    """The target misses something of the source (the counts say what)."""


@dataclass
class MigrationResult:
    memories: int = 0          # memories of the source
    added: int = 0             # of them, new in the target
    conversations: int = 0
    vectors: int = 0           # vectors copied (not embedded again)
    jobs: int = 0              # pending background jobs carried over
    pauses: int = 0
    requests: int = 0
    personas: int = 0
    missing: Dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "missing" or v}


# ------------------------------------------------ the tables outside the interface
def _rows(store: Store, sql_sqlite: str, sql_postgresql: Optional[str] = None) -> List[dict]:
    if isinstance(store, SqliteStore):
        with store._reading() as db:
            return db.execute_returning_dicts(sql_sqlite)
    with store._cursor() as cur:
        return cur.execute(sql_postgresql or sql_sqlite).fetchall()


def _write_conversations(store: Store, rows: List[dict]):
    sql = ("INSERT INTO conversations (id, user_id, persona_id, session_id, started_at, updated_at) "
           "VALUES ({p}, {p}, {p}, {p}, {p}, {p}) ON CONFLICT (id) DO UPDATE SET "
           "started_at = excluded.started_at, updated_at = excluded.updated_at")
    values = [[r["id"], r["user_id"], r["persona_id"], r["session_id"], r["started_at"], r["updated_at"]]
              for r in rows]
    with store.transaction():
        if isinstance(store, SqliteStore):
            store.db.conn.executemany(sql.format(p="?"), values)
        else:
            with store._cursor() as cur:
                cur.executemany(sql.format(p="%s"), values)


def _vectors(store: Store) -> Dict[str, np.ndarray]:
    """id -> vector of every memory the store has one for."""
    if isinstance(store, SqliteStore):
        index = store._vector_files()
        if index is None:
            return {}
        return index.vectors()
    if not store._vectors_table_exists():
        return {}
    with store._cursor() as cur:
        return {r["id"]: np.asarray(r["embedding"].to_numpy() if hasattr(r["embedding"], "to_numpy")
                                    else r["embedding"], dtype=np.float32)
                for r in cur.execute("SELECT id, embedding FROM memory_vectors")}


# ------------------------------------------------------------------ migrate
def migrate(source: Store, target: Store, progress: Optional[Callable[[str, int, int], None]] = None
            ) -> MigrationResult:
    """Copy everything of ``source`` into ``target`` and check it arrived;
    ``progress(step, done, total)`` is told how far it is."""
    tell = progress or (lambda step, done, total: None)
    result = MigrationResult()

    total = source.count()
    for offset in range(0, total, PAGE):
        records = [check_record(to_record(r)) for r in source.export(offset, PAGE)]
        result.added += len(target.import_rows(records))
        result.memories += len(records)
        tell("memories", result.memories, total)

    # as they were: an import only widens a conversation to its memories' times
    conversations = _rows(source, "SELECT * FROM conversations ORDER BY rowid",
                          "SELECT id, user_id, persona_id, session_id, started_at, updated_at FROM conversations "
                          "ORDER BY n")
    _write_conversations(target, conversations)
    result.conversations = len(conversations)
    tell("conversations", len(conversations), len(conversations))

    vectors = _vectors(source)
    if vectors:
        target.open_vectors(source.vector_model(), len(next(iter(vectors.values()))))
        while True:  # the target's embedding jobs (held until the end), those with a vector in the source
            claimed = target.claim(("embed",), PAGE, time.time(), lease_s=600)
            if not claimed:
                break
            jobs = [j for j in claimed if j.subject in vectors]
            rows = {r["id"]: r for r in target.get_memories([j.subject for j in jobs])}
            result.vectors += target.save_vectors({j.id: (rows[j.subject], vectors[j.subject])
                                                   for j in jobs if j.subject in rows})
            tell("vectors", result.vectors, len(vectors))
        target.release_claims()

    jobs = _rows(source, "SELECT queue, subject, persona_id, lang, next_at FROM jobs "
                         "WHERE queue NOT IN ('embed', 'reembed') ORDER BY id")
    with target.transaction():
        for job in jobs:
            target.enqueue(job["queue"], [job["subject"]], job["persona_id"], job["lang"], job["next_at"])
    result.jobs = len(jobs)

    pauses = source.pauses()
    for pause in pauses:
        target.set_paused(Scope(pause["user_id"], pause["session_id"] or "-"),
                          "session" if pause["session_id"] else "user", True)
    result.pauses = len(pauses)

    requests = _rows(source, "SELECT * FROM update_requests")
    known = {(r["user_id"], r["persona_id"], r["session_id"], r["request_id"])
             for r in _rows(target, "SELECT * FROM update_requests")}
    for request in requests:
        if (request["user_id"], request["persona_id"], request["session_id"], request["request_id"]) not in known:
            target.save_request(Scope(request["user_id"], request["session_id"], request["persona_id"] or None),
                                request["request_id"], json.loads(request["ids"]), request["created_at"])
    result.requests = len(requests)

    personas = _rows(source, "SELECT persona_id FROM personas")
    for persona in personas:
        module, config = source.persona(persona["persona_id"])
        target.save_persona(persona["persona_id"], module, config, time.time())
    result.personas = len(personas)

    target.refresh_statistics()
    result.missing = _missing(source, target, vectors, pauses, personas)
    if result.missing:
        raise MigrationIncomplete(f"the target misses {result.missing}")
    return result


def _missing(source: Store, target: Store, vectors: Dict[str, np.ndarray], pauses: List[dict],
             personas: List[dict]) -> Dict[str, int]:
    """What of the source the target lacks, by table (empty: nothing)."""
    missing = {}
    total = source.count()
    lost = 0
    for offset in range(0, total, PAGE):
        ids = [r["id"] for r in source.export(offset, PAGE)]
        lost += len(set(ids) - target.existing(ids))
    if lost:
        missing["memories"] = lost
    have = set(_vectors(target)) if vectors else set()
    if len(set(vectors) - have):
        missing["vectors"] = len(set(vectors) - have)
    unpaused = sum(not target.is_paused(Scope(p["user_id"], p["session_id"] or "-")) for p in pauses)
    if unpaused:
        missing["pauses"] = unpaused
    unknown = sum(target.persona(p["persona_id"]) is None for p in personas)
    if unknown:
        missing["personas"] = unknown
    return missing

