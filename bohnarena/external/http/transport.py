"""The wire under a bot served over HTTP: httpcore (the ``http`` extra) over
sockets of our own, which connect only to checked addresses and never wait
past the engine's deadline.

httpcore parses HTTP; every byte it reads or writes goes through
:class:`GuardedStream`, whose every wait is cut at the deadline of the
request in progress (a service that drips its answer a byte at a time is
stopped there, not after each read's timeout), and every connection is
made by :class:`GuardedBackend`, which resolves the name itself, checks
each address (netguard.py) and connects to a checked one. The name stays
the Host header and the TLS server name. httpcore reads no proxy settings
from the environment and follows no redirect: a request goes to the bot's
origin and nowhere else.
"""

from __future__ import annotations

import json
import os
import secrets
import select
import socket
import ssl
import time
from collections.abc import Iterable
from math import inf
from typing import Any

import httpcore

from ... import __version__
from ...core.services import BotUrl
from ..channel import CRASH, OUTPUT, PROTOCOL, TIMEOUT, BotFault, parse_object
from .netguard import Unreachable, addresses

#: Connections to one service that failed in a row in this process before
#: it is left alone for a rest: a service that is down costs each match an
#: instant fault then, not a connect timeout.
DOWN_AFTER = 3
REST_SECONDS = 5.0
CUT = "before its whole answer"
#: What of a refused answer's body (a non-2xx status) its fault keeps.
SNIPPET = 120
#: The HTTP versions an answer may be in. HTTP/1.0 (the standard library's
#: ``http.server`` by default) closes the connection after every answer:
#: it works, a new connection a request (check-bot says so).
VERSIONS = (b"HTTP/1.1", b"HTTP/1.0")


class Exchange:
    """The request in progress, shared by a channel and every stream of its
    connection: its deadline (a perf_counter time), and whether the service
    closed the connection during it."""

    def __init__(self) -> None:
        self.at = inf
        self.connect_by = inf  # connecting (and the TLS handshake) ends here at the latest
        self.ended = False
        self.late = "no answer in time"

    def begin(self, deadline: float, connect_seconds: float, allowed: float | None = None) -> None:
        """``allowed``: the seconds the seat gave (its fault says so, not the
        few microseconds less that are left by the time the request starts)."""
        now = time.perf_counter()
        self.at, self.ended = deadline, False
        self.connect_by = now + connect_seconds
        allowed = max(0.0, deadline - now) if allowed is None else allowed
        self.late = f"no answer within {allowed:.3g} s"

    def left(self, until: float, why: str, kind: type[BotFault] = BotFault) -> float:
        left = min(self.at, until) - time.perf_counter()
        if left <= 0:
            raise kind(TIMEOUT, why)
        return left


class GuardedStream(httpcore.NetworkStream):
    """A connection's socket, every wait cut at the clock's deadline."""

    def __init__(self, sock: socket.socket, clock: Exchange, host: str) -> None:
        self.sock, self.clock, self.host = sock, clock, host
        self.pending: list[bytes] = []  # written, not sent yet

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self.pending:
            self._flush()
        self.sock.settimeout(self.clock.left(inf, self.clock.late))
        try:
            data = self.sock.recv(max_bytes)
        except TimeoutError:
            raise BotFault(TIMEOUT, self.clock.late) from None
        except OSError as e:
            self.clock.ended = True
            raise BotFault(CRASH, f"the service dropped the connection ({_why(e)})") from None
        if not data:
            self.clock.ended = True
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        # Kept until the answer is read: the request's head and body then go
        # in one segment, which wakes the service once (each write is a wake-up).
        self.pending.append(buffer)

    def _flush(self) -> None:
        data, self.pending = b"".join(self.pending), []
        self.sock.settimeout(self.clock.left(inf, "did not read its request in time"))
        try:
            self.sock.sendall(data)
        except TimeoutError:
            raise BotFault(TIMEOUT, "did not read its request in time") from None
        except OSError as e:
            self.clock.ended = True
            raise BotFault(CRASH, f"the service dropped the connection ({_why(e)})") from None

    def close(self) -> None:
        self.sock.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> GuardedStream:
        why = f"no TLS handshake with {self.host} in time"
        self.sock.settimeout(self.clock.left(self.clock.connect_by, why, Unreachable))
        try:
            tls = ssl_context.wrap_socket(self.sock, server_hostname=server_hostname)
        except TimeoutError:
            self.sock.close()
            raise Unreachable(TIMEOUT, why) from None
        except OSError as e:  # a certificate that does not verify, a handshake cut short
            self.sock.close()
            raise Unreachable(CRASH, f"no TLS connection to {self.host}: {_why(e)}") from None
        return GuardedStream(tls, self.clock, self.host)

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object":
            return self.sock if isinstance(self.sock, ssl.SSLSocket) else None
        if info == "is_readable":  # idle yet readable: the service closed it
            try:
                return bool(select.select([self.sock], [], [], 0)[0])
            except (OSError, ValueError):
                return True
        if info == "socket":
            return self.sock
        return None


class GuardedBackend(httpcore.NetworkBackend):
    """Connections to one bot's service only, to checked addresses only."""

    def __init__(self, url: BotUrl, allow_private: bool, clock: Exchange) -> None:
        self.url, self.allow_private, self.clock = url, allow_private, clock

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> GuardedStream:
        url, origin = self.url, self.url.origin
        if host != url.host or port != url.port:  # never: the pool serves this URL alone
            raise Unreachable(CRASH, f"refused to connect to {host}:{port}")
        if resting(origin):
            raise Unreachable(
                CRASH,
                f"{url.host}:{port} was unreachable {DOWN_AFTER} times in a row; "
                f"not tried again for {REST_SECONDS:g} s",
            )
        try:
            stream = self._connect()
        except Unreachable:
            _OUTAGES[origin] = (_OUTAGES.get(origin, (0, 0.0))[0] + 1, time.monotonic())
            raise
        _OUTAGES.pop(origin, None)
        return stream

    def _connect(self) -> GuardedStream:
        url, clock = self.url, self.clock
        why = f"could not connect to {url.host}:{url.port} in time"
        found = addresses(url, self.allow_private, min(clock.at, clock.connect_by))
        failure: OSError | None = None
        for address in found:
            left = clock.left(clock.connect_by, why, Unreachable)
            try:
                sock = socket.create_connection((address, url.port), timeout=left)
            except TimeoutError:
                raise Unreachable(TIMEOUT, why) from None
            except OSError as e:
                failure = e
                continue
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return GuardedStream(sock, clock, url.host)
        assert failure is not None
        raise Unreachable(CRASH, f"cannot connect to {url.host}:{url.port}: {_why(failure)}")


def _why(e: OSError) -> str:
    if isinstance(e, ssl.SSLCertVerificationError):
        return f"{e.reason}: {e.verify_message}"
    if isinstance(e, ssl.SSLError):
        return str(e.reason)
    return e.strerror or type(e).__name__


#: Per process: origin -> (connections that failed in a row, when the last did).
_OUTAGES: dict[tuple[str, str, int], tuple[int, float]] = {}


def resting(origin: tuple[str, str, int]) -> bool:
    failed, when = _OUTAGES.get(origin, (0, 0.0))
    return failed >= DOWN_AFTER and time.monotonic() - when < REST_SECONDS


_TLS: dict[tuple[str | None, str | None], ssl.SSLContext] = {}


def tls_context() -> ssl.SSLContext:
    """The system's certificate authorities (``SSL_CERT_FILE`` and
    ``SSL_CERT_DIR`` name others), else certifi's; one context per process."""
    key = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    context = _TLS.get(key)
    if context is None:
        context = ssl.create_default_context()
        if not context.cert_store_stats()["x509_ca"] and key == (None, None):
            context = httpcore.default_ssl_context()
        _TLS[key] = context
    return context


class HttpChannel:
    """One seat's conversation with its service in one match: a POST per
    message on a kept-alive connection (a new one after a fault left the
    last in doubt), never retried. Stands where a process's
    :class:`~bohnarena.external.channel.Channel` stands for
    :class:`~bohnarena.external.remote.RemoteSeat`."""

    framed = False  # the command protocol's JSON, never marshal frames
    reused = False

    def __init__(
        self,
        url: BotUrl,
        token: bytes | None,
        allow_private: bool,
        cap: int,
        connect: float,
        versions: set[str] | None = None,
    ) -> None:
        self.cap, self.connect_seconds, self.token = cap, connect, token
        #: The HTTP versions the service answered in (what check-bot reports).
        self.versions = set() if versions is None else versions
        self.clock = Exchange()
        self.backend = GuardedBackend(url, allow_private, self.clock)
        self.pool = httpcore.ConnectionPool(
            ssl_context=tls_context() if url.scheme == "https" else None,
            max_connections=1,
            retries=0,
            network_backend=self.backend,
        )
        self.url = httpcore.URL(
            scheme=url.scheme.encode(),
            host=url.host.encode(),
            port=url.port,
            target=url.target.encode(),
        )
        self.headers = [
            (b"Host", url.authority.encode()),
            (b"Content-Type", b"application/json"),
            (b"Accept", b"application/json"),
            (b"User-Agent", f"bohnarena/{__version__}".encode()),
        ]
        if token is not None:  # to this URL's origin alone: redirects are not followed
            self.headers.append((b"Authorization", b"Bearer " + token))
        #: What every request carries: a random key for this seat in this match
        #: (match ids repeat across runs and are null outside one), then the
        #: match id and seat its start message gave.
        self.envelope: dict[str, Any] = {"session": secrets.token_hex(16)}

    def request(self, msg: dict[str, Any], seconds: float) -> tuple[dict[str, Any], float]:
        """POST ``msg``, read the answer; returns (answer, seconds it took)."""
        start = time.perf_counter()
        body = self.post(msg, start + seconds, seconds)
        return parse_object(body), time.perf_counter() - start

    def send(self, msg: dict[str, Any], deadline: float) -> None:
        """POST a message that has no answer (``end``): its body is read and dropped."""
        self.post(msg, deadline)

    def post(self, msg: dict[str, Any], deadline: float, allowed: float | None = None) -> bytes:
        if msg.get("type") == "start":
            self.envelope.update(match_id=msg.get("match_id"), seat=msg.get("seat"))
        data = json.dumps({**self.envelope, **msg}, separators=(",", ":")).encode()
        return self.call(b"POST", self.url, data, deadline, allowed)[2]

    def call(
        self,
        method: bytes,
        url: httpcore.URL,
        data: bytes | None,
        deadline: float,
        allowed: float | None = None,
        any_status: bool = False,
    ) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        """One request to the bot's origin: its status, headers and body
        (read at most to the cap). Without ``any_status`` a status but 2xx
        is a protocol fault."""
        self.clock.begin(deadline, self.connect_seconds, allowed)
        try:
            with self.pool.stream(method, url, headers=self.headers, content=data) as answer:
                if any_status and not 200 <= answer.status < 300:
                    said = _read(answer, SNIPPET)[:SNIPPET]
                    return answer.status, answer.headers, self._scrub_bytes(said)
                return answer.status, answer.headers, self._body(answer)
        except BotFault:
            raise
        except httpcore.TimeoutException:
            raise BotFault(TIMEOUT, self.clock.late) from None
        except httpcore.RemoteProtocolError as e:  # h11's words on what it read
            if self.clock.ended:
                raise BotFault(CRASH, f"the service closed the connection {CUT}") from None
            raise BotFault(PROTOCOL, f"not HTTP/1.1 or 1.0: {e}") from None
        except httpcore.NetworkError as e:
            raise BotFault(CRASH, f"the connection failed: {e}") from None
        finally:
            self.clock.at = inf

    def _body(self, answer: httpcore.Response) -> bytes:
        """The answer's body, read at most to the cap (never more into memory)."""
        version = answer.extensions.get("http_version", b"")
        if version not in VERSIONS:  # h11 reads any digit.digit
            raise BotFault(PROTOCOL, f"not HTTP/1.1 or 1.0: an answer in {version.decode()}")
        self.versions.add(version.decode())
        if not 200 <= answer.status < 300:
            said = _read(answer, SNIPPET)[:SNIPPET].decode("utf-8", "replace")
            hint = ": redirects are not followed" if 300 <= answer.status < 400 else ""
            raise BotFault(PROTOCOL, f"HTTP status {answer.status}{hint}: {self._scrub(said)}")
        for name, value in answer.headers:  # a body announced too large is not read at all
            if (
                name.lower() == b"content-length"
                and value.strip().isdigit()
                and int(value) > self.cap
            ):
                raise BotFault(OUTPUT, f"an answer over {self.cap // 1024} KB")
        body = _read(answer, self.cap + 1)
        if len(body) > self.cap:
            raise BotFault(OUTPUT, f"an answer over {self.cap // 1024} KB")
        return self._scrub_bytes(body)

    def _scrub_bytes(self, body: bytes) -> bytes:
        """A service's own token is never written anywhere, even where it echoes it."""
        return body if self.token is None else body.replace(self.token, b"[token]")

    def _scrub(self, text: str) -> str:
        return text if self.token is None else text.replace(self.token.decode(), "[token]")

    def close(self) -> None:
        self.pool.close()


def _read(answer: httpcore.Response, most: int) -> bytes:
    """Up to about ``most`` bytes of a body, chunk by chunk (leaving the rest
    unread closes the connection)."""
    chunks, size = [], 0
    for chunk in answer.iter_stream():
        chunks.append(chunk)
        size += len(chunk)
        if size >= most:
            break
    return b"".join(chunks)
