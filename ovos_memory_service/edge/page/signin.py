"""Signing in with a link from ``ovos-memory page``, signing out, and the
language switch. Opening a link shows a button: the token is spent by the
POST it sends, so a link preview that fetches the address spends nothing."""
from bottle import HTTPError, HTTPResponse, request

from ovos_memory_service.edge.page.access import LoginRefused, TooManyAttempts
from ovos_memory_service.edge.page.guard import cookie_header
from ovos_memory_service.edge.page.web import current, field, lang_choice, link, local_path, render, see_other, words


def home_of(session) -> str:
    return "/" if session.owner else link("/memories", user=session.user_id)


def register(app, page):
    @app.get("/login")
    def login_form():
        token = field("token") or ""
        return render(page, "login.tpl", words(page)("login.title"), token=token)

    @app.post("/login")
    def login():
        try:
            cookie, session = page.access.redeem(field("token"), request.remote_addr or "")
        except TooManyAttempts:
            raise HTTPError(429, "error.too_many_attempts")
        except LoginRefused:
            raise HTTPError(403, "error.bad_link")
        max_age = int(page.settings["session_minutes"] * 60)
        raise HTTPResponse(status=303, headers={"Location": home_of(session),
                                                "Set-Cookie": cookie_header(cookie, max_age)})

    @app.post("/logout")
    def logout():
        page.access.end(request.environ["page.cookie"])
        raise HTTPResponse(status=303, headers={"Location": "/signed-out", "Set-Cookie": cookie_header("", 0)})

    @app.get("/signed-out")
    def signed_out():
        return render(page, "error.tpl", words(page)("signed_out.title"), message=words(page)("error.signed_out"),
                      status=200)

    @app.post("/lang")
    def switch_lang():
        session = current()
        session.lang = lang_choice(field("lang"))
        see_other(local_path(field("back"), "/"))

    @app.get("/")
    def home():
        session = current()
        if session is None:
            raise HTTPError(401, "error.signed_out")
        if not session.owner:
            see_other(home_of(session))
        users = sorted(page.engine.users(), key=lambda u: u["newest"] or "", reverse=True)
        paused = {p["user_id"] for p in page.engine.pauses() if p["session_id"] is None}
        return render(page, "users.tpl", words(page)("users.title"), users=users, paused=paused)
