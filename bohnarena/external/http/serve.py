"""A Python bot served over HTTP: the reference service of the HTTP protocol
(docs/http-bots.md), standard library only.

    python -m bohnarena.external.http.serve [--host 127.0.0.1] [--port 8000] [--game bohnanza] SPEC

serves the bot class SPEC (as ``play`` takes it) at ``http://HOST:PORT/``:
a POST per message, the bot's answer as JSON, a fresh bot for every
``session`` (the engine's key for a seat in a match), so one service plays
many matches at once. The same bot served this way and played in process
plays the same moves (tests/external/http). The tests and benchmarks/http_bench.py
serve bots with it; an author can host a Python bot with it as it is.
"""

from __future__ import annotations

import argparse
import hmac
import json
import threading
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ...core.wire import Wire, wire_of
from ..host import Host, _raised

#: Sessions kept at once (a seat abandoned without ``end`` is dropped oldest first).
MAX_SESSIONS = 10_000
MAX_BODY = 1 << 20


class BotService(ThreadingHTTPServer):
    """One bot class, a :class:`~bohnarena.external.host.Host` per session."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        bot_class: type,
        wire: Wire,
        token: str | None = None,
    ) -> None:
        self.bot_class, self.wire, self.token = bot_class, wire, token
        self.sessions: OrderedDict[str, Host] = OrderedDict()
        self.lock = threading.Lock()
        super().__init__(address, Handler)

    def host(self, session: str, start: bool) -> Host | None:
        """The session's host (a new one at its start); None if there is none."""
        with self.lock:
            if start:
                self.sessions[session] = Host(self.bot_class, self.wire)
                while len(self.sessions) > MAX_SESSIONS:
                    self.sessions.popitem(last=False)
            return self.sessions.get(session)

    def end(self, session: str) -> None:
        with self.lock:
            self.sessions.pop(session, None)

    def answer(self, msg: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """(status, body) for one message."""
        session, kind = msg.get("session"), msg.get("type")
        if not isinstance(session, str):
            return 400, {"error": "no session"}
        host = self.host(session, kind == "start")
        if host is None:
            return 404, {"error": f"unknown session {session[:40]!r}"}
        try:
            reply = host.handle(msg)
        except BaseException as e:  # the bot's bug: a fault of this decision, the service serves on
            reply = {"error": _raised(e)}
        if kind == "end":
            self.end(session)
        return 200, reply or {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: a connection per seat per match
    disable_nagle_algorithm = True  # a small answer goes at once
    wbufsize = 1 << 16  # ... in one segment: head and body sent together, at the flush
    server: BotService

    def do_POST(self) -> None:
        token = self.server.token
        if token is not None and not hmac.compare_digest(
            self.headers.get("Authorization", ""), f"Bearer {token}"
        ):
            self.reply(401, {"error": "a bearer token is needed"})
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
            if not 0 <= length <= MAX_BODY:
                raise ValueError
            msg = json.loads(self.rfile.read(length))
            if not isinstance(msg, dict):
                raise ValueError
        except ValueError:
            self.reply(400, {"error": "a JSON object with its Content-Length, please"})
            return
        self.reply(*self.server.answer(msg))

    def reply(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # a request a decision: no line each


def serve(spec: str, host: str = "127.0.0.1", port: int = 8000, game: str = "bohnanza") -> None:
    from ...core.game import get_game
    from ...core.plugins import load_bot

    g = get_game(game)
    if g.wire is None:
        raise SystemExit(f"{game} bots run in process only")
    wire = wire_of(g.wire)
    service = BotService((host, port), load_bot(spec, wire.BASE), wire)
    print(f"serving {spec} at http://{host}:{service.server_address[1]}/", flush=True)
    try:
        service.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        service.server_close()


def main(argv: list[str] | None = None, spec: str | None = None) -> None:
    """The command line (``spec``: the bot, fixed by a service's own script)."""
    parser = argparse.ArgumentParser(
        prog="python -m bohnarena.external.http.serve", description=__doc__
    )
    if spec is None:
        parser.add_argument("spec", help="the bot: a name, file.py:Class or module:Class")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0: any free port")
    parser.add_argument("--game", default="bohnanza")
    args = parser.parse_args(argv)
    serve(spec or args.spec, args.host, args.port, args.game)


if __name__ == "__main__":
    main()
