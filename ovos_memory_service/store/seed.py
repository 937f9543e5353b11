"""Reading what ovos-memory-plugins left behind, as import records.

The seed's backends keep per-session stores: ``recency`` a JSON file
``{session: {"buffer": [{"ts", "role", "content"}]}}``, ``longterm`` a JSON
file or SQLite table ``sessions`` with a rolling ``summary`` and the ``recent``
turns, ``entity`` a JSON file ``{session: {"facts": [...]}}``, and
``lexical`` an FTS5 table ``(doc_id, session_id, content)`` of "Q: ...\\nA: ..."
documents. Each session becomes the user the service would resolve for it
(``default`` stays ``default``, any other session is its own user). Record ids
are derived from the source, so importing the same file twice adds nothing.
"""
import json
import os
import re
import sqlite3
import uuid
from pathlib import Path
from typing import Iterable, List, Optional

from ovos_utils.log import LOG

from ovos_memory_service.common.scope import DEFAULT_SESSION
from ovos_memory_service.common.wire import iso_time

SEED_FOLDER = Path("~/.local/share/ovos").expanduser()
SEED_FILES = ("longterm_memory.json", "longterm_memory.db", "entity_memory.json",
              "lexical_memory.db", "recency_memory.json")
NAMESPACE = uuid.UUID("6f0f1b0e-3c5e-4a53-9d8e-0d7a3c1e5b21")


def default_paths() -> List[Path]:
    return [SEED_FOLDER / name for name in SEED_FILES if (SEED_FOLDER / name).exists()]


def seed_records(paths: Iterable[Path], persona_id: Optional[str] = None) -> List[dict]:
    records = []
    for path in map(Path, paths):
        records += _sqlite_records(path, persona_id) if _is_sqlite(path) else _json_records(path, persona_id)
    return records


class _Source:
    """Builds records of one session of one file, with stable ids."""

    def __init__(self, path: Path, session: str, persona_id: Optional[str]):
        self.path, self.session, self.persona_id = path, session, persona_id
        self.conversation = self._id("conversation")
        self.user = DEFAULT_SESSION if session == DEFAULT_SESSION else session
        self.count = 0

    def _id(self, *parts) -> str:
        return uuid.uuid5(NAMESPACE, "\x1f".join([str(self.path), self.session, *map(str, parts)])).hex

    def record(self, kind: str, content: str, when: float, role: Optional[str] = None) -> dict:
        self.count += 1
        return {"id": self._id(kind, self.count, content), "kind": kind, "user_id": self.user,
                "persona_id": self.persona_id, "session_id": self.session,
                "conversation_id": self.conversation if kind == "turn" else None,
                "role": role, "name": None, "content": content, "tool_calls": None,
                "tool_call_id": None, "created_at": iso_time(when), "updated_at": iso_time(when)}


def _usable(session) -> bool:
    if not isinstance(session, str) or not 1 <= len(session) <= 100 or any(ord(c) < 32 for c in session):
        LOG.warning("skipped a session whose id the service cannot use")
        return False
    return True


def _turns(source: _Source, messages, default_time: float) -> List[dict]:
    records = []
    for message in messages or []:
        if isinstance(message, dict) and message.get("role") in ("user", "assistant") \
                and isinstance(message.get("content"), str) and message["content"].strip():
            when = message.get("ts") or message.get("created_at") or default_time
            records.append(source.record("turn", message["content"].strip(),
                                         when if isinstance(when, (int, float)) else default_time,
                                         message["role"]))
    return records


def _json_records(path: Path, persona_id) -> List[dict]:
    data = json.loads(path.read_text())
    mtime = os.path.getmtime(path)
    records = []
    for session, record in (data.items() if isinstance(data, dict) else []):
        if not _usable(session) or not isinstance(record, dict):
            continue
        source = _Source(path, session, persona_id)
        when = record.get("updated_at") if isinstance(record.get("updated_at"), (int, float)) else mtime
        records += _turns(source, record.get("buffer"), when)            # recency
        if isinstance(record.get("summary"), str) and record["summary"].strip():  # longterm
            records.append(source.record("summary", record["summary"].strip(), when))
        records += _turns(source, record.get("recent"), when)
        for fact in record.get("facts") or []:                              # entity
            if isinstance(fact, str) and fact.strip():
                records.append(source.record("fact", fact.strip(), when))
    return records


def _is_sqlite(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(16) == b"SQLite format 3\x00"


def _sqlite_records(path: Path, persona_id) -> List[dict]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        records = []
        if "sessions" in tables:                                            # longterm
            for session, summary, recent, updated in conn.execute(
                    "SELECT session_id, summary, recent, updated_at FROM sessions"):
                if _usable(session):
                    source = _Source(path, session, persona_id)
                    when = updated or os.path.getmtime(path)
                    if summary and summary.strip():
                        records.append(source.record("summary", summary.strip(), when))
                    records += _turns(source, json.loads(recent or "[]"), when)
        for table in tables:                                                # lexical
            columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            if {"doc_id", "session_id", "content"} <= set(columns):
                records += _lexical_records(conn, table, path, persona_id)
        return records
    finally:
        conn.close()


def _lexical_records(conn, table: str, path: Path, persona_id) -> List[dict]:
    """Each "Q: ...\\nA: ..." document back into a user and an assistant turn."""
    rows = conn.execute(f'SELECT doc_id, session_id, content FROM "{table}"').fetchall()
    rows.sort(key=lambda r: (r[1], int(re.sub(r".*_", "", r[0])) if re.search(r"_\d+$", r[0]) else 0))
    when = os.path.getmtime(path)
    sources, records = {}, []
    for _, session, content in rows:
        if not _usable(session):
            continue
        source = sources.setdefault(session, _Source(path, session, persona_id))
        match = re.fullmatch(r"Q:\s*(.*?)\s*\nA:\s*(.*)", content or "", re.S)
        pairs = [("user", match.group(1)), ("assistant", match.group(2))] if match else [("user", content)]
        records += [source.record("turn", text.strip(), when, role) for role, text in pairs if text.strip()]
    return records
