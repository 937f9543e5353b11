"""Nothing leaves the device: the real messagebus and the real daemon, in a
network namespace with only loopback, under strace, doing real work (turns
stored and embedded, builds, recalls, a forget, the admin command line on the
store), for long enough that a telemetry timer would fire. Any connection or
datagram to an address that is not loopback or a UNIX socket fails the test,
and so does any DNS lookup, even one aimed at a loopback resolver. The same
run checks that the service writes files only where the README says.

This file is also the driver that runs inside the namespace:
``python -m tests.project.test_privacy drive SETUP.json``.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN_FOR_S = 30  # onnxruntime looked its events host up every few seconds
TRACED = "connect,sendto,sendmsg,sendmmsg,socket,openat,open,creat"

# Where the daemon and the command line may write under their HOME (README, "Privacy"):
ALLOWED = (
    "xdg_data_home/ovos-memory-service/",  # the store (data_dir's default)
    "xdg_cache_home/ovos-memory-service/",  # the model folder laid out for fastembed
    "xdg_state_home/mycroft/",  # ovos-utils' service logs (memory.log)
    # ovos-workshop's settings file of the hosted voice skill ({"__mycroft_skill_firstrun": false})
    "xdg_config_home/mycroft/skills/ovos-memory-service.openvoiceos/",
)
# and outside HOME, lock files of the OVOS libraries (empty; their names carry no data):
# combo_lock's inter-process lock for ovos-config, json_database's for the skill settings
ALLOWED_OUTSIDE = ("/dev/shm/combo_locks/", "/run/shm/combo_locks/",
                   "/tmp/ovos-memory-service.openvoiceos.json.lock")


# ------------------------------------------------------------------ analysis
SOCKADDR = re.compile(r"\{sa_family=(AF_\w+)([^{}]*)\}")


def outside_addresses(trace: str) -> list:
    """Lines that send to or connect with anything but loopback, a UNIX socket or
    the kernel (netlink), and every line that talks to port 53."""
    bad = []
    for line in trace.splitlines():
        if not re.search(r"\b(connect|sendto|sendmsg|sendmmsg)\(", line):
            continue
        for family, rest in SOCKADDR.findall(line):
            port = re.search(r"sin6?_port=htons\((\d+)\)", rest)
            if port and port.group(1) == "53":
                bad.append(line)
            elif family == "AF_INET":
                if not re.search(r'inet_addr\("127\.', rest):
                    bad.append(line)
            elif family == "AF_INET6":
                if not re.search(r'inet_pton\(AF_INET6, "(::1|::ffff:127\.[0-9.]+)"', rest):
                    bad.append(line)
            elif family not in ("AF_UNIX", "AF_NETLINK", "AF_UNSPEC"):
                bad.append(line)
    return bad


def dns_lookups(trace: str) -> list:
    """A process that read /etc/resolv.conf and then opened an internet datagram
    socket was about to ask a name server (glibc's resolver does exactly that)."""
    read_resolv, found = set(), []
    for line in trace.splitlines():
        pid = line.split(None, 1)[0]
        if "/etc/resolv.conf" in line and re.search(r"\bopen(at)?\(", line) and "= -1" not in line:
            read_resolv.add(pid)
        elif (pid in read_resolv and re.search(r"\bsocket\(AF_INET6?, SOCK_DGRAM", line)):
            found.append(line)
    return found


def created_outside(trace: str, homes) -> list:
    """Files created outside the sandbox homes that are still there, and files
    created relative to a directory descriptor (where they went is unknown)."""
    found = set()
    # one line each: a call strace shows <unfinished ...> has no ")" before the next line
    for path_dirfd, path in re.findall(r'\bopenat\((\w+), "([^"]*)", [^)\n]*O_CREAT', trace):
        if not path.startswith("/"):  # relative to the working directory or a descriptor
            found.add(f"{path} (relative to {path_dirfd})")
        elif (not any(path.startswith(str(h) + "/") for h in homes)
              and not path.startswith(ALLOWED_OUTSIDE) and os.path.exists(path)):
            found.add(path)
    return sorted(found)


def files_under(root: Path) -> set:
    return {str(p.relative_to(root)) + ("/" if p.is_dir() else "") for p in root.rglob("*")}


def unexpected_files(before: set, after: set) -> list:
    return sorted(p for p in after - before
                  if not any(p.startswith(a) or a.startswith(p) for a in ALLOWED))


def test_the_analysis_catches_what_it_must():
    """The checks themselves, on lines strace prints."""
    ok = "\n".join([
        '10 connect(5, {sa_family=AF_INET, sin_port=htons(8181), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',
        '10 connect(6, {sa_family=AF_UNIX, sun_path="/run/x.sock"}, 110) = 0',
        '10 sendto(3, "x", 20, 0, {sa_family=AF_NETLINK, nl_pid=0, nl_groups=00000000}, 12) = 20',
        '10 connect(7, {sa_family=AF_INET6, sin6_port=htons(80), sin6_flowinfo=htonl(0), '
        'inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0',
        '10 sendto(5, "abc", 3, 0, NULL, 0) = 3'])
    assert outside_addresses(ok) == [] and dns_lookups(ok) == []
    bad = [
        '11 connect(5, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16)'
        ' = -1 ENETUNREACH (Network is unreachable)',
        '11 connect(5, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("127.0.0.53")}, 16) = 0',
        '11 connect(5, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("13.107.5.1")}, 16) = -1',
        '11 sendto(5, "x", 1, 0, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), '
        'inet_pton(AF_INET6, "2a01:111::1", &sin6_addr), sin6_scope_id=0}, 28) = -1']
    for line in bad:
        assert outside_addresses(line) == [line]
    lookup = ('12 openat(AT_FDCWD, "/etc/resolv.conf", O_RDONLY|O_CLOEXEC) = 4\n'
              '12 socket(AF_INET, SOCK_DGRAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_IP) = 4')
    assert dns_lookups(lookup) == [lookup.splitlines()[1]]
    assert unexpected_files({"a/"}, {"a/", "xdg_state_home/", "xdg_state_home/mycroft/memory.log",
                                     ".cache/", ".cache/Microsoft/"}) == [".cache/", ".cache/Microsoft/"]
    created = ('13 openat(11, "deviceid.tmp.49ed", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 12\n'
               '13 openat(AT_FDCWD, "/dev/shm/combo_locks/x.lock", O_RDWR|O_CREAT, 0666) = 3\n'
               f'13 openat(AT_FDCWD, "{__file__}", O_RDWR|O_CREAT, 0666) = 3\n'
               '13 openat(AT_FDCWD, "/home/h/ok", O_RDWR|O_CREAT, 0666) = 3\n'
               f'13 openat(AT_FDCWD, "{ROOT}", O_RDONLY|O_DIRECTORY <unfinished ...>\n'  # read, not created
               '14 openat(AT_FDCWD, "/home/h/db-wal", O_RDWR|O_CREAT, 0644) = 4')
    assert created_outside(created, ["/home/h"]) == [__file__, "deviceid.tmp.49ed (relative to 11)"]


# --------------------------------------------------------------------- tests
@pytest.mark.stack
@pytest.mark.parametrize("entry_point", ["ovos_memory_service.__main__", "ovos_memory_service.edge.cli",
                                         "ovos_memory_service.plugins.persona_plugin",
                                         "ovos_memory_service.plugins.identity_transformer"])
def test_every_entry_point_switches_telemetry_off_before_the_libraries_load(entry_point):
    from ovos_memory_service.common.privacy import SWITCHES
    env = {k: v for k, v in os.environ.items() if k not in SWITCHES}
    probe = (f"import os, {entry_point}\n"
             f"print(dict((k, os.environ.get(k)) for k in {sorted(SWITCHES)!r}))")
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == str(dict(sorted(SWITCHES.items())))


def missing_tools() -> str:
    if os.geteuid() != 0:
        return "needs root to create a network namespace (unshare -n); CI runs as root"
    missing = [tool for tool in ("unshare", "strace", "ip") if shutil.which(tool) is None]
    if missing:
        return f"{', '.join(missing)} not installed (.ci/run installs strace)"
    return ""


@pytest.mark.stack
@pytest.mark.skipif(bool(missing_tools()), reason=missing_tools() or "tools present")
def test_the_daemon_makes_no_outside_connection_and_writes_only_its_own_files(tmp_path):
    from tests.sandbox import free_port, sandbox_env
    port = free_port()  # any port is free in a new namespace
    service_home, bus_home, driver_home = tmp_path / "service", tmp_path / "bus", tmp_path / "driver"
    setup = {"port": port,
             # no data_dir: the defaults the README names
             "service_env": sandbox_env(service_home, port),
             "bus_env": sandbox_env(bus_home, port),
             "run_for_s": RUN_FOR_S}
    setup_file = tmp_path / "setup.json"
    setup_file.write_text(json.dumps(setup))
    before = files_under(service_home)
    trace_file = tmp_path / "strace.log"
    driver_env = sandbox_env(driver_home, port)
    driver_env["PYTHONPATH"] = str(ROOT)
    command = (f"ip link set lo up && exec strace -f -qq -s 200 -e trace={TRACED} "
               f"-o {trace_file} {sys.executable} -m tests.project.test_privacy drive {setup_file}")
    driver = subprocess.run(["unshare", "-n", "sh", "-c", command], env=driver_env, cwd=ROOT,
                            capture_output=True, text=True, timeout=RUN_FOR_S + 150)
    assert driver.returncode == 0, driver.stdout + driver.stderr
    report = json.loads(driver.stdout.strip().splitlines()[-1])
    # the work really ran onnxruntime and LanceDB
    assert report["stats"]["semantic_recall"] is True, report
    assert report["embedded"]["vectors"] >= report["stored"] > 0, report
    assert report["cli_search"] and report["forgotten"] >= 1, report
    trace = trace_file.read_text(errors="replace")
    assert re.search(r"connect\(\d+, \{sa_family=AF_INET, sin_port=htons\(%d\)" % port, trace), \
        "strace saw none of the bus connections"
    outside = outside_addresses(trace)
    assert not outside, "connections or datagrams to the outside:\n" + "\n".join(outside[:20])
    lookups = dns_lookups(trace)
    assert not lookups, "DNS lookups:\n" + "\n".join(lookups[:20])
    new_files = unexpected_files(before, files_under(service_home))
    assert not new_files, f"files outside the service's directories: {new_files}"
    elsewhere = created_outside(trace, [tmp_path])
    assert not elsewhere, f"files created outside the sandbox: {elsewhere}"


# ---------------------------------------------------------------- the driver
def drive(setup_file: str):
    """Inside the namespace: a bus, the daemon, real requests, then the CLI."""
    from ovos_memory_service.common.client import MemoryClient
    from tests.sandbox import connect, start_bus, start_service, stop, wait_ready
    setup = json.loads(Path(setup_file).read_text())
    started = time.monotonic()
    bus_proc = start_bus(setup["bus_env"])
    bus = connect(setup["port"])
    client = MemoryClient(bus)
    service = start_service(setup["service_env"], Path(setup_file).parent / "service.log")

    def ok(msg_type, data):
        reply = client.request(msg_type, data, {"session": {"session_id": "privacy"}}, timeout=30)
        if not reply.get("ok"):
            raise RuntimeError(f"{msg_type}: {reply}")
        return reply
    try:
        wait_ready(client, timeout=120)
        stored = 0
        for i, (question, answer) in enumerate([
                ("my sister Ana lives in Lisbon", "Lisbon is a lovely city"),
                ("I play the cello on Sundays", "the cello sounds wonderful"),
                ("my favourite food is grilled sardines", "sardines are a classic"),
                ("remind me to water the ferns", "I will keep that in mind")]):
            stored += ok("memory.history.update", {"messages": [
                {"role": "user", "content": question},
                {"role": "assistant", "content": answer}]})["stored"]
        deadline = time.monotonic() + 120
        while True:  # every turn embedded: onnxruntime has run
            stats = ok("memory.stats", {})
            if stats["vectors"] >= stored and stats["pending_jobs"] == 0:
                embedded = stats
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"turns not embedded: {stats}")
            time.sleep(0.5)
        ok("memory.context.build", {"utterance": "what instrument do I play?"})
        recalled = ok("memory.recall", {"query": "musical instrument"})["memories"]
        forgotten = ok("memory.forget", {"query": "remind me to water the ferns"})["forgotten"]
        time.sleep(max(0.0, setup["run_for_s"] - (time.monotonic() - started)))
        ok("memory.recall", {"query": "where does my sister live"})
        stats = ok("memory.stats", {})
    finally:
        stop(service)
        client.close()
        bus.close()
        stop(bus_proc)
    # the admin command line, opening the store itself (the daemon is gone)
    cli = subprocess.run([sys.executable, "-c", "from ovos_memory_service.edge.cli import main; main()",
                          "search", "my sister Ana lives in Lisbon", "--user", "privacy",
                          "--json"], env=setup["service_env"],
                         capture_output=True, text=True, timeout=120)
    if cli.returncode != 0:
        raise RuntimeError(f"ovos-memory search failed: {cli.stderr}")
    print(json.dumps({"stored": stored, "recalled": len(recalled), "forgotten": forgotten,
                      "embedded": embedded, "stats": stats, "cli_search": bool(json.loads(cli.stdout))}))


if __name__ == "__main__" and sys.argv[1:2] == ["drive"]:
    drive(sys.argv[2])
