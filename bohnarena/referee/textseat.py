"""Seats that play in words (docs/text-seats.md): a game's text layer
between the referee and whoever reads and writes text. :class:`TextSeat`
is what they share (the seat protocol, the briefing, the exchanges kept
for the logs); :class:`HumanSeat` is a person at the terminal."""

from __future__ import annotations

import os
import select
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.botapi import Clock, PairAnswers
from ..core.faults import CRASH, TIMEOUT
from ..core.game import MatchResult
from ..core.textplay import Prompt, TextLayer, Unparsed
from .limits import Limits


@dataclass
class Exchange:
    """One decision in words: what the seat was shown, each reply, and how
    it ended (for the logs: issue 49's side table)."""

    kind: str
    prompt: str
    #: Records of the match before this decision: its answer's record (or
    #: its fault's) is the next, the ``seq`` of the move log.
    before: int = -1
    replies: list[str] = field(default_factory=list)
    #: Why each reply but the last was refused (and the last, on a fault).
    reasons: list[str] = field(default_factory=list)
    seconds: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    fault: str | None = None


class TextSeat:
    """A seat whose answers are text read by the game's :class:`TextLayer`.
    A subclass says how a prompt is put and a reply got (:meth:`answer`).
    ``exchanges`` keeps every decision's prompt and replies this match,
    ``tokens_in``/``tokens_out`` its totals (a model's; 0 for a person).
    Each prompt begins with what the seat saw happen since its last
    decision (the layer's :meth:`~bohnarena.core.textplay.TextLayer.events`
    of its view's history: its view only); ``names``: the seats' names it
    is told (none: seats by number)."""

    #: One decision a request: a window and the next are two prompts.
    pairs = False

    def __init__(
        self,
        layer: TextLayer,
        decisions: Collection[str],
        limits: Limits | None = None,
        names: Sequence[str] = (),
    ) -> None:
        self.layer = layer
        self.names = names  # (read when told: a table may name its seats as it fills)
        self.seen = 0  # records of the seat's history told so far
        self.known = frozenset(decisions)
        self.limits = limits
        self.asks: frozenset[str] = frozenset()
        self.spent = 0.0
        self.lost = False
        self.notes: list[Any] | None = None
        self.times: list[float] | None = None
        self.clock: Clock | None = None
        self.match_id: int | None = None
        self.seat = -1
        self.briefing = ""
        self.exchanges: list[Exchange] = []
        self.tokens_in = self.tokens_out = 0

    def start(self, seat: int, rules: Any, seed: int) -> str | None:
        self.seat, self.spent, self.lost, self.seen = seat, 0.0, False, 0
        self.exchanges = []
        self.tokens_in = self.tokens_out = 0
        self.briefing = self.layer.briefing(rules, seat)
        self.asks = self.known
        return self.begin()

    def begin(self) -> str | None:
        """Called once the briefing is ready; a fault reason or None."""
        return None

    def decide(self, kind: str, view: Any, args: tuple[Any, ...]) -> tuple[Any, str | None]:
        prompt = self.layer.prompt(kind, view, args)
        if prompt.complete and len(prompt.answers) == 1:  # nothing to choose: not asked
            return self.layer.parse(kind, view, args, prompt.answers[0]), None
        told = self.since(view)
        if told:
            prompt = replace(prompt, text=f"{told}\n\n{prompt.text}")
        exchange = Exchange(kind, prompt.text, len(view._table.records))
        self.exchanges.append(exchange)
        began = time.monotonic()
        try:
            answer, fault = self.answer(exchange, prompt, kind, view, args)
        finally:
            exchange.seconds = time.monotonic() - began
            self.spent += exchange.seconds
        exchange.fault = fault
        return answer, fault

    def since(self, view: Any) -> str:
        """What the seat saw happen since it was last asked (since the match
        began, the first time), as text; "" for nothing."""
        history = getattr(view, "history", ())
        new, first = history[self.seen :], self.seen == 0
        self.seen = len(history)
        lines = self.layer.events(view, new, self.names)
        if not lines:
            return ""
        head = "Since the match began:" if first else "Since your last decision:"
        return "\n".join([head, *(f"  {line}" for line in lines)])

    def answer(
        self, exchange: Exchange, prompt: Prompt, kind: str, view: Any, args: tuple[Any, ...]
    ) -> tuple[Any, str | None]:
        raise NotImplementedError

    def parse(
        self, exchange: Exchange, kind: str, view: Any, args: tuple[Any, ...], reply: str
    ) -> Any:
        """The answer ``reply`` gives (kept in ``exchange``); raises Unparsed."""
        exchange.replies.append(reply)
        try:
            return self.layer.parse(kind, view, args, reply)
        except Unparsed as e:
            exchange.reasons.append(e.reason)
            raise

    def decide_pair(self, first: str, then: str, view: Any, args: tuple[Any, ...]) -> PairAnswers:
        return self.decide(first, view, ()), None

    def forfeits(self, faults: int) -> bool:
        lim = self.limits
        return self.lost or (
            lim is not None and (faults >= lim.max_faults or self.spent >= lim.match_seconds)
        )

    def end(self, result: MatchResult) -> str | None:
        return None

    def close(self) -> None:
        pass


class LineReader:
    """Lines from a file descriptor, each within a time if given (a
    terminal's lines come whole; a pipe's may come in pieces)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buffer = b""

    def readline(self, seconds: float | None = None) -> str | None:
        """The next line without its end; None when ``seconds`` pass first.
        Raises EOFError at the end of the input."""
        until = None if seconds is None else time.monotonic() + seconds
        while b"\n" not in self._buffer:
            left = None if until is None else max(0.0, until - time.monotonic())
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.fd, 4096)
            if not chunk:
                if self._buffer:  # a last line without its end
                    chunk = b"\n"
                else:
                    raise EOFError
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace").rstrip("\r")


class HumanSeat(TextSeat):
    """A person at the terminal: the briefing at the start, then what
    happened since their last decision, the table and the question; a line
    read for each answer (an empty one plays the default), a bad one
    explained and asked again. ``seconds``: the time for each decision
    (None: no deadline); ``names``: the seats' names (the bots at the table)."""

    def __init__(
        self,
        layer: TextLayer,
        decisions: Collection[str],
        write: Callable[[str], None],
        reader: LineReader,
        seconds: float | None = None,
        names: Sequence[str] = (),
    ) -> None:
        super().__init__(layer, decisions, names=names)
        self.write, self.reader, self.seconds = write, reader, seconds

    def begin(self) -> str | None:
        self.write(self.briefing)
        return None

    def answer(
        self, exchange: Exchange, prompt: Prompt, kind: str, view: Any, args: tuple[Any, ...]
    ) -> tuple[Any, str | None]:
        self.write(f"\n{prompt.text}")
        until = None if self.seconds is None else time.monotonic() + self.seconds
        while True:
            self.write(f"Your answer (an empty line plays {prompt.default}):")
            left = None if until is None else max(0.0, until - time.monotonic())
            try:
                line = self.reader.readline(left)
            except EOFError:
                self.lost = True  # the person left: the match plays on with defaults
                return None, f"{CRASH}: the input ended"
            if line is None:
                self.write(f"No answer within {self.seconds:g} s: {prompt.default} is played.")
                return None, f"{TIMEOUT}: no answer within {self.seconds:g} s"
            try:
                return self.parse(exchange, kind, view, args, line or prompt.default), None
            except Unparsed as e:
                self.write(f"That is not an answer: {e.reason}. Try again.")
