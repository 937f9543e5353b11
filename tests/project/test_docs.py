"""The documentation says what the code has, and only that (in the spirit of
sqlite-utils' tests/test_docs.py): every configuration key, ``ovos-memory``
command and option, bus request, reply field and ``memory.stats`` field is
documented in the page that owns it, everything those pages list exists, every
voice phrasing is in docs/voice.md, and every link between the pages resolves.

Fast: no process is started; the reply fields come from a real engine on SQLite
files in the test's directory (semantic recall off, so no model loads).

``python tests/test_docs.py`` rewrites the ``--help`` blocks of
docs/administration.md from the command line itself (as cog would).
"""
import inspect
import re
import sys
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parents[2]
if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))

from ovos_memory_service.common import config as config_module  # noqa: E402
from ovos_memory_service.common.scope import Scope  # noqa: E402
from ovos_memory_service.edge import service  # noqa: E402
from ovos_memory_service.edge.cli import cli  # noqa: E402
from ovos_memory_service.edge.handlers import HANDLERS  # noqa: E402
from ovos_memory_service.plugins import persona_plugin  # noqa: E402

DOCS = ROOT / "docs"
README = ROOT / "README.md"
LOCALE = ROOT / "locale"
HELP_BLOCK = re.compile(r"<!-- (ovos-memory(?: [a-z]+)?) --help -->\n```text\n(.*?)```\n", re.S)


def read(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """The lines under the heading whose text is ``heading``, up to the next
    heading of the same or a higher level."""
    lines = text.split("\n")
    for n, line in enumerate(lines):
        match = re.match(r"(#+) (.*)", line)
        if match and match.group(2).strip() == heading:
            level = len(match.group(1))
            end = next((m for m in range(n + 1, len(lines))
                        if re.match(r"#{1,%d} " % level, lines[m])), len(lines))
            return "\n".join(lines[n + 1:end])
    raise AssertionError(f"no heading {heading!r}")


def first_column(text: str) -> list:
    """The backticked names in the first column of the tables in ``text``."""
    return re.findall(r"^\| `([^`]+)` \|", text, re.M)


def backticked(text: str) -> set:
    """Every backticked text, and the name each starts with (`paused: true` names paused)."""
    spans = re.findall(r"`([^`]+)`", text)
    return set(spans) | {re.match(r"[\w.]*", span).group(0) for span in spans}


# ------------------------------------------------------------ configuration
def config_keys() -> set:
    keys = set()
    for key, value in config_module.DEFAULTS.items():
        if key in config_module.NESTED:
            keys |= {f"{key}.{sub}" for sub in value}
        else:
            keys.add(key)
    return keys


def test_every_configuration_key_is_documented_and_every_documented_key_exists():
    documented = first_column(section(read("configuration.md"), "Every key"))
    assert len(documented) == len(set(documented)), "a key is listed twice"
    assert set(documented) - config_keys() == set(), "documented but not in config.DEFAULTS"
    assert config_keys() - set(documented) == set(), "in config.DEFAULTS but not in docs/configuration.md"


def test_documented_defaults_are_the_code_defaults():
    """Each row's default column names the default (``""`` for empty strings)."""
    rows = re.findall(r"^\| `([^`]+)` \| [^|]+ \| ([^|]+) \|", section(read("configuration.md"), "Every key"), re.M)
    for key, default in rows:
        value = config_module.DEFAULTS
        for part in key.split("."):
            value = value[part]
        if isinstance(value, dict):
            continue  # a block: described, not spelled out
        shown = {True: "true", False: "false"}.get(value, value) if isinstance(value, bool) else value
        token = '""' if value == "" else f'"{value}"' if isinstance(value, str) and key != "memory_module" else str(shown)
        assert token in default or str(value) in default, f"{key}: the docs say {default.strip()!r}, the code {value!r}"


# --------------------------------------------------------------- the CLI
def help_text(name: str = "") -> str:
    """What ``ovos-memory [name] --help`` prints, at 80 columns."""
    root = click.Context(cli, info_name="ovos-memory", terminal_width=80, max_content_width=80)
    if not name:
        return cli.get_help(root) + "\n"
    command = cli.commands[name]
    return command.get_help(click.Context(command, info_name=name, parent=root, terminal_width=80,
                                          max_content_width=80)) + "\n"


def long_options(command: click.Command) -> set:
    return {opt for param in command.params if isinstance(param, click.Option)
            for opt in (*param.opts, *param.secondary_opts) if opt.startswith("--")} | {"--help"}


def test_every_command_and_option_is_documented():
    admin = read("administration.md")
    group = section(admin, "`ovos-memory`")
    for option in long_options(cli):
        assert option in group, f"ovos-memory {option} is not in docs/administration.md"
    assert "--version" in group
    for name, command in cli.commands.items():
        assert command.help, f"ovos-memory {name} has no help text"
        text = section(admin, f"`ovos-memory {name}`")
        for option in long_options(command):
            assert option in text, f"ovos-memory {name} {option} is not in its section of docs/administration.md"
        for argument in (p for p in command.params if isinstance(p, click.Argument)):
            assert argument.human_readable_name in text, f"ovos-memory {name}: {argument.human_readable_name}"


def test_every_documented_command_and_option_exists():
    admin = read("administration.md")
    documented = re.findall(r"^### `ovos-memory ([a-z-]+)`", admin, re.M)
    assert set(documented) == set(cli.commands), "docs/administration.md and cli.py list other commands"
    for name in documented:
        known = long_options(cli.commands[name]) | long_options(cli) | {"--version"}
        named = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", section(admin, f"`ovos-memory {name}`")))
        assert named <= known, f"ovos-memory {name} has no {', '.join(sorted(named - known))}"


def test_help_blocks_are_what_the_commands_print():
    blocks = dict(HELP_BLOCK.findall(read("administration.md")))
    expected = {"ovos-memory": help_text(), **{f"ovos-memory {n}": help_text(n) for n in cli.commands}}
    assert set(blocks) == set(expected), "one --help block per command (python tests/test_docs.py adds them)"
    for name, text in expected.items():
        assert blocks[name] == text, f"{name} --help changed: python tests/test_docs.py rewrites the block"


def update_help_blocks():
    path = DOCS / "administration.md"

    def fresh(match):
        name = match.group(1)
        text = help_text(name[len("ovos-memory "):] if " " in name else "")
        return f"<!-- {name} --help -->\n```text\n{text}```\n"
    path.write_text(HELP_BLOCK.sub(fresh, path.read_text(encoding="utf-8")), encoding="utf-8")


# ------------------------------------------------------------- the protocol
def documented_requests(protocol: str) -> set:
    headings = [h for h in re.findall(r"^### (.*)$", protocol, re.M) if "(event)" not in h]
    names = {n for h in headings for n in re.findall(r"`(memory\.[a-z.]+)`", h)}
    return names | {n for n in first_column(section(protocol, "Administration requests"))}


def test_every_request_the_service_answers_is_documented_and_no_other():
    assert documented_requests(read("protocol.md")) == set(HANDLERS) | set(service.SERVICE_REQUESTS)


def test_events_and_readiness_are_documented():
    protocol = read("protocol.md")
    sent = set(re.findall(r'Message\("(memory\.[a-z.]+)"', inspect.getsource(service))) - set(HANDLERS)
    events = {n for h in re.findall(r"^### (.*)$", protocol, re.M) if "(event)" in h
              for n in re.findall(r"`(memory\.[a-z.]+)`", h)}
    assert events == sent
    for name in ("mycroft.memory.is_alive", "mycroft.memory.is_ready"):
        assert name in section(protocol, "Readiness")


@pytest.fixture
def replies(make_engine):
    """The reply data of every request type, from a real engine, over the
    situations that add fields (a retry of forgotten turns, a pause, a dry run)."""
    engine = make_engine(embeddings={"enabled": False})
    scope = Scope(user_id="ana", session_id="kitchen")
    seen = {}

    def ask(msg_type, data=None):
        reply = HANDLERS[msg_type](engine, scope, data or {})
        seen.setdefault(msg_type, set()).update(reply)
        return reply

    exchange = [{"role": "user", "content": "My dog is called Rex"},
                {"role": "assistant", "content": "Rex is a great name!"}]
    stored = ask("memory.history.update", {"messages": exchange, "request_id": "r1"})
    ask("memory.context.build", {"utterance": "what is my dog called?"})
    ask("memory.history.get", {"limit": 5})
    ask("memory.recall", {"query": "dog", "threshold": 0})
    ask("memory.list")
    ask("memory.remember", {"content": "I live in Porto"})
    ask("memory.forget", {"query": "dog", "dry_run": True})
    ask("memory.forget", {"ids": stored["ids"][:1]})
    ask("memory.history.update", {"messages": exchange, "request_id": "r1"})  # a retry: forgotten
    ask("memory.pause")
    ask("memory.history.update", {"messages": exchange})  # paused
    ask("memory.resume")
    ask("memory.session.new")
    ask("memory.persona.configure", {"persona_id": "butler", "memory_module": "recency",
                                     "config": {"max_history": 4}})
    ask("memory.stats")
    ask("memory.admin.overview")
    records = ask("memory.admin.export")["records"]
    ask("memory.admin.import", {"records": records})
    ask("memory.admin.reindex")
    ask("memory.admin.compact")
    assert set(seen) == set(HANDLERS), "the fixture asks every request type"
    return seen


def reply_column(protocol: str) -> dict:
    """The summary table: request type -> the reply fields it names."""
    rows = re.findall(r"^\| \[`(memory\.[a-z.]+)`(?: / `(memory\.[a-z.]+)`)?\]\([^)]*\) \|[^|]*\|([^|]*)\|",
                      protocol, re.M)
    return {name: set(re.findall(r"`([a-z_]+)`", fields)) for *names, fields in rows for name in names if name}


def test_every_reply_field_is_documented_and_every_documented_field_exists(replies):
    protocol = read("protocol.md")
    summary = reply_column(protocol)
    admin = section(protocol, "Administration requests")
    stats_fields = set(first_column(section(protocol, "`memory.stats`")))
    for msg_type, fields in replies.items():
        if msg_type.startswith("memory.admin."):
            row = next(r for r in admin.split("\n") if r.startswith(f"| `{msg_type}`"))
            reply = row.split("|")[3]
            if msg_type == "memory.admin.overview":  # users, and every health field of memory.stats
                assert fields - {"users", "pauses"} <= stats_fields
                fields = {"users", "pauses"}
            assert fields <= backticked(reply), f"{msg_type} replies {fields - backticked(reply)}"
            continue
        if msg_type == "memory.stats":
            assert fields == stats_fields, "docs/protocol.md's memory.stats table and the code differ"
            continue
        assert summary.get(msg_type) == fields, f"{msg_type}: the table says {summary.get(msg_type)}, the code {fields}"
        heading = next(h for h in re.findall(r"^### (.*)$", protocol, re.M) if f"`{msg_type}`" in h)
        text = section(protocol, heading)
        assert fields <= backticked(text), f"{msg_type}: {fields - backticked(text)} not in its section"


def test_the_reply_envelope_is_documented():
    text = section(read("protocol.md"), "Transport and replies")
    assert {"request_id", "ok", "error"} <= backticked(text)
    for code in ("invalid_request", "not_found", "too_large", "unavailable", "internal"):
        assert f"`{code}`" in text


# ------------------------------------------------- the persona plugin's block
def test_every_key_of_the_persona_plugin_block_is_documented():
    documented = set(first_column(section(read("persona.md"), "The plugin's block"))) - {"<memory_module>"}
    source = inspect.getsource(persona_plugin)
    assert set(persona_plugin.DEFAULTS) <= documented
    for key in documented:
        assert f'"{key}"' in source, f"the plugin reads no {key!r}"


# ---------------------------------------------------------------- the voice
def test_every_voice_phrasing_is_in_voice_md():
    voice = read("voice.md")
    for intent in sorted(LOCALE.glob("*/intents/*.intent")):
        assert f"`{intent.name}`" in voice, f"{intent.name} is not in docs/voice.md"
        for line in intent.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                assert f'"{line.strip()}"' in voice, f"{intent.parent.parent.name}: {line.strip()!r}"
    named = set(re.findall(r"`([a-z.]+\.intent)`", voice))
    assert named <= {p.name for p in LOCALE.glob("*/intents/*.intent")}


# ------------------------------------------------------------ the README
def test_the_readme_is_short_and_renders_on_pypi():
    text = README.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 11_000, "the README is for a device owner's first screens"
    assert not re.search(r"!\[[^\]]*\]\((?!https://)", text), "a relative image does not render on PyPI"
    for path in re.findall(r"!\[[^\]]*\]\(https://raw\.githubusercontent\.com/OpenVoiceOS/ovos-memory-service/main/([^)]+)\)",
                           text):
        assert (ROOT / path).is_file(), f"the README shows {path}, which is not in the repository"
    assert "seed" not in text.lower(), "say ovos-memory-plugins"
    assert "PROTOCOL.md" not in text


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set:
    found, counts = set(), {}
    for heading in re.findall(r"^#+ (.*)$", re.sub(r"```.*?```", "", text, flags=re.S), re.M):
        base = slug(heading)
        n = counts.get(base, 0)
        counts[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


@pytest.mark.parametrize("page", [README, *sorted(DOCS.glob("*.md"))], ids=lambda p: p.name)
def test_every_link_resolves(page):
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name}: {target} does not exist"
        if anchor and linked.suffix == ".md":
            assert anchor in anchors(linked.read_text(encoding="utf-8")), f"{page.name}: no #{anchor} in {linked.name}"


if __name__ == "__main__":
    update_help_blocks()
    print("docs/administration.md: --help blocks rewritten")


def test_every_documented_import_of_the_package_imports():
    """The examples in the README and docs/ import what they name from where it lives
    (docs/protocol.md named ovos_memory_service.client after the module moved to common/)."""
    imports = re.findall(r"^from (ovos_memory_service[\w.]*) import ([\w, ]+)$",
                         "\n".join([README.read_text(encoding="utf-8")] + [p.read_text(encoding="utf-8")
                                                                           for p in sorted(DOCS.glob("*.md"))]), re.M)
    assert imports
    for module, names in imports:
        loaded = __import__(module, fromlist=["_"])
        assert all(hasattr(loaded, name.strip()) for name in names.split(",")), (module, names)
