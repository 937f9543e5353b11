"""Memories as records, the shape export writes and import reads back with
their ids, kinds, scopes and times (every store speaks it).

A record is one memory as JSON (one line of an export file):
``{"id", "kind", "user_id", "persona_id", "session_id", "conversation_id",
"role", "name", "content", "tool_calls", "tool_call_id", "created_at",
"updated_at", "slot", "value", "status", "confidence", "sources", "extractor",
"auth_level"}`` with ISO 8601 times; ``persona_id`` is null for the default
persona namespace; ``auth_level`` is the speaker's authentication level when it
was said (OVOS-USER-ID-1, 0-5), null for memories stored before levels were kept.
"""
import json

from ovos_memory_service.common.errors import InvalidRequest
from ovos_memory_service.common.items import KINDS
from ovos_memory_service.common.scope import check_id
from ovos_memory_service.common.wire import MAX_CONTENT_BYTES, iso_time, parse_time

FIELDS = ("id", "kind", "user_id", "persona_id", "session_id", "conversation_id", "role", "name",
          "content", "tool_calls", "tool_call_id", "created_at", "updated_at",
          # the fact model: slot, value, status (current, superseded, retracted) and provenance
          "slot", "value", "status", "confidence", "sources", "extractor",
          # the speaker's authentication level when it was said (null: not known)
          "auth_level")


def to_record(row: dict) -> dict:
    """A stored row as an export record."""
    record = {field: row[field] for field in FIELDS}
    record["sources"] = json.loads(row["sources"]) if row["sources"] else None
    record["created_at"] = iso_time(row["created_at"])
    record["updated_at"] = iso_time(row["updated_at"])
    record["persona_id"] = row["persona_id"] or None
    record["tool_calls"] = json.loads(row["tool_calls"]) if row["tool_calls"] else None
    return record


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
    level = record.get("auth_level")
    if level is not None and (isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 5):
        raise InvalidRequest("auth_level must be an integer from 0 to 5, or null")
    row["auth_level"] = level
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
