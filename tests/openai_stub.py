"""A local HTTP server that speaks the OpenAI chat API, standing in for the LLM
endpoint (no chat model can run in CI; tests/learning/test_llm_real.py covers a real one).

``mode`` says how it behaves: "healthy" answers with ``answer(messages)``,
"hung" accepts and never answers, "slow" answers after ``delay`` seconds,
"garbage" answers 200 with a body that is not JSON, "error" answers 500.
``stop()`` closes the port (the endpoint is down); ``start()`` reopens it.
``raw`` (any JSON) replaces every chat reply and ``models`` the model list,
for endpoints that answer in shapes of their own.
"""
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, List

from tests.sandbox import free_port

MODEL = "stub-model"


def echo_summary(messages: List[dict]) -> str:
    """A summary that names the first and last lines it was given."""
    lines = [line for line in messages[-1]["content"].splitlines() if ": " in line]
    return f"Summary of {len(lines)} lines, from '{lines[0]}' to '{lines[-1]}'." if lines else "Nothing."


def default_answer(messages: List[dict]) -> str:
    """Facts for an extraction prompt ("I live in X"), else a summary."""
    prompt = messages[-1]["content"]
    if "Exchange:" not in prompt:
        return echo_summary(messages)
    found = re.search(r"I live in (\w+)", prompt.split("Exchange:")[-1])
    return json.dumps([{"statement": f"Lives in {found.group(1)}", "kind": "fact", "slot": "residence",
                        "value": found.group(1)}] if found else [])


class OpenAIStub:
    def __init__(self, answer: Callable[[List[dict]], str] = default_answer):
        self.answer = answer
        self.mode = "healthy"
        self.delay = 0.0
        self.port = free_port()
        self.requests: List[dict] = []   # the chat requests received
        self.held: List[str] = []  # paths of the calls the "hung" mode holds open
        self.model_lookups = 0
        self.headers: List[dict] = []
        self.raw = None
        self.models = {"object": "list", "data": [{"id": MODEL}]}
        self._release = threading.Event()
        self._server = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def chats(self, marker: str = "") -> List[dict]:
        """Chat requests whose prompt contains ``marker``."""
        return [r for r in self.requests if marker in json.dumps(r["messages"])]

    def start(self) -> "OpenAIStub":
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, body: bytes):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _misbehave(self) -> bool:
                if stub.mode == "hung":
                    stub.held.append(self.path)
                    stub._release.wait(600)
                    return True
                if stub.mode == "slow":
                    time.sleep(stub.delay)
                elif stub.mode == "garbage":
                    self._send(200, b"<html>upstream error</html>")
                    return True
                elif stub.mode == "error":
                    self._send(500, b'{"error": "overloaded"}')
                    return True
                return False

            def do_GET(self):
                stub.model_lookups += 1
                if self._misbehave():
                    return
                self._send(200, json.dumps(stub.models).encode())

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(body)
                stub.headers.append(dict(self.headers))
                if self._misbehave():
                    return
                if stub.raw is not None:
                    self._send(200, json.dumps(stub.raw).encode())
                    return
                content = stub.answer(body["messages"])
                self._send(200, json.dumps({"object": "chat.completion", "model": body.get("model"), "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}]}).encode())

        ThreadingHTTPServer.allow_reuse_address = True
        self._release.clear()
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def heal(self):
        """Answer normally again, and let hung requests go."""
        self.mode = "healthy"
        self._release.set()

    def stop(self):
        self._release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


if __name__ == "__main__":  # a stand-alone endpoint, for benchmarks: python -m tests.openai_stub PORT MODE
    import sys
    server = OpenAIStub()
    server.port, server.mode = int(sys.argv[1]), sys.argv[2]
    server.start()
    threading.Event().wait()
