"""Semantic recall with pgvector: table ``memory_vectors`` (seq, id, user_id,
embedding vector(dim)), made by ``open_vectors`` once the model's dimension
is known, with an HNSW index (vector_cosine_ops). A vector goes with its
memory (ON DELETE CASCADE), in the transaction that deletes it.

``nearest`` compares the query with the vectors of the ``newest`` visible
memories (``recall_embeddings_limit``) in one statement: an exact scan of
those vectors up to ``EXACT_NEWEST``; beyond that the HNSW index, filtered by
user with pgvector's iterative scans, then by visibility.
"""
import json
from typing import Dict, List, Optional, Sequence, Tuple

from ovos_memory_service.store.base import Exclude, Visible, vectors_of_another_model
from ovos_memory_service.store.postgresql.connection import MIGRATION_LOCK
from ovos_memory_service.store.postgresql.memories import AS_NEW, ROW, condition, excluding
from ovos_memory_service.store.sql import EMBEDDABLE

EXACT_NEWEST = 5000   # more candidates than this: the HNSW index
HNSW_MAX_DIM = 2000   # pgvector's limit for an HNSW index of vector columns


class Vectors:
    """PostgresStore's vectors (self._dim: None until open_vectors)."""

    def _vectors_table_exists(self) -> bool:
        with self._cursor() as cur:
            return cur.execute("SELECT to_regclass('memory_vectors') IS NOT NULL AS found").fetchone()["found"]

    def _stored_dim(self, cur):
        row = cur.execute("SELECT a.atttypmod AS dim FROM pg_attribute a WHERE a.attrelid = "
                          "to_regclass('memory_vectors') AND a.attname = 'embedding'").fetchone()
        return row["dim"] if row else None

    def open_vectors(self, model: Optional[str], dim: int) -> int:
        if self._vector_schema is None:
            from ovos_memory_service.vectors.embedder import EmbeddingsUnavailable
            raise EmbeddingsUnavailable("pgvector is not installed in the database "
                                        "(a superuser runs: CREATE EXTENSION vector)")
        queued = 0
        with self.transaction(), self._cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [MIGRATION_LOCK])
            stored, recorded = self._stored_dim(cur), self._recorded_model(cur)
            if vectors_of_another_model(stored, dim, recorded, model):
                cur.execute("DROP TABLE memory_vectors")  # another model's: its files go
                queued = self._queue_every_memory(cur)
                stored = None
            if stored is None:
                cur.execute(f"CREATE TABLE memory_vectors (seq BIGINT PRIMARY KEY REFERENCES memories (seq) "
                            f"ON DELETE CASCADE, id TEXT NOT NULL UNIQUE, user_id TEXT NOT NULL, "
                            f"embedding vector({int(dim)}) NOT NULL)")
                cur.execute("CREATE INDEX memory_vectors_user ON memory_vectors (user_id, seq)")
                if dim <= HNSW_MAX_DIM:
                    cur.execute("CREATE INDEX memory_vectors_hnsw ON memory_vectors "
                                "USING hnsw (embedding vector_cosine_ops)")
            if model is not None and recorded != model:
                cur.execute("INSERT INTO settings (key, value) VALUES ('vector_model', %s) "
                            "ON CONFLICT (key) DO UPDATE SET value = excluded.value", [model])
                # daemons already running with the old model stop comparing with these
                cur.execute("SELECT pg_notify(%s, %s)", [self._channel("vectors"),
                                                          json.dumps({"model": model, "from": self.claimant})])
        self._dim = dim
        return queued

    def vector_model(self) -> Optional[str]:
        with self._cursor() as cur:
            return self._recorded_model(cur)

    @staticmethod
    def _recorded_model(cur) -> Optional[str]:
        row = cur.execute("SELECT value FROM settings WHERE key = 'vector_model'").fetchone()
        return row["value"] if row else None

    def _queue_every_memory(self, cur) -> int:
        cur.execute(f"INSERT INTO jobs (queue, subject) SELECT 'embed', m.id FROM memories m "
                    f"WHERE {EMBEDDABLE} ORDER BY m.seq {AS_NEW}")
        return self.pending(("embed",))  # on this transaction's connection

    def save_vectors(self, jobs: Dict[int, Tuple[dict, object]]) -> int:
        with self.transaction(), self._cursor() as cur:
            # only jobs still queued (and held until this commits): a memory
            # forgotten or rewritten meanwhile lost its job or got a new one
            queued = self._still_queued(cur, list(jobs))
            rows = [(row["seq"], row["id"], row["user_id"], vector)
                    for job_id, (row, vector) in jobs.items() if job_id in queued]
            cur.executemany("INSERT INTO memory_vectors (seq, id, user_id, embedding) VALUES (%s, %s, %s, %s) "
                            "ON CONFLICT (seq) DO UPDATE SET embedding = excluded.embedding", rows)
            cur.execute("DELETE FROM jobs WHERE id = ANY(%s::bigint[])", [list(queued)])
        return len(rows)

    def rebuild_vectors(self) -> int:
        with self.transaction(), self._cursor() as cur:
            if self._stored_dim(cur) is not None:
                cur.execute("TRUNCATE memory_vectors")  # new files: the old vectors leave the disk
            return self._queue_every_memory(cur)

    def maintain_vectors(self, force: bool = False) -> bool:
        """Nothing to merge: the HNSW index grows with each insert and
        autovacuum reclaims what deletes leave (a forget vacuums at once)."""
        return False

    def vector_count(self) -> int:
        if not self._vectors_table_exists():
            return 0
        with self._cursor() as cur:
            return cur.execute("SELECT count(*) AS n FROM memory_vectors").fetchone()["n"]

    def nearest(self, visible: Visible, vector, limit: int, newest: int,
                exclude: Exclude = Exclude()) -> List[dict]:
        if self._dim is None or limit <= 0:
            return []
        sql, args = condition(visible)
        left_out, left_out_args = excluding(exclude)
        if newest <= EXACT_NEWEST:
            with self._cursor(visible.scope.user_id) as cur:
                # MATERIALIZED, and ordered by the computed distance: an exact
                # comparison, never the approximate index (which would stop at ef_search rows)
                return cur.execute(
                    f"WITH newest AS MATERIALIZED (SELECT m.seq FROM memories m WHERE {sql} "
                    "ORDER BY m.seq DESC LIMIT %s), near AS MATERIALIZED (SELECT v.seq, "
                    "v.embedding <=> %s AS distance FROM newest n JOIN memory_vectors v ON v.seq = n.seq) "
                    f"SELECT {ROW}, 1 - near.distance AS similarity FROM near JOIN memories m ON m.seq = near.seq "
                    f"WHERE {left_out} ORDER BY near.distance, m.seq DESC LIMIT %s",
                    [*args, newest, vector, *left_out_args, limit]).fetchall()
        fetch = 4 * limit + len(exclude.ids) + 8
        with self.transaction(), self._cursor(visible.scope.user_id) as cur:
            cur.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            cur.execute(f"SET LOCAL hnsw.ef_search = {max(40, min(1000, fetch))}")
            rows = cur.execute(
                f"WITH floor AS MATERIALIZED (SELECT m.seq FROM memories m WHERE {sql} ORDER BY m.seq DESC "
                "LIMIT 1 OFFSET %s), near AS MATERIALIZED (SELECT v.seq, v.embedding <=> %s AS distance "
                "FROM memory_vectors v WHERE v.user_id = %s AND v.seq >= coalesce((SELECT seq FROM floor), 0) "
                "ORDER BY v.embedding <=> %s LIMIT %s) "
                f"SELECT {ROW}, 1 - near.distance AS similarity FROM near JOIN memories m ON m.seq = near.seq "
                f"WHERE {sql} AND {left_out} ORDER BY near.distance, m.seq DESC LIMIT %s",
                [*args, newest - 1, vector, visible.scope.user_id, vector, fetch, *args, *left_out_args,
                 limit]).fetchall()
        return rows

    def similarities(self, user_id: str, vector, ids: Sequence[str]) -> Dict[str, float]:
        if self._dim is None or not ids:
            return {}
        with self._cursor() as cur:
            return {r["id"]: r["similarity"] for r in cur.execute(
                "SELECT id, 1 - (embedding <=> %s) AS similarity FROM memory_vectors "
                "WHERE user_id = %s AND id = ANY(%s::text[])", [vector, user_id, list(ids)])}
