"""One daemon per store: a second one refuses at once and names the first,
instead of waiting for a lock that is never released."""
import configparser
import json
import subprocess
from pathlib import Path

import pytest

from ovos_memory_service.__main__ import EXIT_STORE_HELD_BY_DAEMON
from tests.sandbox import start_service

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "ovos-memory-service.service"


@pytest.mark.stack
def test_a_second_daemon_exits_at_once_naming_the_first(fresh_stack, tmp_path):
    s = fresh_stack
    first = s.start_service()
    lock = json.loads((s.data_dir / "memory.lock").read_text())
    assert lock == {"pid": first.pid, "holder": "daemon"}
    log = tmp_path / "second.log"
    second = start_service(s.env, log)
    try:
        code = second.wait(timeout=30)  # before: it waited for ever
    except subprocess.TimeoutExpired:
        second.kill()
        second.wait()
        raise AssertionError("the second daemon is still waiting:\n" + log.read_text())
    output = log.read_text()
    assert code == EXIT_STORE_HELD_BY_DAEMON, output
    assert f"pid {first.pid}" in output, output
    assert "ovos-memory-service" in output and "already" in output, output
    assert first.poll() is None
    assert s.ok("memory.stats", {})["ok"] is True  # the first one still answers
    assert json.loads((s.data_dir / "memory.lock").read_text())["pid"] == first.pid


def test_the_unit_does_not_restart_on_that_code_and_restarts_quickly_after_a_crash():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(UNIT)
    service = unit["Service"]
    assert service["Restart"] == "on-failure"
    assert str(EXIT_STORE_HELD_BY_DAEMON) in service["RestartPreventExitStatus"].split()
    assert float(service["RestartSec"].rstrip("s")) <= 1
