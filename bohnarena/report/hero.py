"""A gauntlet's report about its hero (docs/report.md): the hero against
each opponent (head-to-head score, interval, Elo-style difference), by
seat, and its worst deals, each with the command that replays its worst
match. Figures only; html.py renders them."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..rating.stats import LeagueStats, Matches
from ..rating.statstables import elo_cell

#: Worst deals shown.
WORST = 5


@dataclass
class Opponent:
    bot: str
    pairs: int
    score: float
    low: float
    high: float
    elo: str  # the Elo-style difference and its interval, as text


@dataclass
class WorstDeal:
    deal: int
    matches: int
    place: float  # the hero's mean place over the deal's matches
    coins: float
    match_id: int  # the deal's match where the hero did worst
    seats: tuple[str, ...]
    command: str


@dataclass
class HeroFigures:
    hero: str
    opponents: list[Opponent]
    worst: list[WorstDeal]


def opponents(s: LeagueStats, hero: int) -> list[Opponent]:
    """The hero over each other bot, the one it does worst against first."""
    out = [
        Opponent(
            s.bots[j],
            int(s.h2h_n[hero, j]),
            float(s.h2h.value[hero, j]),
            float(s.h2h.low[hero, j]),
            float(s.h2h.high[hero, j]),
            elo_cell(s, hero, j),
        )
        for j in range(len(s.bots))
        if j != hero and s.h2h_n[hero, j] > 0
    ]
    return sorted(out, key=lambda o: (o.score, o.bot))


def worst_deals(m: Matches, hero: int, results: Path, most: int = WORST) -> list[WorstDeal]:
    """The deals where the hero's mean place was worst (then fewest coins)."""
    at = m.bot == hero  # (N, P)
    rows = np.nonzero(at.any(axis=1))[0]
    if not len(rows):
        return []
    seats = at[rows].sum(axis=1)
    place = np.where(at[rows], m.place[rows], 0).sum(axis=1) / seats
    coins = np.where(at[rows], m.coins[rows], 0).sum(axis=1) / seats
    deals, inverse = np.unique(m.deal[rows], return_inverse=True)
    count = np.bincount(inverse)
    mean_place = np.bincount(inverse, weights=place) / count
    mean_coins = np.bincount(inverse, weights=coins) / count
    out = []
    for d in sorted(range(len(deals)), key=lambda d: (-mean_place[d], mean_coins[d], deals[d])):
        mine = np.nonzero(inverse == d)[0]
        k = mine[np.lexsort((m.match_id[rows[mine]], coins[mine], -place[mine]))[0]]
        match = int(m.match_id[rows[k]])
        out.append(
            WorstDeal(
                int(deals[d]),
                int(count[d]),
                float(mean_place[d]),
                float(mean_coins[d]),
                match,
                tuple(m.bots[b] for b in m.bot[rows[k]]),
                f"bohnarena replay {shlex.quote(str(results))} --match {match}",
            )
        )
        if len(out) == most:
            break
    return out


def hero_figures(m: Matches, s: LeagueStats, hero: str, results: Path) -> HeroFigures:
    h = s.bots.index(hero)
    return HeroFigures(hero, opponents(s, h), worst_deals(m, h, results))
