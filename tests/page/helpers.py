"""Signing in to the memory page as a browser would, for the HTTP tests."""
import re
from html import unescape

import requests

TOKEN = re.compile(r'name="token" value="([^"]+)"')
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def token_of(url: str) -> str:
    return url.split("token=", 1)[1]


def sign_in(url: str) -> requests.Session:
    """Open a login link and press its button: a session with its cookie."""
    browser = requests.Session()
    form = browser.get(url)
    assert form.status_code == 200, form.text
    token = unescape(TOKEN.search(form.text).group(1))
    base = url.split("/login", 1)[0]
    answer = browser.post(f"{base}/login", data={"token": token}, allow_redirects=False)
    assert answer.status_code == 303, answer.text
    return browser


def csrf_of(html: str) -> str:
    return unescape(CSRF.search(html).group(1))
