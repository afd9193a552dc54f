"""A match as a film: the table after every move, in the shared words of
the viewer page, for any game.

A game draws its table with the zones below (a seat's or the table's
cards, slots such as fields, a value, lines of text, badges), built from
the table its own replay builds move by move: the page only shows what the
game computed, it never applies a rule. A game offers this as its optional
``viewer`` capability, a :class:`Viewer` (docs/adding-a-game.md).

Zones repeat from move to move, so each distinct zone, and each distinct
panel (a seat's or the table's tuple of zones), is kept once in a pool and
the frames refer to them by number: a match of 3,000 moves is a few
hundred kilobytes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..core.game import MatchResult
from ..core.text import plural

#: The version of the film's data (the page's ``viewer`` key).
FORMAT = 1

#: Move tags: the page marks them in words and hides "quiet" ones (decisions
#: and bookkeeping) unless asked to show every record.
TAGS = (
    *("turn", "event", "quiet", "offer", "trade", "harvest", "draw", "shuffle", "draft"),
    *("note", "fault", "end"),
)


@dataclass(frozen=True, slots=True)
class Zone:
    """One thing on the table, drawn by the page as its ``kind`` says:
    ``value`` (a number or a word, with ``sub`` below it), ``cards`` (card
    names in order; ``secret``: face down until the page shows every
    hand), ``slots`` (``(title, count or None, note)`` each, such as fields),
    ``lines`` (each a text, or a move number: that move's line, so that a
    zone listing a turn's moves does not repeat their text) or ``badges``
    (short labels of a seat: active, forfeited)."""

    key: str  # what it is, the same from frame to frame ("coins", "hand")
    label: str
    kind: str
    items: tuple[Any, ...] = ()
    value: str = ""
    sub: str = ""
    secret: bool = False

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "label": self.label, "kind": self.kind}
        if self.items:
            out["items"] = [list(i) if isinstance(i, tuple) else i for i in self.items]
        if self.value:
            out["value"] = self.value
        if self.sub:
            out["sub"] = self.sub
        if self.secret:
            out["secret"] = True
        return out


def value(key: str, label: str, shown: object, sub: str = "") -> Zone:
    return Zone(key, label, "value", value=str(shown), sub=sub)


def cards(key: str, label: str, names: Iterable[str], secret: bool = False) -> Zone:
    return Zone(key, label, "cards", tuple(names), secret=secret)


def slots(
    key: str, label: str, items: Iterable[tuple[str, int | None, str]], sub: str = ""
) -> Zone:
    return Zone(key, label, "slots", tuple(items), sub=sub)


def lines(key: str, label: str, texts: Iterable[str | int]) -> Zone:
    return Zone(key, label, "lines", tuple(texts))


def badges(texts: Iterable[str]) -> Zone:
    return Zone("badges", "", "badges", tuple(texts))


@dataclass(frozen=True, slots=True)
class Frame:
    """The table right after one move."""

    turn: int  # 0 before the first turn
    head: str  # where the match is: turn, phase, who is active
    table: tuple[Zone, ...]
    seats: tuple[tuple[Zone, ...], ...]
    who: tuple[int, ...] = ()  # the seats this move concerns


@dataclass(frozen=True, slots=True)
class Move:
    """A move's line in the page's move list."""

    text: str
    tag: str  # one of TAGS
    seat: int = -1


class Painter(Protocol):
    """A game's drawing of its table, called for every record in order."""

    def move(self, i: int, rec: tuple[Any, ...]) -> Move: ...

    def frame(self, i: int, rec: tuple[Any, ...], table: Any) -> Frame:
        """The table as it stands right after record ``i``, ``rec``."""
        ...


#: ``(rules, seed, log, stop_at, on_record)``: a game's replay (``Replayer.replay``).
Replay = Callable[..., tuple[Any, MatchResult | None]]


@dataclass
class Film:
    """Every frame of a match, its zones and panels pooled (see the module)."""

    pool: list[Any] = field(default_factory=list)
    frames: list[list[Any]] = field(default_factory=list)
    moves: list[list[Any]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    _ids: dict[Any, int] = field(default_factory=dict)
    _texts: dict[str, int] = field(default_factory=dict)

    def _id(self, thing: Any, as_json: Callable[[], Any]) -> int:
        i = self._ids.get(thing)
        if i is None:
            made = as_json()  # (a panel pools its zones first)
            i = self._ids[thing] = len(self.pool)
            self.pool.append(made)
        return i

    def _panel(self, zones: tuple[Zone, ...]) -> int:
        return self._id(zones, lambda: [self._id(z, z.as_json) for z in zones])

    def add(self, frame: Frame, move: Move) -> None:
        head = self._id(("head", frame.head), lambda: frame.head)
        seats = [self._panel(zones) for zones in frame.seats]
        self.frames.append([frame.turn, head, self._panel(frame.table), seats, list(frame.who)])
        text = self._text(move.text)
        self.moves.append([text, move.tag, move.seat])

    def _text(self, text: str) -> int:
        """A move's line, kept once (a match repeats "seat 2 declines" often)."""
        i = self._texts.get(text)
        if i is None:
            i = self._texts[text] = len(self.texts)
            self.texts.append(text)
        return i

    def as_json(self, game: str, meta: dict[str, Any]) -> dict[str, Any]:
        return {
            "viewer": FORMAT,
            "game": game,
            "meta": meta,
            "pool": self.pool,
            "frames": self.frames,
            "moves": self.moves,
            "texts": self.texts,
        }


@dataclass(frozen=True)
class Viewer:
    """A game's viewer: its replay and its painter (what a game's
    :class:`~bohnarena.core.game.Capabilities` ``viewer`` makes)."""

    replay: Replay
    #: (rules, names) -> a fresh :class:`Painter` for one match.
    painter: Callable[[Any, Sequence[str]], Painter]

    def film(
        self, rules: Any, seed: int, log: Sequence[tuple[Any, ...]], names: Sequence[str]
    ) -> Film:
        """The match replayed through the game's rules, a frame per record;
        raises :class:`~bohnarena.referee.replaylog.Divergence` where the log leaves them."""
        film = Film()
        painter = self.painter(rules, names)

        def shoot(i: int, rec: tuple[Any, ...], table: Any) -> None:
            film.add(painter.frame(i, rec, table), painter.move(i, rec))

        self.replay(rules, seed, log, None, shoot)
        return film


class Referee:
    """What the referee's records (the same in every game) say of each seat
    as a match goes: its faults, a forfeit, a note at the move it was
    written with; and the end."""

    def __init__(self, players: int, describe: Callable[[tuple[Any, ...]], str | None]) -> None:
        self.describe = describe
        self.faults = [0] * players
        self.forfeited: set[int] = set()
        self.notes: dict[int, tuple[int, str]] = {}  # seat: (its move, the note)
        self.now = -1
        self.over = False

    def see(self, i: int, rec: tuple[Any, ...]) -> None:
        kind = rec[0]
        self.now = i
        if kind == "note":
            self.notes[rec[1]] = (i, f"move {i}: {(self.describe(rec) or '').strip()}")
        elif kind == "fault":
            self.faults[rec[1]] += 1
        elif kind == "forfeit":
            self.forfeited.add(rec[1])
        elif kind == "ended":
            self.over = True

    def badges(self, seat: int, active: bool, *more: str) -> Zone:
        marks = ["active player"] if active and not self.over else []
        if seat in self.forfeited:
            marks.append("forfeited")
        if self.faults[seat]:
            marks.append(plural(self.faults[seat], "fault"))
        return badges([*marks, *more])

    def note(self, seat: int) -> tuple[Zone, ...]:
        """The seat's note, at the move it came with only (a note explains
        that answer, not the moves after it)."""
        at, text = self.notes.get(seat, (-2, ""))
        return (lines("note", "Note", [text]),) if at == self.now else ()


def answer_text(
    who: str, values: dict[str, Any], name: Callable[[str, Any], str] | None = None
) -> str:
    """A decision's line (the transcript has none): who answered what, and how."""
    kind = values["kind"]
    shown = [
        f"{k} {name(k, v) if name else v}"
        for k, v in values.items()
        if k not in ("kind", "seat", "how")
    ]
    how = f" ({values['how']})" if values.get("how") else ""
    return f"{who} answers {kind}: {', '.join(shown) or 'nothing'}{how}"
