"""The one owner of everything stored: ``open_store`` gives the Store
(store/base.py) the configuration asks for; the embedded default is SQLite
with LanceDB in the data directory (store/sqlite/)."""
from typing import Optional

from ovos_memory_service.store.base import Exclude, Job, Store, Visible
from ovos_memory_service.store.sqlite.connection import StoreLocked

__all__ = ["Exclude", "Job", "Store", "StoreLocked", "Visible", "open_store"]


def open_store(config: dict, lock_timeout: Optional[float] = 30, holder: str = "cli") -> Store:
    from ovos_memory_service.config import data_dir
    from ovos_memory_service.store.sqlite import SqliteStore
    return SqliteStore(data_dir(config), lock_timeout, holder)
