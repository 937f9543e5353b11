"""The page as a WSGI application: Bottle's routes behind one gate.

The gate (a WSGI wrapper, so that nothing reaches a route without it)
refuses a foreign Host header and an oversized body, and puts the security
headers (guard.HEADERS) on every response, errors included. A hook then
finds the session of the cookie and checks the CSRF token and the Origin of
every POST. The views live in signin.py, browse.py, changes.py and tools.py.
"""
import bottle
from bottle import Bottle, HTTPError, request, static_file

from ovos_memory_service.edge.page import browse, changes, signin, tools
from ovos_memory_service.edge.page.guard import COOKIE, HEADERS, from_this_page, host_allowed, own_names
from ovos_memory_service.edge.page.web import STATIC, current, render, words

LOWER_HEADERS = {h.lower() for h in HEADERS}
ERRORS = (400, 401, 403, 404, 405, 409, 413, 429, 500)
# the POSTs a browser may send without a session: signing in
OPEN_POSTS = ("/login",)


def build_app(page):
    app = Bottle(catchall=True)
    app.config["json.enable"] = False
    # bodies up to the upload limit stay in memory (Bottle spills larger ones to a temp file)
    bottle.BaseRequest.MEMFILE_MAX = page.settings["max_upload_mb"] * 1024 * 1024

    @app.hook("before_request")
    def find_session():
        cookie = request.get_cookie(COOKIE)
        request.environ["page.cookie"] = cookie
        request.environ["page.session"] = page.access.session(cookie)
        if request.method == "POST":
            check_post(request.path)

    def check_post(path: str):
        if not from_this_page(request.get_header("Sec-Fetch-Site"), request.get_header("Origin"),
                              request.get_header("Host")):
            raise HTTPError(403, "error.csrf")
        if path in OPEN_POSTS:
            return
        session = current()
        if session is None:
            raise HTTPError(401, "error.signed_out")
        if not session.csrf_matches(request.forms.get("csrf") or request.get_header("X-CSRF-Token")):
            raise HTTPError(403, "error.csrf")

    @app.get("/static/<name:re:[a-z]+\\.(css|js|svg)>")
    def static(name):
        return static_file(name, root=str(STATIC))

    for area in (signin, browse, changes, tools):
        area.register(app, page)

    def error_page(error: HTTPError):
        key = error.body if isinstance(error.body, str) and error.body.startswith("error.") else "error.failed"
        return render(page, "error.tpl", words(page)("error.title"), message=words(page)(key),
                      status=error.status_code)

    for status in ERRORS:
        app.error(status)(error_page)
    return gate(app, page)


def gate(app, page):
    def guarded(environ, start_response):
        bound_host, port = page.bound
        if not host_allowed(environ.get("HTTP_HOST", ""), bound_host, port, own_names(page.settings)):
            return plain(start_response, "421 Misdirected Request", b"This page is not served under that name.\n")
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return plain(start_response, "400 Bad Request", b"Bad request.\n")
        if length > page.settings["max_upload_mb"] * 1024 * 1024:
            return plain(start_response, "413 Payload Too Large", b"Too large.\n")

        def strict(status, headers, exc_info=None):
            kept = [(k, v) for k, v in headers if k.lower() not in LOWER_HEADERS]
            return start_response(status, kept + list(HEADERS.items()), exc_info)
        return app(environ, strict)
    return guarded


def plain(start_response, status: str, body: bytes):
    start_response(status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body))),
                            *HEADERS.items()])
    return [body]
