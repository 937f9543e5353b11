"""Opening the SQLite system of record: one process at a time (the lock
file), an owner-only directory, WAL, migrations, and the file hygiene that
makes forgetting real.
"""
import fcntl
import json
import os
import sqlite3
import time
from os.path import join
from typing import Optional

from sqlite_utils import Database

from ovos_memory_service.common.errors import HOLDERS, StoreLocked
from ovos_memory_service.store.sqlite.migrations import migrations

DB_NAME = "memory.db"
LOCK_NAME = "memory.lock"
# the keyword index's vocabulary, on every connection (terms.py)
TERMS = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memories_terms USING fts5vocab(main, memories_fts, 'row')"


def lock_store(directory: str, timeout: Optional[float] = None, holder: str = "cli"):
    """Take the store's exclusive lock, held for as long as the returned file
    stays open. The daemon and the admin command line both take it, so only
    one process ever writes the store; ``timeout`` None waits for ever. The
    file records the holder's pid and role; a store held by a daemon raises
    at once (a daemon never lets go)."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    handle = os.fdopen(os.open(join(directory, LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o600), "r+")
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held = _holder(handle)
            if held.get("holder") == "daemon" or (deadline is not None and time.monotonic() >= deadline):
                handle.close()
                raise StoreLocked(directory, **held)
            time.sleep(0.2)
            continue
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "holder": holder}))
        handle.flush()
        return handle


def _holder(handle) -> dict:
    """Who the lock file names, if that process is alive; {} while unknown
    (a holder that has just taken the lock may not have written it yet)."""
    try:
        handle.seek(0)
        record = json.loads(handle.read())
        pid, holder = record["pid"], record["holder"]
        if not isinstance(pid, int) or pid <= 0 or holder not in HOLDERS:
            return {}
        os.kill(pid, 0)
    except PermissionError:  # alive, another user's
        pass
    except (ValueError, KeyError, TypeError, OSError):
        return {}
    return {"holder": holder, "pid": pid}


def open_database(directory: str) -> Database:
    """Open (creating if needed) the store in ``directory`` and migrate it."""
    os.makedirs(directory, mode=0o700, exist_ok=True)
    os.chmod(directory, 0o700)
    path = join(directory, DB_NAME)
    old_umask = os.umask(0o077)  # the db, its -wal and -shm files: owner only
    try:
        conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10)
        db = Database(conn)
        conn.execute("PRAGMA journal_mode=WAL")
        # an acknowledged write survives power loss, not only a crash
        conn.execute("PRAGMA synchronous=FULL")
        # deleted content is overwritten with zeros, not left in free pages
        conn.execute("PRAGMA secure_delete=ON")
        # sorts and temporary indexes stay in memory, not in files under /var/tmp
        conn.execute("PRAGMA temp_store=MEMORY")
        conn.execute("PRAGMA foreign_keys=ON")
        migrations.apply(db)
        conn.execute(TERMS)
    finally:
        os.umask(old_umask)
    return db


def open_reader(directory: str) -> Database:
    """A read-only connection to the open store, for one thread's reads."""
    conn = sqlite3.connect(join(directory, DB_NAME), check_same_thread=False, isolation_level=None, timeout=10)
    conn.execute("PRAGMA temp_store=MEMORY")
    conn.execute(TERMS)
    conn.execute("PRAGMA query_only=ON")
    return Database(conn)


def scrub(db: Database):
    """Make deleted rows unrecoverable from the files: merge the FTS segments
    (so deleted terms leave the index) and truncate the WAL (which still holds
    the old pages). Called after every forget."""
    db.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


# what SQLite (or the OS) says about the store, in words a person understands
_STORAGE_PROBLEMS = (
    ("database or disk is full", "the memory store's disk is full; nothing was stored"),
    ("no space left", "the memory store's disk is full; nothing was stored"),
    ("disk i/o error", "the memory store's disk could not be read or written; nothing was stored"),
    ("unable to open", "the memory store's files could not be opened; nothing was stored"),
    ("readonly database", "the memory store is read-only; nothing was stored"),
    ("read-only file system", "the memory store is read-only; nothing was stored"),
    ("malformed", "the memory store's file is damaged; nothing was stored"),
    ("database is locked", "the memory store is busy; nothing was stored, try again"),
)


def storage_problem(error: BaseException) -> Optional[str]:
    """What to answer for a failure of SQLite (or of the disk under it), None
    for an error that is not one."""
    if not isinstance(error, (sqlite3.DatabaseError, OSError)):
        return None
    said = str(error).lower()
    for words, message in _STORAGE_PROBLEMS:
        if words in said:
            return message
    return None
