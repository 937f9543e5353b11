"""Every test runs in a sandbox: no test reads or writes the real home,
mycroft.conf or data directory."""
import tempfile

from tests.isolation import isolate

isolate(tempfile.mkdtemp(prefix="ovos-memory-tests-"))

import pytest  # noqa: E402

from tests.sandbox import Stack  # noqa: E402


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """One bus and one service shared by a test module (tests use their own ids)."""
    s = Stack(tmp_path_factory.mktemp("stack"))
    s.start_service()
    yield s
    s.close()


@pytest.fixture
def fresh_stack(tmp_path):
    """A bus and a service of the test's own, for restarts, kills and signals."""
    s = Stack(tmp_path)
    yield s
    s.close()


@pytest.fixture
def make_engine(tmp_path):
    """Engines on real SQLite files in the test's directory, closed afterwards."""
    from ovos_memory_service.config import build_config
    from ovos_memory_service.engine import MemoryEngine
    engines = []

    def make(**config):
        engine = MemoryEngine(build_config({"data_dir": str(tmp_path / "memory"), **config}))
        engine.open()
        engines.append(engine)
        return engine
    yield make
    for engine in engines:
        engine.close()


@pytest.fixture
def engine(make_engine):
    return make_engine()


@pytest.fixture
def quick_retries(monkeypatch):
    """LLM retries within a test's patience (production: 5 s doubling to 10 min)."""
    from ovos_memory_service import chat as llm
    from ovos_memory_service.background.llm import LLMWorker
    monkeypatch.setattr(LLMWorker, "first_backoff_s", 0.2)
    monkeypatch.setattr(LLMWorker, "max_backoff_s", 0.5)
    monkeypatch.setattr(llm, "COOL_DOWN_S", (0.2, 0.5))
