"""SQLite's vectors: LanceDB files in the data directory (lance_index.py), a
derived index rebuilt from SQLite at will, kept by the store as PostgreSQL's
store keeps its pgvector tables (postgresql/vectors.py).

The vectors searched live in the folder the setting "vector_folder" names
("vectors" until a model change), those the next model fills in its own
(NEXT_MODEL_KEY, FOLDER_PREFIX + the model): a model change ends with one
commit naming the new folder, and a folder named by neither is removed at start.
"""
import re
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from ovos_memory_service.store.base import Exclude, ModelChanged, Visible, vectors_of_another_model
from ovos_memory_service.store.sql import EMBEDDABLE, EMBED_QUEUES, NEXT_MODEL_KEY
from ovos_memory_service.store.sqlite.lance_index import COMPACT_WRITES, TABLE, VectorIndex
from ovos_memory_service.store.sqlite.memories import as_json, condition, excluding

FOLDER_PREFIX = "vectors-of-"  # the folder of a model's vectors after a model change


class Vectors:
    """SqliteStore's vectors (self._live: (the index searched, the model that
    made it), self._next: the next model's index while it embeds every memory;
    both set up by the store's constructor)."""

    def open_vectors(self, model: Optional[str], dim: int) -> int:
        queued = 0
        with self._lock:
            self._remove_stray_folders()
            recorded, files = self.vector_model(), self._vector_files()
            if vectors_of_another_model(files.dim if files is not None else None, dim, recorded, model):
                # queued first: a crash before the old vectors are gone queues them again
                queued = self._queue_every_memory()
                files.drop()
                files = None
            vectors = files if files is not None and files.dim == dim else VectorIndex(self._live_folder(), dim)
            if model is not None and recorded != model:
                with self.transaction():
                    self._set_setting("vector_model", model)
            self._live = (vectors, model or recorded)
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
        return self._setting("vector_model")

    def _setting(self, key: str) -> Optional[str]:
        with self._reading() as db:
            row = db.execute("SELECT value FROM settings WHERE key = ?", [key]).fetchone()
        return row[0] if row else None

    def _set_setting(self, key: str, value: Optional[str]):
        """In the caller's transaction; None removes it."""
        if value is None:
            self.db.execute("DELETE FROM settings WHERE key = ?", [key])
        else:
            self.db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", [key, value])

    def _live_folder(self) -> Path:
        return self.directory / (self._setting("vector_folder") or "vectors")

    def _remove_stray_folders(self):
        """Vector folders named by no setting: a model change a crash cut short."""
        kept, upcoming = {self._live_folder()}, self.reembedding()
        if upcoming:
            kept.add(self._next_folder(upcoming))
        for folder in self.directory.glob("vectors*"):  # this store's own names only
            if folder not in kept and folder.is_dir() and (folder.name == "vectors"
                                                           or folder.name.startswith(FOLDER_PREFIX)):
                shutil.rmtree(folder, ignore_errors=True)

    def _next_folder(self, model: str) -> Path:
        """Never the live folder (which may be named after ``model`` too: a change
        to it that dropped the old vectors, then one away from it)."""
        name = FOLDER_PREFIX + re.sub(r"[^A-Za-z0-9._-]+", "-", model)
        return self.directory / (name + "-2" if name == self._live_folder().name else name)

    def _vector_files(self):
        """The vector index, opened from its files if the model is not loaded
        (yet, or in this command): what is forgotten leaves them too."""
        with self._lock:  # not while open_vectors is creating the table
            folder = self._live_folder()
            if self._vectors is None and (folder / f"{TABLE}.lance").exists():
                self._live = (VectorIndex(folder, None), self.vector_model())
            return self._vectors

    @property
    def _vectors(self):
        return self._live[0]

    def _next_files(self):
        """The next model's vector index, opened from its files as _vector_files."""
        with self._lock:
            model = self.reembedding()
            if self._next is None and model and (self._next_folder(model) / f"{TABLE}.lance").exists():
                self._next = VectorIndex(self._next_folder(model), None)
            return self._next if model else None

    def _vectors_of(self, model: Optional[str]):
        """The index that keeps ``model``'s vectors (None: the searched ones)."""
        vectors, live = self._live
        if model is None or model == live:
            return vectors
        if self._next is not None and model == self.reembedding():
            return self._next
        raise ModelChanged(live)

    def save_vectors(self, jobs: Dict[int, Tuple[dict, object]], model: Optional[str] = None) -> int:
        # only jobs still queued: a memory forgotten or rewritten meanwhile
        # lost its job (or got a new one, with a new id)
        with self._lock:
            vectors = self._vectors_of(model)
            queued = self._still_queued(list(jobs))
        # the vector files' own lock, not the store's: turns are stored meanwhile
        vectors.upsert([(row["seq"], row["id"], row["user_id"], vector)
                        for job_id, (row, vector) in jobs.items() if job_id in queued])
        with self.transaction(durable=False):
            done = self.finish(list(queued))
            gone = [jobs[job_id][0]["id"] for job_id in queued - done]
            if gone:  # forgotten (or rewritten) while their vectors were written: not kept
                vectors.delete(gone)
                self._when_committed(vectors.purge)
        return len(done)

    def begin_reembedding(self, model: str, dim: int) -> int:
        with self._lock:
            if self.reembedding() != model or not self._next_folder(model).exists():  # (removed by hand)
                self.cancel_reembedding()
                with self.transaction():
                    self._set_setting(NEXT_MODEL_KEY, model)
                    self.db.execute(f"INSERT OR REPLACE INTO jobs (queue, subject) SELECT 'reembed', m.id "
                                    f"FROM memories m WHERE {EMBEDDABLE}")
            if self._next is None or self._next.dim != dim:
                self._next = VectorIndex(self._next_folder(model), dim)
            files = self._next
        self._drop_orphan_vectors(files)
        return self.pending(("reembed",))

    def reembedding(self) -> Optional[str]:
        return self._setting(NEXT_MODEL_KEY)

    def end_reembedding(self, model: str) -> bool:
        with self._lock:
            if self.reembedding() != model or self._next is None:
                return self.vector_model() == model
            old = self._live_folder()
            with self.transaction():
                if self.pending(("reembed",)):
                    return False
                self._set_setting("vector_model", model)
                self._set_setting("vector_folder", self._next.folder.name)
                self._set_setting(NEXT_MODEL_KEY, None)
            self._live, self._next = (self._next, model), None
        shutil.rmtree(old, ignore_errors=True)  # the old model's vectors (searches in flight read their copies)
        return True

    def cancel_reembedding(self):
        with self._lock:
            model = self.reembedding()
            if model is None:
                return
            with self.transaction():
                self.db.execute("DELETE FROM jobs WHERE queue = 'reembed'")
                self._set_setting(NEXT_MODEL_KEY, None)
            self._next = None
            shutil.rmtree(self._next_folder(model), ignore_errors=True)

    def rebuild_vectors(self) -> int:
        with self.transaction():
            for vectors in (self._vectors, self._next):
                if vectors is not None:
                    vectors.clear()
            return self._queue_every_memory()

    def _queue_every_memory(self) -> int:
        """Every embeddable memory's embedding jobs, anew (new ids: a batch in
        flight saves nothing); returns the "embed" queue's length."""
        with self.transaction():
            self.db.execute(f"INSERT OR REPLACE INTO jobs (queue, subject) SELECT q.queue, m.id "
                            f"FROM memories m, {EMBED_QUEUES} WHERE {EMBEDDABLE}")
        return self.pending(("embed",))

    def maintain_vectors(self, force: bool = False) -> bool:
        due = [v for v in (self._vectors, self._next)
               if v is not None and (v.writes >= COMPACT_WRITES or (force and v.writes))]
        for vectors in due:
            vectors.compact()  # the vector files' lock only: searches go on from memory
        return bool(due)

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

    def _searched(self, model: Optional[str]):
        """The vectors searched, if they are ``model``'s (None: whichever)."""
        vectors, live = self._live
        if model is not None and live is not None and model != live:
            raise ModelChanged(live)
        return vectors

    @contextmanager
    def _comparing(self, vectors):
        """A search of ``vectors`` that fails because a model change ended under
        it (their files just removed) raises ModelChanged: the caller compares again."""
        try:
            yield
        except Exception as e:
            if self._live[0] is vectors:
                raise
            raise ModelChanged(self._live[1]) from e

    def nearest(self, visible: Visible, vector, limit: int, newest: int,
                exclude: Exclude = Exclude(), model: Optional[str] = None) -> List[dict]:
        vectors = self._searched(model)
        sql, args = condition(visible)
        with self._reading() as db:
            row = db.execute(f"SELECT m.seq FROM memories m WHERE {sql} ORDER BY m.seq DESC "
                                  "LIMIT 1 OFFSET ?", [*args, newest - 1]).fetchone()
        with self._comparing(vectors):
            found = vectors.search(vector, visible.scope.user_id, row[0] if row else 0,
                                   4 * limit + len(exclude.ids) + 8)
        if not found:
            return []
        similarity = dict(found)  # most similar first, as j.key counts
        left_out, left_out_args = excluding(exclude)
        with self._reading() as db:
            rows = db.execute_returning_dicts(
                f"SELECT m.* FROM json_each(?) j CROSS JOIN memories m ON m.id = j.value WHERE {sql} "
                f"AND {left_out} ORDER BY j.key LIMIT ?", [as_json(similarity), *args, *left_out_args, limit])
        for row in rows:
            row["similarity"] = similarity[row["id"]]
        return rows

    def similarities(self, user_id: str, vector, ids: Sequence[str],
                     model: Optional[str] = None) -> Dict[str, float]:
        vectors = self._searched(model)
        if vectors is None:
            return {}
        with self._comparing(vectors):
            return vectors.similarities(vector, user_id, ids)

    def similarity_spread(self, user_id: str, vector, newest: int,
                          model: Optional[str] = None) -> Optional[Tuple[float, float, int]]:
        vectors = self._searched(model)
        if vectors is None:
            return None
        with self._comparing(vectors):
            return vectors.spread(vector, user_id, newest)
