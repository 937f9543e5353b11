"""Vectors of the memories in LanceDB: a derived index, rebuilt from SQLite at
will. It holds ids and vectors only, never memory text.

Every LanceDB write makes a new version and fragment, and each write scans
every fragment: ``compact()`` merges the fragments and removes the old versions
(the owner runs it every ``COMPACT_WRITES`` writes, see learning/embedding_worker.py), and
``purge()`` also removes files no version references, so that a forgotten
memory's vector is gone from the files too.

A compaction rewrites a table whole: in one table, each compaction near the
end of a 100,000-exchange fill rewrote all its vectors, and RSS peaked at 781
MB (+51 to +168 MB a compaction between 20,000 and 100,000 vectors, LanceDB
alone). So the vectors live in tables of at most ``SEGMENT_ROWS``: new
vectors go to the newest table, and a compaction rewrites only the tables
written to since the last one (the newest, and those a delete reached). This
index alone, through 200,000 vectors of 350 users (benchmarks/vector_fill.py):
RSS peak 641 MB in one table, 372 in tables of 32,768 and 333 in tables of
16,384 (with 75,000 vectors in memory), the writes 358, 129 and 137 s. A user's vectors are read from the tables that
hold any of them (a user who talked for a while sits in few).

LanceDB's session caches the metadata of every version it has seen, with no
bound by default: over 1,200 writes of 16 vectors it grew by 377 MB. This
index reads the table rarely (once per user), so the caches are kept small.

A query compares a few hundred vectors of one user: LanceDB's query planning
alone costs about 10 ms here, so searches run over an in-memory copy of each
user's vectors, read from LanceDB once and kept in step with every write and
delete (forgetting drops them from it too). The copies of the users used least
recently are dropped beyond ``CACHE_VECTORS`` vectors; when the files open, the
copies of the users heard from last are made ahead (``warm``). The copies hold each
vector as int8 codes and a scale (a quarter of float32's memory, so that the
vectors of 37 users with 2,000 memories each all fit): with the default model,
the cosines they give differed from float32's by less than 0.002
(tests/store/test_vector_index.py), and a search of 2,000 vectors takes 0.1 ms. Reading a user's vectors
back goes through a BTREE index on ``user_id`` (made when the files open;
each compaction adds the rows written since, which are scanned until then,
and drops deleted ones): 9.1 ms without it, 4.3 ms with it, for one of 50
users' 2,000 vectors in a table of 100,000. A user's first search at
200,000 vectors (350 users, each in one or two tables of 16,384) reads them
in 2.6 ms.

Native memory (tests/models/test_memory_flat.py): RSS grew by ~35 MB per 200 writes
without end. pyarrow's default pool, mimalloc, kept the pages that the
conversions of every write freed (on LanceDB's threads), 70+ MB after 600
writes while pyarrow counted nothing allocated: pyarrow allocates with the
system allocator here (``ARROW_DEFAULT_MEMORY_POOL``, read when pyarrow loads;
an owner's setting wins), whose malloc arenas are limited first, as LanceDB's
short-lived threads scatter what they free over many of them.
"""
import os
import re
import threading
import time
import warnings
from collections import OrderedDict
from datetime import timedelta
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ovos_memory_service.common.errors import EmbeddingsUnavailable
from ovos_memory_service.common.native_memory import tune_malloc

TABLE = "memory_vectors"        # the first table; the next are memory_vectors_1, _2, ...
SEGMENT_ROWS = 16_384           # vectors a table takes before the next is begun
LANCE_CACHE_BYTES = 16 << 20   # LanceDB's index and metadata caches, each
SETTLE_ROWS = 256               # vectors written for a user before they are joined to the others
CACHE_VECTORS = 75_000         # vectors kept in memory, over all users (about 40 MB at 384 dimensions, ids included)
WARM_SECONDS = 2               # reading ahead when the files open stops after this long
STEP_BYTES = 1 << 19           # float32 work per step of the int8 arithmetic (Quantized)
COMPACT_WRITES = 48            # writes (versions) between two compactions


def sql_string(value: str) -> str:
    """A string literal for a LanceDB filter."""
    return "'" + value.replace("'", "''") + "'"


class VectorIndex:
    def __init__(self, folder: Path, dim: Optional[int]):
        tune_malloc()
        os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
        try:
            import lancedb
            import pyarrow as pa
        except ImportError as e:
            raise EmbeddingsUnavailable(f"{e.name} is not installed: pip install lancedb")
        if os.environ["ARROW_DEFAULT_MEMORY_POOL"] == "system" and pa.default_memory_pool().backend_name != "system":
            pa.set_memory_pool(pa.system_memory_pool())  # pyarrow was loaded before
        self.pa = pa
        self.folder = folder
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.session = lancedb.Session(index_cache_size_bytes=LANCE_CACHE_BYTES,
                                       metadata_cache_size_bytes=LANCE_CACHE_BYTES)
        self.db = lancedb.connect(str(folder), session=self.session)
        if dim is None:  # the vectors there, whatever model made them (to delete some)
            dim = self.db.open_table(TABLE).schema.field("vector").type.list_size
        self.dim = dim
        self.schema = pa.schema([
            pa.field("seq", pa.int64()),          # the memory's rowid in SQLite
            pa.field("id", pa.string()),
            pa.field("user_id", pa.string()),
            pa.field("vector", pa.list_(pa.float32(), dim)),
        ])
        self.segments = [_Segment(self.db, name, self.schema) for name in self._segment_names()]
        built = self.segments[0].table.schema.field("vector").type.list_size
        if built != dim:
            raise ValueError(f"the vector index was built with another model; run a reindex "
                             f"(dimension {built}, now {dim})")
        self._users = OrderedDict()  # user_id -> _UserVectors, least recently used first
        # the table's files: held by writes, reads and compaction, so that
        # compaction never removes files a read is using; taken before _cache_lock
        self._files_lock = threading.Lock()
        # the in-memory copies only: a search of a cached user never waits for the files
        self._cache_lock = threading.Lock()
        self._index_users()

    def upsert(self, rows: Sequence[Tuple[int, str, str, np.ndarray]]):
        """(seq, id, user_id, vector) rows; an existing id is replaced."""
        if not rows:
            return
        pa = self.pa
        matrix = np.stack([r[3] for r in rows]).astype(np.float32)
        data = pa.table({
            "seq": pa.array([r[0] for r in rows], pa.int64()),
            "id": pa.array([r[1] for r in rows], pa.string()),
            "user_id": pa.array([r[2] for r in rows], pa.string()),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1)), self.dim),
        }, schema=self.schema)
        written = Quantized.of(matrix)  # what the cached users keep of them
        users = {user_id for _, _, user_id, _ in rows}
        with self._files_lock:
            # a user with nothing in the files has all their vectors in what is written, kept in memory as written
            unfiled = {user_id for user_id in users if not self._in_files(user_id)}
            newest = self._segment_for(len(rows))
            for older in self.segments[:-1]:  # a vector written again (its job replayed) leaves its older table
                older.delete([memory_id for seq, memory_id, _, _ in rows if seq <= older.last_seq])
            newest.merge(data, max(r[0] for r in rows), users)
            with self._cache_lock:
                for i, (seq, memory_id, user_id, _) in enumerate(rows):
                    cached = self._users.get(user_id)
                    if cached is None and user_id in unfiled:
                        cached = self._users[user_id] = _UserVectors.empty(self.dim)
                    if cached is not None:
                        cached.drop({memory_id})  # a rewritten memory replaces its vector
                        cached.new.append((seq, memory_id, written.codes[i], written.scale[i]))
                        if len(cached.new) >= SETTLE_ROWS:  # a row waiting costs half again a joined one
                            cached.settle()
                self._evict()

    def delete(self, ids: Sequence[str]) -> int:
        if not ids:
            return 0
        with self._files_lock:
            deleted = sum(segment.delete(ids) for segment in self.segments)
            with self._cache_lock:
                for cached in self._users.values():
                    cached.drop(set(ids))
        return deleted

    @property
    def writes(self) -> int:
        """Writes since the last compaction (versions left by earlier runs count too)."""
        return sum(segment.writes for segment in self.segments)

    def _segment_names(self) -> List[str]:
        """The tables in the folder, oldest first (the first, even if none is there yet)."""
        numbers = [int(m.group(1)) for m in (re.fullmatch(rf"{TABLE}_(\d+)\.lance", p.name)
                                             for p in self.folder.glob(f"{TABLE}_*.lance")) if m]
        return [TABLE, *(f"{TABLE}_{n}" for n in sorted(numbers))]

    def _segment_for(self, adding: int) -> "_Segment":
        """The newest table, or a new one if ``adding`` vectors would pass SEGMENT_ROWS."""
        newest = self.segments[-1]
        if newest.rows and newest.rows + adding > SEGMENT_ROWS:
            newest = _Segment(self.db, f"{TABLE}_{len(self.segments)}", self.schema)
            self.segments.append(newest)
        return newest

    def _in_files(self, user_id: str) -> bool:
        return any(user_id in segment.users for segment in self.segments)

    def _read(self, columns: List[str], user_id: Optional[str] = None):
        """``columns`` of the rows of every table (``user_id``: of that user's,
        from the tables that hold any)."""
        parts = []
        for segment in self.segments:
            if segment.rows and (user_id is None or user_id in segment.users):
                query = segment.table.search()
                if user_id is not None:
                    query = query.where(f"user_id = {sql_string(user_id)}")
                parts.append(query.select(columns).limit(None).to_arrow())
        return self.pa.concat_tables(parts) if parts else None

    def _user_vectors(self, user_id: str) -> "_Snapshot":
        """The user's vectors, as they are now; read from the table once,
        then from memory (so a search does not wait for a compaction)."""
        while True:
            with self._cache_lock:
                cached = self._users.get(user_id)
                if cached is not None:
                    self._users.move_to_end(user_id)
                    found = cached.settle()
                    self._evict()
                    return found
            with self._files_lock:  # no write lands between the read and the copy
                with self._cache_lock:
                    if user_id in self._users:  # another search read them meanwhile
                        continue
                rows = self._read(["seq", "id", "vector"], user_id)
                if rows is None:
                    copy = _UserVectors.empty(self.dim)
                else:
                    matrix = np.asarray(rows["vector"].combine_chunks().flatten().to_numpy(),
                                        dtype=np.float32).reshape(-1, self.dim)
                    copy = _UserVectors(np.asarray(rows["seq"].to_pylist(), dtype=np.int64), rows["id"].to_pylist(),
                                        matrix)  # outside the cache's lock: searches of others go on
                with self._cache_lock:
                    self._users.setdefault(user_id, copy)

    def warm(self, users: Sequence[Tuple[str, int]]):
        """Copy the vectors of ``users`` ((user_id, about how many), those to
        keep most first) into memory, as many as the budget holds, for at most
        ``WARM_SECONDS``, so that their first searches do not read the files
        (a few ms each, 40 ms for 6,000 vectors)."""
        fitting, total = [], 0
        for user_id, count in users:
            if total + count <= CACHE_VECTORS:
                fitting.append(user_id)
                total += count
        deadline = time.monotonic() + WARM_SECONDS
        for user_id in fitting:
            if time.monotonic() > deadline:
                break
            self._user_vectors(user_id)
        with self._cache_lock:
            for user_id in reversed(fitting):  # the first named is evicted last
                if user_id in self._users:
                    self._users.move_to_end(user_id)

    def _evict(self):
        """Forget the copies of the users used least recently, beyond the budget."""
        total = sum(len(c) for c in self._users.values())
        while total > CACHE_VECTORS and len(self._users) > 1:
            total -= len(self._users.popitem(last=False)[1])

    def search(self, vector: np.ndarray, user_id: str, min_seq: int, limit: int) -> List[Tuple[str, float]]:
        """(id, cosine similarity) of the user's nearest vectors with seq >= min_seq."""
        user = self._user_vectors(user_id)
        candidates = np.flatnonzero(user.seq >= min_seq)
        found = min(limit, len(candidates))
        if found <= 0:
            return []
        similarity = user.cosines(vector)[candidates]
        ids = user.ids
        best = np.argpartition(-similarity, found - 1)[:found]
        best = best[np.argsort(-similarity[best])]
        return [(ids[candidates[i]], float(similarity[i])) for i in best]

    def similarities(self, vector: np.ndarray, user_id: str, ids: Sequence[str]) -> dict:
        """id -> cosine similarity, for those of ``ids`` that have a vector of the user."""
        user = self._user_vectors(user_id)
        rows = user.rows_of(ids)
        if not rows:
            return {}
        similarity = user.cosines(vector)[rows]
        return {user.ids[i]: float(s) for i, s in zip(rows, similarity)}

    def spread(self, vector: np.ndarray, user_id: str, newest: int) -> Optional[Tuple[float, float, int]]:
        """Mean and standard deviation of the cosine similarities of the user's
        ``newest`` newest vectors to ``vector``, and how many (None: none)."""
        user = self._user_vectors(user_id)
        if not len(user.seq):
            return None
        similarity = user.cosines(vector)[user.newest(newest)]
        return float(similarity.mean()), float(similarity.std()), len(similarity)

    def count(self) -> int:
        with self._files_lock:
            return sum(segment.table.count_rows() for segment in self.segments)

    def ids(self) -> set:
        with self._files_lock:
            found = self._read(["id"])
            return set(found["id"].to_pylist()) if found is not None else set()

    def vectors(self) -> Dict[str, np.ndarray]:
        """id -> vector, of every memory (a move to another store)."""
        with self._files_lock:
            found = self._read(["id", "vector"])
        if found is None:
            return {}
        matrix = np.asarray(found["vector"].combine_chunks().flatten().to_numpy(), dtype=np.float32)
        return dict(zip(found["id"].to_pylist(), matrix.reshape(len(found), -1)))

    def compact(self, unreferenced: bool = False):
        """Merge the fragments of the tables written to and remove their old
        versions (and with ``unreferenced``, of every table, files of writes a
        crash interrupted, whatever their age): deleted vectors leave the
        files. Reads of the files wait."""
        with self._files_lock:
            for segment in self.segments:
                if segment.writes or unreferenced:
                    segment.compact(unreferenced)

    def _index_users(self):
        for segment in self.segments:
            segment.index_users()

    def purge(self):
        """Compact and drop every old version: deleted vectors leave the files."""
        self.compact(unreferenced=True)

    def drop(self):
        """Remove the tables and their files (the vectors of another model)."""
        with self._files_lock, self._cache_lock:
            self._drop_tables()

    def clear(self):
        with self._files_lock, self._cache_lock:
            self._drop_tables()
            self.segments = [_Segment(self.db, TABLE, self.schema)]
        self.purge()

    def _drop_tables(self):
        """(Both locks held.)"""
        for segment in self.segments:
            self.db.drop_table(segment.name)
        self._users.clear()


class _Segment:
    """One table of the index: the newest takes the new vectors until it
    holds SEGMENT_ROWS; a delete may reach any."""

    def __init__(self, db, name: str, schema):
        self.name = name
        self.table = db.create_table(name, schema=schema, exist_ok=True)
        self.writes = len(self.table.list_versions()) - 1  # since its last compaction
        self.rows = self.table.count_rows()
        self.deleted = self.writes > 0  # since the last compaction (a run killed before it may have deleted)
        held = self.table.search().select(["seq", "user_id"]).limit(None).to_arrow() if self.rows else None
        self.last_seq = int(held["seq"].to_numpy().max()) if held is not None else -1  # no memory of a later seq is here
        # the users it holds vectors of (or held: a delete leaves them here), whose reads look here
        self.users = set(held["user_id"].unique().to_pylist()) if held is not None else set()

    def merge(self, data, last_seq: int, users: set):
        """Write ``data``'s rows (of ``users``), replacing those of the same ids."""
        self.table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(data)
        self.writes += 1
        self.rows = self.table.count_rows()
        self.last_seq = max(self.last_seq, last_seq)
        self.users |= users

    def delete(self, ids: Sequence[str]) -> int:
        """Delete the rows of ``ids``: a table that holds none is not written
        to (a delete that matches nothing still makes a version)."""
        if not ids or not self.rows:
            return 0
        matching = "id IN (" + ", ".join(sql_string(i) for i in ids) + ")"
        found = self.table.count_rows(matching)
        if found:
            self.table.delete(matching)
            self.writes += 1
            self.rows -= found
            self.deleted = True
        return found

    def compact(self, unreferenced: bool):
        """Merge the fragments and drop the old versions (``unreferenced``:
        also files no version names); the user index is made anew if rows were
        deleted, as it may keep the name of a user whose rows are all gone."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "removes every version except the latest": wanted
            # first: the optimization brings the index up to date, the clean-up drops old versions
            self.index_users(anew=self.deleted)
            self.table.optimize(cleanup_older_than=timedelta(0), delete_unverified=unreferenced)
        self.writes, self.deleted = 0, False

    def index_users(self, anew: bool = False):
        """The index on user_id, once the table has rows (tens of ms at 100k)."""
        indexed = [i.name for i in self.table.list_indices() if i.columns == ["user_id"]]
        if anew:
            for name in indexed:
                self.table.drop_index(name)
            indexed = []
        if self.rows and not indexed:
            from lancedb.index import BTree
            self.table.create_index("user_id", config=BTree())


class Quantized(NamedTuple):
    """Unit vectors as int8 codes, each row with its scale: row ~= codes * scale.
    Arithmetic runs over ``STEP_BYTES`` of float32 at a time: blocks under
    malloc's mmap threshold (common/native_memory.py) are reused, where a matrix-sized
    temporary would be mapped afresh, and its pages faulted in, on every search."""
    codes: np.ndarray
    scale: np.ndarray

    @classmethod
    def of(cls, matrix: np.ndarray) -> "Quantized":
        scale = np.maximum(matrix.max(axis=1, initial=0.0), -matrix.min(axis=1, initial=0.0)) / 127.0
        scale[scale == 0] = 1.0
        inverse = 1.0 / scale
        codes = np.empty(matrix.shape, np.int8)
        for part in _steps(matrix):
            codes[part] = np.rint(matrix[part] * inverse[part, None])
        return cls(codes, scale.astype(np.float32))

    def cosines(self, vector: np.ndarray) -> np.ndarray:
        """Cosine similarity of ``vector`` (unit length) to every row."""
        dots = np.empty(len(self.codes), np.float32)
        for part in _steps(self.codes):
            dots[part] = self.codes[part] @ vector
        return dots * self.scale

    def joined(self, other: "Quantized") -> "Quantized":
        return Quantized(np.vstack([self.codes, other.codes]), np.concatenate([self.scale, other.scale]))

    def rows(self, keep) -> "Quantized":
        return Quantized(self.codes[keep], self.scale[keep])


def _steps(matrix: np.ndarray) -> List[slice]:
    size = max(1, STEP_BYTES // (4 * max(1, matrix.shape[1])))
    return [slice(i, i + size) for i in range(0, len(matrix), size)]


class _Snapshot:
    """One user's vectors as they were at one moment: what a search reads,
    never changed under it. A build compares one query with the user's
    vectors three times (nearest, the candidates' cosines, their spread):
    the cosines of the last few queries are kept with the snapshot."""
    QUERIES_KEPT = 4

    def __init__(self, seq: np.ndarray, ids: list, vectors: "Quantized"):
        self.seq, self.ids, self.vectors = seq, ids, vectors
        self._rows = None      # id -> row, made when first asked
        self._order = None     # rows, oldest first, made when first asked
        self._compared = []    # (query vector, its cosines), newest last

    def cosines(self, vector: np.ndarray) -> np.ndarray:
        """The cosine of ``vector`` to every vector (the same query vector
        object, as models/queries.py hands it out, gives the same array)."""
        for query, found in self._compared:
            if query is vector:
                return found
        found = self.vectors.cosines(vector)
        self._compared = [*self._compared[-(self.QUERIES_KEPT - 1):], (vector, found)]
        return found

    def rows_of(self, ids: Sequence[str]) -> List[int]:
        if self._rows is None:
            self._rows = {memory_id: row for row, memory_id in enumerate(self.ids)}
        return [self._rows[i] for i in ids if i in self._rows]

    def newest(self, count: int):
        """The rows of the ``count`` newest vectors."""
        if len(self.seq) <= count:
            return slice(None)
        if self._order is None:
            self._order = np.argsort(self.seq)
        return self._order[-count:]


class _UserVectors:
    """One user's vectors in memory, quantized. New ones (``new``: (seq, id,
    codes, scale), quantized as written: a fill writes many before a search)
    are joined to the others once, when the user is searched next, not
    copied on every write; a change makes a new snapshot."""

    def __init__(self, seq: np.ndarray, ids: list, matrix: np.ndarray):
        self.current = _Snapshot(seq, ids, Quantized.of(matrix))
        self.new = []

    @classmethod
    def empty(cls, dim: int) -> "_UserVectors":
        return cls(np.empty(0, np.int64), [], np.empty((0, dim), np.float32))

    def __len__(self):
        return len(self.current.ids) + len(self.new)

    def settle(self) -> _Snapshot:
        if self.new:
            now = self.current
            self.current = _Snapshot(
                np.concatenate([now.seq, np.array([n[0] for n in self.new], dtype=np.int64)]),
                [*now.ids, *(n[1] for n in self.new)],
                now.vectors.joined(Quantized(np.stack([n[2] for n in self.new]),
                                             np.array([n[3] for n in self.new], dtype=np.float32))))
            self.new = []
        return self.current

    def drop(self, ids: set):
        self.new = [n for n in self.new if n[1] not in ids]
        now = self.current
        keep = [i for i, memory_id in enumerate(now.ids) if memory_id not in ids]
        if len(keep) != len(now.ids):
            self.current = _Snapshot(now.seq[keep], [now.ids[i] for i in keep], now.vectors.rows(keep))
