"""The memory page over real HTTP, in this process: a real engine on SQLite
files, the page's real server on a free port, requests as a browser sends
them. Who may sign in and how, what every change must carry, what every
response carries, and what never reaches an address or a log. (The same
attacks in a real browser against the real daemon: test_page_browser.py.)"""
import logging
import re
import threading
import time

import pytest
import requests
from ovos_utils.log import LOG

from ovos_memory_service.common.scope import Scope
from ovos_memory_service.edge.page.access import PageAccess
from ovos_memory_service.edge.page.links import page_request
from ovos_memory_service.edge.page.server import PageServer
from tests.helpers import Clock
from tests.page.helpers import csrf_of, sign_in, token_of

SCRIPT = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">'


@pytest.fixture
def served(make_engine):
    """An engine and its page on a free port of 127.0.0.1; ``clock`` moves the page's time."""
    engine = make_engine(embeddings={"enabled": False}, page={"port": 0, "login_attempts_per_minute": 3})
    clock = Clock()
    server = PageServer(engine, engine.config, PageAccess(lambda: engine.config["page"], clock))
    server.start()
    server.clock = clock
    yield server
    server.stop()


@pytest.fixture
def logged(monkeypatch, caplog):
    """Every line this process logs through OVOS's LOG, DEBUG included (its own
    loggers neither propagate to pytest's handler nor log below INFO)."""
    plain = logging.getLogger("ovos-memory-page-test")
    monkeypatch.setattr(LOG, "_get_real_logger", classmethod(lambda cls: plain))
    caplog.set_level(logging.DEBUG)
    return caplog


def wait_logged(caplog, line: str, timeout: float = 5) -> str:
    """Everything logged, once ``line`` is (a request is logged by its thread after its answer is sent)."""
    deadline = time.monotonic() + timeout
    while line not in ours(caplog):
        if time.monotonic() > deadline:
            raise AssertionError(f"never logged: {line!r}\n{ours(caplog)}")
        time.sleep(0.02)
    return ours(caplog)


def ours(caplog) -> str:
    """What this process logged, but the HTTP client's own lines (urllib3 logs the addresses it asks for)."""
    return "\n".join(r.getMessage() for r in caplog.records if not r.name.startswith("urllib3"))


def link(server, user_id=None) -> str:
    return page_request(server, Scope("default", "default"), {"user_id": user_id} if user_id else {})["url"]


def test_a_link_signs_in_once_with_a_strict_cookie(served):
    url = link(served)
    browser = requests.Session()
    assert browser.get(url).status_code == 200  # opening the link spends nothing (link previews)
    answer = browser.post(f"{served.url}/login", data={"token": token_of(url)}, allow_redirects=False)
    assert answer.status_code == 303 and answer.headers["Location"] == "/"
    cookie = answer.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert browser.get(f"{served.url}/").status_code == 200
    again = requests.post(f"{served.url}/login", data={"token": token_of(url)}, allow_redirects=False)
    assert again.status_code == 403  # used


def test_wrong_expired_and_revoked_links_are_refused(served):
    assert requests.post(f"{served.url}/login", data={"token": "not-a-token"}).status_code == 403
    expired = link(served)
    served.clock.now += served.settings["link_minutes"] * 60 + 1
    assert requests.post(f"{served.url}/login", data={"token": token_of(expired)}).status_code == 403
    revoked = link(served)
    signed_in = sign_in(link(served))
    assert page_request(served, Scope("default", "default"), {"action": "revoke"})["revoked"] == 2
    assert requests.post(f"{served.url}/login", data={"token": token_of(revoked)}).status_code == 403
    assert signed_in.get(f"{served.url}/").status_code == 401  # the session ended too


def test_a_session_expires(served):
    browser = sign_in(link(served))
    served.clock.now += served.settings["session_minutes"] * 60 + 1
    assert browser.get(f"{served.url}/").status_code == 401


def test_failed_logins_are_rate_limited_even_for_a_good_link(served):
    for _ in range(3):
        assert requests.post(f"{served.url}/login", data={"token": "guess"}).status_code == 403
    good = link(served)
    assert requests.post(f"{served.url}/login", data={"token": token_of(good)}).status_code == 429
    served.clock.now += 61
    assert requests.post(f"{served.url}/login", data={"token": token_of(good)},
                         allow_redirects=False).status_code == 303


def test_every_change_needs_the_sessions_csrf_token_and_the_pages_origin(served):
    engine = served.engine
    engine.remember(Scope("ana", "default"), "I live in Porto")
    browser = sign_in(link(served))
    page = browser.get(f"{served.url}/memories", params={"user": "ana"})
    csrf = csrf_of(page.text)
    forget_all = {"user": "ana", "all": "1"}
    assert browser.post(f"{served.url}/forget", data=forget_all).status_code == 403
    assert browser.post(f"{served.url}/forget", data={**forget_all, "csrf": "x" + csrf}).status_code == 403
    assert browser.post(f"{served.url}/forget", data={**forget_all, "csrf": csrf},
                        headers={"Origin": "http://evil.example"}).status_code == 403
    assert browser.post(f"{served.url}/forget", data={**forget_all, "csrf": csrf},
                        headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    # another port of this machine is the same site (the cookie goes along), not the same origin
    assert browser.post(f"{served.url}/forget", data={**forget_all, "csrf": csrf},
                        headers={"Sec-Fetch-Site": "same-site"}).status_code == 403
    # "null" (a sandboxed frame, a data: page) passes only where the browser vouches for the origin
    assert browser.post(f"{served.url}/forget", data={**forget_all, "csrf": csrf},
                        headers={"Origin": "null"}).status_code == 403
    assert requests.post(f"{served.url}/forget", data={**forget_all, "csrf": csrf}).status_code == 401  # no cookie
    assert engine.list(Scope("ana", "default"))[1] == 1
    # Chromium's own forms under the page's no-referrer policy: Origin null, Sec-Fetch-Site same-origin
    done = browser.post(f"{served.url}/forget", data={**forget_all, "csrf": csrf}, allow_redirects=False,
                        headers={"Origin": "null", "Sec-Fetch-Site": "same-origin"})
    assert done.status_code == 303 and engine.list(Scope("ana", "default"))[1] == 0


def test_forgetting_everything_takes_what_was_counted_not_what_was_said_since(served):
    """The confirmation counts every memory; one said before its button is pressed stays."""
    engine, ana = served.engine, Scope("ana", "default")
    engine.remember(ana, "I live in Porto")
    browser = sign_in(link(served))
    csrf = csrf_of(browser.get(f"{served.url}/memories", params={"user": "ana"}).text)
    shown = browser.post(f"{served.url}/forget/confirm", data={"user": "ana", "all": "1", "csrf": csrf})
    form = shown.text.split('action="/forget"', 1)[1].split("</form>", 1)[0]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form))
    assert fields["all"] == "1"
    time.sleep(0.01)
    said_since = engine.remember(ana, "I work as a nurse")
    assert browser.post(f"{served.url}/forget", data=fields).status_code == 200
    assert [m.id for m in engine.list(ana)[0]] == [said_since]
    assert browser.post(f"{served.url}/forget", data={**fields, "until": "nan"}).status_code == 400


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1:1", "192.168.1.20:{port}",
                                  "localhost.evil.example:{port}", "", "127.0.0.1:{port}@evil"])
def test_a_foreign_host_header_is_refused_before_anything(served, host):
    port = served.bound[1]
    answer = requests.get(f"{served.url}/login", headers={"Host": host.format(port=port)})
    assert answer.status_code == 421 and "Open" not in answer.text
    assert answer.headers["Content-Security-Policy"]


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "127.0.0.2:{port}"])
def test_loopback_names_and_addresses_are_the_pages_own(served, host):
    answer = requests.get(f"{served.url}/login", headers={"Host": host.format(port=served.bound[1])})
    assert answer.status_code == 200


def test_the_names_the_owner_gave_are_the_pages_own(served):
    base, port = served.url, served.bound[1]
    served.settings.update(url="https://Kitchen-Pi.local/", allowed_hosts=["memory.example"])
    for host in ("kitchen-pi.local", "kitchen-pi.local:443", "memory.example", f"memory.example:{port}"):
        assert requests.get(f"{base}/login", headers={"Host": host}).status_code == 200, host
    assert requests.get(f"{base}/login", headers={"Host": "kitchen-pi.local.evil.example"}).status_code == 421


def test_every_response_is_strict(served):
    browser = sign_in(link(served))
    for path in ("/", "/memories?user=ana", "/static/page.js", "/nothing-here", "/login"):
        headers = browser.get(f"{served.url}{path}").headers
        assert "script-src 'self'" in headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert headers["X-Content-Type-Options"] == "nosniff" and headers["Referrer-Policy"] == "no-referrer"
        assert headers["X-Frame-Options"] == "DENY" and headers["Cache-Control"] == "no-store"
        assert headers["Server"] == "ovos-memory-page"


def test_a_user_link_reaches_that_user_only(served):
    engine = served.engine
    mine = engine.remember(Scope("ana", "default"), "I live in Porto")
    theirs = engine.remember(Scope("bob", "default"), "I live in Rome")
    ana = sign_in(link(served, "ana"))
    home = ana.get(f"{served.url}/", allow_redirects=False)
    assert home.status_code == 303 and "user=ana" in home.headers["Location"]
    assert "Porto" in ana.get(f"{served.url}/memories").text
    for path in ("/memories?user=bob", "/memory?user=bob&id=" + theirs, "/export?user=bob", "/health?user=bob",
                 "/state?user=bob"):
        assert ana.get(f"{served.url}{path}").status_code == 403, path
    assert ana.get(f"{served.url}/memory", params={"user": "ana", "id": theirs}).status_code == 404
    csrf = csrf_of(ana.get(f"{served.url}/memories").text)
    ana.post(f"{served.url}/forget", data={"user": "ana", "ids": [theirs, mine], "csrf": csrf})
    ana.post(f"{served.url}/correct", data={"user": "ana", "id": theirs, "content": "I live in Oslo", "csrf": csrf})
    assert ana.post(f"{served.url}/forget", data={"user": "bob", "all": "1", "csrf": csrf}).status_code == 403
    assert [m.content for m in engine.list(Scope("bob", "default"))[0]] == ["I live in Rome"]
    assert engine.list(Scope("ana", "default"))[1] == 0


def test_memory_text_is_escaped_and_never_in_an_address_or_a_log(served, logged):
    engine = served.engine
    memory_id = engine.remember(Scope("ana", "default"), SCRIPT)
    browser = sign_in(link(served))
    assert browser.post(f"{served.url}/forget", data={"user": "ana", "query": SCRIPT}).status_code == 403
    pages = [browser.get(f"{served.url}/memories", params={"user": "ana"}),
             browser.get(f"{served.url}/memory", params={"user": "ana", "id": memory_id})]
    csrf = csrf_of(pages[0].text)
    pages.append(browser.post(f"{served.url}/search", data={"user": "ana", "query": "pwned script", "csrf": csrf,
                                                            "threshold": "0"}))
    pages.append(browser.post(f"{served.url}/context", data={"user": "ana", "question": SCRIPT, "csrf": csrf}))
    pages.append(browser.post(f"{served.url}/forget/confirm", data={"user": "ana", "ids": memory_id, "csrf": csrf}))
    for answer in pages:
        assert answer.status_code == 200
        assert "<script>window" not in answer.text and "<img src=x" not in answer.text
        assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in answer.text
        for address in re.findall(r'(?:href|action|src)="([^"]*)"', answer.text) + [answer.url]:
            assert "pwned" not in address and "script" not in address.replace("/static/", "")
    wait_logged(logged, "page: POST /forget 403 from 127.0.0.1")  # refusals: method, path, status, address
    lines = wait_logged(logged, "page: POST /forget/confirm 200 from 127.0.0.1")  # the rest too, at DEBUG
    assert "page: GET /memory 200 from 127.0.0.1" in lines  # without the query
    assert "pwned" not in lines and "token=" not in lines  # refusals: method, path, status, address


def test_the_login_token_is_not_logged(served, logged):
    url = link(served)
    sign_in(url)
    assert token_of(url) not in wait_logged(logged, "page: POST /login 303 from 127.0.0.1")


def test_oversized_bodies_are_refused_unread(served):
    browser = sign_in(link(served))
    body = b"x" * (served.settings["max_upload_mb"] * 1024 * 1024 + 1)
    assert browser.post(f"{served.url}/import", data=body,
                        headers={"Content-Type": "application/octet-stream"}).status_code == 413


def test_stopping_the_page_ends_its_threads_and_closes_the_port(make_engine):
    engine = make_engine(embeddings={"enabled": False}, page={"port": 0})
    server = PageServer(engine, engine.config)
    server.start()
    url = server.url
    sign_in(link(server))
    server.stop()
    assert not [t for t in threading.enumerate() if t.name == "memory-page"]
    with pytest.raises(requests.ConnectionError):
        requests.get(url, timeout=2)
    assert server._forgotten not in engine.forget_listeners
