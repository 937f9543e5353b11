"""Every test runs in a sandbox: no test reads or writes the real home,
mycroft.conf or data directory. A test that starts a process (a bus, the
daemon, a subprocess) carries the ``stack`` marker; the others cannot start one."""
import _posixsubprocess
import contextlib
import os
import subprocess
import tempfile
import threading

from tests.isolation import isolate

isolate(tempfile.mkdtemp(prefix="ovos-memory-tests-"))

import pytest  # noqa: E402

from tests.sandbox import Stack  # noqa: E402
from tests.pg import pg_schema, pg_server  # noqa: E402,F401  (a real PostgreSQL, tests/pg.py)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def stack(request, tmp_path_factory):
    """One bus and one service shared by a test module (tests use their own ids),
    once on each store: SQLite, then a schema of the session's real PostgreSQL."""
    memory_config, schema = {}, None
    if request.param == "postgresql":
        server = request.getfixturevalue("pg_server")
        schema = server.new_schema()
        memory_config = {"store": {"backend": "postgresql", "dsn": server.dsn, "schema": schema}}
    s = Stack(tmp_path_factory.mktemp("stack"), memory_config)
    try:
        s.start_service()
        yield s
    finally:
        s.close()
        if schema is not None:
            server.drop_schema(schema)


@pytest.fixture
def fresh_stack(tmp_path):
    """A bus and a service of the test's own, for restarts, kills and signals."""
    s = Stack(tmp_path)
    yield s
    s.close()


@pytest.fixture
def make_engine(tmp_path):
    """Engines on real SQLite files in the test's directory, closed afterwards."""
    from ovos_memory_service.common.config import build_config
    from ovos_memory_service.engine.engine import MemoryEngine
    engines = []

    def make(**config):
        engine = MemoryEngine(build_config({"data_dir": str(tmp_path / "memory"), **config}))
        engine.open()
        engines.append(engine)
        return engine
    yield make
    for engine in engines:
        if engine.store is not None:
            engine.close()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.stack)])
def store_backend(request):
    """The ``memory_service.store`` block of each store, one run per store:
    SQLite in the test's data_dir, and a PostgreSQL schema of the test's own
    on the session's real server (tests/pg.py; starting it makes the test a
    ``stack`` test). Merge it into a config: ``{"store": store_backend}``."""
    if request.param == "sqlite":
        return {"backend": "sqlite", "dsn": "", "schema": "ovos_memory"}
    return request.getfixturevalue("pg_schema")


@pytest.fixture
def engine(make_engine, store_backend):
    """An engine on each store (SQLite, then PostgreSQL), closed before its schema goes."""
    engine = make_engine(store=store_backend)
    yield engine
    if engine.store is not None:
        engine.close()


@pytest.fixture
def quick_retries(monkeypatch):
    """LLM retries within a test's patience (production: 5 s doubling to 10 min)."""
    from ovos_memory_service.learning import llm_client as llm
    from ovos_memory_service.learning.llm_worker import LLMWorker
    monkeypatch.setattr(LLMWorker, "first_backoff_s", 0.2)
    monkeypatch.setattr(LLMWorker, "max_backoff_s", 0.5)
    monkeypatch.setattr(llm, "COOL_DOWN_S", (0.2, 0.5))


# ------------------------------------------- the fast lane starts no process
SPAWNERS = ((subprocess.Popen, "_execute_child"), (_posixsubprocess, "fork_exec"),  # multiprocessing
            (os, "fork"), (os, "forkpty"), (os, "posix_spawn"), (os, "posix_spawnp"), (os, "system"))


@contextlib.contextmanager
def no_processes(nodeid: str):
    """Every way of starting a process raises while a test without the
    ``stack`` marker sets up or runs, in whichever thread it is tried."""
    tried = []

    def refuse(what):
        def refused(*args, **kwargs):
            tried.append(what)
            raise AssertionError(f"{nodeid} starts a process ({what}): mark it @pytest.mark.stack")
        return refused
    saved = [(owner, name, getattr(owner, name)) for owner, name in SPAWNERS if hasattr(owner, name)]
    for owner, name, _ in saved:
        setattr(owner, name, refuse(f"{getattr(owner, '__name__', owner)}.{name}"))
    try:
        yield tried
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def unless_stack(item):
    if item.get_closest_marker("stack"):
        return (yield)
    with no_processes(item.nodeid) as tried:
        result = yield
    if tried:  # refused in a thread that swallowed the error
        raise AssertionError(f"{item.nodeid} starts a process ({', '.join(tried)}): mark it @pytest.mark.stack")
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):  # module-scoped fixtures (a shared bus and daemon) start here
    return (yield from unless_stack(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    return (yield from unless_stack(item))


class Gate:
    """Holds the multilingual model back: it embeds (the real model) only once
    ``opened`` is set, and fails while ``failing``."""

    def __init__(self):
        self.opened, self.failing = threading.Event(), False


@pytest.fixture
def multilingual_gate(monkeypatch):
    """A Gate on the multilingual model (a model change held where a test wants it)."""
    from ovos_memory_service.models.multilingual import MultilingualEmbedder
    gate, embed = Gate(), MultilingualEmbedder.embed

    def embed_when_open(self, texts):
        if gate.failing:
            raise RuntimeError("the test keeps the multilingual model failing")
        gate.opened.wait(60)
        return embed(self, texts)
    monkeypatch.setattr(MultilingualEmbedder, "embed", embed_when_open)
    yield gate
    gate.opened.set()  # at the latest when the test ends
