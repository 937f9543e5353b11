"""Every command line answers --help and --version as its neighbours do,
without starting anything."""
import subprocess
import sys
from pathlib import Path

import pytest

from ovos_memory_service.version import __version__

pytestmark = pytest.mark.stack
BIN = Path(sys.executable).parent
ENTRY_POINTS = ("ovos-memory-service", "ovos-memory")


def run(command: str, *args) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / command), *args], capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("command", ENTRY_POINTS)
def test_help_says_what_it_is_and_exits(command):
    shown = run(command, "--help")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(f"Usage: {command}") or shown.stdout.startswith(f"usage: {command}"), shown.stdout
    assert "--version" in shown.stdout


@pytest.mark.parametrize("command", ENTRY_POINTS)
def test_version_prints_the_version_and_exits(command):
    shown = run(command, "--version")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == f"{command}, version {__version__}", shown.stdout


def test_an_unknown_option_is_refused_without_starting_the_daemon():
    shown = run("ovos-memory-service", "--no-such-option")
    assert shown.returncode == 2 and "--no-such-option" in shown.stderr, (shown.stdout, shown.stderr)
