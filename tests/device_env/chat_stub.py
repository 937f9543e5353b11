"""The stand-in LLM of the device test: a local HTTP server that speaks the
OpenAI chat API as ovos-openai-plugin uses it. ovos-persona streams its
answers (``"stream": true``: server-sent events of ``chat.completion.chunk``),
which tests/openai_stub.py does not speak; everything else is as there."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, List

from tests.sandbox import free_port

MODEL = "stub-model"


class ChatStub:
    def __init__(self, answer: Callable[[List[dict]], str]):
        self.answer = answer
        self.port = free_port()
        self.requests: List[dict] = []  # every chat request received, in order
        self._server = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def chats(self, marker: str = "") -> List[dict]:
        """Chat requests whose messages contain ``marker``."""
        return [r for r in self.requests if marker in json.dumps(r["messages"], ensure_ascii=False)]

    def start(self) -> "ChatStub":
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args):
                pass

            def do_GET(self):
                self._reply("application/json", json.dumps({"object": "list", "data": [{"id": MODEL}]}))

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append(body)
                content = stub.answer(body["messages"])
                if not body.get("stream"):
                    self._reply("application/json", json.dumps({"object": "chat.completion", "model": MODEL,
                                "choices": [{"index": 0, "finish_reason": "stop",
                                             "message": {"role": "assistant", "content": content}}]}))
                    return
                chunk = {"object": "chat.completion.chunk", "model": MODEL,
                         "choices": [{"index": 0, "delta": {"role": "assistant", "content": content}}]}
                self._reply("text/event-stream", f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n")

            def _reply(self, content_type: str, text: str):
                data = text.encode()
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
