"""Reading: a user's memories by kind, persona, session and date, newest
first; one memory with its provenance; the state that live updates watch."""
import json

from bottle import HTTPError, HTTPResponse

from ovos_memory_service.common.items import DERIVED_KINDS, EXPLICIT_KINDS, KINDS
from ovos_memory_service.edge.page.web import (current, day_field, field, id_field, kinds_field, reachable_user,
                                               render, scope_of, state_of, words)

PAGE_SIZE = 50
DAY_S = 24 * 3600


def filters_of(page, user_id: str) -> dict:
    """The personas and sessions a user's memories are in, for the filters."""
    facets = page.engine.facets(user_id)
    return {"personas": sorted(facets["personas"]), "sessions": sorted(facets["sessions"])}


def register(app, page):
    @app.get("/memories")
    def memories():
        user_id = reachable_user()
        kinds = kinds_field()
        persona, session_id = field("persona"), field("session")
        since, until = day_field("from"), day_field("to")
        offset = int(field("offset") or 0) if (field("offset") or "0").isdigit() else 0
        narrowed = {"persona": None if persona is None else ("" if persona == "-" else persona),
                    "session": session_id, "since": since, "until": until + DAY_S if until is not None else None}
        items, total = page.engine.list(scope_of(page, user_id), kinds, PAGE_SIZE, offset, "all", **narrowed)
        counts = next(iter(page.engine.users(user_id)), {})
        paused = any(p["session_id"] is None for p in page.engine.pauses(user_id))
        return render(page, "memories.tpl", words(page)("memories.title", user=user_id), user=user_id,
                      items=items, total=total, offset=offset, page_size=PAGE_SIZE, counts=counts, kinds=KINDS,
                      explicit=EXPLICIT_KINDS, chosen={"kind": field("kind"), "persona": persona,
                                                       "session": session_id, "from": field("from"),
                                                       "to": field("to")},
                      paused=paused, **filters_of(page, user_id))

    @app.get("/memory")
    def memory():
        user_id = reachable_user()
        memory_id = id_field("id", required=True)
        found = page.engine.memories(scope_of(page, user_id), [memory_id])
        if not found:
            raise HTTPError(404, "error.no_memory")
        item = found[0]
        sources = page.engine.memories(scope_of(page, user_id), item.sources, ("turn",)) if item.sources else []
        return render(page, "memory.tpl", words(page)("memory.title"), user=user_id, item=item,
                      sources=sources, missing=len(item.sources) - len(sources),
                      correctable=item.kind in EXPLICIT_KINDS, derived=item.kind in DERIVED_KINDS,
                      personas=filters_of(page, user_id)["personas"])

    @app.get("/state")
    def state():
        """For the page's script: a fingerprint of the user's memories (no text)."""
        if current() is None:
            raise HTTPResponse(status=401, body=json.dumps({"signed_out": True}),
                               headers={"Content-Type": "application/json"})
        user_id = reachable_user()
        return HTTPResponse(body=json.dumps({"v": state_of(page, user_id)}),
                            headers={"Content-Type": "application/json"})
