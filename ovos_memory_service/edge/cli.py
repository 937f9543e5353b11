"""``ovos-memory``: see, search, export, import, repair and clean the memory store.

Transport: while the daemon runs it holds the store's lock, and every command
goes to it over the messagebus; when it does not run, the command opens the
store itself under the same lock (the daemon waits for it to finish). Either
way a single process writes the store.
"""
import json
import os
import sys
import time
from typing import List, Optional, Sequence

import click
from ovos_utils.log import LOG
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from ovos_memory_service.common.client import MemoryClient, ResilientBusClient
from ovos_memory_service.common.config import build_config, data_dir, read_mycroft_conf
from ovos_memory_service.common.errors import MemoryServiceError, StoreLocked
from ovos_memory_service.common.items import KINDS
from ovos_memory_service.common.scope import resolve_scope
from ovos_memory_service.edge.cli_page import page
from ovos_memory_service.edge.handlers import HANDLERS
from ovos_memory_service.engine.engine import MemoryEngine
from ovos_memory_service.store import open_store
from ovos_memory_service.store.migrate import MigrationIncomplete, migrate as move_memories
from ovos_memory_service.store.seed import default_paths, seed_records

IMPORT_BATCH = 200
EXPORT_PAGE = 500
ID_PREFIX = 12  # how much of an id tables show; --id takes it (or any unique prefix)
LIST_PAGE = 200


class LocalStore:
    """The store opened in this process, answering the bus protocol's requests."""

    def __init__(self, config: dict, meaning: bool):
        self.engine = MemoryEngine(config)
        # StoreLocked: the daemon has it. The model loads only for commands that recall by meaning.
        self.engine.open(lock_timeout=0, semantic="now" if meaning else "off")
        self.config = config

    def request(self, msg_type: str, data: dict) -> dict:
        try:
            scope = resolve_scope(data, {}, self.config["users"], self.config["lang"])
            return {"ok": True, **HANDLERS[msg_type](self.engine, scope, data)}
        except MemoryServiceError as e:
            return {"ok": False, "error": {"code": e.code, "message": str(e)}}

    def close(self):
        self.engine.close()


class BusStore:
    """The daemon, over the messagebus."""

    def __init__(self, timeout: float = 5):
        self.bus = ResilientBusClient()
        self.bus.run_in_thread()
        if not self.bus.connected_event.wait(timeout):
            self.bus.close()
            raise click.ClickException("the memory store is in use by another process and the "
                                       "messagebus does not answer; is ovos-memory-service running?")
        self.client = MemoryClient(self.bus)

    def request(self, msg_type: str, data: dict) -> dict:
        return self.client.request(msg_type, data, timeout=120)

    def close(self):
        self.client.close()
        self.bus.close()


# requests that recall by meaning: only they load the model in a command
MEANING = ("memory.recall", "memory.context.build", "memory.admin.reindex")


def reach_store(ctx: click.Context, meaning: bool):
    """The daemon over the bus if it holds the store, else the store itself."""
    config = ctx.obj["config"]
    try:
        store = LocalStore(config, meaning)
    except StoreLocked:
        store = BusStore()
    ctx.call_on_close(store.close)
    return store


def call(ctx: click.Context, msg_type: str, data: dict) -> dict:
    """One request; an error reply becomes a one-line error and exit code 1."""
    if "store" not in ctx.obj:
        meaning = msg_type in MEANING or (msg_type == "memory.forget" and data.get("query") is not None)
        ctx.obj["store"] = reach_store(ctx, meaning)
    reply = ctx.obj["store"].request(msg_type, data)
    if not reply.get("ok"):
        error = reply.get("error") or {}
        raise click.ClickException(f"{error.get('code', 'internal')}: {error.get('message', 'failed')}")
    return reply


def scope_data(user, persona, session) -> dict:
    """Whose memories: every persona of the user, unless --persona or --session narrows it."""
    data = {"user_id": user or "default", "scope": "session" if session else "user" if persona else "all"}
    if persona:
        data["persona_id"] = persona
    if session:
        data["session_id"] = session
    return data


def emit_json(value):
    click.echo(json.dumps(value, ensure_ascii=False, indent=2))


# ---------------------------------------------------------------- tables
# In a terminal, a table as wide as the terminal; otherwise (a pipe, a file,
# less) one line per row, columns separated by tabs and nothing wrapped, and
# the table's title on standard error, as ls, git and docker do.
def in_terminal() -> bool:
    return sys.stdout.isatty()


def terminal_console() -> Console:
    """A console for standard output as wide as the terminal it is (rich
    measures the process's first three descriptors, which need not be it)."""
    try:
        width = os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError):
        width = None
    return Console(file=sys.stdout, width=width)


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def show_table(title: str, columns: Sequence[str], rows: List[Sequence[str]], folded: Sequence[str] = ()):
    """``rows`` under ``columns``; ``folded``: the columns that wrap in a
    terminal (the others keep at most 20 characters there)."""
    if not in_terminal():
        click.echo(title, err=True)
        click.echo("\t".join(columns))
        for row in rows:
            click.echo("\t".join(one_line(cell) for cell in row))
        return
    console = terminal_console()
    table = Table(title=title)
    for column in columns:
        table.add_column(column, overflow="fold" if column in folded else "ellipsis",
                         max_width=None if column == columns[-1] else 20)
    for row in rows:
        table.add_row(*row)
    console.print(table)


def memory_table(memories, title: str, with_score: bool = False):
    columns = ("id", "kind", "created", "session", "persona", *(["score"] if with_score else []), "content")
    show_table(title, columns, [(m["id"][:ID_PREFIX], m["kind"], m["created_at"][:16].replace("T", " "),
                                 m["session_id"], m["persona_id"] or "-",
                                 *([f"{m['score']:.2f}"] if with_score else []), m["content"]) for m in memories],
               folded=("id", "content"))


def pauses_line(pauses: List[dict]) -> str:
    """Whose remembering is paused, in a few words."""
    if not pauses:
        return "remembering: on for everyone"
    return "remembering: paused for " + ", ".join(
        f"{p['user_id']} ({'every session' if p['session_id'] is None else 'session ' + p['session_id']})"
        for p in pauses)


scope_options = [
    click.option("--user", help="whose memories (default: the device's own user, 'default')"),
    click.option("--persona", help="only this persona (default: every persona of the user)"),
    click.option("--session", help="only this session"),
]


def with_scope(f):
    for option in reversed(scope_options):
        f = option(f)
    return f


json_option = click.option("--json", "as_json", is_flag=True, help="machine-readable output")
kind_option = click.option("--kind", "kinds", multiple=True, type=click.Choice(KINDS),
                           help="only memories of this kind (repeatable)")


@click.group(invoke_without_command=True)
@click.option("--data-dir", envvar="OVOS_MEMORY_DATA_DIR", type=click.Path(file_okay=False),
              help="the store's folder (default: memory_service.data_dir of mycroft.conf)")
@click.version_option(package_name="ovos-memory-service")
@click.pass_context
def cli(ctx, data_dir: Optional[str]):
    """Inspect and manage the OVOS memory store. Safe while ovos-memory-service runs:
    commands then go to it over the messagebus. Without a command: list."""
    LOG.set_level("ERROR")  # OVOS logs go to standard output, which is for results here
    overrides = read_mycroft_conf()
    if data_dir:
        overrides["data_dir"] = data_dir
    ctx.obj = {"config": build_config(overrides)}
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_)


@cli.command()
@click.option("--user", help="only this user")
@json_option
@click.pass_context
def stats(ctx, user, as_json):
    """Memories per user and kind, whose remembering is paused, and the service's health."""
    reply = call(ctx, "memory.admin.overview", {"filter": {"user_id": user} if user else {}})
    if as_json:
        return emit_json({k: v for k, v in reply.items() if k != "ok"})
    show_table(f"memories in {data_dir(ctx.obj['config'])}", ("user", "total", *KINDS, "newest"),
               [(u["user_id"], str(u["total"]), *(str(u[k]) for k in KINDS), (u["newest"] or "")[:16].replace("T", " "))
                for u in reply["users"]], folded=("user",))
    semantic = reply["semantic_recall"]
    semantic = (f"on, {reply['embedding_model']}" if semantic is True else semantic if isinstance(semantic, str)
                else f"off ({reply['semantic_error']})")
    click.echo(pauses_line(reply["pauses"]))
    click.echo(f"semantic recall: {semantic}; "
               f"vectors: {reply['vectors']}; pending jobs: {reply['pending_jobs']} ({reply['llm_jobs']} for an LLM); "
               f"last background error: {reply['last_background_error'] or 'none'}")


@cli.command(name="list")
@with_scope
@kind_option
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 200))
@click.option("--offset", default=0, type=click.IntRange(0))
@json_option
@click.pass_context
def list_(ctx, user, persona, session, kinds, limit, offset, as_json):
    """A user's memories, newest first."""
    data = {**scope_data(user, persona, session), "limit": limit, "offset": offset}
    if kinds:
        data["kinds"] = list(kinds)
    reply = call(ctx, "memory.list", data)
    if as_json:
        return emit_json({"memories": reply["memories"], "total": reply["total"]})
    memory_table(reply["memories"], f"{len(reply['memories'])} of {reply['total']} memories of {data['user_id']}")


@cli.command()
@click.argument("query")
@with_scope
@kind_option
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 50))
@click.option("--threshold", type=click.FloatRange(0, 1),
              help="minimum relevance (default: recall_relevance_threshold, 0.6)")
@json_option
@click.pass_context
def search(ctx, query, user, persona, session, kinds, limit, threshold, as_json):
    """Recall a user's memories about QUERY, as memory.recall does."""
    data = {**scope_data(user, persona, session), "query": query, "limit": limit}
    if kinds:
        data["kinds"] = list(kinds)
    if threshold is not None:
        data["threshold"] = threshold
    reply = call(ctx, "memory.recall", data)
    if as_json:
        return emit_json(reply["memories"])
    memory_table(reply["memories"], f"memories of {data['user_id']} about {query!r}", with_score=True)


@cli.command()
@with_scope
@click.option("--id", "ids", multiple=True, help="a memory id, or a unique prefix of it as tables show (repeatable)")
@click.option("--query", help="what is clearly about this query (forget_relevance_threshold)")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 50),
              help="with --query: at most this many")
@click.option("--all", "everything", is_flag=True, help="every memory of the user (or of --persona, --session)")
@kind_option
@click.option("--dry-run", is_flag=True, help="show what would be forgotten, change nothing")
@click.option("--yes", is_flag=True, help="do not ask for confirmation")
@json_option
@click.pass_context
def forget(ctx, user, persona, session, ids, query, limit, everything, kinds, dry_run, yes, as_json):
    """Forget memories for real (rows, indexes, vectors and old file pages).
    Shows every memory it will forget, then asks."""
    if sum(map(bool, (ids, query, everything))) != 1:
        raise click.UsageError("give exactly one of --id, --query or --all")
    data = scope_data(user, persona, session)
    if kinds:
        data["kinds"] = list(kinds)
    if ids:
        data["ids"] = resolve_ids(ctx, data, ids)
    else:
        data.update({"query": query, "limit": limit} if query else {"all": True})
    preview = call(ctx, "memory.forget", {**data, "dry_run": True})
    # nobody reads the list before it goes: forgotten by the query itself, which takes
    # nothing for a judge alone (engine/judge.py); else exactly what was shown and confirmed
    unread = bool(query) and (yes or as_json) and not dry_run
    if not as_json and (not unread or not preview["forgotten"]):
        memory_table(preview["memories"], f"{preview['forgotten']} memories of {data['user_id']} "
                                          + ("would be forgotten" if dry_run or not preview["forgotten"]
                                             else "will be forgotten"))
    if dry_run or not preview["forgotten"]:
        if as_json:
            return emit_json({"forgotten": preview["forgotten"], "ids": preview["ids"], "dry_run": True,
                              "memories": preview["memories"]})
        return
    asked = f"what is clearly about {query!r}" if unread else f"these {preview['forgotten']} memories"
    if not yes and not click.confirm(f"Forget {asked} of {data['user_id']}?"):
        raise click.Abort()
    if unread:  # counted, not listed: it may take less than the dry run found
        reply = call(ctx, "memory.forget", data)
    else:
        base = {k: v for k, v in data.items() if k not in ("ids", "query", "all")}
        reply = {"forgotten": 0, "ids": []}
        for start in range(0, len(preview["ids"]), 1000):
            part = call(ctx, "memory.forget", {**base, "ids": preview["ids"][start:start + 1000]})
            reply["forgotten"] += part["forgotten"]
            reply["ids"] += part["ids"]
    if as_json:
        return emit_json({"forgotten": reply["forgotten"], "ids": reply["ids"]})
    click.echo(f"forgot {reply['forgotten']} memories")


def resolve_ids(ctx, data: dict, given) -> list:
    """Full ids for what --id gave (whole ids or unique prefixes, as tables
    show them) among the memories the command covers; unknown or ambiguous
    ones are an error, so nothing is forgotten by a typo."""
    known, offset = [], 0
    while True:
        page = call(ctx, "memory.list", {**data, "limit": LIST_PAGE, "offset": offset})
        known += [m["id"] for m in page["memories"]]
        offset += LIST_PAGE
        if offset >= page["total"] or not page["memories"]:
            break
    resolved = []
    for prefix in given:
        matches = [i for i in known if i.startswith(prefix)]
        if len(matches) != 1:
            why = "no memory" if not matches else f"{len(matches)} memories"
            raise click.ClickException(f"{why} of {data['user_id']} with an id starting {prefix!r}")
        resolved.append(matches[0])
    return list(dict.fromkeys(resolved))


@cli.command()
@click.argument("output", type=click.File("w"), default="-")
@click.option("--user", help="only this user")
@click.option("--persona", help="only this persona")
@click.option("--session", help="only this session")
@click.pass_context
def export(ctx, output, user, persona, session):
    """Write memories as JSON lines to OUTPUT (default: standard output)."""
    scope = {k: v for k, v in (("user_id", user), ("persona_id", persona), ("session_id", session)) if v}
    offset = written = 0
    while True:
        page = call(ctx, "memory.admin.export", {"filter": scope, "offset": offset, "limit": EXPORT_PAGE})
        for record in page["records"]:
            output.write(json.dumps(record, ensure_ascii=False) + "\n")
        written += len(page["records"])
        offset += EXPORT_PAGE
        if offset >= page["total"] or not page["records"]:
            break
    if output is not sys.stdout:
        click.echo(f"exported {written} memories", err=True)


@cli.command(name="import")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option("--from", "source", type=click.Choice(["jsonl", "ovos-memory-plugins"]), default="jsonl",
              show_default=True, help="an ovos-memory export, or the stores ovos-memory-plugins left")
@click.option("--persona", help="with --from ovos-memory-plugins: the persona they belonged to")
@json_option
@click.pass_context
def import_(ctx, paths, source, persona, as_json):
    """Import memories from PATHS (JSON lines; '-' or nothing reads standard input).
    With --from ovos-memory-plugins and no PATHS, ~/.local/share/ovos is searched."""
    if source == "ovos-memory-plugins":
        paths = paths or default_paths()
        if not paths:
            raise click.ClickException("no ovos-memory-plugins stores found in ~/.local/share/ovos")
        records = seed_records(paths, persona)
        click.echo(f"{len(records)} memories found in {len(paths)} files", err=True)
    else:
        records = []
        for stream in [open(p) for p in paths] or [sys.stdin]:
            for number, line in enumerate(stream, start=1):
                if line.strip():
                    try:
                        records.append(json.loads(line))
                    except ValueError:
                        raise click.ClickException(f"{stream.name}:{number}: not a JSON line")
    totals = {"imported": 0, "skipped": 0}
    with Progress(console=Console(stderr=True), disable=as_json) as progress:
        task = progress.add_task("importing", total=len(records))
        for start in range(0, len(records), IMPORT_BATCH):
            batch = records[start:start + IMPORT_BATCH]
            # history from the seed is learnt from; an export already holds what was learnt
            reply = call(ctx, "memory.admin.import", {"records": batch, "learn": source != "jsonl"})
            totals["imported"] += reply["imported"]
            totals["skipped"] += reply["skipped"]
            progress.advance(task, len(batch))
    if as_json:
        return emit_json(totals)
    click.echo(f"imported {totals['imported']} memories, {totals['skipped']} already present")


@cli.command()
@click.option("--wait/--no-wait", default=True, show_default=True,
              help="wait until every memory has its vector again")
@json_option
@click.pass_context
def reindex(ctx, wait, as_json):
    """Rebuild the keyword index and the vectors from SQLite."""
    reply = call(ctx, "memory.admin.reindex", {})
    queued = reply["vectors_queued"]
    if wait and queued:
        with Progress(console=Console(stderr=True), disable=as_json) as progress:
            task = progress.add_task("embedding", total=queued)
            while True:
                pending = call(ctx, "memory.admin.overview", {})["pending_jobs"]
                progress.update(task, completed=max(0, queued - pending))
                if not pending:
                    break
                time.sleep(0.5)
    if as_json:
        return emit_json({"keyword_index": reply["keyword_index"], "vectors_queued": queued})
    click.echo(f"keyword index rebuilt over {reply['keyword_index']} memories; {queued} vectors "
               + ("rebuilt" if wait else "queued"))


@cli.command()
@json_option
@click.pass_context
def compact(ctx, as_json):
    """Merge index segments and vector fragments, drop old versions, shrink the files."""
    reply = call(ctx, "memory.admin.compact", {})
    if as_json:
        return emit_json({"compacted": reply["compacted"]})
    click.echo("store compacted")


@cli.command()
@click.option("--to", "to", type=click.Choice(["postgresql", "sqlite"]), required=True,
              help="postgresql: this device's store into the shared one; sqlite: back into --data-dir")
@click.option("--dsn", default="", help="the PostgreSQL server (default: the PG* environment variables)")
@click.option("--schema", default="ovos_memory", show_default=True, help="the PostgreSQL schema")
@json_option
@click.pass_context
def migrate(ctx, to, dsn, schema, as_json):
    """Move every memory (turns, facts, summaries, vectors, pauses, pending work)
    between the device's SQLite store and PostgreSQL, then check that all of it
    arrived. Stop ovos-memory-service first; running it again adds nothing twice."""
    config = ctx.obj["config"]
    folder, lang = data_dir(config), config["lang"]
    try:
        sqlite = open_store({"backend": "sqlite"}, folder, lang, lock_timeout=0, holder="cli")
    except StoreLocked as e:
        raise click.ClickException(f"{e}: stop it first (systemctl --user stop ovos-memory-service)")
    try:
        try:
            postgresql = open_store({"backend": "postgresql", "dsn": dsn, "schema": schema}, folder, lang,
                                    holder="cli")
        except Exception as e:
            raise click.ClickException(f"cannot open the PostgreSQL store: {e}")
        try:
            source, target = (sqlite, postgresql) if to == "postgresql" else (postgresql, sqlite)
            with Progress(console=Console(stderr=True), disable=as_json) as progress:
                tasks = {}

                def tell(step, done, total):
                    if step not in tasks:
                        tasks[step] = progress.add_task(step, total=total)
                    progress.update(tasks[step], completed=done, total=total)
                result = move_memories(source, target, tell)
        except MigrationIncomplete as e:
            raise click.ClickException(f"the migration is incomplete: {e}")
        finally:
            postgresql.close()
    finally:
        sqlite.close()
    if as_json:
        return emit_json(result.as_dict())
    click.echo(f"moved to {to}: {result.memories} memories ({result.added} new there), "
               f"{result.vectors} vectors, {result.conversations} conversations, {result.jobs} pending jobs, "
               f"{result.pauses} pauses, {result.personas} personas; every one checked")


cli.add_command(page)


def main():
    cli(prog_name="ovos-memory")


if __name__ == "__main__":
    main()
