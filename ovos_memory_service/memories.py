"""Long-term memories of a user: who sees what, listing, explicit memories,
forgetting, pausing. SQL over the memories table; no bus, no backends.
"""
import json
import re
import time
from typing import List, Sequence, Tuple

from sqlite_utils import Database

from ovos_memory_service.items import KINDS, USER_FACT_KINDS, MemoryItem
from ovos_memory_service.scope import Scope
from ovos_memory_service.store.files import scrub

EXPLICIT_KINDS = ("fact", "preference", "skill", "attribute")


def visible(scope: Scope, kinds: Sequence[str] = KINDS, where: str = "user",
            share_turns: bool = False, share_facts: bool = True,
            history: bool = False) -> Tuple[str, list]:
    """A condition on alias ``m`` selecting the long-term memories ``scope`` may see.

    Everything belongs to the user. Turns and summaries are per persona unless
    ``share_turns``; facts about the user are shared unless not ``share_facts``;
    attributes are always per persona. ``where="session"`` keeps one session;
    ``where="all"`` is everything of the user in every persona (the voice
    commands). Superseded and retracted facts are history, seen only with ``history``.
    """
    clauses, args = [], []
    for kind in kinds:
        per_persona = where != "all" and (kind == "attribute"
                       or (kind in ("turn", "summary") and not share_turns)
                       or (kind in USER_FACT_KINDS and not share_facts))
        clause = "(m.kind = ? AND m.user_id = ?"
        args += [kind, scope.user_id]
        if per_persona:
            clause += " AND m.persona_id = ?"
            args.append(scope.persona_key)
        clauses.append(clause + ")")
    sql = "(" + (" OR ".join(clauses) or "0") + ")"
    if where == "session":
        sql += " AND m.session_id = ?"
        args.append(scope.session_id)
    # tool results and tool-call stubs are plumbing, not memories of the user
    sql += " AND NOT (m.kind = 'turn' AND (m.role = 'tool' OR m.content = ''))"
    if not history:
        sql += " AND m.status = 'current'"
    return sql, args


def list_memories(db: Database, condition: Tuple[str, list], limit: int,
                  offset: int) -> Tuple[List[MemoryItem], int]:
    sql, args = condition
    total = db.execute(f"SELECT count(*) FROM memories m WHERE {sql}", args).fetchone()[0]
    rows = db.execute_returning_dicts(
        f"SELECT m.* FROM memories m WHERE {sql} ORDER BY m.created_at DESC, m.seq DESC "
        "LIMIT ? OFFSET ?", [*args, limit, offset])
    return [MemoryItem.from_row(r) for r in rows], total


def select_ids(db: Database, condition: Tuple[str, list], ids: Sequence[str]) -> List[MemoryItem]:
    """The memories among ``ids`` that the condition allows (others are not touched)."""
    sql, args = condition
    rows = db.execute_returning_dicts(
        f"SELECT m.* FROM memories m WHERE {sql} AND m.id IN (SELECT value FROM json_each(?)) "
        "ORDER BY m.created_at DESC", [*args, _json(ids)])
    return [MemoryItem.from_row(r) for r in rows]


def delete(db: Database, ids: Sequence[str]) -> int:
    """Delete memories for real: rows, index entries, and the old pages."""
    if not ids:
        return 0
    with db.atomic():
        cursor = db.execute("DELETE FROM memories WHERE id IN (SELECT value FROM json_each(?))",
                            [_json(ids)])
    scrub(db)
    return cursor.rowcount


def normalized(text: str) -> str:
    """What makes two statements the same restatement: case, spacing and
    closing punctuation do not count."""
    return re.sub(r"\s+", " ", text.casefold()).strip().rstrip(".!;").strip()


def count_by_kind(db: Database, user_id: str) -> dict:
    counts = {kind: 0 for kind in KINDS}
    for kind, n in db.execute("SELECT kind, count(*) FROM memories WHERE user_id = ? GROUP BY kind",
                              [user_id]):
        counts[kind] = n
    return counts


def _pause_key(scope: Scope, where: str) -> list:
    return [scope.user_id, scope.session_id if where == "session" else ""]


def set_paused(db: Database, scope: Scope, where: str, paused: bool):
    with db.atomic():
        if paused:
            db.execute("INSERT OR REPLACE INTO pauses (user_id, session_id, paused_at) VALUES (?, ?, ?)",
                       [*_pause_key(scope, where), time.time()])
        elif where == "session":
            db.execute("DELETE FROM pauses WHERE user_id = ? AND session_id = ?", _pause_key(scope, where))
        else:  # resuming the user resumes every session of the user too
            db.execute("DELETE FROM pauses WHERE user_id = ?", [scope.user_id])


def is_paused(db: Database, scope: Scope) -> bool:
    """Paused for the whole user, or for this session of the user."""
    return db.execute("SELECT 1 FROM pauses WHERE user_id = ? AND session_id IN ('', ?)",
                      [scope.user_id, scope.session_id]).fetchone() is not None


def _json(values: Sequence[str]) -> str:
    return json.dumps(list(values))
