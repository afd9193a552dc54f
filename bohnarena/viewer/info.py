"""What a match is and how it ended, in words: the header of a text replay
and of a viewer page (any game).

Built from a matches row and its league (``replay``, ``view``) or from a
match just played (``play``); the names are the league's (or the specs').
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.game import Game, MatchResult


@dataclass(frozen=True)
class MatchInfo:
    title: str  # the game's
    edition: str
    seats: tuple[str, ...]  # the bot in each seat; seat 0 starts
    seed: int
    coins: tuple[int, ...]
    ranks: tuple[int, ...]
    faults: tuple[int, ...]
    turns: int
    moves: int  # records in the log (moves 0 to moves - 1)
    options: Mapping[str, Any] = field(default_factory=dict)  # rule overrides
    match_id: int | None = None  # None: played by `play`, not in a league
    deal: int | None = None
    table: int | None = None
    rotation: int | None = None

    @classmethod
    def of_row(
        cls,
        game: Game,
        edition: str,
        options: Mapping[str, Any],
        row: Mapping[str, Any],
        moves: int,
    ) -> MatchInfo:
        """A league's match from its matches row."""
        return cls(
            game.title,
            edition,
            tuple(row["seats"]),
            row["seed"],
            tuple(row["coins"]),
            tuple(row["ranks"]),
            tuple(row["faults"]),
            row["turns"],
            moves,
            dict(options),
            row["match_id"],
            row["deal"],
            row["table"],
            row["rotation"],
        )

    @classmethod
    def of_result(
        cls,
        game: Game,
        edition: str,
        options: Mapping[str, Any],
        names: Sequence[str],
        seed: int,
        result: MatchResult,
        moves: int,
    ) -> MatchInfo:
        """A match played outside a league (``play``)."""
        return cls(
            game.title,
            edition,
            tuple(names),
            seed,
            result.coins,
            result.ranks,
            result.faults,
            result.turns,
            moves,
            dict(options),
        )

    @property
    def name(self) -> str:
        return "A match" if self.match_id is None else f"Match {self.match_id}"

    def rules_text(self) -> str:
        opts = "".join(f", {k}={v}" for k, v in self.options.items())
        return f"{self.title}, {self.edition} edition, {len(self.seats)} players{opts}"

    def where(self) -> str:
        """Where the match lies in its league's schedule, and its seed."""
        if self.match_id is None:
            return f"seed {self.seed}"
        return f"deal {self.deal}, table {self.table}, rotation {self.rotation}; seed {self.seed}"

    def standings(self) -> list[tuple[int, int]]:
        """(place, seat), best first; seats tied keep seat order."""
        return sorted(((r, s) for s, r in enumerate(self.ranks)), key=lambda p: p)

    def result_lines(self) -> list[str]:
        """The result, a line per seat in order of place."""
        width = max(map(len, self.seats))
        lines = []
        for place, s in self.standings():
            n = self.faults[s]
            faults = f"  ({n} fault{'' if n == 1 else 's'})" if n else ""
            lines.append(
                f"  {place:>2}. seat {s} {self.seats[s]:<{width}} {self.coins[s]:>3} coins{faults}"
            )
        return lines

    def header(self) -> list[str]:
        """The header of a text replay."""
        return [
            f"{self.name}: {self.rules_text()}",
            f"  {self.where()}",
            "Seats: " + ", ".join(f"{s} {name}" for s, name in enumerate(self.seats)),
            f"Result ({self.turns} turns, {self.moves:,} moves 0-{self.moves - 1}):",
            *self.result_lines(),
        ]

    def as_json(self) -> dict[str, Any]:
        """For a viewer page."""
        return {
            "name": self.name,
            "rules": self.rules_text(),
            "where": self.where(),
            "seats": list(self.seats),
            "coins": list(self.coins),
            "ranks": list(self.ranks),
            "faults": list(self.faults),
            "turns": self.turns,
            "moves": self.moves,
        }
