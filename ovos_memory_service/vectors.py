"""Vectors of the memories in LanceDB: a derived index, rebuilt from SQLite at
will. It holds ids and vectors only, never memory text.

Every LanceDB write makes a new version and fragment: ``compact()`` merges
fragments (run on a schedule) and ``purge()`` also removes every old version,
so that a forgotten memory's vector is gone from the files too.

A query compares a few hundred vectors of one user: LanceDB's query planning
alone costs about 10 ms here, so searches run over an in-memory copy of each
user's vectors, read from LanceDB once and kept in step with every write and
delete (forgetting drops them from it too).
"""
import threading
from datetime import timedelta
from pathlib import Path
from typing import List, Sequence, Tuple

import numpy as np

TABLE = "memory_vectors"


def sql_string(value: str) -> str:
    """A string literal for a LanceDB filter."""
    return "'" + value.replace("'", "''") + "'"


class VectorIndex:
    def __init__(self, folder: Path, dim: int):
        try:
            import lancedb
            import pyarrow as pa
        except ImportError as e:
            from ovos_memory_service.embeddings import EmbeddingsUnavailable
            raise EmbeddingsUnavailable(f"{e.name} is not installed: pip install lancedb")
        self.pa = pa
        self.dim = dim
        self.schema = pa.schema([
            pa.field("seq", pa.int64()),          # the memory's rowid in SQLite
            pa.field("id", pa.string()),
            pa.field("user_id", pa.string()),
            pa.field("vector", pa.list_(pa.float32(), dim)),
        ])
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.db = lancedb.connect(str(folder))
        self.table = self.db.create_table(TABLE, schema=self.schema, exist_ok=True)
        if self.table.schema.field("vector").type.list_size != dim:
            raise ValueError(f"the vector index was built with another model; run a reindex "
                             f"(dimension {self.table.schema.field('vector').type.list_size}, now {dim})")
        self._users = {}  # user_id -> {"seq": array, "id": list, "vector": matrix}
        self._cache_lock = threading.Lock()

    def upsert(self, rows: Sequence[Tuple[int, str, str, np.ndarray]]):
        """(seq, id, user_id, vector) rows; an existing id is replaced."""
        if not rows:
            return
        pa = self.pa
        data = pa.table({
            "seq": pa.array([r[0] for r in rows], pa.int64()),
            "id": pa.array([r[1] for r in rows], pa.string()),
            "user_id": pa.array([r[2] for r in rows], pa.string()),
            "vector": pa.FixedSizeListArray.from_arrays(
                pa.array(np.stack([r[3] for r in rows]).astype(np.float32).reshape(-1)), self.dim),
        }, schema=self.schema)
        self.table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(data)
        with self._cache_lock:
            for seq, memory_id, user_id, vector in rows:
                if user_id in self._users:
                    self._drop_cached({memory_id}, [user_id])
                    self._users[user_id] = _append(self._users[user_id], seq, memory_id, vector)

    def delete(self, ids: Sequence[str]) -> int:
        if not ids:
            return 0
        result = self.table.delete("id IN (" + ", ".join(sql_string(i) for i in ids) + ")")
        with self._cache_lock:
            self._drop_cached(set(ids), list(self._users))
        return getattr(result, "num_deleted_rows", 0) or 0

    def _drop_cached(self, ids: set, users: list):
        for user_id in users:
            cached = self._users[user_id]
            keep = [i for i, memory_id in enumerate(cached["id"]) if memory_id not in ids]
            if len(keep) != len(cached["id"]):
                self._users[user_id] = {"seq": cached["seq"][keep], "vector": cached["vector"][keep],
                                        "id": [cached["id"][i] for i in keep]}

    def _user_vectors(self, user_id: str) -> dict:
        with self._cache_lock:
            if user_id not in self._users:
                rows = (self.table.search().where(f"user_id = {sql_string(user_id)}")
                        .select(["seq", "id", "vector"]).limit(None).to_arrow())
                matrix = np.asarray(rows["vector"].combine_chunks().flatten().to_numpy(),
                                    dtype=np.float32).reshape(-1, self.dim)
                self._users[user_id] = {"seq": np.asarray(rows["seq"].to_pylist(), dtype=np.int64),
                                        "id": rows["id"].to_pylist(), "vector": matrix}
            return self._users[user_id]

    def search(self, vector: np.ndarray, user_id: str, min_seq: int, limit: int) -> List[Tuple[str, float]]:
        """(id, cosine similarity) of the user's nearest vectors with seq >= min_seq."""
        cached = self._user_vectors(user_id)
        candidates = np.flatnonzero(cached["seq"] >= min_seq)
        if not len(candidates):
            return []
        similarity = cached["vector"][candidates] @ vector  # vectors are unit length
        order = np.argsort(-similarity)[:limit]
        return [(cached["id"][candidates[i]], float(similarity[i])) for i in order]

    def similarities(self, vector: np.ndarray, user_id: str, ids: Sequence[str]) -> dict:
        """id -> cosine similarity, for those of ``ids`` that have a vector of the user."""
        cached = self._user_vectors(user_id)
        wanted = set(ids)
        rows = [i for i, memory_id in enumerate(cached["id"]) if memory_id in wanted]
        if not rows:
            return {}
        similarity = cached["vector"][rows] @ vector
        return {cached["id"][i]: float(s) for i, s in zip(rows, similarity)}

    def count(self) -> int:
        return self.table.count_rows()

    def ids(self) -> set:
        return set(self.table.to_arrow()["id"].to_pylist())

    def compact(self):
        """Merge small fragments; old versions older than an hour go too."""
        self.table.optimize(cleanup_older_than=timedelta(hours=1))

    def purge(self):
        """Compact and drop every old version: deleted vectors leave the files."""
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "removes every version except the latest": wanted
            self.table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)

    def clear(self):
        self.db.drop_table(TABLE)
        self.table = self.db.create_table(TABLE, schema=self.schema, exist_ok=True)
        with self._cache_lock:
            self._users.clear()
        self.purge()


def _append(cached: dict, seq: int, memory_id: str, vector: np.ndarray) -> dict:
    return {"seq": np.append(cached["seq"], seq), "id": [*cached["id"], memory_id],
            "vector": np.vstack([cached["vector"], np.asarray(vector, dtype=np.float32)[None, :]])}
