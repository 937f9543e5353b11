import time

from ovos_memory_service.common.config import build_config, data_dir
from ovos_memory_service.common.scope import Scope
from ovos_memory_service.common.wire import parse_messages
from ovos_memory_service.store import open_store


def scope(user="alice", session="s1", persona=None, lang="en-us") -> Scope:
    return Scope(user_id=user, session_id=session, persona_id=persona, lang=lang)


def user(text, **kw):
    return {"role": "user", "content": text, **kw}


def assistant(text, **kw):
    return {"role": "assistant", "content": text, **kw}


def store(engine, sc, *messages, request_id=None):
    return engine.update_history(sc, parse_messages(list(messages)), request_id)


def exchange(engine, sc, question, answer):
    return store(engine, sc, user(question), assistant(answer))


def roles_contents(messages):
    return [(m.role, m.content) for m in messages]


def open_configured(overrides: dict, lock_timeout: float = 30, holder: str = "cli"):
    """The store of the configuration ``overrides`` make, opened as the engine opens it."""
    config = build_config(overrides)
    return open_store(config["store"], data_dir(config), config["lang"], lock_timeout, holder)


def eventually(check, timeout=30.0, interval=0.05, what="the background work"):
    """Poll ``check`` until it returns something truthy, and return that;
    raise TimeoutError if it never does (a wait never passes by itself)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout} s for {what}")
        time.sleep(interval)


class Clock:
    """A clock a test moves by hand (MemoryEngine's ``clock``), instead of sleeping."""

    def __init__(self, start: float = None):
        self.now = time.time() if start is None else start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float):
        self.now += seconds


def padacioso_in_threads():
    """padacioso matches in a process pool; forking a test process that has
    LanceDB's runtime loaded can deadlock, so match in threads: the same
    matching code without fork (on a device padacioso runs inside ovos-core).
    Returns the function that restores the original."""
    from concurrent.futures import ThreadPoolExecutor, as_completed
    from types import SimpleNamespace
    import padacioso
    original = padacioso.concurrent
    padacioso.concurrent = SimpleNamespace(futures=SimpleNamespace(
        ProcessPoolExecutor=ThreadPoolExecutor, as_completed=as_completed))

    def restore():
        padacioso.concurrent = original
    return restore
