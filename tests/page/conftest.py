"""One daemon on a real bus, and one headless Chromium, shared by a module of
browser tests (each test uses users of its own, and signs in itself)."""
import pytest

from tests.page.browser import EVIL, PageBrowser, quit_chromium, start_chromium
from tests.sandbox import Stack

# the live updates look every half second, so that a test waits little for them
PAGE = {"refresh_seconds": 0.5}


@pytest.fixture(scope="module")
def daemon(request, tmp_path_factory):
    """The module's daemon; a module's ``PAGE`` dict adds to the page's settings."""
    page = {**PAGE, **getattr(request.module, "PAGE", {})}
    stack = Stack(tmp_path_factory.mktemp("page"), {"page": page})
    try:
        stack.start_service()
        stack.page_base = stack.page_link().split("/login", 1)[0]
        yield stack
    finally:
        stack.close()


@pytest.fixture(scope="module")
def downloads(tmp_path_factory):
    return tmp_path_factory.mktemp("downloads")


@pytest.fixture(scope="module")
def chromium(downloads):
    # EVIL resolves to this machine, as a name an attacker rebinds would
    driver = start_chromium(f"--host-resolver-rules=MAP {EVIL} 127.0.0.1", downloads=str(downloads))
    try:
        yield driver
    finally:
        quit_chromium(driver)


@pytest.fixture
def browser(daemon, chromium) -> PageBrowser:
    chromium.set_window_size(1280, 1000)
    return PageBrowser(chromium, daemon.page_base)
