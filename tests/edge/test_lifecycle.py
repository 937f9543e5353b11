"""The daemon as systemd runs it: start-up order, signals, crashes, restarts."""
import json
import os
import signal
import socket
import threading
import time

import pytest

from ovos_memory_service.common.client import MemoryClient
from tests.helpers import eventually
from tests.sandbox import (connect, free_port, sandbox_env, start_bus, start_service, stop,
                           wait_ready, write_config)

pytestmark = pytest.mark.stack


def turns(n, tag):
    return [{"role": role, "content": f"{tag} {role} turn {i}"}
            for i in range(n) for role in ("user", "assistant")]


def test_history_survives_a_restart(fresh_stack):
    s = fresh_stack
    s.start_service()
    stored = s.ok("memory.history.update", {"messages": turns(3, "durable")}, session_id="kitchen")
    s.ok("memory.pause", {"scope": "session"}, session_id="bedroom")
    s.ok("memory.persona.configure", {"persona_id": "p", "memory_module": "recency"})
    s.restart_service()
    history = s.ok("memory.history.get", {"limit": 6}, session_id="kitchen")["messages"]
    assert [m["id"] for m in history] == stored["ids"]
    assert s.ok("memory.stats", {}, session_id="bedroom")["paused"] is True
    assert s.ok("memory.stats", {"persona_id": "p"})["memory_module"] == "recency"


def test_kill_9_right_after_acknowledged_updates_loses_nothing(fresh_stack):
    s = fresh_stack
    s.start_service()
    acknowledged = []
    for i in range(30):
        reply = s.ok("memory.history.update", {"messages": [
            {"role": "user", "content": f"crash test question {i}"},
            {"role": "assistant", "content": f"crash test answer {i}"}]}, session_id="crash")
        acknowledged += reply["ids"]
    s.stop_service(signal.SIGKILL)
    s.start_service()
    stored = s.ok("memory.history.get", {"limit": 1000}, session_id="crash")["messages"]
    assert [m["id"] for m in stored] == acknowledged


def test_sigterm_finishes_in_flight_writes_and_exits_cleanly(fresh_stack):
    s = fresh_stack
    s.start_service()
    replies, delivered = {}, []
    # the bus sends a message to every client at once: when this one has its copy, so has the daemon
    s.bus.on("memory.history.update", lambda m: delivered.append(m.data.get("request_id")))

    def writer(i):
        try:
            replies[i] = s.request("memory.history.update", {"messages": turns(50, f"w{i}")},
                                   session_id=f"t{i}", timeout=5)
        except TimeoutError:
            replies[i] = None  # sent after the service stopped listening
    threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    eventually(lambda: len(delivered) == len(threads), 10, what="the writes to reach the daemon")
    assert s.stop_service(signal.SIGTERM) == 0
    for t in threads:
        t.join()
    answered = [reply for reply in replies.values() if reply is not None]
    assert all(r["ok"] or r["error"]["code"] == "unavailable" for r in answered), answered
    assert any(r["ok"] for r in answered), f"no write was served before the daemon stopped: {replies}"
    s.start_service()
    for i, reply in replies.items():
        if reply and reply["ok"]:
            got = s.ok("memory.history.get", {"limit": 1000}, session_id=f"t{i}")["messages"]
            assert [m["id"] for m in got] == reply["ids"]


def test_sigint_exits_cleanly(fresh_stack):
    s = fresh_stack
    s.start_service()
    assert s.stop_service(signal.SIGINT) == 0


def test_sighup_reloads_the_configuration_instead_of_dying(fresh_stack):
    s = fresh_stack
    s.start_service()
    assert s.ok("memory.stats", {})["memory_module"] == "composite"
    write_config(s.env, s.port, {**s.memory_config, "memory_module": "ovos-memory-plugin-recency"})
    s.service.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 10
    while s.ok("memory.stats", {})["memory_module"] != "recency":
        assert time.monotonic() < deadline, "the new configuration was not applied"
        time.sleep(0.2)
    assert s.service.poll() is None
    # a broken configuration is refused and the service keeps the running one
    write_config(s.env, s.port, {**s.memory_config, "session_timeout_minutes": -5})
    s.service.send_signal(signal.SIGHUP)
    eventually(lambda: "configuration reload failed" in s.log.read_text(), 10, what="the refusal in the log")
    assert s.service.poll() is None and s.ok("memory.stats", {})["memory_module"] == "recency"


def test_systemd_notify_handshake(fresh_stack, tmp_path):
    s = fresh_stack
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(30)
    s.env["NOTIFY_SOCKET"] = path
    s.start_service(wait=False)
    assert sock.recv(64) == b"READY=1"
    assert s.ok("memory.stats", {})["ok"] is True  # READY means it answers
    s.stop_service()
    assert sock.recv(64) == b"STOPPING=1"
    sock.close()


def lock_holder(data_dir):
    try:
        return json.loads((data_dir / "memory.lock").read_text())["pid"]
    except (OSError, ValueError, KeyError):  # not there yet, or being written
        return None


def test_service_waits_for_the_bus(tmp_path):
    """Started before the messagebus, it connects once the bus is up."""
    port = free_port()
    env = sandbox_env(tmp_path, port, {"data_dir": str(tmp_path / "memory")})
    service = start_service(env, tmp_path / "service.log")
    bus_proc = bus = None
    try:
        # its store open (the lock names it), the daemon has come as far as the bus
        eventually(lambda: service.poll() is not None or lock_holder(tmp_path / "memory") == service.pid, 60,
                   what="the daemon to open its store")
        time.sleep(2)
        assert service.poll() is None, (tmp_path / "service.log").read_text()
        bus_proc = start_bus(env)
        bus = connect(port)
        client = MemoryClient(bus)
        wait_ready(client, timeout=90)
        assert client.request("memory.stats", {}, {})["ok"] is True
    finally:
        if bus is not None:
            bus.close()
        if bus_proc is not None:
            stop(bus_proc)
        assert stop(service) == 0


def test_memory_content_is_not_logged_at_the_default_level(fresh_stack):
    s = fresh_stack
    s.start_service()
    secret = "zanzibar-marmalade-8812"
    s.ok("memory.history.update", {"messages": [{"role": "user", "content": f"my code is {secret}"}]})
    s.ok("memory.remember", {"content": f"the code is {secret}"})
    s.ok("memory.recall", {"query": secret})
    s.ok("memory.context.build", {"utterance": f"what about {secret}"})
    s.ok("memory.forget", {"query": secret})
    s.stop_service()
    logs = s.log.read_text()
    state = os.path.join(s.env["XDG_STATE_HOME"])
    for root, _, names in os.walk(state):
        for name in names:
            logs += open(os.path.join(root, name), errors="replace").read()
    assert "memory service ready" in logs
    assert secret not in logs


def test_data_directory_is_created_owner_only(fresh_stack):
    s = fresh_stack
    s.start_service()
    assert oct(os.stat(s.data_dir).st_mode & 0o777) == "0o700"
    assert json.loads(json.dumps(s.ok("memory.stats", {})))["counts"]["turn"] == 0


def test_a_third_party_memory_plugin_runs_inside_the_daemon(tmp_path):
    from tests.plugin_fixture import PLUGIN_NAME, install_plugin
    from tests.sandbox import Stack
    site = install_plugin(tmp_path / "site")
    s = Stack(tmp_path / "stack", {"memory_module": PLUGIN_NAME})
    s.env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), s.env.get("PYTHONPATH")]))
    try:
        s.start_service()
        s.ok("memory.history.update", {"messages": [{"role": "user", "content": "hello plugin"},
                                                    {"role": "assistant", "content": "hi"}]})
        # the plugin hears the turns after the reply
        built = eventually(lambda: (lambda messages: messages[0]["content"] == "seen=2" and messages)(
            s.ok("memory.context.build", {"utterance": "again"})["messages"]), what="the plugin to hear the turns")
        assert [(m["role"], m["content"]) for m in built] == [
            ("system", "seen=2"), ("user", "hello plugin"), ("assistant", "hi"), ("user", "again")]
        assert s.ok("memory.stats", {})["memory_module"] == PLUGIN_NAME
    finally:
        s.close()


def test_a_bad_backend_block_stops_the_start_with_a_clear_error(tmp_path):
    from tests.sandbox import Stack
    s = Stack(tmp_path, {"personas": {"butler": {"memory_module": "recency",
                                                 "recency": {"max_history": "many"}}}})
    try:
        s.start_service(wait=False)
        assert s.service.wait(60) == 1
        log = s.log.read_text()
        assert "persona 'butler' backend 'recency'" in log and "max_history" in log
    finally:
        s.close()
