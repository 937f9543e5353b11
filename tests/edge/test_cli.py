"""ovos-memory, on a real store: with the daemon stopped (the command opens the
store itself) and running (the command goes over the bus)."""
import json
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from ovos_bus_client import Message

import ovos_memory_service.edge.cli as cli_module
from ovos_memory_service.edge.cli import cli
from ovos_memory_service.store.sqlite.connection import lock_store
from tests.helpers import exchange, scope
from tests.openai_stub import OpenAIStub

README = Path(__file__).resolve().parents[2] / "README.md"


def run(data_dir, *args, input=None):
    result = CliRunner().invoke(cli, ["--data-dir", str(data_dir), *args], input=input)
    return result


def ok(data_dir, *args, **kw):
    result = run(data_dir, *args, **kw)
    assert result.exit_code == 0, (result.output, result.exception)
    return result.output


SISTER = {"My sister lives in Lisbon", "Sister lives in Lisbon"}  # a turn and the fact learnt from it


@pytest.fixture
def filled(make_engine, tmp_path):
    """A store with two users' conversations and an explicit memory, then closed
    (the rules learn "Sister lives in Lisbon" and "Dislikes coriander" from them)."""
    engine = make_engine()
    exchange(engine, scope(user="default", session="default"), "My sister lives in Lisbon", "Nice city")
    exchange(engine, scope(user="ana", session="kitchen", persona="chef"), "I hate coriander", "Noted")
    engine.remember(scope(user="default", session="default"), "I am allergic to peanuts")
    engine.wait_idle()
    engine.close()
    return tmp_path / "memory"


def test_stats_list_and_search_with_the_daemon_stopped(filled):
    stats = json.loads(ok(filled, "stats", "--json"))
    users = {u["user_id"]: u for u in stats["users"]}
    assert users["default"]["turn"] == 2 and users["default"]["fact"] == 2 and users["ana"]["turn"] == 2
    assert users["ana"]["preference"] == 1  # "I hate coriander", learnt in the background
    # stats never loads the model; the vectors are counted from their files
    assert stats["semantic_recall"] == "not loaded" and stats["vectors"] == sum(u["total"] for u in users.values())
    listed = json.loads(ok(filled, "list", "--json"))
    assert listed["total"] == 4 and {m["content"] for m in listed["memories"][:2]} == {
        "I am allergic to peanuts", "Sister lives in Lisbon"}  # the newest: the remembered one, the learnt one
    assert json.loads(ok(filled, "list", "--json", "--user", "ana", "--persona", "chef"))["total"] == 3
    found = json.loads(ok(filled, "search", "where does my sister live", "--json"))
    assert {m["content"] for m in found[:2]} == SISTER  # the turn and its fact
    assert "4 of 4 memories of default" in ok(filled)  # list is the default command, as a table


def test_forget_dry_run_then_for_real(filled):
    preview = json.loads(ok(filled, "forget", "--query", "coriander", "--user", "ana", "--persona", "chef",
                            "--dry-run", "--json"))
    assert preview["dry_run"] is True
    assert {m["content"] for m in preview["memories"]} >= {"I hate coriander", "Dislikes coriander"}
    assert json.loads(ok(filled, "list", "--json", "--user", "ana", "--persona", "chef"))["total"] == 3
    done = json.loads(ok(filled, "forget", "--query", "coriander", "--user", "ana", "--persona", "chef",
                         "--yes", "--json"))
    assert sorted(done["ids"]) == sorted(preview["ids"])
    remaining = json.loads(ok(filled, "list", "--json", "--user", "ana", "--persona", "chef"))
    assert "coriander" not in json.dumps(remaining)
    refused = run(filled, "forget", "--all", input="n\n")
    assert refused.exit_code == 1 and "Aborted" in refused.output


def test_export_then_import_into_an_empty_store_reproduces_everything(filled, tmp_path):
    exported = tmp_path / "memories.jsonl"
    ok(filled, "export", str(exported))
    records = [json.loads(line) for line in exported.read_text().splitlines()]
    assert len(records) == 7 and {r["kind"] for r in records} == {"turn", "fact", "preference"}
    empty = tmp_path / "empty"
    assert "imported 7 memories" in ok(empty, "import", str(exported))
    again = tmp_path / "again.jsonl"
    ok(empty, "export", str(again))
    assert again.read_text() == exported.read_text()  # ids, kinds, scopes, provenance, times
    assert "0 memories, 7 already present" in ok(empty, "import", str(exported))
    found = json.loads(ok(empty, "search", "peanuts", "--json"))
    assert found[0]["content"] == "I am allergic to peanuts"


def test_reindex_and_compact(filled):
    out = ok(filled, "reindex")
    assert "rebuilt over 7 memories" in out and "7 vectors rebuilt" in out
    assert json.loads(ok(filled, "stats", "--json"))["vectors"] == 7
    assert json.loads(ok(filled, "compact", "--json")) == {"compacted": True}
    assert {m["content"] for m in json.loads(ok(filled, "search", "sister", "--json"))[:2]} == SISTER


def test_clear_errors_and_exit_codes(filled, tmp_path):
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"id": "x"}\nnot json\n')
    result = run(filled, "import", str(junk))
    assert result.exit_code == 1 and "junk.jsonl:2: not a JSON line" in result.output
    junk.write_text(json.dumps({"id": "x", "kind": "rumour", "user_id": "u", "session_id": "s",
                                "content": "?", "created_at": "2024-01-01T00:00:00Z"}) + "\n")
    result = run(filled, "import", str(junk))
    assert result.exit_code == 1 and result.stderr.strip().splitlines()[-1].startswith(
        "Error: invalid_request: kind")
    assert run(filled, "list", "--limit", "0").exit_code == 2
    assert run(filled, "forget").exit_code == 2


def seed_stores(folder: Path) -> list:
    """Files in the shapes ovos-memory-plugins writes them."""
    folder.mkdir()
    (folder / "recency_memory.json").write_text(json.dumps({"default": {"buffer": [
        {"ts": 1700000000.0, "role": "user", "content": "remind me to water the plants"},
        {"ts": 1700000001.0, "role": "assistant", "content": "I will"}]}}))
    (folder / "entity_memory.json").write_text(json.dumps({"default": {"facts": [
        "User's name is Maria", "User likes hiking"]}}))
    (folder / "longterm_memory.json").write_text(json.dumps({"sat-1": {
        "summary": "Maria planned a trip to the Azores.", "exchange_count": 7, "updated_at": 1700000100.0,
        "recent": [{"role": "user", "content": "book the ferry"}, {"role": "assistant", "content": "done"}]}}))
    longterm_db = sqlite3.connect(folder / "longterm_memory.db")
    longterm_db.execute("CREATE TABLE sessions (session_id TEXT PRIMARY KEY, summary TEXT, recent TEXT, "
                        "exchange_count INTEGER, updated_at REAL)")
    longterm_db.execute("INSERT INTO sessions VALUES (?, ?, ?, ?, ?)",
                        ("default", "Talked about gardening.", "[]", 3, 1700000200.0))
    longterm_db.commit()
    lexical_db = sqlite3.connect(folder / "lexical_memory.db")
    lexical_db.execute("CREATE VIRTUAL TABLE lexical_memory USING fts5(doc_id UNINDEXED, session_id UNINDEXED, content)")
    lexical_db.executemany("INSERT INTO lexical_memory VALUES (?, ?, ?)", [
        ("default_0", "default", "Q: what is the wifi password\nA: it is on the router"),
        ("default_1", "default", "Q: thanks\nA: you're welcome")])
    lexical_db.commit()
    return sorted(folder.iterdir())


def test_import_from_ovos_memory_plugins(tmp_path):
    paths = seed_stores(tmp_path / "seed")
    store = tmp_path / "store"
    out = ok(store, "import", "--from", "ovos-memory-plugins", *map(str, paths))
    assert "imported 12 memories" in out
    mine = json.loads(ok(store, "list", "--json", "--limit", "50"))["memories"]
    by_kind = {}
    for m in mine:
        by_kind.setdefault(m["kind"], []).append(m["content"])
    assert sorted(by_kind["fact"]) == ["User likes hiking", "User's name is Maria"]
    assert by_kind["summary"] == ["Talked about gardening."]
    assert {"remind me to water the plants", "what is the wifi password", "it is on the router"} <= set(by_kind["turn"])
    plants = next(m for m in mine if m["content"] == "remind me to water the plants")
    assert plants["created_at"].startswith("2023-11-14T22:13:20")
    satellite = json.loads(ok(store, "list", "--json", "--user", "sat-1"))["memories"]
    assert {m["content"] for m in satellite} == {"Maria planned a trip to the Azores.", "book the ferry", "done"}
    assert "0 memories, 12 already present" in ok(store, "import", "--from", "ovos-memory-plugins",
                                                   *map(str, paths))
    assert json.loads(ok(store, "search", "wifi password", "--json"))[0]["content"] == "what is the wifi password"


@pytest.mark.stack
def test_with_the_daemon_running_commands_go_over_the_bus(fresh_stack, tmp_path):
    s = fresh_stack
    s.start_service()
    s.ok("memory.history.update", {"messages": [{"role": "user", "content": "my bike is blue"},
                                                {"role": "assistant", "content": "cool"}]})
    env = {**s.env, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}

    def cli_run(*args, input=None):
        return subprocess.run([sys.executable, "-m", "ovos_memory_service.edge.cli", *args], env=env,
                              capture_output=True, text=True, timeout=120, input=input)
    listed = cli_run("list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [m["content"] for m in json.loads(listed.stdout)["memories"]] == ["cool", "my bike is blue"]
    exported = tmp_path / "out.jsonl"
    assert cli_run("export", str(exported)).returncode == 0
    record = json.loads(exported.read_text().splitlines()[0])
    record.update(id="imported-1", content="my car is red")
    imported = cli_run("import", "--json", input=json.dumps(record) + "\n")
    assert json.loads(imported.stdout) == {"imported": 1, "skipped": 0}, imported.stderr
    assert s.ok("memory.recall", {"query": "car red"})["memories"][0]["id"] == "imported-1"
    forgot = cli_run("forget", "--query", "bike blue", "--yes", "--json")
    assert json.loads(forgot.stdout)["forgotten"] >= 1
    assert "bike" not in json.dumps(s.ok("memory.list", {})["memories"])
    assert s.service.poll() is None  # the daemon was never disturbed


@pytest.mark.stack
def test_the_daemon_waits_while_the_command_line_holds_the_store(fresh_stack):
    import os
    s = fresh_stack
    held = lock_store(str(s.data_dir), timeout=0)  # as ovos-memory takes it
    try:
        s.start_service(wait=False)
        waiting = f"held by ovos-memory (pid {os.getpid()})"
        deadline = time.monotonic() + 60
        while not (s.log.exists() and waiting in s.log.read_text()):
            assert s.service.poll() is None, "the daemon exited instead of waiting:\n" + s.log.read_text()
            assert time.monotonic() < deadline, "the daemon never said it waits:\n" + s.log.read_text()
            time.sleep(0.2)
        assert s.service.poll() is None  # waiting, not crashed
        reply = s.bus.wait_for_response(Message("mycroft.memory.is_ready"), timeout=1)
        assert reply is None or reply.data.get("status") is not True
    finally:
        held.close()
    from tests.sandbox import wait_ready
    wait_ready(s.client, timeout=30)
    assert s.ok("memory.stats", {})["ok"] is True


def test_every_command_has_help_and_is_in_the_readme():
    readme = README.read_text()
    for name, command in cli.commands.items():
        assert command.help, f"{name} has no help text"
        assert re.search(rf"ovos-memory {name}\b", readme), f"ovos-memory {name} is not in the README"
        assert CliRunner().invoke(cli, [name, "--help"]).exit_code == 0


@pytest.fixture
def two_personas(make_engine, tmp_path):
    """The device's user talked to the default persona and to "chef"; ana to "chef"."""
    engine = make_engine()
    exchange(engine, scope(user="default", session="default"), "My bike is painted blue", "Nice colour")
    exchange(engine, scope(user="default", session="default", persona="chef"), "I love pistachio ice cream",
             "Delicious")
    exchange(engine, scope(user="default", session="default"), "Remind me to buy milk", "Okay")
    exchange(engine, scope(user="ana", session="kitchen", persona="chef"), "I love pistachio cake", "Yum")
    engine.wait_idle()
    engine.close()
    return tmp_path / "memory"


def test_commands_cover_every_persona_of_the_user_unless_narrowed(two_personas):
    listed = json.loads(ok(two_personas, "list", "--json", "--limit", "200"))
    contents = {m["content"] for m in listed["memories"]}
    assert {"My bike is painted blue", "I love pistachio ice cream"} <= contents
    assert "I love pistachio cake" not in contents  # ana's
    chef = json.loads(ok(two_personas, "list", "--json", "--persona", "chef", "--limit", "200"))
    assert "My bike is painted blue" not in {m["content"] for m in chef["memories"]}
    found = json.loads(ok(two_personas, "search", "pistachio ice cream", "--json"))
    assert "I love pistachio ice cream" in {m["content"] for m in found}
    assert "I love pistachio cake" not in {m["content"] for m in found}
    everything = json.loads(ok(two_personas, "forget", "--all", "--dry-run", "--json"))
    assert everything["forgotten"] == listed["total"]


def test_forget_shows_every_item_with_an_id_prefix_that_id_accepts(two_personas):
    asked = run(two_personas, "forget", "--query", "my bike is painted blue", input="n\n")
    assert asked.exit_code == 1 and "Aborted" in asked.output
    shown = re.findall(r"\b([0-9a-f]{12})\b", asked.output)
    assert shown and "turn" in asked.output
    assert "My bike is" in asked.output and "painted blue" in asked.output  # a narrow table wraps it
    assert re.search(r"\d{4}-\d{2}-\d{2}", asked.output)  # the date of each item
    listed = json.loads(ok(two_personas, "list", "--json", "--limit", "200"))
    bike = next(m for m in listed["memories"] if m["content"] == "My bike is painted blue")
    assert bike["id"][:12] in shown
    gone = json.loads(ok(two_personas, "forget", "--id", bike["id"][:12], "--yes", "--json"))
    assert gone["ids"] == [bike["id"]]
    unknown = run(two_personas, "forget", "--id", "0123456789ab", "--yes")
    assert unknown.exit_code == 1 and "0123456789ab" in unknown.output
    assert json.loads(ok(two_personas, "list", "--json", "--limit", "200"))["total"] == listed["total"] - 1


# ------------------------------------------------- output like the neighbours'
LONG = ("I keep my grandmother's recipe for almond cake in the blue notebook on the kitchen shelf "
        "next to the cookbooks she left me")


@pytest.fixture
def long_memory(make_engine, tmp_path):
    engine = make_engine()
    engine.remember(scope(user="default", session="default"), LONG)
    engine.close()
    return tmp_path / "memory"


def test_a_listing_piped_elsewhere_has_one_line_per_memory(long_memory):
    """``ovos-memory list | cat`` (or into a file, or less): a plain layout, no
    table drawn at 80 columns that wraps each memory one word per line."""
    output = ok(long_memory, "list")
    lines = [line for line in output.splitlines() if LONG in line]
    assert len(lines) == 1, output
    assert not re.search(r"[─━│┃┏┓┗┛┌┐└┘╭╮╰╯]", output), output
    memory = json.loads(ok(long_memory, "list", "--json"))["memories"][0]
    assert lines[0].split("\t") == [memory["id"][:12], "fact", memory["created_at"][:16].replace("T", " "),
                                    "default", "-", LONG]


def in_a_terminal(data_dir, columns: int, *args) -> str:
    """The command run as in a terminal ``columns`` wide: a pseudo-terminal as
    its standard output; what it printed there."""
    import fcntl
    import os
    import pty
    import struct
    import termios
    from ovos_memory_service.edge.cli import cli as command
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    saved, terminal = sys.stdout, os.fdopen(slave, "w", encoding="utf-8")
    sys.stdout = terminal
    try:
        command.main(["--data-dir", str(data_dir), *args], prog_name="ovos-memory", standalone_mode=False)
        terminal.flush()
    finally:
        sys.stdout = saved
        terminal.close()
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal's other end is closed: all read
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode("utf-8")).replace("\r", "")


@pytest.mark.parametrize("columns", [80, 120])
def test_tables_fit_the_terminal(long_memory, columns):
    shown = in_a_terminal(long_memory, columns, "list")
    assert max(len(line) for line in shown.splitlines()) <= columns, shown
    words = " ".join(line.split("│")[-2].strip() for line in shown.splitlines() if line.count("│") > 2)
    assert " ".join(words.split()) == LONG, shown  # wrapped between words, all of them


def test_stats_says_whose_remembering_is_paused(make_engine, tmp_path):
    engine = make_engine()
    exchange(engine, scope(user="ana", session="kitchen"), "I hate coriander", "Noted")
    engine.pause(scope(user="ana", session="kitchen"), "user", True)
    engine.pause(scope(user="bob", session="bedroom"), "session", True)
    engine.close()
    data_dir = tmp_path / "memory"
    shown = ok(data_dir, "stats")
    assert re.search(r"paused.*ana.*every session", shown), shown
    assert re.search(r"paused.*bob.*bedroom", shown), shown
    pauses = json.loads(ok(data_dir, "stats", "--json"))["pauses"]
    assert sorted((p["user_id"], p["session_id"]) for p in pauses) == [("ana", None), ("bob", "bedroom")]
    engine = make_engine()
    engine.pause(scope(user="ana"), "user", False)
    engine.pause(scope(user="bob", session="bedroom"), "session", False)
    engine.close()
    assert re.search(r"remembering: on", ok(data_dir, "stats")), ok(data_dir, "stats")


def test_forget_by_query_unread_takes_nothing_for_the_judge_alone(filled, monkeypatch):
    """With --yes or --json nobody reads the list before it goes: as a forget by query
    over the bus, memories that only a judge found are not taken (engine/judge.py);
    here a judge that names every memory it is given."""
    judge = OpenAIStub(answer=lambda messages: ", ".join(
        re.findall(r"^(\d+)\. ", messages[-1]["content"], re.M))).start()
    monkeypatch.setattr(cli_module, "read_mycroft_conf", lambda: {
        "judge": {"api_url": judge.url, "model": "m", "request_timeout": 2}})
    try:
        listed = json.loads(ok(filled, "forget", "--query", "hobbies", "--dry-run", "--json"))
        assert listed["forgotten"] > 0  # what a person who reads the list may confirm
        done = json.loads(ok(filled, "forget", "--query", "hobbies", "--yes", "--json"))
        assert done["forgotten"] == 0
        assert json.loads(ok(filled, "list", "--json"))["total"] == 4
    finally:
        judge.stop()
