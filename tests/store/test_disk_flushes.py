"""What waits for the disk. A stored turn is flushed (fsync) before it is
acknowledged, so a power cut never loses it; the background work after it
(claims, facts, the end of an embedding job) is not: its queue redoes it if
lost, and a flush holds the store's one writer, so on an SD card every turn
behind it waits. Checked with strace on a real engine, SQLite and LanceDB."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXCHANGES = 6


def drive(folder: str):
    """Run in the traced process: the exchanges, each followed by all of its
    background work, between two marker directories."""
    from tests.isolation import isolate
    isolate(os.path.join(folder, "sandbox"))
    from ovos_memory_service.common.config import build_config
    from ovos_memory_service.engine.engine import MemoryEngine
    from tests.helpers import exchange, scope
    engine = MemoryEngine(build_config({"data_dir": os.path.join(folder, "memory")}))
    engine.open()
    sc = scope()
    try:
        engine.wait_idle(120)
        os.mkdir(os.path.join(folder, "turns-begin"))
        for i in range(EXCHANGES):
            exchange(engine, sc, f"my favourite colour is green and my locker is number {i}", "noted")
            engine.wait_idle(120)
        os.mkdir(os.path.join(folder, "turns-end"))
        stats = engine.stats(sc)
        print(json.dumps({"vectors": stats["vectors"], "pending": stats["pending_jobs"],
                          "learnt": engine.list(sc, kinds=["preference", "fact"])[1]}))
    finally:
        engine.close()


def strace_missing() -> str:
    if shutil.which("strace") is None:
        return "strace not installed (.ci/run installs it)"
    probe = subprocess.run(["strace", "-qq", "-e", "trace=none", "true"], capture_output=True, text=True)
    return "" if probe.returncode == 0 else f"strace cannot trace here: {probe.stderr.strip()}"


@pytest.mark.stack
def test_only_the_turns_wait_for_the_disk(tmp_path):
    missing = strace_missing()
    if missing:
        pytest.skip(missing)
    trace_file = tmp_path / "strace.log"
    run = subprocess.run(
        ["strace", "-f", "-qq", "-y", "-e", "trace=fsync,fdatasync,mkdir,mkdirat", "-o", str(trace_file),
         sys.executable, "-m", "tests.store.test_disk_flushes", str(tmp_path)],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(run.stdout.strip().splitlines()[-1])
    # the background work really ran: every turn embedded, facts learnt
    assert report["vectors"] >= 2 * EXCHANGES and report["pending"] == 0, report
    assert report["learnt"] >= 1, report
    trace = trace_file.read_text(errors="replace").splitlines()
    begin = next(i for i, line in enumerate(trace) if "turns-begin" in line)
    end = next(i for i, line in enumerate(trace) if "turns-end" in line)
    flushes = [line for line in trace[begin:end] if re.search(r"f(data)?sync\(\d+<[^>]*memory\.db-wal>", line)]
    assert len(flushes) >= EXCHANGES, "an acknowledged exchange was not flushed:\n" + "\n".join(flushes)
    assert len(flushes) <= EXCHANGES + 1, (f"{len(flushes)} flushes of the store for {EXCHANGES} exchanges: "
                                           "background work waited for the disk")


if __name__ == "__main__":
    drive(sys.argv[1])
