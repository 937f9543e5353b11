"""SQL both stores write alike, each with its own placeholder (``mark``:
SQLite's ``?``, psycopg's ``%s``). Conditions are on the alias ``m`` of the
memories table."""
from typing import Tuple

from ovos_memory_service.common.scope import Scope
from ovos_memory_service.store.base import Visible
from ovos_memory_service.store.records import FIELDS

COLUMNS = set(FIELDS)

# what gets embedded: current memories with text, never tool results
EMBEDDABLE = "m.content != '' AND coalesce(m.role, '') != 'tool' AND m.status = 'current'"
# the queues a memory to embed joins: "embed", and "reembed" while the next model
# fills its vectors (Store.begin_reembedding): read in the writing transaction
NEXT_MODEL_KEY = "vector_model_next"
EMBED_QUEUES = (f"(SELECT 'embed' AS queue UNION ALL SELECT 'reembed' WHERE EXISTS "
                f"(SELECT 1 FROM settings WHERE key = '{NEXT_MODEL_KEY}')) q")


def new_row(row: dict) -> dict:
    """A memory row as inserted: the defaults filled in, only its own columns."""
    row = {"persona_id": "", "status": "current", "updated_at": row["created_at"], **row}
    columns_known(row)
    return row


def selected(columns, whole: str) -> str:
    """A SELECT list of ``columns`` of ``m`` (of FIELDS and seq), ``whole`` when none."""
    unknown = set(columns) - COLUMNS - {"seq"}
    if unknown:
        raise ValueError(f"unknown columns: {', '.join(sorted(unknown))}")
    return ", ".join(f"m.{c}" for c in columns) or whole


def columns_known(columns: dict):
    unknown = set(columns) - COLUMNS
    if unknown or not columns:
        raise ValueError(f"not a memory column: {', '.join(sorted(unknown))}")


def visible_to(visible: Visible, mark: str) -> Tuple[str, list]:
    """A condition selecting what ``visible`` allows."""
    scope, where = visible.scope, visible.where
    if not scope.long_term:  # below the speaker's access level (common/access.py): no long-term memory
        return "false", []
    clauses, args = [], []
    for kind in visible.kinds:
        clause = f"(m.kind = {mark} AND m.user_id = {mark}"
        args += [kind, scope.user_id]
        if visible.per_persona(kind):
            clause += f" AND m.persona_id = {mark}"
            args.append(scope.persona_key)
        clauses.append(clause + ")")
    # the user first, on its own: the planner walks the user's rows by index
    sql = f"m.user_id = {mark} AND (" + (" OR ".join(clauses) or "false") + ")"
    args = [scope.user_id, *args]
    if where == "session":
        sql += f" AND m.session_id = {mark}"
        args.append(scope.session_id)
    for clause, value in (("m.persona_id =", visible.persona), ("m.session_id =", visible.session),
                          ("m.created_at >=", visible.since),
                          ("m.created_at <", visible.until)):
        if value is not None:
            sql += f" AND {clause} {mark}"
            args.append(value)
    sql += " AND NOT (m.kind = 'turn' AND (m.role = 'tool' OR m.content = ''))"
    if not visible.history:
        sql += " AND m.status = 'current'"
    return sql, args


def in_scope(mark: str, user_id=None, persona_id=None, session_id=None) -> Tuple[str, list]:
    """`` WHERE ...`` narrowing to the scope given (an administrator's count,
    export, overview), or nothing."""
    clauses, args = [], []
    for column, value in (("user_id", user_id), ("persona_id", persona_id), ("session_id", session_id)):
        if value is not None:
            clauses.append(f"m.{column} = {mark}")
            args.append(value)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", args


def facets(mark: str) -> str:
    """The user's current memories counted by persona and by session, in one statement."""
    return ("SELECT 'personas' AS facet, persona_id AS value, count(*) AS n FROM memories "
            f"WHERE user_id = {mark} AND status = 'current' GROUP BY persona_id UNION ALL "
            "SELECT 'sessions' AS facet, session_id AS value, count(*) AS n FROM memories "
            f"WHERE user_id = {mark} AND status = 'current' GROUP BY session_id")


def pause_key(scope: Scope, where: str) -> list:
    """(user_id, session_id) of a pause row: "" for the whole user."""
    return [scope.user_id, scope.session_id if where == "session" else ""]
