"""Looking closer: search as ``memory.recall`` does (score and order shown),
what the assistant would be told (a context build for a typed question,
each message with the memories it carries), export and import, and the
service's health. Questions and searches are POSTed: their text never
enters an address or a log."""
import json

from bottle import HTTPResponse

from ovos_memory_service.common.items import KINDS
from ovos_memory_service.edge.page.browse import filters_of
from ovos_memory_service.edge.page.web import (field, id_field, kinds_field, number_field, reachable_user, render,
                                               scope_of, text_field, words)

EXPORT_PAGE = 500
LIMITS = (5, 10, 20, 50)


def carried(message: dict, memories) -> list:
    """The memories whose text a message of a build holds."""
    content = message.get("content") or ""
    return [m for m in memories if m.content and m.content in content]


def register(app, page):
    def search_page(user_id: str, **values):
        defaults = {"query": "", "found": None, "kind": None, "persona": None, "limit": 10,
                    "threshold": page.config["recall_relevance_threshold"]}
        return render(page, "search.tpl", words(page)("search.title"), user=user_id, kinds=KINDS, limits=LIMITS,
                      **filters_of(page, user_id), **{**defaults, **values})

    @app.get("/search")
    def search_form():
        return search_page(reachable_user())

    @app.post("/search")
    def search():
        user_id = reachable_user()
        query = text_field("query")
        persona = id_field("persona")
        limit = int(number_field("limit", 10, 1, 50))
        threshold = number_field("threshold", page.config["recall_relevance_threshold"], 0, 1)
        kinds = kinds_field()
        found = page.engine.recall(scope_of(page, user_id, persona), query, limit, threshold, kinds, "all")
        return search_page(user_id, query=query, found=found, kind=field("kind"), persona=persona, limit=limit,
                           threshold=threshold)

    def context_page(user_id: str, **values):
        defaults = {"question": "", "messages": None, "memories": [], "persona": None, "session_id": None}
        return render(page, "context.tpl", words(page)("context.title"), user=user_id, carried=carried,
                      levels=page.config["access_levels"], **filters_of(page, user_id), **{**defaults, **values})

    @app.get("/context")
    def context_form():
        return context_page(reachable_user())

    @app.post("/context")
    def context():
        user_id = reachable_user()
        question = text_field("question")
        persona, session_id = id_field("persona"), id_field("session")
        built = page.engine.build_context(scope_of(page, user_id, persona, session_id), question)
        return context_page(user_id, question=question, messages=[m.to_wire() for m in built.messages],
                            memories=built.memories, persona=persona, session_id=session_id)

    @app.get("/transfer")
    def transfer():
        user_id = reachable_user()
        return render(page, "transfer.tpl", words(page)("transfer.title"), user=user_id,
                      max_mb=page.settings["max_upload_mb"])

    @app.get("/export")
    def export():
        """Every memory of the user as JSON lines, as ``ovos-memory export --user`` writes them."""
        user_id = reachable_user()

        def lines():
            offset = 0
            while True:
                records = page.engine.export(offset, EXPORT_PAGE, user_id=user_id)["records"]
                for record in records:
                    yield (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
                if len(records) < EXPORT_PAGE:
                    return
                offset += EXPORT_PAGE
        return HTTPResponse(body=lines(), headers={
            "Content-Type": "application/x-ndjson; charset=utf-8",
            "Content-Disposition": 'attachment; filename="ovos-memories.jsonl"'})

    @app.get("/health")
    def health():
        user_id = reachable_user()
        stats = page.engine.stats(scope_of(page, user_id))
        return render(page, "health.tpl", words(page)("health.title"), user=user_id, stats=stats,
                      disk=page.engine.disk_used(), kinds=KINDS)
