"""TrueSkill ranking of a league's finished matches.

Each match is one free-for-all: every seat is a one-player team, ranked by
its finishing place. Places come from the game's result, where the edition's
tie-break already orders equal coins; seats the tie-break leaves tied are
rated as a draw. Matches are rated in match-id order, so the ratings are the
same whatever the worker count or the order matches finished in.
"""

from __future__ import annotations

import array
import csv
import io
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import trueskill

from ..store.logbook import RankedRow
from .freeforall import FreeForAll

RANK_COLUMNS = ["seats", "ranks", "coins", "winners", "faults"]  # what rank() reads
#: A bot's rating before its first match (the library's defaults).
FRESH = (trueskill.MU, trueskill.SIGMA)


@dataclass
class BotStanding:
    bot: str
    mu: float = 25.0
    sigma: float = 25.0 / 3
    matches: int = 0
    wins: int = 0
    coins: int = 0
    places: int = 0
    faults: int = 0

    @property
    def score(self) -> float:
        """The conservative rating, mu - 3 sigma."""
        return self.mu - 3 * self.sigma

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0

    def row(self) -> dict[str, Any]:
        n = self.matches or 1
        return {
            "bot": self.bot,
            "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3),
            "score": round(self.score, 3),
            "matches": self.matches,
            "wins": self.wins,
            "win_rate": round(self.win_rate, 4),
            "mean_coins": round(self.coins / n, 3),
            "mean_place": round(self.places / n, 3),
            "faults": self.faults,
        }


@dataclass
class Ranking:
    standings: list[BotStanding]
    seat_wins: list[int] = field(default_factory=list)
    seat_matches: int = 0

    def rows(self) -> list[dict[str, Any]]:
        return [s.row() for s in self.standings]

    def seat_rows(self) -> list[dict[str, Any]]:
        n = self.seat_matches or 1
        return [
            {"seat": s, "wins": w, "win_rate": round(w / n, 4)}
            for s, w in enumerate(self.seat_wins)
        ]

    def to_json(self) -> str:
        return json.dumps(
            {"bots": self.rows(), "seats": self.seat_rows(), "matches": self.seat_matches}, indent=2
        )

    def to_csv(self) -> str:
        out = io.StringIO()
        rows = self.rows()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["bot"])
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue()

    def to_markdown(self) -> str:
        head = [
            "#",
            "bot",
            "score",
            "mu",
            "sigma",
            "matches",
            "wins",
            "win rate",
            "mean coins",
            "mean place",
            "faults",
        ]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for i, r in enumerate(self.rows(), 1):
            lines.append(
                "| "
                + " | ".join(
                    map(
                        str,
                        [
                            i,
                            r["bot"],
                            f"{r['score']:.2f}",
                            f"{r['mu']:.2f}",
                            f"{r['sigma']:.2f}",
                            r["matches"],
                            r["wins"],
                            f"{r['win_rate']:.1%}",
                            f"{r['mean_coins']:.2f}",
                            f"{r['mean_place']:.2f}",
                            r["faults"],
                        ],
                    )
                )
                + " |"
            )
        lines += [
            "",
            "Win rate by seat (seat 0 starts):",
            "",
            "| seat | wins | win rate |",
            "|---|---|---|",
        ]
        lines += [f"| {r['seat']} | {r['wins']} | {r['win_rate']:.1%} |" for r in self.seat_rows()]
        return "\n".join(lines) + "\n"

    def to_text(self) -> str:
        out = [
            f"{'#':>2}  {'bot':<16} {'score':>7} {'mu':>7} {'sigma':>6} {'matches':>7} "
            f"{'win rate':>8} {'coins':>6} {'place':>6} {'faults':>6}"
        ]
        # (from the unrounded figures, as every other table of ratings: a
        # figure rounded twice can read 0.01 off the ladder's tables)
        for i, s in enumerate(self.standings, 1):
            n = s.matches or 1
            out.append(
                f"{i:>2}  {s.bot:<16} {s.score:>7.2f} {s.mu:>7.2f} {s.sigma:>6.2f} "
                f"{s.matches:>7} {s.win_rate:>8.1%} {s.coins / n:>6.2f} "
                f"{s.places / n:>6.2f} {s.faults:>6}"
            )
        seats = "  ".join(f"{r['seat']}: {r['win_rate']:.1%}" for r in self.seat_rows())
        out.append(f"Win rate by seat: {seats}")
        return "\n".join(out)


def rate_table(
    table: FreeForAll, ratings: Sequence[trueskill.Rating], places: Sequence[int]
) -> list[trueskill.Rating]:
    """One match as TrueSkill sees it: every seat a one-player team, ranked
    by its place (1 is first; equal places are a draw). Returns the seats'
    new ratings."""
    return table.rate(ratings, [p - 1 for p in places])


@dataclass
class Curve:
    """Every bot's TrueSkill after each match, in match-id order: (N, B)
    arrays, bots in league order. Its last row is the ranking's."""

    mu: npt.NDArray[np.float64]
    sigma: npt.NDArray[np.float64]


class Rater:
    """TrueSkill over matches fed one at a time, in match-id order: a run
    rates matches as they finish (run/dispatch.py), ``rank`` and ``report``
    rate a directory. The one place standings and ratings are made."""

    def __init__(self, bots: Sequence[str], after: Curve | None = None) -> None:
        """``after``: the curve of the first matches, rated before (a run's
        kept curve, its columns in ``bots``' order): they are counted, not
        rated again, and rating goes on from its last row."""
        # The library's defaults: mu 25, sigma 25/3, draw probability 0.1.
        self.env = trueskill.TrueSkill()
        self.table = FreeForAll(self.env)  # the library's ratings, float for float
        self.ratings = {b: self.env.create_rating() for b in bots}
        self.standing = {b: BotStanding(b) for b in bots}
        self.seat_wins: list[int] = []
        self.count = 0
        self.after = after
        self._unrated = 0 if after is None else len(after.mu)
        self._mu, self._sigma = array.array("d"), array.array("d")  # the curve, row by row

    def add(self, row: RankedRow) -> None:
        seats, ranks = row["seats"], row["ranks"]
        self.count += 1
        if len(self.seat_wins) < len(seats):
            self.seat_wins += [0] * (len(seats) - len(self.seat_wins))
        for w in row["winners"]:
            self.seat_wins[w] += 1
        for s, b in enumerate(seats):
            st = self.standing[b]
            st.matches += 1
            st.wins += s in row["winners"]
            st.coins += row["coins"][s]
            st.places += ranks[s]
            st.faults += row["faults"][s]
        if self._unrated:
            self._unrated -= 1
            if not self._unrated:
                self._go_on_from_kept()
            return
        # Teams are seats; a bot may fill two seats of one table (fewer bots than seats).
        new = rate_table(self.table, [self.ratings[b] for b in seats], ranks)
        for s, b in enumerate(seats):
            self.ratings[b] = new[s]
        self._mu.extend([r.mu for r in self.ratings.values()])
        self._sigma.extend([r.sigma for r in self.ratings.values()])

    def _go_on_from_kept(self) -> None:
        assert self.after is not None
        last = zip(self.ratings, self.after.mu[-1], self.after.sigma[-1], strict=True)
        self.ratings = {b: self.env.create_rating(float(mu), float(sg)) for b, mu, sg in last}

    def curve(self) -> Curve:
        """The ratings after each match rated so far (copies), the kept
        curve's rows first."""
        b = len(self.ratings)
        mu = np.frombuffer(self._mu, dtype=np.float64).reshape(-1, b)
        sigma = np.frombuffer(self._sigma, dtype=np.float64).reshape(-1, b)
        if self.after is None:
            return Curve(mu.copy(), sigma.copy())
        kept = len(self.after.mu) - self._unrated  # (all of it once its matches are in)
        return Curve(
            np.concatenate([self.after.mu[:kept], mu]),
            np.concatenate([self.after.sigma[:kept], sigma]),
        )

    @property
    def ready(self) -> bool:
        """Whether :meth:`ranking` may be asked: every kept match counted."""
        return not self._unrated

    def ranking(self) -> Ranking:
        """The standings so far (copies: rating more matches does not change
        them)."""
        if self._unrated:  # (fewer matches than the kept curve: not its last row)
            raise ValueError(f"{self._unrated} matches of the kept curve were not counted")
        standings = [
            replace(self.standing[b], mu=r.mu, sigma=r.sigma) for b, r in self.ratings.items()
        ]
        order = sorted(standings, key=lambda s: (-s.score, s.bot))
        return Ranking(order, list(self.seat_wins), self.count)


def rank(matches: Iterable[RankedRow], bots: Sequence[str]) -> Ranking:
    """Rate ``matches`` (rows of the matches table), which come in match-id order."""
    rater = Rater(bots)
    for row in matches:
        rater.add(row)
    return rater.ranking()
