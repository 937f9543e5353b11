"""The one owner of everything stored: ``open_store`` gives the Store
(store/base.py) the ``store`` settings ask for; the embedded default is SQLite
with LanceDB in the data directory (store/sqlite/), ``backend`` "postgresql"
one PostgreSQL database shared by several daemons (store/postgresql/). What
a failure of either means to the person asking: ``storage_unavailable``."""
from typing import Optional

from ovos_memory_service.common.errors import StoreLocked, Unavailable
from ovos_memory_service.store.base import Exclude, Job, ModelChanged, Store, Visible
from ovos_memory_service.store.postgresql import DEFAULT_SCHEMA, PostgresStore
from ovos_memory_service.store.postgresql.connection import storage_problem as postgresql_problem
from ovos_memory_service.store.sqlite import SqliteStore
from ovos_memory_service.store.sqlite.connection import storage_problem as sqlite_problem

__all__ = ["Exclude", "Job", "ModelChanged", "Store", "StoreLocked", "Visible", "open_store",
           "storage_unavailable"]


def open_store(settings: dict, folder: str, lang: str = "en-us", lock_timeout: Optional[float] = 30,
               holder: str = "cli") -> Store:
    """The store ``settings`` (the configuration's ``store`` block) name:
    SQLite in ``folder`` (the data directory), or PostgreSQL (``lang``: the
    language of memories whose session says none). ``lock_timeout`` and the
    one-process lock are SQLite's: PostgreSQL is shared by design."""
    if (settings or {}).get("backend", "sqlite") == "postgresql":
        return PostgresStore(settings.get("dsn") or "", settings.get("schema") or DEFAULT_SCHEMA,
                             lang or "en-us", holder)
    return SqliteStore(folder, lock_timeout, holder)


def storage_unavailable(error: BaseException) -> Optional[Unavailable]:
    """The Unavailable to answer for a failure of the store, None for any other error."""
    if type(error).__module__.split(".")[0] in ("psycopg", "psycopg_pool"):  # the shared store
        problem = postgresql_problem(error)
    else:
        problem = sqlite_problem(error)
    return Unavailable(problem) if problem else None
