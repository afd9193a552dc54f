"""A bot served over HTTP for the tests, in a process of its own, that can
misbehave on purpose (bohnarena.external.http.serve's service, plus tricks).

    python tests/external/http/service.py SPEC [--game G] [--token-env VAR] [--http10]
        [--trick NAME --on N,M,...] [--die-after N] [--lifetime S]

(``--tls CERT KEY``: https) prints ``PORT`` once it listens on 127.0.0.1 (only ever loopback), then
serves until killed, until ``--die-after`` requests, or ``--lifetime``
seconds (it always stops by itself). A trick replaces the answer to the
decide messages numbered ``--on`` (1 is a session's first decide); the
other messages are answered properly. Every request's method, path, Host
and Authorization header is appended to ``--record FILE`` (JSON lines).
"""

from __future__ import annotations

import argparse
import json
import os
import ssl
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[3]))

from bohnarena.core.game import get_game
from bohnarena.core.plugins import load_bot
from bohnarena.core.wire import wire_of
from bohnarena.external.http.serve import BotService, Handler

TRICKS = {
    "slow",  # answer properly, SLOW seconds late
    "status500",  # HTTP 500 with a page
    "junk",  # 200 with a body that is not JSON
    "nothttp",  # bytes that are no HTTP at all, then close
    "huge",  # 200 announcing and sending 2 MB
    "flood",  # 200 with no length, bytes until the client goes
    "drop",  # 200 announcing 1000 bytes, sending 10, then close
    "redirect",  # 302 to --location
    "echo",  # {"error": ...} quoting the Authorization header
    "note-token",  # a proper answer, with a note quoting the Authorization header
    "http2",  # a proper body in a status line of HTTP/2.0
}
SLOW = 3.0


class Tricky(Handler):
    def do_POST(self) -> None:
        server: TrickyService = self.server  # type: ignore[assignment]
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        msg = json.loads(body)
        server.note(self, msg)
        n = server.count(msg)
        if n in server.on and msg.get("type") == "decide":
            return self.trick(server, msg)
        return self.answer_msg(server, msg)

    def answer_msg(self, server: TrickyService, msg: dict) -> None:
        if (
            server.token is not None
            and self.headers.get("Authorization") != f"Bearer {server.token}"
        ):
            self.reply(401, {"error": "a bearer token is needed"})
            return
        self.reply(*server.answer(msg))

    def trick(self, server: TrickyService, msg: dict) -> None:
        trick = server.trick
        auth = self.headers.get("Authorization", "")
        if trick == "slow":
            time.sleep(SLOW)
            self.answer_msg(server, msg)
        elif trick == "status500":
            self.raw(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 9\r\n\r\nit broke\n")
        elif trick == "junk":
            self.raw(b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nno JSON here")
        elif trick == "nothttp":
            self.raw(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")
            self.close_connection = True
        elif trick == "huge":
            size = 2 << 20
            self.raw(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % size)
            self.stream(size)
        elif trick == "flood":
            self.raw(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
            self.stream(64 << 20)
            self.close_connection = True
        elif trick == "drop":
            self.raw(b'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{"answer":')
            self.close_connection = True
        elif trick == "redirect":
            where = server.location.encode()
            self.raw(b"HTTP/1.1 302 Found\r\nLocation: " + where + b"\r\nContent-Length: 0\r\n\r\n")
        elif trick == "http2":
            self.raw(b'HTTP/2.0 200 OK\r\nContent-Length: 12\r\n\r\n{"answer":0}')
        elif trick == "echo":
            self.reply(200, {"error": f"I was sent {auth}"})
        elif trick == "note-token":
            status, reply = server.answer(msg)
            self.reply(status, {**reply, "note": f"sent {auth}"})

    def raw(self, data: bytes) -> None:
        self.wfile.write(data)
        self.wfile.flush()

    def stream(self, size: int) -> None:
        chunk = b" " * 65536
        try:
            for _ in range(size // len(chunk)):
                self.wfile.write(chunk)
            self.wfile.flush()
        except OSError:  # the client stopped reading: as it should
            self.close_connection = True


class TrickyService(BotService):
    def __init__(self, address, bot_class, wire, args) -> None:
        super().__init__(address, bot_class, wire, None)
        self.token = os.environ[args.token_env] if args.token_env else None
        self.trick, self.location = args.trick, args.location
        self.on = {int(n) for n in args.on.split(",") if n}
        self.die_after, self.requests = args.die_after, 0
        self.record = args.record
        self.decides: dict[str, int] = {}

    def count(self, msg: dict) -> int:
        with self.lock:
            self.requests += 1
            if self.die_after and self.requests > self.die_after:
                os._exit(0)  # the service is gone: its port refuses from now on
            if msg.get("type") != "decide":
                return 0
            key = str(msg.get("session"))
            self.decides[key] = self.decides.get(key, 0) + 1
            return self.decides[key]

    def note(self, handler: Handler, msg: dict) -> None:
        if self.record is None:
            return
        line = {
            "path": handler.path,
            "host": handler.headers.get("Host"),
            "authorization": handler.headers.get("Authorization"),
            "type": msg.get("type"),
            "session": msg.get("session"),
            "match_id": msg.get("match_id"),
            "seat": msg.get("seat"),
            "body": msg,
        }
        with self.lock, open(self.record, "a") as f:
            f.write(json.dumps(line) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("spec")
    parser.add_argument("--game", default="bohnanza")
    parser.add_argument("--token-env")
    parser.add_argument("--trick", choices=sorted(TRICKS))
    parser.add_argument("--on", default="")
    parser.add_argument("--location", default="http://127.0.0.1:9/")
    parser.add_argument("--die-after", type=int, default=0)
    parser.add_argument("--record")
    parser.add_argument("--lifetime", type=float, default=300.0)
    parser.add_argument("--http10", action="store_true", help="answer in HTTP/1.0")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve https")
    args = parser.parse_args()
    wire = wire_of(get_game(args.game).wire)
    service = TrickyService(("127.0.0.1", 0), load_bot(args.spec, wire.BASE), wire, args)
    service.RequestHandlerClass = Tricky
    if args.http10:  # the standard library's default: a connection closed after each answer
        service.RequestHandlerClass = type("Http10", (Tricky,), {"protocol_version": "HTTP/1.0"})
    if args.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*args.tls)
        service.socket = context.wrap_socket(service.socket, server_side=True)
    threading.Timer(args.lifetime, os._exit, (0,)).start()  # it stops by itself
    print(service.server_address[1], flush=True)
    service.serve_forever()


if __name__ == "__main__":
    main()
