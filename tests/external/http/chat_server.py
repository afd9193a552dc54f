"""A chat-completions endpoint on 127.0.0.1 with scripted replies, for the
model seat's tests (standard library only; a thread of the test).

Each POST to ``.../chat/completions`` takes the next step of the script
(then ``first`` for ever): a reply's text, or what goes wrong instead.
Every request is kept (its path, headers and JSON body).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: A step: ("first",) the first legal answer listed in the prompt;
#: ("prose",) the same inside prose and a fenced block; ("say", TEXT);
#: ("late", SECONDS) the first legal answer after SECONDS; ("status", CODE,
#: RETRY_AFTER or None); ("drop",) the connection closed unanswered;
#: ("echo",) a reply quoting the Authorization header; ("junk",) a 200
#: whose body is no chat completion;
#: ("no_schema",) a 400 when response_format is asked, else the first answer.
Step = tuple[Any, ...]


def first_legal(body: dict[str, Any]) -> str:
    """The first legal answer listed in the request's last decision text."""
    text = next(m["content"] for m in reversed(body["messages"]) if "Legal answers" in m["content"])
    return text[text.rindex("Legal answers") :].splitlines()[1].strip()


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, script: list[Step]) -> None:
        super().__init__(("127.0.0.1", 0), ChatHandler)
        self.script = list(script)
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def step(self) -> Step:
        with self.lock:
            return self.script.pop(0) if self.script else ("first",)


class ChatHandler(BaseHTTPRequestHandler):
    server: ChatServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # (head and body go apart: no delayed-ACK stall)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # /v1/models: the endpoint is up
        self.server.requests.append({"path": self.path, "headers": dict(self.headers)})
        self._send(200, {"data": [{"id": "scripted"}]})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        self.server.requests.append(
            {"path": self.path, "headers": dict(self.headers), "body": body}
        )
        step = self.server.step()
        what = step[0]
        if what == "drop":
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if what == "status":
            extra = {} if step[2] is None else {"Retry-After": str(step[2])}
            return self._send(step[1], {"error": {"message": "scripted"}}, extra)
        if what == "junk":  # 200, but no chat completion
            return self._send(200, {"choices": "[" * 3000})
        if what == "no_schema" and "response_format" in body:
            return self._send(400, {"error": {"message": "response_format unsupported"}})
        if what == "late":
            time.sleep(step[1])
        text = {
            "say": lambda: step[1],
            "prose": lambda: f"Let me think.\n```json\n{first_legal(body)}\n```\nThat is all.",
            "echo": lambda: f"{self.headers.get('Authorization')} {first_legal(body)}",
        }.get(what, lambda: first_legal(body))()
        self._send(
            200,
            {
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 7},
            },
        )

    def _send(self, status: int, body: dict[str, Any], extra: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        try:
            self.wfile.write(data)
        except OSError:
            pass  # the client gave up (a reply after the deadline)


@contextmanager
def chat_server(script: list[Step] | None = None) -> Iterator[ChatServer]:
    server = ChatServer(script or [])
    # (a short poll: shutdown() waits for one)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


__all__ = ["ChatServer", "chat_server", "first_legal"]
