"""Debian's Chromium, headless, driven by Selenium through Debian's
chromedriver: nothing is downloaded (Selenium Manager is not asked, and its
statistics are off)."""
import os
import shutil
import tempfile

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
         "--disable-default-apps", "--disable-extensions", "--metrics-recording-only", "--mute-audio")
WAIT_S = 15


def chromium_flags(profile: str, *extra: str) -> list:
    return [*FLAGS, f"--user-data-dir={profile}", *extra]


def need_chromium():
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("Debian's chromium and chromium-driver are not installed (.ci/run installs them as root)")
    return pytest.importorskip("selenium.webdriver")


def start_chromium(*extra: str, size=(1280, 1000), downloads: str = None):
    """A fresh headless Chromium (its own profile); ``extra`` flags, a window ``size``."""
    webdriver = need_chromium()
    from selenium.webdriver.chrome.service import Service
    os.environ.setdefault("SE_AVOID_STATS", "true")
    os.environ.setdefault("SE_OFFLINE", "true")
    profile = tempfile.mkdtemp(prefix="page-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in chromium_flags(profile, *extra, f"--window-size={size[0]},{size[1]}"):
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
