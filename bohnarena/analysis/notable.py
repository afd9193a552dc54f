"""Matches worth watching, found in a league's matches (any game): `matches`
lists them by a filter and a sort, the report links a few per bot and per
pairing (docs/viewer.md, "Matches to find").

Read from the matches columns alone (seats, coins, places, faults, turns)
and the league's ranking: an *upset* is a pair of seats of one match where
the bot with the lower TrueSkill score (mu - 3 sigma, what `rank` sorts by)
finished strictly ahead of one with a higher score; its size is the
difference of the two scores. A match's *margin* is the winner's lead in
coins over the best of the others (0 when first place is shared).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..core.text import plural
from ..rating.skill import Ranking
from ..rating.stats import Floats, Ints, Matches

#: What `matches` sorts by: match id (ascending), else the largest first.
SORTS = ("id", "upset", "longest", "faults", "margin")
#: At most so many matches linked from the report (a viewer file each).
MOST_WATCHED = 16


def scores(m: Matches, ranking: Ranking) -> Floats:
    """Each bot's score (mu - 3 sigma) in the order of ``m.bots``."""
    by_bot = {s.bot: s.score for s in ranking.standings}
    return np.array([by_bot.get(b, np.nan) for b in m.bots], dtype=np.float64)


@dataclass(frozen=True)
class Upsets:
    """Each match's largest upset: its size (0: none) and the seats of the
    bot that finished ahead and of the higher-rated one it beat."""

    gap: Floats
    ahead: Ints
    behind: Ints


def upsets(
    m: Matches, score: Floats, winner: int | None = None, loser: int | None = None
) -> Upsets:
    """The largest upset of every match, counting only pairs whose bot ahead
    is ``winner`` and whose bot behind is ``loser`` (None: any bot)."""
    gap = np.zeros(m.n)
    ahead = np.full(m.n, -1, dtype=np.int64)
    behind = np.full(m.n, -1, dtype=np.int64)
    rated = score[m.bot] if m.n else np.zeros((0, 0))
    for a in range(m.players):
        for b in range(m.players):
            size = np.where(m.place[:, a] < m.place[:, b], rated[:, b] - rated[:, a], 0.0)
            if winner is not None:
                size = np.where(m.bot[:, a] == winner, size, 0.0)
            if loser is not None:
                size = np.where(m.bot[:, b] == loser, size, 0.0)
            larger = np.nan_to_num(size) > gap
            gap = np.where(larger, size, gap)
            ahead = np.where(larger, a, ahead)
            behind = np.where(larger, b, behind)
    return Upsets(gap, ahead, behind)


def upsets_between(m: Matches, score: Floats, one: int, other: int | None) -> Upsets:
    """The largest upset of every match between ``one`` and ``other`` (None:
    any bot), whichever of the two finished ahead."""
    won, lost = upsets(m, score, one, other), upsets(m, score, other, one)
    larger = lost.gap > won.gap
    return Upsets(
        np.where(larger, lost.gap, won.gap),
        np.where(larger, lost.ahead, won.ahead),
        np.where(larger, lost.behind, won.behind),
    )


def margins(m: Matches) -> Ints:
    """Each match's winning margin: the top coins less the second (a seat's
    coins count once each, so a shared first place is a margin of 0)."""
    if m.players < 2:
        return np.zeros(m.n, dtype=np.int64)
    top = np.sort(m.coins, axis=1)
    return (top[:, -1] - top[:, -2]).astype(np.int64)


def seats_of(m: Matches, bot: int) -> npt.NDArray[np.bool_]:
    """(N, P): where ``bot`` sits."""
    return np.equal(m.bot, bot)


def faults_of(m: Matches, bot: int | None = None) -> Ints:
    """Each match's faults: every seat's, or those of ``bot``'s seats."""
    faults = m.faults if bot is None else np.where(seats_of(m, bot), m.faults, 0)
    return faults.sum(axis=1).astype(np.int64) if m.n else np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class Query:
    """Which matches to list and how (bots as indexes into ``Matches.bots``)."""

    bot: int | None = None  # plays in it
    against: int | None = None  # plays in it too (with ``bot``)
    seat: int | None = None  # ``bot`` sits there
    deal: int | None = None
    faulted: bool = False  # only with a fault (``bot``'s, with ``bot``)
    sort: str = "id"
    limit: int | None = 20


@dataclass(frozen=True)
class Found:
    """A match found: its row in :class:`Matches` and what it was sorted by."""

    row: int
    value: float
    ahead: int = -1  # an upset's seats, when sorted by upset
    behind: int = -1


def find(m: Matches, score: Floats, q: Query) -> tuple[list[Found], int]:
    """The matches ``q`` asks for, in its order, and how many there are in all
    (before its limit). Sorted by upset: only matches with one (of ``q.bot``
    against ``q.against``, with them); sorted otherwise: largest first, then
    by id."""
    keep = np.ones(m.n, dtype=bool)
    if q.bot is not None:
        at = seats_of(m, q.bot)
        keep &= at[:, q.seat] if q.seat is not None else at.any(axis=1)
    if q.against is not None:
        keep &= seats_of(m, q.against).any(axis=1)
    if q.deal is not None:
        keep &= m.deal == q.deal
    faults = faults_of(m, q.bot)
    if q.faulted:
        keep &= faults > 0
    up = upsets_between(m, score, q.bot, q.against) if q.bot is not None else upsets(m, score)
    value: npt.NDArray[np.float64] = {
        "id": m.match_id.astype(np.float64),
        "upset": up.gap,
        "longest": m.turns.astype(np.float64),
        "faults": faults.astype(np.float64),
        "margin": margins(m).astype(np.float64),
    }[q.sort]
    if q.sort == "upset":
        keep &= up.gap > 0
    rows = np.flatnonzero(keep)
    key = value[rows] if q.sort == "id" else -value[rows]
    rows = rows[np.lexsort((m.match_id[rows], key))]
    total = len(rows)
    if q.limit is not None:
        rows = rows[: q.limit]
    found = [
        Found(int(r), float(value[r]), int(up.ahead[r]), int(up.behind[r]))
        if q.sort == "upset"
        else Found(int(r), float(value[r]))
        for r in rows
    ]
    return found, total


# -- the report's picks -------------------------------------------------------


@dataclass
class Pick:
    """A match the report links, with why (a line per reason)."""

    row: int
    why: list[str]


def _best(value: Floats, where: npt.NDArray[np.bool_]) -> int | None:
    """The row of the largest positive ``value`` among ``where`` (of those
    tied, the first: the lowest id, rows being in id order), or None."""
    masked = np.where(where & (value > 0), value, -np.inf)
    if not masked.size or not np.isfinite(masked.max()):
        return None
    return int(np.argmax(masked))


def report_picks(
    m: Matches, score: Floats, order: Sequence[int], most: int = MOST_WATCHED
) -> list[Pick]:
    """A few matches per bot: each bot's biggest win, then the largest upset
    each suffered, then the match each faulted most in (bots in ``order``,
    the leaderboard's); then the largest upset of each pairing, largest
    first. Each match once, at most ``most``: a cap leaves out the last
    kinds, never the last bots."""
    picks: dict[int, Pick] = {}
    names = m.bots

    def add(row: int, why: str) -> None:
        if row in picks:
            picks[row].why.append(why)
        elif len(picks) < most:
            picks[row] = Pick(row, [why])

    margin = margins(m).astype(np.float64)
    for b in order:
        won = (seats_of(m, b) & (m.place == 1)).any(axis=1)
        if (row := _best(margin, won)) is not None:
            add(row, f"{names[b]}'s biggest win (by {margin[row]:.0f} coins)")
    for b in order:
        lost = upsets(m, score, loser=b).gap
        if (row := _best(lost, lost > 0)) is not None:
            add(row, f"{names[b]}'s largest upset suffered ({lost[row]:.2f})")
    for b in order:
        faults = faults_of(m, b).astype(np.float64)
        if (row := _best(faults, faults > 0)) is not None:
            add(row, f"{names[b]} faulted most ({plural(int(faults[row]), 'fault')})")
    cells = []
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            up = upsets_between(m, score, a, b)
            if (row := _best(up.gap, up.gap > 0)) is not None:
                ahead, behind = m.bot[row, up.ahead[row]], m.bot[row, up.behind[row]]
                gap = up.gap[row]
                cells.append((-gap, row, f"{names[ahead]} over {names[behind]} ({gap:.2f})"))
    for _, row, pairing in sorted(cells):
        add(row, f"largest upset: {pairing}")
    return list(picks.values())
