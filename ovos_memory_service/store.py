"""Opening the SQLite system of record: owner-only directory, WAL, migrations,
and the file hygiene that makes forgetting real.
"""
import os
import sqlite3
from os.path import join

from sqlite_utils import Database

from ovos_memory_service.migrations import migrations

DB_NAME = "memory.db"


def open_store(directory: str) -> Database:
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
        conn.execute("PRAGMA foreign_keys=ON")
        migrations.apply(db)
    finally:
        os.umask(old_umask)
    return db


def scrub(db: Database):
    """Make deleted rows unrecoverable from the files: merge the FTS segments
    (so deleted terms leave the index) and truncate the WAL (which still holds
    the old pages). Called after every forget."""
    db.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
