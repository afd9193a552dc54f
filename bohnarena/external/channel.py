"""JSON lines to and from a bot's process, with a deadline in both
directions and a cap on what the bot may send (any game, any mode).

A bot that does not read its input, does not answer, answers too much or
answers something that is not a JSON object raises :class:`BotFault`; the
engine never blocks on a bot past the deadline it gives.
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
import select
import struct
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

# The fault types a bot's process can cause (faults.py has the whole set).
from ..core.errors import BohnarenaError
from ..core.faults import CRASH, MEMORY, OUTPUT, PROTOCOL, START, TIMEOUT

__all__ = [
    "CRASH",
    "MEMORY",
    "OUTPUT",
    "PROTOCOL",
    "START",
    "TIMEOUT",
    "BotFault",
    "Channel",
    "Conversation",
]


class BotFault(BohnarenaError):
    """A typed failure of a bot process. ``str()`` is ``"kind: detail"``."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(kind, detail)
        self.kind, self.detail = kind, detail

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"[:300]


class Conversation(Protocol):
    """What a seat out of process talks to its bot through: a
    :class:`Channel` (a process's pipes or socket), or an HTTP service's
    (:class:`bohnarena.external.http.transport.HttpChannel`)."""

    framed: bool
    reused: bool

    def send(self, msg: dict[str, Any], deadline: float) -> None: ...

    def request(self, msg: dict[str, Any], seconds: float) -> tuple[dict[str, Any], float]: ...

    def close(self) -> None: ...


class Channel:
    """One bot process's end of a conversation: ``reader`` and ``writer``
    are file descriptors (the same one for a socket); both become
    non-blocking, so every wait is bounded by a deadline."""

    def __init__(
        self,
        reader: int,
        writer: int,
        cap_bytes: int,
        framed: bool = False,
        turn: Callable[[], AbstractContextManager[None]] | None = None,
    ) -> None:
        self.reader, self.writer, self.cap = reader, writer, cap_bytes
        # What holds while the bot answers (a sandbox's CPU weight: Groups.turn).
        self.turn = turn or contextlib.nullcontext
        # framed: the engine writes marshal frames (for bohnarena's own Python
        # host, which trusts the engine); the bot always answers in JSON lines.
        self.framed = framed
        self.reused = False  # a command bot's process serving another match
        os.set_blocking(reader, False)
        os.set_blocking(writer, False)
        self._buffer = b""
        # Registered once: a poll per wait, no set-up per decision.
        self._readable, self._writable = select.poll(), select.poll()
        self._readable.register(reader, select.POLLIN)
        self._writable.register(writer, select.POLLOUT)

    def send(self, msg: dict[str, Any], deadline: float) -> None:
        data = memoryview(
            encode_frame(msg)
            if self.framed
            else json.dumps(msg, separators=(",", ":")).encode() + b"\n"
        )
        while data:
            try:
                sent = os.write(self.writer, data)
            except BlockingIOError:
                self._wait(self._writable, deadline, "did not read its input in time")
                continue
            except OSError:  # broken pipe, reset: the process is gone
                raise BotFault(CRASH, "the bot closed its input") from None
            data = data[sent:]

    def receive(self, deadline: float) -> dict[str, Any]:
        """The next JSON object the bot sends."""
        while b"\n" not in self._buffer:
            if len(self._buffer) > self.cap:
                raise BotFault(OUTPUT, f"a message over {self.cap // 1024} KB")
            self._wait(self._readable, deadline, "no answer in time")
            try:
                chunk = os.read(self.reader, 65536)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                raise BotFault(CRASH, "the bot closed its output")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        if len(line) > self.cap:
            raise BotFault(OUTPUT, f"a message over {self.cap // 1024} KB")
        return parse_object(line)

    def request(self, msg: dict[str, Any], seconds: float) -> tuple[dict[str, Any], float]:
        """Send ``msg`` and read the reply; returns (reply, seconds it took)."""
        with self.turn():
            start = time.perf_counter()
            deadline = start + seconds
            self.send(msg, deadline)
            reply = self.receive(deadline)
            return reply, time.perf_counter() - start

    @staticmethod
    def _wait(poller: select.poll, deadline: float, why: str) -> None:
        left = deadline - time.perf_counter()
        if left <= 0 or not poller.poll(left * 1000):
            raise BotFault(TIMEOUT, why)

    def close(self) -> None:
        for fd in {self.reader, self.writer}:
            try:
                os.close(fd)
            except OSError:
                pass


def encode_frame(msg: dict[str, Any]) -> bytes:
    body = marshal.dumps(msg)
    return struct.pack("<I", len(body)) + body


def read_frame(stream: Any) -> dict[str, Any] | None:
    """The bot side of a framed channel: the next message, None at the end."""
    head = stream.read(4)
    if len(head) < 4:
        return None
    message: dict[str, Any] = marshal.loads(stream.read(struct.unpack("<I", head)[0]))
    return message


def parse_object(line: bytes) -> dict[str, Any]:
    """A JSON object from one line; anything else is the bot's protocol fault
    (nesting deep enough to exhaust the parser's recursion included)."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        raise BotFault(PROTOCOL, f"not JSON: {line[:80]!r}") from None
    if not isinstance(value, dict):
        raise BotFault(PROTOCOL, f"not a JSON object: {line[:80]!r}")
    return value
