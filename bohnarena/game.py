"""The interface between a game and the rest of bohnarena.

The runner, the logs and the ratings see a game only through :class:`Game`:
rule sets, bot classes, a match function that returns a
:class:`MatchResult` and a record stream, and a transcript renderer. They
know nothing of any game's rules.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import UsageError


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How a match ended, seat by seat (seat 0 is the start player)."""

    coins: tuple[int, ...]
    ranks: tuple[int, ...]  # 1 is first; equal ranks only where the tie-break leaves a tie
    winners: tuple[int, ...]
    turns: int
    faults: tuple[int, ...]


class Game(Protocol):
    name: str
    title: str
    #: Bumped whenever a change alters how a seeded match plays out or is
    #: recorded: results of different versions are never mixed or replayed.
    version: int
    #: Record layouts: kind -> names of the values after (kind, seat).
    layout: Mapping[str, tuple[str, ...]]
    #: Value columns of the records and their kind ("int", "ints", "str").
    columns: Mapping[str, str]

    @property
    def bot_base(self) -> type: ...

    def editions(self) -> list[str]: ...

    def player_counts(self, edition: str) -> list[int]: ...

    def rules(self, edition: str, players: int, options: Mapping[str, Any]) -> Any:
        """A rule set; raises :class:`~bohnarena.errors.RulesError` on bad input."""
        ...

    def play(
        self, rules: Any, seed: int, players: Sequence[Any]
    ) -> tuple[MatchResult, list[tuple]]:
        """Play a match; each player is a bot instance or a seat from make_seat()."""
        ...

    def make_seat(
        self,
        entry: Any,
        limits: Any = None,
        watchdog: Any = None,
        log: Any = None,
        timed: bool = False,
    ) -> Any:
        """A seat for a league's bot entry (in this process or sandboxed);
        ``timed`` keeps each decision's time (for conformance reports)."""
        ...

    def transcript(
        self, records: Iterable[Sequence[Any]], names: Sequence[str]
    ) -> Iterator[str]: ...


#: Games by name: "module:attribute" of an object implementing :class:`Game`.
GAMES = {
    "bohnanza": "bohnarena.bohnanza.game:GAME",
    "wuerfel": "bohnarena.wuerfel.game:GAME",
}


def get_game(name: str) -> Game:
    try:
        target = GAMES[name]
    except KeyError:
        raise UsageError(f"unknown game {name!r} (known: {', '.join(GAMES)})") from None
    module, attr = target.split(":")
    return getattr(importlib.import_module(module), attr)
