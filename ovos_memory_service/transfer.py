"""Moving memories in and out of a store: export records, import them back
with their ids, kinds, scopes and times, and the store's own upkeep.

A record is one memory as JSON (one line of an export file):
``{"id", "kind", "user_id", "persona_id", "session_id", "conversation_id",
"role", "name", "content", "tool_calls", "tool_call_id", "created_at",
"updated_at", "slot", "value", "status", "confidence", "sources", "extractor"}``
with ISO 8601 times; ``persona_id`` is null for the default persona namespace.
"""
import json
from typing import Iterable, List, Optional

from sqlite_utils import Database

from ovos_memory_service.errors import InvalidRequest
from ovos_memory_service.items import KINDS
from ovos_memory_service.scope import check_id
from ovos_memory_service.wire import MAX_CONTENT_BYTES, iso_time, parse_time

FIELDS = ("id", "kind", "user_id", "persona_id", "session_id", "conversation_id", "role", "name",
          "content", "tool_calls", "tool_call_id", "created_at", "updated_at",
          # the fact model: slot, value, status (current, superseded, retracted) and provenance
          "slot", "value", "status", "confidence", "sources", "extractor")


def _filters(user_id=None, persona_id=None, session_id=None):
    clauses, args = [], []
    for column, value in (("user_id", user_id), ("persona_id", persona_id), ("session_id", session_id)):
        if value is not None:
            clauses.append(f"{column} = ?")
            args.append(value)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", args


def count(db: Database, **scope) -> int:
    where, args = _filters(**scope)
    return db.execute(f"SELECT count(*) FROM memories{where}", args).fetchone()[0]


def export_records(db: Database, offset: int = 0, limit: int = 100, **scope) -> List[dict]:
    """A page of records, in storage order (a conversation's turns in order)."""
    where, args = _filters(**scope)
    rows = db.execute_returning_dicts(
        f"SELECT {', '.join(FIELDS)} FROM memories{where} ORDER BY seq LIMIT ? OFFSET ?",
        [*args, limit, offset])
    for row in rows:
        row["sources"] = json.loads(row["sources"]) if row["sources"] else None
        row["created_at"] = iso_time(row["created_at"])
        row["updated_at"] = iso_time(row["updated_at"])
        row["persona_id"] = row["persona_id"] or None
        row["tool_calls"] = json.loads(row["tool_calls"]) if row["tool_calls"] else None
    return rows


def check_record(record) -> dict:
    """A record as stored, or InvalidRequest saying what is wrong with it."""
    if not isinstance(record, dict):
        raise InvalidRequest("each record must be an object")
    row = {}
    for field in ("id", "user_id", "session_id"):
        row[field] = check_id(record.get(field), field)
    for field in ("persona_id", "conversation_id"):
        row[field] = check_id(record[field], field) if record.get(field) is not None else None
    if record.get("kind") not in KINDS:
        raise InvalidRequest(f"kind must be one of {', '.join(KINDS)}")
    row["kind"] = record["kind"]
    content = record.get("content")
    if not isinstance(content, str) or len(content.encode("utf-8", "surrogatepass")) > MAX_CONTENT_BYTES:
        raise InvalidRequest("content must be a string of at most 32 KiB")
    row["content"] = content
    role = record.get("role")
    if row["kind"] == "turn" and role not in ("user", "assistant", "tool"):
        raise InvalidRequest("a turn needs a role: user, assistant or tool")
    row["role"] = role if row["kind"] == "turn" else None
    for field in ("name", "tool_call_id"):
        value = record.get(field)
        if value is not None and not isinstance(value, str):
            raise InvalidRequest(f"{field} must be a string")
        row[field] = value
    calls = record.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        raise InvalidRequest("tool_calls must be a list")
    row["tool_calls"] = json.dumps(calls) if calls else None
    for field in ("slot", "value", "extractor"):
        value = record.get(field)
        if value is not None and not isinstance(value, str):
            raise InvalidRequest(f"{field} must be a string")
        row[field] = value
    row["status"] = record.get("status") or "current"
    if row["status"] not in ("current", "superseded", "retracted"):
        raise InvalidRequest("status must be current, superseded or retracted")
    confidence = record.get("confidence")
    if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, (int, float))
                                   or not 0 <= confidence <= 1):
        raise InvalidRequest("confidence must be a number from 0 to 1")
    row["confidence"] = confidence
    sources = record.get("sources")
    if sources is not None and (not isinstance(sources, list) or not all(isinstance(s, str) for s in sources)):
        raise InvalidRequest("sources must be a list of memory ids")
    row["sources"] = json.dumps(sources) if sources is not None else None
    row["created_at"] = parse_time(record.get("created_at"))
    updated = record.get("updated_at")
    row["updated_at"] = row["created_at"] if updated is None else parse_time(updated, "updated_at")
    if row["kind"] == "turn" and row["conversation_id"] is None:
        raise InvalidRequest("a turn needs its conversation_id")
    return row


def import_records(db: Database, records: Iterable[dict]) -> dict:
    """Insert records that are not in the store yet (by id), in one transaction.
    Their conversations are created (or widened) as needed."""
    rows = [check_record(r) for r in records]  # all or nothing
    imported = skipped = 0
    with db.atomic():
        for row in rows:
            if db.execute("SELECT 1 FROM memories WHERE id = ?", [row["id"]]).fetchone():
                skipped += 1
                continue
            db.execute(f"INSERT INTO memories ({', '.join(FIELDS)}) VALUES ({', '.join('?' * len(FIELDS))})",
                       [row[f] if f != "persona_id" else (row[f] or "") for f in FIELDS])
            if row["conversation_id"]:
                _widen_conversation(db, row)
            imported += 1
        # how far an imported rolling summary reaches follows from its sources
        db.execute("INSERT OR IGNORE INTO summaries (conversation_id, memory_id, covered_seq) "
                   "SELECT * FROM (SELECT m.conversation_id, m.id, (SELECT max(t.seq) FROM memories t "
                   "WHERE t.id IN (SELECT value FROM json_each(m.sources))) AS covered FROM memories m "
                   "WHERE m.kind = 'summary' AND m.conversation_id IS NOT NULL AND m.sources IS NOT NULL "
                   "AND m.id NOT IN (SELECT memory_id FROM summaries)) WHERE covered IS NOT NULL")
    return {"imported": imported, "skipped": skipped}


def _widen_conversation(db: Database, row: dict):
    db.execute(
        "INSERT INTO conversations (id, user_id, persona_id, session_id, started_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
        "started_at = min(started_at, excluded.started_at), updated_at = max(updated_at, excluded.updated_at)",
        [row["conversation_id"], row["user_id"], row["persona_id"] or "", row["session_id"],
         row["created_at"], row["created_at"]])


def users_overview(db: Database, user_id: Optional[str] = None) -> List[dict]:
    """Memories per user and kind, for the administrator."""
    where, args = _filters(user_id=user_id)
    overview = {}
    for user, kind, n, newest in db.execute(
            f"SELECT user_id, kind, count(*), max(created_at) FROM memories{where} "
            "GROUP BY user_id, kind ORDER BY user_id", args):
        entry = overview.setdefault(user, {"user_id": user, "total": 0, "newest": None,
                                           **{k: 0 for k in KINDS}})
        entry[kind] = n
        entry["total"] += n
        entry["newest"] = max(entry["newest"] or "", iso_time(newest))
    return list(overview.values())
