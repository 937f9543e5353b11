"""The process's native heap (glibc's malloc), which the models (onnxruntime)
and SQLite's vector index (LanceDB, pyarrow) share: measured under
benchmarks/soak.py, see tests/models/test_memory_flat.py and models/embedder.py."""
import ctypes
import os
from functools import lru_cache

MALLOC_ARENAS = 1               # glibc's default: 8 per core
MMAP_THRESHOLD = 1 << 20        # bytes; larger blocks are mapped, and unmapped when freed


def release_free_memory():
    """Give the heap memory glibc keeps after frees back to the system."""
    libc = _libc()
    if libc is not None and hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)


def tune_malloc():
    """glibc's malloc for this process (before the threads of onnxruntime and
    LanceDB start): few arenas, as memory freed by LanceDB's short-lived
    threads otherwise stays scattered over many; and a fixed mmap threshold,
    so that large blocks (activations) go back to the system when freed. The
    owner's MALLOC_ARENA_MAX / MALLOC_MMAP_THRESHOLD_ win."""
    libc = _libc()
    if libc is None or not hasattr(libc, "mallopt"):
        return
    if "MALLOC_ARENA_MAX" not in os.environ:
        libc.mallopt(-8, MALLOC_ARENAS)  # M_ARENA_MAX
    if "MALLOC_MMAP_THRESHOLD_" not in os.environ:
        libc.mallopt(-3, MMAP_THRESHOLD)  # M_MMAP_THRESHOLD


@lru_cache(maxsize=1)
def _libc():
    """glibc, or None (musl, macOS: these switches do not apply there). The
    symbols the process has loaded already: ctypes.util.find_library would
    start ``ldconfig -p`` (a process) to find the file."""
    try:
        libc = ctypes.CDLL(None)
        return libc if hasattr(libc, "gnu_get_libc_version") else None
    except OSError:
        return None
