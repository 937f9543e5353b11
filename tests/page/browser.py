"""Debian's Chromium, headless, driven by Selenium through Debian's
chromedriver: nothing is downloaded (Selenium Manager is not asked, and its
statistics are off). ``PageBrowser`` works the memory page as a person does:
it opens links, presses buttons, ticks boxes and waits for the next page."""
import os
import shutil
import tempfile
from urllib.parse import urlencode

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
         "--disable-default-apps", "--disable-extensions", "--metrics-recording-only", "--mute-audio",
         "--lang=en-US")
# a name another site would have: the browser resolves it to this machine, as a DNS rebinding does
EVIL = "evil.example"
WAIT_S = 15
# .ci/run sets it: there a missing Chromium fails the browser tests instead of skipping them
REQUIRED = os.environ.get("OVOS_MEMORY_BROWSER_TESTS") == "1"


def need_chromium():
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        message = "Debian's chromium and chromium-driver are not installed (.ci/run installs them as root)"
        if REQUIRED:
            pytest.fail(message)
        pytest.skip(message)
    return pytest.importorskip("selenium.webdriver")


def start_chromium(*extra: str, size=(1280, 1000), downloads: str = None):
    """A fresh headless Chromium (its own profile); ``extra`` flags, a window ``size``;
    files it downloads go to ``downloads``."""
    webdriver = need_chromium()
    from selenium.webdriver.chrome.service import Service
    os.environ.setdefault("SE_AVOID_STATS", "true")
    os.environ.setdefault("SE_OFFLINE", "true")
    profile = tempfile.mkdtemp(prefix="page-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}", *extra):
        options.add_argument(flag)
    if downloads:
        options.add_experimental_option("prefs", {"download.default_directory": downloads,
                                                  "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.profile_dir = profile
    return driver


def quit_chromium(driver):
    try:
        driver.quit()
    finally:
        shutil.rmtree(driver.profile_dir, ignore_errors=True)


def wait(driver, condition, what: str, timeout: float = WAIT_S):
    """Wait until ``condition(driver)`` is truthy, and return it; raise with ``what`` if it never is."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1).until(condition)
    except TimeoutException:
        raise TimeoutError(f"waited {timeout} s for {what}") from None


class PageBrowser:
    """One Chromium on the page at ``base`` (http://127.0.0.1:port)."""

    def __init__(self, driver, base: str):
        self.driver, self.base = driver, base

    # ------------------------------------------------------------ moving
    def open(self, path: str, **params):
        given = {k: v for k, v in params.items() if v is not None}
        self.driver.get(self.base + path + ("?" + urlencode(given) if given else ""))

    def sign_in(self, link: str):
        """Open a login link from ``ovos-memory page`` and press its button."""
        self.driver.get(link)
        self.press("#open")
        assert "token" not in self.driver.current_url  # the address bar keeps no secret

    def press(self, css: str):
        """Press a button (or follow a link) that loads a new page, and wait for it."""
        self.after_loading(lambda: self.find(css).click())

    def after_loading(self, action):
        from selenium.common.exceptions import WebDriverException
        old = self.find("html")
        action()

        def left(driver) -> bool:  # the old page is gone (mid-navigation Chromium may say so in other words)
            try:
                old.is_enabled()
                return False
            except WebDriverException:
                return True
        wait(self.driver, left, "the next page")
        wait(self.driver, lambda d: d.execute_script("return document.readyState") == "complete", "the page to load")

    # ------------------------------------------------------------ seeing
    def find(self, css: str):
        from selenium.webdriver.common.by import By
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def all(self, css: str) -> list:
        from selenium.webdriver.common.by import By
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def text(self, css: str) -> str:
        return self.find(css).text

    def memories(self, within: str = "") -> list:
        """(id, text) of every memory shown, in the page's order."""
        # read in one go: the live updates may swap the list between two reads
        return [tuple(pair) for pair in self.driver.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0])).map(function (li) {"
            "  return [li.getAttribute('data-id'), li.querySelector('.content').innerText]; })",
            f"{within} li.memory".strip())]

    def problem(self) -> str:
        """The error page's message, or "" when the page is not an error."""
        found = self.all("#problem")
        return found[0].text if found else ""

    # ------------------------------------------------------------ doing
    def choose(self, css: str, value: str):
        from selenium.webdriver.support.ui import Select
        Select(self.find(css)).select_by_value(value)

    def type(self, css: str, text: str):
        box = self.find(css)
        if not box.is_displayed():  # in a closed <details>: open it as a person would
            box.find_element("xpath", "./ancestor::details/summary").click()
        box.clear()
        box.send_keys(text)

    def tick(self, memory_id: str):
        self.find(f'li.memory[data-id="{memory_id}"] input[type=checkbox]').click()

    def wait_until(self, condition, what: str, timeout: float = WAIT_S):
        return wait(self.driver, lambda d: condition(), what, timeout)
