"""The embedded store: SQLite (the system of record, keyword index, queues)
and LanceDB (vectors, a derived index rebuilt from SQLite at will), both in
the data directory.

One writing connection behind one re-entrant lock, which every write (and
``transaction()``) takes, so callers never hold it. Reads run on a read-only
connection of their own thread, without the lock: WAL lets them go on while
a write commits, so a build's keyword and semantic members and the
background writers never queue behind each other. A read by the thread that
holds the lock (inside a transaction) uses the writing connection and sees
its own uncommitted writes. Vector searches run on the vector index's own
locks (vectors/index.py).
"""
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from ovos_memory_service.store.base import Exclude, Store, Visible, vectors_of_another_model
from ovos_memory_service.store.idf import DocumentCounts
from ovos_memory_service.store.sqlite.admin import Admin
from ovos_memory_service.store.sqlite.connection import lock_store, open_database, open_reader, scrub
from ovos_memory_service.store.sqlite.jobs import Jobs
from ovos_memory_service.store.sqlite.keywords import KeywordIndex
from ovos_memory_service.store.sql import EMBEDDABLE
from ovos_memory_service.store.sqlite.memories import MemoryRows, as_json, condition, excluding
from ovos_memory_service.store.sqlite.turns import Turns


class SqliteStore(MemoryRows, Turns, KeywordIndex, Jobs, Admin, Store):
    def __init__(self, directory: str, lock_timeout: Optional[float] = 30, holder: str = "cli"):
        """Lock the directory for this process (``lock_timeout`` None: wait for
        ever; ``holder`` "daemon" or "cli", recorded in the lock file), then
        open and migrate the database."""
        self.directory = Path(directory)
        self._lock_file = lock_store(directory, lock_timeout, holder)
        try:
            self.db = open_database(directory)
        except BaseException:
            self._lock_file.close()
            raise
        self._lock = threading.RLock()
        self._local = threading.local()  # each thread's read connection
        self._readers = []  # (thread, connection)
        self._readers_lock = threading.Lock()
        self._vectors = None
        self._owners = {}  # user_id -> owner number, as in the users table
        self._document_counts = DocumentCounts()  # keywords.py
        self._memory_count = self.count()
        self._after_commit = []
        self.release_claims()
        # a backoff an earlier process decided for embedding is stale: retry at once
        self.due_again("embed", time.time())

    def close(self):
        with self._lock, self._readers_lock:
            for _, reader in self._readers:
                reader.close()
            self._readers.clear()
            if self.db is not None:
                self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self.db.close()
                self.db = None
            if self._lock_file is not None:
                self._lock_file.close()
                self._lock_file = None

    @contextmanager
    def transaction(self, user_id: Optional[str] = None):
        # one writer at a time already: every write of every user waits for the lock
        with self._lock:
            if self.db.conn.in_transaction:  # nested: part of the outer one (no savepoint)
                yield self
                return
            try:
                with self.db.atomic():
                    yield self
            except BaseException:
                self._after_commit.clear()
                self._owners.clear()  # numbers given in the rolled-back transaction are gone
                self._memory_count = self.count()
                raise
            while self._after_commit:
                self._after_commit.pop(0)()

    def _when_committed(self, action):
        """Run ``action`` once the current transaction commits (file upkeep
        that cannot run inside one)."""
        self._after_commit.append(action)

    @contextmanager
    def _reading(self):
        """The connection a read runs on (see the module doc)."""
        if self._lock._is_owned():
            yield self.db
            return
        reader = getattr(self._local, "reader", None)
        if reader is None:
            reader = self._local.reader = open_reader(self.directory)
            with self._readers_lock:
                for thread, old in [r for r in self._readers if not r[0].is_alive()]:
                    old.close()  # its thread has ended
                self._readers = [r for r in self._readers if r[0].is_alive()] + [(threading.current_thread(), reader)]
        yield reader

    def _scrub(self):
        scrub(self.db)

    # ----------------------------------------------------------- vectors
    def open_vectors(self, model: Optional[str], dim: int) -> int:
        from ovos_memory_service.vectors.index import COMPACT_WRITES, VectorIndex
        queued = 0
        with self._lock:
            recorded, files = self.vector_model(), self._vector_files()
            if vectors_of_another_model(files.dim if files is not None else None, dim, recorded, model):
                # queued first: a crash before the old vectors are gone queues them again
                queued = self._queue_every_memory()
                files.drop()
                self._vectors = None
            if self._vectors is None or self._vectors.dim != dim:
                self._vectors = VectorIndex(self.directory / "vectors", dim)
            vectors = self._vectors
            if model is not None and recorded != model:
                with self.transaction():
                    self.db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES ('vector_model', ?)",
                                    [model])
        self._drop_orphan_vectors(vectors)
        if vectors.writes >= COMPACT_WRITES:
            vectors.compact()  # the vector files' own lock: writes go on meanwhile
        return queued

    def _drop_orphan_vectors(self, vectors):
        """Vectors whose memory is gone (the process ended between a forget
        and its file upkeep) leave the files."""
        stored = vectors.ids()
        if stored:
            with self._reading() as db:
                known = {r[0] for r in db.execute("SELECT id FROM memories")}
            if stored - known:
                vectors.delete(list(stored - known))
                vectors.purge()

    def vector_model(self) -> Optional[str]:
        with self._reading() as db:
            row = db.execute("SELECT value FROM settings WHERE key = 'vector_model'").fetchone()
        return row[0] if row else None

    def _vector_files(self):
        """The vector index, opened from its files if the model is not loaded
        (yet, or in this command): what is forgotten leaves them too."""
        from ovos_memory_service.vectors.index import TABLE, VectorIndex
        with self._lock:  # not while open_vectors is creating the table
            if self._vectors is None and (self.directory / "vectors" / f"{TABLE}.lance").exists():
                self._vectors = VectorIndex(self.directory / "vectors", None)
            return self._vectors

    def save_vectors(self, jobs: Dict[int, Tuple[dict, object]]) -> int:
        # only jobs still queued: a memory forgotten or rewritten meanwhile
        # lost its job (or got a new one, with a new id)
        with self._lock:
            queued = self._still_queued(list(jobs))
        # the vector files' own lock, not the store's: turns are stored meanwhile
        self._vectors.upsert([(row["seq"], row["id"], row["user_id"], vector)
                              for job_id, (row, vector) in jobs.items() if job_id in queued])
        with self.transaction():
            done = self.finish(list(queued))
            gone = [jobs[job_id][0]["id"] for job_id in queued - done]
            if gone:  # forgotten (or rewritten) while their vectors were written: not kept
                self._vectors.delete(gone)
                self._when_committed(self._vectors.purge)
        return len(done)

    def rebuild_vectors(self) -> int:
        with self.transaction():
            self._vectors.clear()
            return self._queue_every_memory()

    def _queue_every_memory(self) -> int:
        """Every embeddable memory's embedding job, anew (new ids: a batch in
        flight saves nothing); returns the queue's length."""
        with self.transaction():
            self.db.execute(f"INSERT OR REPLACE INTO jobs (queue, subject) SELECT 'embed', m.id FROM memories m "
                            f"WHERE {EMBEDDABLE}")
        return self.pending(("embed",))

    def maintain_vectors(self, force: bool = False) -> bool:
        from ovos_memory_service.vectors.index import COMPACT_WRITES
        vectors = self._vectors
        if vectors is None or not (vectors.writes >= COMPACT_WRITES or (force and vectors.writes)):
            return False
        vectors.compact()  # the vector files' lock only: searches go on from memory
        return True

    def warm_vectors(self):
        vectors = self._vectors
        if vectors is not None:
            with self._reading() as db:
                users = db.execute(f"SELECT m.user_id, COUNT(*) FROM memories m WHERE {EMBEDDABLE} "
                                   "GROUP BY m.user_id ORDER BY MAX(m.seq) DESC").fetchall()
            vectors.warm(users)

    def vector_count(self) -> int:
        vectors = self._vector_files()
        return vectors.count() if vectors is not None else 0

    def nearest(self, visible: Visible, vector, limit: int, newest: int,
                exclude: Exclude = Exclude()) -> List[dict]:
        sql, args = condition(visible)
        with self._reading() as db:
            row = db.execute(f"SELECT m.seq FROM memories m WHERE {sql} ORDER BY m.seq DESC "
                                  "LIMIT 1 OFFSET ?", [*args, newest - 1]).fetchone()
        found = self._vectors.search(vector, visible.scope.user_id, row[0] if row else 0,
                                     4 * limit + len(exclude.ids) + 8)
        if not found:
            return []
        similarity = dict(found)
        left_out, left_out_args = excluding(exclude)
        with self._reading() as db:
            rows = db.execute_returning_dicts(
                f"SELECT m.* FROM json_each(?) j CROSS JOIN memories m ON m.id = j.value WHERE {sql} "
                f"AND {left_out}", [as_json(similarity), *args, *left_out_args])
        for row in rows:
            row["similarity"] = similarity[row["id"]]
        rows.sort(key=lambda r: r["similarity"], reverse=True)
        return rows[:limit]

    def similarities(self, user_id: str, vector, ids: Sequence[str]) -> Dict[str, float]:
        return self._vectors.similarities(vector, user_id, ids) if self._vectors is not None else {}
