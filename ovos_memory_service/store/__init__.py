"""The one owner of everything stored: ``open_store`` gives the Store
(store/base.py) the configuration asks for; the embedded default is SQLite
with LanceDB in the data directory (store/sqlite/), ``store.backend``
"postgresql" one PostgreSQL database shared by several daemons
(store/postgresql/)."""
from typing import Optional

from ovos_memory_service.store.base import Exclude, Job, ModelChanged, Store, Visible
from ovos_memory_service.store.sqlite.connection import StoreLocked

__all__ = ["Exclude", "Job", "ModelChanged", "Store", "StoreLocked", "Visible", "open_store"]


def open_store(config: dict, lock_timeout: Optional[float] = 30, holder: str = "cli") -> Store:
    """The configured store (``lock_timeout`` and the one-process lock are
    SQLite's: PostgreSQL is shared by design)."""
    from ovos_memory_service.common.config import data_dir
    settings = config.get("store") or {}
    if settings.get("backend", "sqlite") == "postgresql":
        from ovos_memory_service.store.postgresql import DEFAULT_SCHEMA, PostgresStore
        return PostgresStore(settings.get("dsn") or "", settings.get("schema") or DEFAULT_SCHEMA,
                             config.get("lang") or "en-us", holder)
    from ovos_memory_service.store.sqlite import SqliteStore
    return SqliteStore(data_dir(config), lock_timeout, holder)
