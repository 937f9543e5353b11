"""The shared store: everything in one PostgreSQL database (with pgvector),
for several daemons at once (``memory_service.store: {"backend":
"postgresql", "dsn": "postgresql://..."}``; an empty dsn uses the PG*
environment variables). The same tables as SQLite, in schema
``store.schema`` ("ovos_memory"), made by numbered migrations
(migrations.py) that daemons starting together apply once. Rows, keyword
index (text.py, keywords.py), vectors (vectors.py) and job queues (jobs.py)
share one transaction, so no daemon ever sees one without the other.

Connections: a psycopg pool. ``transaction()`` binds one pooled connection
to the calling thread until it ends; nested calls are part of it (no
savepoint, as on SQLite); other threads, and reads outside a transaction,
take their own. Inside a
transaction, the first call about a user takes a transaction-level lock of
that user, so the read-then-write steps of the engine (a turn appended
after the last one, a fact deduplicated against the current ones) are
serialized per user across daemons as SQLite's one writer serializes them;
reads outside transactions never wait. Each store also keeps one session of
its own (connection.Presence) for its claimant lock and LISTEN.

Seen by every daemon at once: pauses, personas and memories are read from
the database on each call. Daemons that cache (persona backends, persona
plugins' windows) hear about changes through ``listen``: NOTIFY on
"<schema>.forgotten" ({"user_id", "ids"}, sent when a delete commits) and
"<schema>.personas" ({"persona_id"}).

What forgetting leaves in PostgreSQL, and for how long
-------------------------------------------------------
``delete`` removes the rows, their text index entries, vectors, jobs and
summary state in one transaction; once it commits, a thread of the store
runs ``VACUUM (INDEX_CLEANUP ON)`` of those tables (vacuum.py; ``settle()``
waits for it; autovacuum would come later, and skip the indexes). After that:

- the dead tuples are gone from the tables and their TOAST data, and their
  entries from every index, once no transaction older than the delete is
  still open (VACUUM cannot remove what an open snapshot may see: a
  long-running transaction elsewhere delays it). What stays in the files
  until they are rewritten: the bytes of removed tuples in the free space of
  their pages (until the page is written again), a GIN key (a word) whose
  every memory was forgotten, and the vector bytes of the HNSW graph's
  deleted elements (until new vectors reuse them). ``compact()`` (``ovos-memory
  compact``) rewrites every table and index into new files (VACUUM FULL)
  and asks for a CHECKPOINT; run it after a forget that must leave nothing,
  and on a schedule on a shared server.
- the write-ahead log holds the inserted text until its segments are
  recycled: after the next checkpoints (``checkpoint_timeout``, 5 minutes
  by default, and ``max_wal_size``), longer while ``wal_keep_size``, a
  replication slot or ``archive_command`` keeps them; recycled segments are
  overwritten, not zeroed. Archived WAL and base backups keep it until they
  expire: the operator's retention policy decides.
- streaming replicas apply the same delete (and their own VACUUM through
  the primary's), with the same WAL caveats; logical replicas receive the
  DELETE.
- server logs keep statements only if ``log_statement``/``log_min_duration_statement``
  log them with parameters: keep ``log_parameter_max_length=0`` on shared servers.

An operator who must purge everything of a forgotten memory runs
``ovos-memory compact``, then ``CHECKPOINT`` twice (with ``SELECT
pg_switch_wal()`` between) so that the segments holding it are recycled,
and expires the backups and archived WAL made before the forget.
"""
import os
import re
import socket
import threading
import time
from contextlib import contextmanager
from typing import Callable, Optional, Sequence

from ovos_utils.log import LOG

from ovos_memory_service.store.base import Store
from ovos_memory_service.store.idf import DocumentCounts
from ovos_memory_service.store.postgresql.admin import Admin
from ovos_memory_service.store.postgresql.connection import USERS, Presence, open_pool, prepare_database
from ovos_memory_service.store.postgresql.jobs import Jobs
from ovos_memory_service.store.postgresql.keywords import KeywordIndex
from ovos_memory_service.store.postgresql.memories import MemoryRows
from ovos_memory_service.store.postgresql.text import Fts5Tokens
from ovos_memory_service.store.postgresql.turns import Turns
from ovos_memory_service.store.postgresql.vacuum import Vacuums
from ovos_memory_service.store.postgresql.vectors import Vectors

DEFAULT_SCHEMA = "ovos_memory"
SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,47}$")
POOL_SIZE = 8  # a build's members, the bus handlers and the queue workers side by side


class PostgresStore(MemoryRows, Turns, KeywordIndex, Jobs, Vectors, Admin, Store):
    def __init__(self, dsn: str = "", schema: str = DEFAULT_SCHEMA, lang: str = "en-us", holder: str = "cli",
                 pool_size: int = POOL_SIZE):
        """Connect (``dsn`` "" : the PG* environment variables), migrate
        ``schema`` and join the other daemons' queues. ``lang``: the language
        of memories whose session has not said its own."""
        if not SCHEMA_NAME.match(schema or ""):
            raise ValueError(f"memory_service.store.schema must be a lowercase SQL name, got {schema!r}")
        self.dsn, self.schema, self.lang, self.holder = dsn, schema, lang, holder
        self._application_name = f"{'ovos-memory-service' if holder == 'daemon' else 'ovos-memory'} " \
                                 f"({socket.gethostname()}:{os.getpid()})"[:63]
        self._vector_schema = prepare_database(dsn, schema, self._application_name)
        self._pool = open_pool(dsn, [schema, self._vector_schema or schema], self._vector_schema is not None,
                               self._application_name, pool_size)
        self._local = threading.local()  # the thread's transaction: connection, locked users, after-commit
        self._tokens = Fts5Tokens()
        self._document_counts = DocumentCounts()  # keywords.py
        self._total = (None, 0.0)  # (every memory, when counted): keywords.py
        self._dim: Optional[int] = None
        self._model = self._next_model = None  # vectors.py
        self._vacuums = Vacuums(self._vacuum)
        try:
            with self._pool.connection() as conn:
                self._configs = {r[0] for r in conn.execute("SELECT cfgname FROM pg_ts_config")}
            self._presence = Presence(dsn, self._application_name, [self._channel("forgotten"),
                                                                    self._channel("personas"),
                                                                    self._channel("vectors")])
        except BaseException:
            self._pool.close()
            raise
        self._presence.callbacks.append(self._heard_vectors)  # before the engine's
        # a backoff an earlier process decided for embedding is stale: retry at once
        self.due_again("embed", time.time())

    @property
    def claimant(self) -> int:
        return self._presence.claimant

    def close(self):
        if self._pool is None:
            return
        try:
            self.release_claims()
        except Exception as e:
            LOG.warning(f"memory store: claims not released ({e}); they lapse with this session")
        self._vacuums.close()  # after the last forget, before leaving
        self._presence.close()
        self._pool.close()
        self._pool = None

    def listen(self, callback: Callable[[str, dict], None]):
        """Call ``callback(event, data)``, from the store's listening thread,
        for what other stores (the other daemons) commit: "forgotten"
        ``{"user_id", "ids"}``; "personas" ``{"persona_id"}`` (a persona was
        configured: build its backend again); "vectors" ``{"model"}`` (the
        vectors are another model's now); "resync" ``{}`` after the
        listening session was lost and made again (notifications may have
        been missed: drop what is cached). Callbacks must be quick."""
        self._presence.callbacks.append(callback)

    def _channel(self, name: str) -> str:
        return f"{self.schema}.{name}"

    # ------------------------------------------------------ transactions
    @contextmanager
    def transaction(self, user_id: Optional[str] = None, durable: bool = True):
        if getattr(self._local, "conn", None) is not None:  # nested: part of the outer one, as on SQLite
            if user_id is not None:
                with self._cursor(user_id):
                    pass
            yield self
            return
        after = []
        with self._pool.connection() as conn:
            self._local.conn, self._local.users, self._local.after = conn, set(), after
            try:
                with conn.transaction():
                    if not durable:  # the commit does not wait for the WAL flush (base.py)
                        conn.execute("SET LOCAL synchronous_commit TO OFF")
                    if user_id is not None:  # the user's lock before anything else (base.py)
                        with self._cursor(user_id):
                            pass
                    yield self
            finally:
                self._local.conn = self._local.users = self._local.after = None
        for action in after:  # committed
            action()

    def _when_committed(self, action):
        """Run ``action`` once the outermost transaction commits."""
        self._local.after.append(action)

    @contextmanager
    def _cursor(self, user_id: Optional[str] = None):
        """A cursor returning dicts: on the thread's transaction (taking the
        lock of ``user_id`` there), else on a pooled connection of its own."""
        from psycopg.rows import dict_row
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            with conn.cursor(row_factory=dict_row) as cur:
                if user_id is not None:
                    self._lock_users(cur, [user_id])
                yield cur
            return
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            yield cur

    def _lock_users(self, cur, user_ids: Sequence[str]):
        """Hold these users until the transaction ends (in a fixed order: no deadlock)."""
        locked = self._local.users
        for user_id in sorted(set(user_ids) - locked):
            cur.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [USERS, user_id])
            locked.add(user_id)

    def settle(self, timeout: float = 60) -> bool:
        """Wait until the VACUUM of every forget so far has run (tests, the CLI)."""
        return self._vacuums.settle(timeout)

    def _vacuum(self, tables, verb: str = "VACUUM"):
        """``verb`` (VACUUM with its options) of those of ``tables`` that exist,
        outside any transaction."""
        from psycopg import sql
        with self._pool.connection() as conn:
            found = [t for t in tables if conn.execute("SELECT to_regclass(%s)", [t]).fetchone()[0] is not None]
            if found:
                conn.execute(sql.SQL(verb + " {}").format(sql.SQL(", ").join(sql.Identifier(t) for t in found)))
