"""The embedded store: SQLite (the system of record, keyword index, queues)
and LanceDB (vectors, a derived index rebuilt from SQLite at will), both in
the data directory.

One writing connection behind one re-entrant lock, which every write (and
``transaction()``) takes, so callers never hold it. Reads run on a read-only
connection of their own thread, without the lock: WAL lets them go on while
a write commits, so a build's keyword and semantic members and the
background writers never queue behind each other. A read by the thread that
holds the lock (inside a transaction) uses the writing connection and sees
its own uncommitted writes. The vectors (vectors.py) are LanceDB files beside
the database, whose searches run on the vector index's own locks (lance_index.py).
"""
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Optional

from ovos_memory_service.store.base import Store
from ovos_memory_service.store.idf import DocumentCounts
from ovos_memory_service.store.sqlite.admin import Admin
from ovos_memory_service.store.sqlite.connection import lock_store, open_database, open_reader, scrub
from ovos_memory_service.store.sqlite.terms import IndexedTerms
from ovos_memory_service.store.sqlite.jobs import Jobs
from ovos_memory_service.store.sqlite.keywords import KeywordIndex
from ovos_memory_service.store.sqlite.memories import MemoryRows
from ovos_memory_service.store.sqlite.turns import Turns
from ovos_memory_service.store.sqlite.vectors import Vectors


class SqliteStore(MemoryRows, Turns, KeywordIndex, Jobs, Vectors, Admin, Store):
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
        # the vectors searched (vectors.py), once opened, and the model that
        # made them: one attribute, so that a search never sees one without the other
        self._live = (None, None)
        self._next = None  # the next model's, while it embeds every memory (begin_reembedding)
        self._owners = {}  # user_id -> owner number, as in the users table
        self._document_counts = DocumentCounts()  # keywords.py
        # the words the keyword index holds (terms.py); every write may add some
        self._terms = IndexedTerms(lambda: self.db.conn.total_changes)
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
    def transaction(self, user_id: Optional[str] = None, durable: bool = True):
        # one writer at a time already: every write of every user waits for the lock
        with self._lock:
            if self.db.conn.in_transaction:  # nested: part of the outer one (no savepoint)
                yield self
                return
            if not durable:  # WAL: written, synced with the next durable commit (or checkpoint)
                self.db.execute("PRAGMA synchronous=NORMAL")
            try:
                with self.db.atomic():
                    yield self
            except BaseException:
                self._after_commit.clear()
                self._owners.clear()  # numbers given in the rolled-back transaction are gone
                self._memory_count = self.count()
                raise
            finally:
                if not durable:
                    self.db.execute("PRAGMA synchronous=FULL")
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
