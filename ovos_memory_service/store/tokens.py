"""SQLite FTS5's tokenizer, the one keyword evidence is counted with on both
stores: SQLite's index uses it, PostgreSQL's ``terms`` are cut with it
(store/postgresql/text.py), and SQLite asks its index for the terms it makes
(store/sqlite/terms.py). Python's own sqlite3 module runs it on an in-memory
table, one per thread."""
import sqlite3
import threading
from typing import Dict, List, Sequence

TOKENIZER = "porter unicode61 remove_diacritics 2"  # as memories_fts (store/sqlite/migrations.py)


class Fts5Tokenizer:
    def __init__(self):
        self._local = threading.local()

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = sqlite3.connect(":memory:", isolation_level=None)
            db.execute(f"CREATE VIRTUAL TABLE t USING fts5 (content, tokenize='{TOKENIZER}')")
            db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        return db

    def positions(self, texts: Sequence[str]) -> List[Dict[str, List[int]]]:
        """For each text, token -> its positions (0-based)."""
        db = self._db()
        found = [{} for _ in texts]
        db.execute("BEGIN")
        try:
            db.executemany("INSERT INTO t (rowid, content) VALUES (?, ?)",
                           [(i + 1, text or "") for i, text in enumerate(texts)])
            for term, doc, offset in db.execute("SELECT term, doc, offset FROM v"):
                found[doc - 1].setdefault(term, []).append(offset)
        finally:
            db.execute("ROLLBACK")
        return found
