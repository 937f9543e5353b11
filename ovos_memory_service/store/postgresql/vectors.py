"""Semantic recall with pgvector: table ``memory_vectors`` (seq, id, user_id,
embedding vector(dim)), made by ``open_vectors`` once the model's dimension
is known, with an HNSW index (vector_cosine_ops). A vector goes with its
memory (ON DELETE CASCADE), in the transaction that deletes it.

``nearest`` compares the query with the vectors of the ``newest`` visible
memories (``recall_embeddings_limit``) in one statement: an exact scan of
those vectors up to ``EXACT_NEWEST``; beyond that the HNSW index, filtered by
user with pgvector's iterative scans, then by visibility.

While another model fills its own vectors (``begin_reembedding``), they go
to ``memory_vectors_next``, made alike; the commit that ends it drops the old
table, renames the new one and tells the other daemons ("vectors").
"""
import json
from contextlib import contextmanager
from typing import Dict, List, Optional, Sequence, Tuple

from ovos_memory_service.common.errors import EmbeddingsUnavailable
from ovos_memory_service.store.base import Exclude, ModelChanged, Visible, vectors_of_another_model
from ovos_memory_service.store.postgresql.connection import MIGRATION_LOCK
from ovos_memory_service.store.postgresql.memories import AS_NEW, ROW, condition, excluding
from ovos_memory_service.store.sql import EMBEDDABLE, EMBED_QUEUES, NEXT_MODEL_KEY

EXACT_NEWEST = 5000   # more candidates than this: the HNSW index
HNSW_MAX_DIM = 2000   # pgvector's limit for an HNSW index of vector columns
TABLE, NEXT_TABLE = "memory_vectors", "memory_vectors_next"
# read in the statement that compares: its rows and this agree
SEARCHED_MODEL = "(SELECT value FROM settings WHERE key = 'vector_model') AS searched_model"


class Vectors:
    """PostgresStore's vectors (self._dim: None until open_vectors; self._model,
    the model that made those searched, and self._next_model, the one filling
    NEXT_TABLE, as this daemon last knew them)."""

    def _vectors_table_exists(self) -> bool:
        with self._cursor() as cur:
            return cur.execute("SELECT to_regclass('memory_vectors') IS NOT NULL AS found").fetchone()["found"]

    def _stored_dim(self, cur, table: str = TABLE):
        row = cur.execute("SELECT a.atttypmod AS dim FROM pg_attribute a WHERE a.attrelid = "
                          "to_regclass(%s) AND a.attname = 'embedding'", [table]).fetchone()
        return row["dim"] if row else None

    @staticmethod
    def _create_table(cur, table: str, dim: int):
        cur.execute(f"CREATE TABLE {table} (seq BIGINT PRIMARY KEY REFERENCES memories (seq) "
                    f"ON DELETE CASCADE, id TEXT NOT NULL UNIQUE, user_id TEXT NOT NULL, "
                    f"embedding vector({int(dim)}) NOT NULL)")
        cur.execute(f"CREATE INDEX {table}_user ON {table} (user_id, seq)")
        if dim <= HNSW_MAX_DIM:
            cur.execute(f"CREATE INDEX {table}_hnsw ON {table} USING hnsw (embedding vector_cosine_ops)")

    def open_vectors(self, model: Optional[str], dim: int) -> int:
        if self._vector_schema is None:
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
                self._create_table(cur, TABLE, dim)
            if model is not None and recorded != model:
                self._set_setting(cur, "vector_model", model)
                self._tell_model(cur, model)
        self._dim, self._model = dim, model or recorded
        return queued

    def _tell_model(self, cur, model: str):
        """Daemons already running with another model stop comparing with these."""
        cur.execute("SELECT pg_notify(%s, %s)", [self._channel("vectors"),
                                                  json.dumps({"model": model, "from": self.claimant})])

    def _heard_vectors(self, event: str, data: dict):
        """Another daemon's commit made the vectors searched ``model``'s (store.listen)."""
        if event == "vectors":
            self._model, self._next_model = data.get("model"), None

    @staticmethod
    def _set_setting(cur, key: str, value: Optional[str]):
        if value is None:
            cur.execute("DELETE FROM settings WHERE key = %s", [key])
        else:
            cur.execute("INSERT INTO settings (key, value) VALUES (%s, %s) "
                        "ON CONFLICT (key) DO UPDATE SET value = excluded.value", [key, value])

    @staticmethod
    def _setting(cur, key: str) -> Optional[str]:
        row = cur.execute("SELECT value FROM settings WHERE key = %s", [key]).fetchone()
        return row["value"] if row else None

    def begin_reembedding(self, model: str, dim: int) -> int:
        with self.transaction(), self._cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [MIGRATION_LOCK])
            if self._setting(cur, NEXT_MODEL_KEY) != model or self._stored_dim(cur, NEXT_TABLE) != dim:
                self._drop_next(cur)
                self._create_table(cur, NEXT_TABLE, dim)
                self._set_setting(cur, NEXT_MODEL_KEY, model)
                cur.execute(f"INSERT INTO jobs (queue, subject) SELECT 'reembed', m.id FROM memories m "
                            f"WHERE {EMBEDDABLE} ORDER BY m.seq {AS_NEW}")
            self._next_model = model
            return self.pending(("reembed",))

    def reembedding(self) -> Optional[str]:
        with self._cursor() as cur:
            return self._setting(cur, NEXT_MODEL_KEY)

    def end_reembedding(self, model: str) -> bool:
        with self.transaction(), self._cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [MIGRATION_LOCK])
            if self._setting(cur, NEXT_MODEL_KEY) != model:
                done = self._recorded_model(cur) == model
            elif cur.execute("SELECT 1 FROM jobs WHERE queue = 'reembed' LIMIT 1").fetchone():
                return False
            else:
                cur.execute(f"DROP TABLE IF EXISTS {TABLE}")
                cur.execute(f"ALTER TABLE {NEXT_TABLE} RENAME TO {TABLE}")
                for index in ("user", "hnsw"):
                    cur.execute(f"ALTER INDEX IF EXISTS {NEXT_TABLE}_{index} RENAME TO {TABLE}_{index}")
                self._set_setting(cur, "vector_model", model)
                self._set_setting(cur, NEXT_MODEL_KEY, None)
                self._tell_model(cur, model)
                done = True
            if done:
                self._dim, self._model, self._next_model = self._stored_dim(cur), model, None
            return done

    def cancel_reembedding(self):
        with self.transaction(), self._cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [MIGRATION_LOCK])
            self._drop_next(cur)
        self._next_model = None

    def _drop_next(self, cur):
        cur.execute(f"DROP TABLE IF EXISTS {NEXT_TABLE}")
        cur.execute("DELETE FROM jobs WHERE queue = 'reembed'")
        self._set_setting(cur, NEXT_MODEL_KEY, None)

    def vector_model(self) -> Optional[str]:
        with self._cursor() as cur:
            return self._recorded_model(cur)

    def _recorded_model(self, cur) -> Optional[str]:
        return self._setting(cur, "vector_model")

    def _queue_every_memory(self, cur) -> int:
        cur.execute(f"INSERT INTO jobs (queue, subject) SELECT q.queue, m.id FROM memories m, {EMBED_QUEUES} "
                    f"WHERE {EMBEDDABLE} ORDER BY m.seq {AS_NEW}")
        return self.pending(("embed",))  # on this transaction's connection

    def _table_of(self, cur, model: Optional[str]) -> str:
        """The table that keeps ``model``'s vectors (None: the searched ones), as
        committed: the caller holds the model lock shared, so no change begins or
        ends before its transaction does (another daemon's may just have)."""
        cur.execute("SELECT pg_advisory_xact_lock_shared(hashtext(%s))", [MIGRATION_LOCK])
        recorded = self._recorded_model(cur)
        if model is None or model == recorded:
            return TABLE
        if model == self._setting(cur, NEXT_MODEL_KEY):
            return NEXT_TABLE
        self._found_model(recorded)
        raise ModelChanged(recorded)

    def save_vectors(self, jobs: Dict[int, Tuple[dict, object]], model: Optional[str] = None) -> int:
        with self.transaction(durable=False), self._cursor() as cur:
            table = self._table_of(cur, model)
            # only jobs still queued (and held until this commits): a memory
            # forgotten or rewritten meanwhile lost its job or got a new one
            queued = self._still_queued(cur, list(jobs))
            rows = [(row["seq"], row["id"], row["user_id"], vector)
                    for job_id, (row, vector) in jobs.items() if job_id in queued]
            cur.executemany(f"INSERT INTO {table} (seq, id, user_id, embedding) VALUES (%s, %s, %s, %s) "
                            "ON CONFLICT (seq) DO UPDATE SET embedding = excluded.embedding", rows)
            cur.execute("DELETE FROM jobs WHERE id = ANY(%s::bigint[])", [list(queued)])
        return len(rows)

    def rebuild_vectors(self) -> int:
        with self.transaction(), self._cursor() as cur:
            for table in (TABLE, NEXT_TABLE):
                if self._stored_dim(cur, table) is not None:
                    cur.execute(f"TRUNCATE {table}")  # new files: the old vectors leave the disk
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

    def _check_model(self, model: Optional[str]):
        if model is not None and self._model is not None and model != self._model:
            raise ModelChanged(self._model)

    @contextmanager
    def _comparing(self, model: Optional[str]):
        """A comparison that failed because the vectors became another model's
        (of another dimension) a moment ago raises ModelChanged."""
        try:
            yield
        except Exception:
            with self._cursor() as cur:
                recorded = self._recorded_model(cur)
            if model is None or recorded in (None, model):
                raise
            self._found_model(recorded)
            raise ModelChanged(recorded)

    def nearest(self, visible: Visible, vector, limit: int, newest: int,
                exclude: Exclude = Exclude(), model: Optional[str] = None) -> List[dict]:
        self._check_model(model)
        if self._dim is None or limit <= 0:
            return []
        sql, args = condition(visible)
        left_out, left_out_args = excluding(exclude)
        if newest <= EXACT_NEWEST:
            with self._comparing(model), self._cursor(visible.scope.user_id) as cur:
                # MATERIALIZED, and ordered by the computed distance: an exact
                # comparison, never the approximate index (which would stop at ef_search rows)
                rows = cur.execute(
                    f"WITH newest AS MATERIALIZED (SELECT m.seq FROM memories m WHERE {sql} "
                    "ORDER BY m.seq DESC LIMIT %s), near AS MATERIALIZED (SELECT v.seq, "
                    "v.embedding <=> %s AS distance FROM newest n JOIN memory_vectors v ON v.seq = n.seq) "
                    f"SELECT {ROW}, 1 - near.distance AS similarity, {SEARCHED_MODEL} FROM near "
                    f"JOIN memories m ON m.seq = near.seq WHERE {left_out} ORDER BY near.distance, m.seq DESC LIMIT %s",
                    [*args, newest, vector, *left_out_args, limit]).fetchall()
            return self._of_model(rows, model)
        fetch = 4 * limit + len(exclude.ids) + 8
        with self._comparing(model), self.transaction(), self._cursor(visible.scope.user_id) as cur:
            cur.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            cur.execute(f"SET LOCAL hnsw.ef_search = {max(40, min(1000, fetch))}")
            rows = cur.execute(
                f"WITH floor AS MATERIALIZED (SELECT m.seq FROM memories m WHERE {sql} ORDER BY m.seq DESC "
                "LIMIT 1 OFFSET %s), near AS MATERIALIZED (SELECT v.seq, v.embedding <=> %s AS distance "
                "FROM memory_vectors v WHERE v.user_id = %s AND v.seq >= coalesce((SELECT seq FROM floor), 0) "
                "ORDER BY v.embedding <=> %s LIMIT %s) "
                f"SELECT {ROW}, 1 - near.distance AS similarity, {SEARCHED_MODEL} FROM near "
                f"JOIN memories m ON m.seq = near.seq WHERE {sql} AND {left_out} ORDER BY near.distance, m.seq DESC "
                "LIMIT %s",
                [*args, newest - 1, vector, visible.scope.user_id, vector, fetch, *args, *left_out_args,
                 limit]).fetchall()
        return self._of_model(rows, model)

    def _of_model(self, rows: List[dict], model: Optional[str]) -> List[dict]:
        """``rows`` (with SEARCHED_MODEL), if the vectors they were compared with
        are ``model``'s: another daemon may have ended a change a moment ago."""
        searched = [row.pop("searched_model") for row in rows][:1]
        if model is not None and searched and searched[0] is not None and searched[0] != model:
            self._found_model(searched[0])
            raise ModelChanged(searched[0])
        return rows

    def _found_model(self, model: str):
        """A statement showed the vectors are ``model``'s, which this daemon had
        not heard (a notification lost, or still on its way): its listeners hear
        it now, as if told by the daemon that made them so."""
        if model != self._model:
            self._presence.deliver("vectors", {"model": model})

    def similarities(self, user_id: str, vector, ids: Sequence[str],
                     model: Optional[str] = None) -> Dict[str, float]:
        self._check_model(model)
        if self._dim is None or not ids:
            return {}
        with self._comparing(model), self._cursor() as cur:
            rows = cur.execute(f"SELECT id, 1 - (embedding <=> %s) AS similarity, {SEARCHED_MODEL} "
                               "FROM memory_vectors WHERE user_id = %s AND id = ANY(%s::text[])",
                               [vector, user_id, list(ids)]).fetchall()
        return {r["id"]: r["similarity"] for r in self._of_model(rows, model)}

    def similarity_spread(self, user_id: str, vector, newest: int,
                          model: Optional[str] = None) -> Optional[Tuple[float, float, int]]:
        self._check_model(model)
        if self._dim is None:
            return None
        with self._comparing(model), self._cursor() as cur:
            rows = cur.execute(f"WITH near AS MATERIALIZED (SELECT 1 - (embedding <=> %s) AS similarity "
                               "FROM memory_vectors WHERE user_id = %s ORDER BY seq DESC LIMIT %s) "
                               f"SELECT avg(similarity) AS mean, stddev_pop(similarity) AS std, count(*) AS n, "
                               f"{SEARCHED_MODEL} FROM near", [vector, user_id, newest]).fetchall()
        row = self._of_model(rows, model)[0]
        return (float(row["mean"]), float(row["std"]), int(row["n"])) if row["n"] else None
