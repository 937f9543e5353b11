"""Connecting to PostgreSQL: the schema and its migrations, pgvector, the
pool every read and write uses, and the one session of its own each store
keeps: it holds the store's claimant lock (a job claimed by a store whose
session ended is free at once) and receives the notifications of the other
daemons (LISTEN/NOTIFY).
"""
import json
import random
import threading
from typing import Callable, List, Optional

from ovos_utils.log import LOG

from ovos_memory_service.store.postgresql.migrations import MIGRATION_LOCK, migrate

# classid of the session-level advisory locks that say a claimant is alive
# (pg_advisory_lock(CLAIMANTS, claimant)); another of transaction locks per user
CLAIMANTS = 0x6F766D63   # "ovmc"
USERS = 0x6F766D75       # "ovmu"
PAYLOAD_BYTES = 7000     # NOTIFY payloads must stay under 8000 bytes


def import_psycopg():
    try:
        import psycopg
        import psycopg_pool
    except ImportError as e:
        raise RuntimeError(f"{e.name} is not installed: pip install 'ovos-memory-service[postgresql]'") from e
    return psycopg, psycopg_pool


def prepare_database(dsn: str, schema: str, application_name: str) -> Optional[str]:
    """Migrate ``schema`` and make pgvector available if it can be; returns
    the schema that holds the vector type (None: no pgvector)."""
    psycopg, _ = import_psycopg()
    with psycopg.connect(dsn, autocommit=True, application_name=application_name) as conn:
        applied = migrate(conn, schema)
        if applied:
            LOG.info(f"memory store: schema {schema} migrated ({', '.join(applied)})")
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [MIGRATION_LOCK])
            found = conn.execute("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n "
                                 "ON n.oid = e.extnamespace WHERE e.extname = 'vector'").fetchone()
            if found:
                return found[0]
            try:
                with conn.transaction():
                    conn.execute(psycopg.sql.SQL("CREATE EXTENSION IF NOT EXISTS vector SCHEMA {}").format(
                        psycopg.sql.Identifier(schema)))
                return schema
            except psycopg.Error as e:
                LOG.warning(f"memory store: pgvector is not available in this database ({e}); "
                            "keyword recall only until a superuser runs CREATE EXTENSION vector")
                return None


def open_pool(dsn: str, search_path: List[str], vectors: bool, application_name: str, max_size: int):
    psycopg, psycopg_pool = import_psycopg()
    path = psycopg.sql.SQL(", ").join(psycopg.sql.Identifier(s) for s in dict.fromkeys(search_path))

    def configure(conn):
        conn.execute(psycopg.sql.SQL("SET search_path TO {}").format(path))
        if vectors:
            from pgvector.psycopg import register_vector
            register_vector(conn)

    # check: a connection the server closed (a restart, a failover) is replaced
    # before use instead of failing one request
    pool = psycopg_pool.ConnectionPool(
        dsn, min_size=1, max_size=max_size, configure=configure, open=False, name="ovos-memory",
        check=psycopg_pool.ConnectionPool.check_connection,
        kwargs={"autocommit": True, "application_name": application_name})
    pool.open(wait=True, timeout=30)
    return pool


class Presence:
    """The store's own session: holds its claimant lock and LISTENs, from a
    thread that reconnects when the session is lost (then keeping the same
    claimant if it is still free, so the store's claims stay its own)."""

    def __init__(self, dsn: str, application_name: str, channels: List[str]):
        self.dsn = dsn
        self.application_name = application_name
        self.channels = channels
        self.claimant = random.randint(1, 2 ** 31 - 1)
        self.callbacks: List[Callable[[str, dict], None]] = []
        self._conn = None
        self._stop = threading.Event()
        self._connect()
        self._thread = threading.Thread(target=self._run, name="memory-store-listener", daemon=True)
        self._thread.start()

    def _connect(self):
        psycopg, _ = import_psycopg()
        conn = psycopg.connect(self.dsn, autocommit=True, application_name=self.application_name)
        while not conn.execute("SELECT pg_try_advisory_lock(%s, %s)", [CLAIMANTS, self.claimant]).fetchone()[0]:
            self.claimant = random.randint(1, 2 ** 31 - 1)  # another store's (or an old session's)
        for channel in self.channels:
            conn.execute(psycopg.sql.SQL("LISTEN {}").format(psycopg.sql.Identifier(channel)))
        self._conn = conn

    def _run(self):
        while not self._stop.is_set():
            try:
                if self._conn is None:
                    self._connect()
                    self.deliver("resync", {})  # notifications may have been missed meanwhile
                for note in self._conn.notifies(timeout=1.0):
                    self._received(note.channel, note.payload)
            except Exception as e:
                if self._stop.is_set():
                    break
                LOG.warning(f"memory store: the listening session was lost ({e}); reconnecting")
                self._close_conn()
                self._stop.wait(1.0)

    def _received(self, channel: str, payload: str):
        try:
            data = json.loads(payload)
        except ValueError:
            return
        if data.pop("from", None) == self.claimant:
            return  # this store's own
        self.deliver(channel.rsplit(".", 1)[-1], data)

    def deliver(self, event: str, data: dict):
        for callback in list(self.callbacks):
            try:
                callback(event, data)
            except Exception:
                LOG.exception(f"memory store: a listener of {event} failed")

    def _close_conn(self):
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:
                pass

    def close(self):
        self._stop.set()
        self._thread.join(timeout=5)
        self._close_conn()  # the claimant lock goes with the session


def payloads(data: dict, ids: List[str]) -> List[str]:
    """``data`` with ``ids`` split over as many NOTIFY payloads as they need."""
    chunks, chunk, size = [], [], 0
    for memory_id in ids:
        if chunk and size + len(memory_id) + 4 > PAYLOAD_BYTES:
            chunks.append(chunk)
            chunk, size = [], 0
        chunk.append(memory_id)
        size += len(memory_id.encode()) + 4
    chunks.append(chunk)
    return [json.dumps({**data, "ids": c}) for c in chunks if c or not ids]


def storage_problem(error: BaseException) -> Optional[str]:
    """What to answer for a PostgreSQL failure (in the words of SQLite's,
    sqlite/connection.py), None for an error that is not one."""
    try:
        import psycopg
        from psycopg_pool import PoolTimeout
    except ImportError:
        return None
    if isinstance(error, PoolTimeout):
        return "the shared memory store has no free connection; nothing was stored, try again"
    if isinstance(error, (psycopg.errors.DiskFull, psycopg.errors.OutOfMemory)):
        return "the shared memory store's disk is full; nothing was stored"
    if isinstance(error, psycopg.errors.ReadOnlySqlTransaction):
        return "the shared memory store is read-only (a standby server?); nothing was stored"
    if isinstance(error, (psycopg.errors.DeadlockDetected, psycopg.errors.SerializationFailure,
                          psycopg.errors.LockNotAvailable)):
        return "the shared memory store is busy; nothing was stored, try again"
    if isinstance(error, (psycopg.OperationalError, psycopg.InterfaceError)):
        return "the shared memory store (PostgreSQL) cannot be reached; nothing was stored"
    return None
