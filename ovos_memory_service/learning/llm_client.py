"""An OpenAI-compatible chat client, for the background work (summaries and
facts) and the judge of recall (engine/judge.py), each only where its endpoint
is configured: nothing else in the service talks to the network, and no
context build or stored turn waits for it.

- Every call has a total deadline (``request_timeout``), retries inside it with
  backoff, and raises :class:`LLMUnavailable` when the endpoint is down, hung,
  slow or answers nonsense at the HTTP level. Callers keep their job and try
  again later.
- A circuit breaker per endpoint: after a few failed calls in a row, calls fail
  at once until a cool-down has passed (growing while the endpoint stays down),
  so a dead endpoint costs one attempt per cool-down, not one per job.
- ``model`` "" asks the server's ``/models`` once and caches the answer.
"""
import json
import re
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

import requests

from ovos_memory_service.common.blocks import DEFAULT_API_URL

CONNECT_TIMEOUT_S = 5
RETRIES = 2                    # extra attempts within one call's deadline
FAILURES_TO_OPEN = 3           # failed calls in a row that open the breaker
COOL_DOWN_S = (15, 600)        # first and longest cool-down
MAX_REPLY_BYTES = 1_000_000
THINKING = re.compile(r"<think>.*?</think>", re.S)


class LLMUnavailable(Exception):
    """The endpoint did not give a usable answer in time; try again later."""


@dataclass
class Breaker:
    failures: int = 0
    open_until: float = 0.0

    def check(self):
        wait = self.open_until - time.monotonic()
        if wait > 0:
            raise LLMUnavailable(f"endpoint down ({self.failures} failed calls); next try in {wait:.0f} s")

    def succeeded(self):
        self.failures, self.open_until = 0, 0.0

    def failed(self):
        self.failures += 1
        if self.failures >= FAILURES_TO_OPEN:
            first, longest = COOL_DOWN_S
            cool_down = min(longest, first * 2 ** (self.failures - FAILURES_TO_OPEN))
            self.open_until = time.monotonic() + cool_down


# shared by every client of one endpoint (several personas may name the same)
_breakers: Dict[str, Breaker] = {}
_models: Dict[str, str] = {}
_shared = threading.Lock()


def breaker_for(key: str) -> Breaker:
    with _shared:
        return _breakers.setdefault(key, Breaker())


def _content(reply) -> str:
    """choices[0].message.content (or choices[0].text) of a chat reply, whatever its shape."""
    choices = reply.get("choices") if isinstance(reply, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    message = choice.get("message")
    text = (message.get("content") if isinstance(message, dict) else None) or choice.get("text")
    if not isinstance(text, str):
        raise LLMUnavailable("the reply has no choices[0].message.content")
    return text


class ChatClient:
    """``purpose``: callers with other deadlines keep breakers of their own (a
    judge that gives up after seconds must not shut the background out)."""

    def __init__(self, api_url: str = DEFAULT_API_URL, model: str = "", api_key: str = "",
                 timeout: float = 30, purpose: str = "background"):
        self.api_url = api_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.breaker = breaker_for(f"{purpose} {self.api_url}")

    def complete(self, messages: List[dict], max_tokens: int, read: Optional[Callable[[str], Any]] = None):
        """The assistant's answer to ``messages``, or what ``read`` makes of it;
        LLMUnavailable when there is none, or ``read`` raises (an answer that
        cannot be read counts as a failure of the endpoint)."""
        self.check()
        deadline = time.monotonic() + self.timeout
        try:
            body = {"model": self.model_name(deadline), "messages": messages,
                    "max_tokens": max_tokens, "temperature": 0, "stream": False}
            text = THINKING.sub("", _content(self._request("POST", "/chat/completions", deadline, body))).strip()
            if read is not None:
                try:
                    text = read(text)
                except Exception as e:
                    raise LLMUnavailable(f"the answer could not be read: {e}") from e
        except LLMUnavailable:
            with _shared:
                self.breaker.failed()
                if not self.model:  # the server may have been restarted with another model
                    _models.pop(self.api_url, None)
            raise
        with _shared:
            self.breaker.succeeded()
        return text

    def check(self):
        """LLMUnavailable at once while the breaker is open."""
        with _shared:
            self.breaker.check()

    def model_name(self, deadline: float) -> str:
        """The configured model, else the first one the server lists (asked once)."""
        if self.model:
            return self.model
        with _shared:
            known = _models.get(self.api_url)
        if known:
            return known
        listed = self._request("GET", "/models", deadline).get("data")
        first = listed[0] if isinstance(listed, list) and listed else None
        if not isinstance(first, dict) or not isinstance(first.get("id"), str) or not first["id"]:
            raise LLMUnavailable("the server lists no model; set model")
        with _shared:
            _models[self.api_url] = first["id"]
        return first["id"]

    def _request(self, method: str, path: str, deadline: float, body: Optional[dict] = None) -> dict:
        """One JSON request, retried with backoff while the deadline allows."""
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        error = "no attempt"
        for attempt in range(RETRIES + 1):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                return self._attempt(method, path, deadline, remaining, headers, body)
            except (requests.RequestException, ValueError) as e:
                error = f"{type(e).__name__}: {e}"
            pause = min(0.5 * 2 ** attempt, deadline - time.monotonic())
            if pause > 0 and attempt < RETRIES:
                time.sleep(pause)
        raise LLMUnavailable(f"{method} {self.api_url}{path} failed: {error}")

    def _attempt(self, method, path, deadline, remaining, headers, body) -> dict:
        with requests.request(method, self.api_url + path, json=body, headers=headers, stream=True,
                              timeout=(min(CONNECT_TIMEOUT_S, remaining), remaining)) as response:
            response.raise_for_status()
            data = b""
            for chunk in response.iter_content(8192):
                data += chunk
                if time.monotonic() > deadline:
                    raise requests.Timeout("the reply did not finish before the deadline")
                if len(data) > MAX_REPLY_BYTES:
                    raise ValueError("the reply is too large")
        reply = json.loads(data or b"null")
        if not isinstance(reply, dict):
            raise ValueError("the reply is not a JSON object")
        return reply
