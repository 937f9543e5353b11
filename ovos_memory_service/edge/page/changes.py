"""Changing: add a memory, correct a fact, forget (always shown first: the
engine's dry run lists every memory that would go, and the confirmation
forgets exactly those), pause and resume, import an export. Every change is
a POST with the session's CSRF token (app.py), and ends in a redirect."""
import json
import math

from bottle import HTTPError, request

from ovos_memory_service.common.errors import InvalidRequest, MemoryServiceError, NotFound
from ovos_memory_service.common.items import EXPLICIT_KINDS
from ovos_memory_service.edge.page.web import (field, id_field, ids_field, link, local_path, notify, number_field,
                                               reachable_user, render, scope_of, see_other, text_field, words)

# forgetting a topic looks this far (memory.forget's most); everything is shown, in pages of this
TOPIC_LIMIT = 50
SHOWN = 500


def register(app, page):
    def changed(user_id: str, key: str, **fields):
        page.changed(user_id)
        notify(key, **fields)

    @app.post("/add")
    def add():
        user_id = reachable_user()
        kind = field("kind")
        if kind is not None and kind not in EXPLICIT_KINDS:
            raise HTTPError(400, "error.bad_request")
        persona = id_field("persona")
        if kind == "attribute" and persona is None:
            raise HTTPError(400, "error.attribute_persona")
        try:
            memory_id = page.engine.remember(scope_of(page, user_id, persona), text_field("content"), kind)
        except NotFound:
            raise HTTPError(400, "error.nothing_to_retract")
        except InvalidRequest:
            raise HTTPError(409, "error.paused")
        changed(user_id, "notice.added")
        see_other(link("/memory", user=user_id, id=memory_id))

    @app.post("/correct")
    def correct():
        user_id = reachable_user()
        memory_id = id_field("id", required=True)
        try:
            new_id = page.engine.correct(scope_of(page, user_id), memory_id, text_field("content"))
        except NotFound:
            raise HTTPError(404, "error.no_memory")
        except InvalidRequest:
            raise HTTPError(409, "error.paused")
        changed(user_id, "notice.corrected")
        see_other(link("/memory", user=user_id, id=new_id))

    @app.post("/forget/confirm")
    def confirm_forget():
        """What would go, every item: nothing is forgotten here."""
        user_id = reachable_user()
        scope = scope_of(page, user_id)
        everything = field("all") == "1"
        query = None if everything else field("query")
        ids = [] if everything or query else ids_field()
        if not (everything or query or ids):
            notify("notice.nothing_chosen")
            see_other(local_path(field("back"), link("/memories", user=user_id)))
        if query is not None:
            query = text_field("query")
        found = page.engine.forget(scope, ids=ids or None, query=query, everything=everything, where="all",
                                   dry_run=True, limit=TOPIC_LIMIT if query else None)
        # "everything" is what was counted here: what is said before the button is pressed stays
        until = math.nextafter(max(m.created_at for m in found), math.inf) if everything and found else None
        return render(page, "confirm.tpl", words(page)("confirm.title"), user=user_id, items=found[:SHOWN],
                      total=len(found), everything=everything, query=query, until=until)

    @app.post("/forget")
    def forget():
        user_id = reachable_user()
        everything = field("all") == "1"
        ids = [] if everything else ids_field()
        if not everything and not ids:
            raise HTTPError(400, "error.bad_request")
        forgotten = page.engine.forget(scope_of(page, user_id), ids=ids or None, everything=everything, where="all",
                                       until=number_field("until", None, 0, math.inf) if everything else None)
        changed(user_id, "notice.forgotten", n=len(forgotten))
        see_other(link("/memories", user=user_id))

    def paused(paused: bool, notice: str):
        user_id = reachable_user()
        page.engine.pause(scope_of(page, user_id), "user", paused)
        changed(user_id, notice)
        see_other(link("/memories", user=user_id))

    app.post("/pause", callback=lambda: paused(True, "notice.paused"))
    app.post("/resume", callback=lambda: paused(False, "notice.resumed"))

    @app.post("/import")
    def import_():
        """An export (JSON lines, ``ovos-memory export``'s format) of this
        user's memories; all or nothing, and only the user's own records."""
        user_id = reachable_user()
        upload = request.files.get("file")
        if upload is None:
            raise HTTPError(400, "error.no_file")
        try:
            lines = upload.file.read().decode("utf-8").splitlines()
            records = [json.loads(line) for line in lines if line.strip()]
        except (UnicodeDecodeError, ValueError):
            raise HTTPError(400, "error.not_an_export")
        if not records or not all(isinstance(r, dict) for r in records):
            raise HTTPError(400, "error.not_an_export")
        if any(r.get("user_id") != user_id for r in records):
            raise HTTPError(400, "error.other_users_records")
        try:  # one transaction: all or nothing
            result = page.engine.import_records(records)
        except MemoryServiceError:
            raise HTTPError(400, "error.not_an_export")
        imported, skipped = result["imported"], result["skipped"]
        changed(user_id, "notice.imported", n=imported, skipped=skipped)
        see_other(link("/transfer", user=user_id))
