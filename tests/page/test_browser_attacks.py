"""Every attack on the memory page, from a real headless Chromium against the
real daemon on a real ovos-messagebus: script in memory text, changes without
the CSRF token or from other sites, wrong, used, expired and revoked links,
guessing, a user's link reaching for another user's memories, the page
reached from another address while it listens on 127.0.0.1, and a foreign
Host header (DNS rebinding). Each refusal is checked to have changed nothing."""
import subprocess
import sys
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ovos_memory_service.edge.page.links import lan_addresses
from ovos_memory_service.edge.page.words import Words
from tests.page.browser import EVIL, PageBrowser
from tests.sandbox import Stack
from tests.page.test_browser_actions import listed, remember, settled

pytestmark = pytest.mark.stack
say_en = Words("en-us")
# the module's daemon: its few wrong links must not trip the limit on guessing
PAGE = {"login_attempts_per_minute": 20}
SCRIPT = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'
BREAKOUT = '"><svg onload="window.pwned = 3">'  # an id that tries to leave its attribute


def pwned(browser):
    return browser.driver.execute_script("return window.pwned === undefined ? null : window.pwned")


def test_script_in_memory_text_is_shown_as_text_and_never_run(browser, daemon):
    remember(daemon, "ana", SCRIPT, persona_id=BREAKOUT)
    daemon.ok("memory.history.update", {"messages": [{"role": "user", "content": "pwned " + SCRIPT}],
                                        "user_id": "ana"}, session_id=BREAKOUT)
    settled(browser, daemon)
    browser.sign_in(daemon.page_link())
    link = daemon.page_link()
    shown = []
    for path in ("/", "/memories", "/search", "/context", "/health"):
        browser.open(path, user="ana")
        shown.append(browser.find("main").text)
        assert pwned(browser) is None, path
    browser.open("/memories", user="ana")
    assert SCRIPT in [text for _, text in browser.memories()]
    options = browser.find("#f-persona").find_elements("css selector", "option")
    assert BREAKOUT in [o.get_attribute("textContent") for o in options]
    assert BREAKOUT in [o.get_attribute("value") for o in options]  # the attribute holds it whole
    browser.press("li.memory a")
    assert pwned(browser) is None and SCRIPT in browser.find("main").text + "pwned"
    browser.open("/search", user="ana")
    browser.type("#s-query", "pwned window")
    browser.find("#s-threshold").clear()
    browser.find("#s-threshold").send_keys("0")
    browser.press("#search-button")
    assert pwned(browser) is None and any(SCRIPT in text for _, text in browser.memories("#results"))
    browser.open("/context", user="ana")
    browser.type("#c-question", SCRIPT)
    browser.press("#context-button")
    assert pwned(browser) is None and browser.all("#told pre.said")[-1].text == SCRIPT
    browser.open("/memories", user="ana")
    browser.type("#add-content", BREAKOUT + SCRIPT)
    browser.press("#add-button")
    assert pwned(browser) is None and browser.memories()[0][1] == BREAKOUT + SCRIPT
    browser.open("/memories", user="ana")
    browser.press("#forget-all")
    assert pwned(browser) is None and len(browser.memories("#to-forget")) >= 3
    # and neither the text nor a link's token reached the daemon's log
    logged = daemon.log.read_text(encoding="utf-8", errors="replace")
    assert "pwned" not in logged and link.split("token=")[1] not in logged


def test_a_change_without_the_pages_csrf_token_is_refused(browser, daemon):
    remember(daemon, "ben", "I keep a diary")
    browser.sign_in(daemon.page_link())
    for token in (None, "a-token-of-my-own"):
        browser.open("/memories", user="ben")
        browser.driver.execute_script(
            "var field = document.querySelector('form:has(#forget-all) input[name=csrf]');"
            "if (arguments[0] === null) { field.remove(); } else { field.value = arguments[0]; }", token)
        browser.press("#forget-all")  # even the dry run needs it
        assert browser.problem() == say_en("error.csrf")
        assert browser.find("#problem").get_attribute("data-status") == "403"
    browser.open("/memories", user="ben")
    browser.press("#forget-all")
    browser.driver.execute_script("document.querySelector('#confirm-forget').form.csrf.value = 'stale'")
    browser.press("#confirm-forget")
    assert browser.problem() == say_en("error.csrf")
    assert [text for _, text in listed(daemon, "ben")] == ["I keep a diary"]


class Attacker(BaseHTTPRequestHandler):
    """Another site: a page that posts "forget everything" to the memory page
    as soon as it opens, and tries to read the memory page's list."""
    target = ""

    def do_GET(self):
        body = f"""<!DOCTYPE html><title>win a prize</title>
<form id="f" method="post" action="{self.target}/forget"><input name="user" value="cat">
<input name="all" value="1"><input name="csrf" value="guess"></form>
<script>
fetch("{self.target}/memories?user=cat", {{credentials: "include"}})
  .then(function (r) {{ return r.text(); }})
  .then(function (t) {{ document.title = "read " + t.length; }},
        function () {{ document.title = "blocked"; }})
  .then(function () {{ document.getElementById("f").submit(); }});
</script>""".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def attacker(daemon):
    Attacker.target = daemon.page_base
    server = ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.mark.parametrize("site", [EVIL, "127.0.0.1"], ids=["another-site", "another-port-of-this-machine"])
def test_another_site_can_neither_change_nor_read_memories(browser, daemon, attacker, site):
    remember(daemon, "cat", "I hide my keys under the mat")
    browser.sign_in(daemon.page_link())
    browser.open("/memories", user="cat")
    browser.after_loading(lambda: browser.driver.get(f"http://{site}:{attacker}/"))
    assert browser.driver.current_url.startswith(daemon.page_base)  # the form was sent, and refused
    assert browser.problem() in (say_en("error.csrf"), say_en("error.signed_out"))
    assert [text for _, text in listed(daemon, "cat")] == ["I hide my keys under the mat"]
    browser.driver.back()
    assert browser.driver.title == "blocked"  # no other site reads the page (no CORS)


def test_wrong_used_and_revoked_links_are_refused(browser, daemon):
    browser.open("/login", token="not-a-token-at-all")
    browser.press("#open")
    assert browser.problem() == say_en("error.bad_link")
    used = daemon.page_link()
    browser.sign_in(used)
    browser.driver.get(used)
    browser.press("#open")
    assert browser.problem() == say_en("error.bad_link")
    # ovos-memory page --revoke, for real: open sessions end (the open page says so by itself) and unused links die
    remember(daemon, "dan", "I sing in a choir")
    unused = daemon.page_link()
    browser.sign_in(daemon.page_link())
    browser.open("/memories", user="dan")
    cli = subprocess.run([sys.executable, "-m", "ovos_memory_service.edge.cli", "page", "--revoke"], env=daemon.env,
                         capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.startswith("signed out and cancelled: ")
    browser.wait_until(lambda: browser.problem() == say_en("error.signed_out"), "the open page to sign out")
    browser.driver.get(unused)
    browser.press("#open")
    assert browser.problem() == say_en("error.bad_link")


def test_revoking_one_users_links_leaves_the_others_signed_in(browser, daemon, chromium):
    remember(daemon, "eva", "I grow tomatoes")
    browser.sign_in(daemon.page_link("eva"))
    revoked = daemon.ok("memory.admin.page", {"action": "revoke", "user_id": "fox"})["revoked"]
    assert revoked == 0
    browser.open("/memories")
    assert [text for _, text in browser.memories()] == ["I grow tomatoes"]
    assert daemon.ok("memory.admin.page", {"action": "revoke", "user_id": "eva"})["revoked"] == 1
    browser.open("/memories")
    assert browser.problem() == say_en("error.signed_out")


def test_a_users_link_reaches_that_user_only(browser, daemon):
    mine = remember(daemon, "gil", "I play the harp")
    theirs = remember(daemon, "hoa", "My PIN is 9021")
    browser.sign_in(daemon.page_link("gil"))
    assert browser.text("h1") == say_en("memories.heading", user="gil")  # no list of users
    browser.open("/")
    assert [text for _, text in browser.memories()] == ["I play the harp"]
    assert not browser.all('nav a[href="/"]')
    for path in ("/memories", "/search", "/context", "/transfer", "/health", "/export"):
        browser.open(path, user="hoa")
        assert browser.problem() == say_en("error.other_user"), path
    browser.open("/memory", user="gil", id=theirs)
    assert browser.problem() == say_en("error.no_memory")
    # a tampered form: another user's id in a box of one's own list
    browser.open("/memories", user="gil")
    browser.driver.execute_script("var box = document.querySelector('li.memory input[name=ids]');"
                                  "box.value = arguments[0]; box.checked = true;", theirs)
    browser.press("#forget-selected")
    assert browser.memories("#to-forget") == []
    assert not browser.all("#confirm-forget")  # nothing to confirm
    # and another user's name in a form's hidden field
    browser.open("/memories", user="gil")
    browser.driver.execute_script("document.querySelector('form:has(#forget-all) input[name=user]').value = 'hoa'")
    browser.press("#forget-all")
    assert browser.problem() == say_en("error.other_user")
    assert listed(daemon, "hoa") == [(theirs, "My PIN is 9021")] and listed(daemon, "gil") == [(mine, "I play the harp")]


def test_a_page_on_loopback_is_not_reached_from_another_address(browser, daemon):
    port = int(daemon.page_base.rsplit(":", 1)[1])
    others = lan_addresses()
    if not others:
        pytest.skip("this machine has no address besides loopback")
    link = daemon.page_link()
    from selenium.common.exceptions import WebDriverException
    with pytest.raises(WebDriverException, match="ERR_CONNECTION_REFUSED"):
        browser.driver.get(link.replace("127.0.0.1", others[0]))
    import socket
    with socket.socket() as probe:
        assert probe.connect_ex((others[0], port)) != 0
    browser.sign_in(link)  # the link is still good where the page listens


def test_a_foreign_host_header_is_refused_before_anything(browser, daemon):
    """DNS rebinding: a site the owner visits points its own name at 127.0.0.1."""
    link = daemon.page_link()
    rebound = link.replace("127.0.0.1", EVIL)
    browser.driver.get(rebound)
    assert not browser.all("#open") and "not served under that name" in browser.find("body").text
    browser.driver.get(rebound.split("/login")[0] + "/memories?user=ana")
    assert "not served under that name" in browser.find("body").text
    browser.sign_in(link)  # the refused request spent nothing


# ------------------------------------------------------------------ links that expire, and guessing
@pytest.fixture(scope="module")
def short_daemon(tmp_path_factory):
    """A daemon whose links and sessions last 6 s, and that allows 3 failed logins a minute."""
    stack = Stack(tmp_path_factory.mktemp("short"), {"page": {
        "link_minutes": 0.1, "session_minutes": 0.1, "login_attempts_per_minute": 3, "refresh_seconds": 0.5}})
    try:
        stack.start_service()
        yield stack
    finally:
        stack.close()


def ends(reply: dict) -> float:
    return datetime.fromisoformat(reply["expires_at"].replace("Z", "+00:00")).timestamp()


def test_links_and_sessions_expire_and_guessing_is_stopped(chromium, short_daemon):
    first = short_daemon.ok("memory.admin.page", {})
    base = first["url"].split("/login")[0]
    browser = PageBrowser(chromium, base)
    browser.sign_in(first["url"])
    browser.open("/")
    assert not browser.problem()
    later = short_daemon.ok("memory.admin.page", {})
    browser.driver.get(later["url"])  # the button is shown while the link lives...
    while time.time() <= ends(later) + 0.5:  # ...and the link (and the session) end
        time.sleep(0.2)
    browser.press("#open")
    assert browser.problem() == say_en("error.bad_link")
    browser.open("/")
    assert browser.problem() == say_en("error.signed_out")
    # guessing: two more wrong links (three in all), then even a good one is refused for a minute
    for guess in ("guess-1", "guess-2"):
        browser.open("/login", token=guess)
        browser.press("#open")
        assert browser.problem() == say_en("error.bad_link")
    browser.driver.get(short_daemon.ok("memory.admin.page", {})["url"])
    browser.press("#open")
    assert browser.problem() == say_en("error.too_many_attempts")
    assert browser.find("#problem").get_attribute("data-status") == "429"
