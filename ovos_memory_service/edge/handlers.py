"""One function per request type of docs/protocol.md: check the request's fields,
call the engine, and return the reply data. No memory logic here."""
from typing import List, Optional

from ovos_memory_service.engine.engine import MemoryEngine
from ovos_memory_service.common.errors import InvalidRequest, TooLarge
from ovos_memory_service.common.items import KINDS
from ovos_memory_service.common.items import EXPLICIT_KINDS
from ovos_memory_service.common.scope import Scope, check_id
from ovos_memory_service.common.wire import MAX_CONTENT_BYTES, parse_messages

WHERE = ("user", "session", "all")  # "all": every persona of the user (what the voice commands use)


# ----------------------------------------------------------- field checks
def text(data: dict, key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InvalidRequest(f"{key} is required and must be a non-empty string")
    if len(value.encode("utf-8", "surrogatepass")) > MAX_CONTENT_BYTES:
        raise TooLarge(f"{key} is limited to {MAX_CONTENT_BYTES} bytes")
    return value.strip()


def integer(data: dict, key: str, default: Optional[int], low: int, high: int) -> Optional[int]:
    value = data.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidRequest(f"{key} must be an integer from {low} to {high}")
    return value


def fraction(data: dict, key: str) -> Optional[float]:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InvalidRequest(f"{key} must be a number from 0 to 1")
    return float(value)


def flag(data: dict, key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise InvalidRequest(f"{key} must be true or false")
    return value


def kinds(data: dict, allowed=KINDS) -> List[str]:
    value = data.get("kinds")
    if value is None:
        return list(allowed)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or any(k not in allowed for k in value):
        raise InvalidRequest(f"kinds must be a non-empty list of {', '.join(allowed)}")
    return list(dict.fromkeys(value))


def where(data: dict) -> str:
    value = data.get("scope")
    if value is None:
        return "user"
    if value not in WHERE:
        raise InvalidRequest('scope must be "user", "session" or "all"')
    return value


# ---------------------------------------------------------------- requests
def context_build(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    context = engine.build_context(scope, text(data, "utterance"))
    return {"messages": [m.to_wire() for m in context.messages],
            "memories": [m.to_wire() for m in context.memories]}


def history_update(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    return engine.update_history(scope, parse_messages(data.get("messages")), data.get("request_id"))


def history_get(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    limit = integer(data, "limit", None, 1, 10_000)
    return {"messages": [m.to_wire() for m in engine.get_history(scope, limit)]}


def recall(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    found = engine.recall(scope, text(data, "query"), integer(data, "limit", None, 1, 50),
                          fraction(data, "threshold"), kinds(data), where(data))
    return {"memories": [m.to_wire() for m in found]}


def list_(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    items, total = engine.list(scope, kinds(data), integer(data, "limit", 20, 1, 200),
                               integer(data, "offset", 0, 0, 10**9), where(data))
    return {"memories": [m.to_wire() for m in items], "total": total}


def remember(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    kind = data.get("kind")
    if kind is not None and kind not in EXPLICIT_KINDS:
        raise InvalidRequest(f"kind must be one of {', '.join(EXPLICIT_KINDS)}")
    return {"id": engine.remember(scope, text(data, "content"), kind)}


def forget(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    given = [key for key in ("ids", "query", "all") if data.get(key) not in (None, False)]
    if len(given) != 1:
        raise InvalidRequest("give exactly one of ids, query or all")
    ids = query = None
    everything = False
    if given[0] == "ids":
        ids = data["ids"]
        if not isinstance(ids, list) or not ids or len(ids) > 1000:
            raise InvalidRequest("ids must be a list of 1 to 1000 memory ids")
        ids = [check_id(i, "ids[]") for i in ids]
    elif given[0] == "query":
        query = text(data, "query")
    else:
        if data["all"] is not True:
            raise InvalidRequest("all must be true")
        everything = True
    dry_run = flag(data, "dry_run")
    forgotten = engine.forget(scope, ids=ids, query=query, everything=everything,
                              where=where(data), dry_run=dry_run, kinds=kinds(data),
                              limit=integer(data, "limit", None, 1, 50),
                              threshold=fraction(data, "threshold"))
    reply = {"forgotten": len(forgotten), "ids": [m.id for m in forgotten], "dry_run": dry_run}
    if dry_run:
        reply["memories"] = [m.to_wire() for m in forgotten]
    return reply


def pause(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    return {"paused": engine.pause(scope, where(data), True)}


def resume(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    return {"paused": engine.pause(scope, where(data), False)}


def session_new(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    return {"conversation_id": engine.new_conversation(scope)}


def persona_configure(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    persona_id = check_id(data.get("persona_id"), "persona_id")
    module = data.get("memory_module")
    if not isinstance(module, str) or not module.strip():
        raise InvalidRequest("memory_module is required")
    config = data.get("config", {})
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise InvalidRequest("config must be an object")
    try:
        engine.configure_persona(persona_id, module.strip(), config)
    except ValueError as e:
        raise InvalidRequest(str(e))
    except TypeError as e:  # a backend compared a list or object where it wants a name
        raise InvalidRequest(f"the {module.strip()} block has a value of the wrong type ({e})")
    return {"persona_id": persona_id}


def stats(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    return engine.stats(scope)


# ------------------------------------------------ administration (ovos-memory)
def admin_filter(data: dict) -> dict:
    """``filter``: optional user_id, persona_id, session_id; nothing means every user."""
    given = data.get("filter")
    if given is None:
        return {}
    if not isinstance(given, dict) or set(given) - {"user_id", "persona_id", "session_id"}:
        raise InvalidRequest("filter may name user_id, persona_id and session_id")
    return {key: check_id(value, key) for key, value in given.items() if value is not None}


def admin_overview(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    return engine.overview(admin_filter(data).get("user_id"))


def admin_export(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    return engine.export(integer(data, "offset", 0, 0, 10**12), integer(data, "limit", 100, 1, 500),
                         **admin_filter(data))


def admin_import(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    records = data.get("records")
    if not isinstance(records, list) or not records:
        raise InvalidRequest("records must be a non-empty list")
    if len(records) > 500:
        raise TooLarge("at most 500 records per import request")
    learn = data.get("learn", False)
    if not isinstance(learn, bool):
        raise InvalidRequest("learn must be true or false")
    return engine.import_records(records, learn)


def admin_reindex(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    return engine.reindex()


def admin_compact(engine: MemoryEngine, scope: Scope, data: dict) -> dict:
    return engine.compact()


HANDLERS = {
    "memory.context.build": context_build,
    "memory.history.update": history_update,
    "memory.history.get": history_get,
    "memory.recall": recall,
    "memory.list": list_,
    "memory.remember": remember,
    "memory.forget": forget,
    "memory.pause": pause,
    "memory.resume": resume,
    "memory.session.new": session_new,
    "memory.persona.configure": persona_configure,
    "memory.stats": stats,
    "memory.admin.overview": admin_overview,
    "memory.admin.export": admin_export,
    "memory.admin.import": admin_import,
    "memory.admin.reindex": admin_reindex,
    "memory.admin.compact": admin_compact,
}
