"""Statistics of a league that respect its duplicate design (any game).

Only the generic matches columns are read (docs/logs.md). Every deal is
played at every table under every seat rotation, so the matches of one deal
share its luck and are not independent: intervals come from a *block
bootstrap* that resamples whole deals (all their tables and rotations
together), never single matches. See docs/statistics.md.

Everything is aggregated into per-deal sums first; a resample is a vector of
deal counts, so R resamples of any statistic are one matrix product.
"""

from __future__ import annotations

import array
import math
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .skill import Curve

#: The matches columns the statistics read.
COLUMNS = [
    "match_id",
    "deal",
    "seats",
    "coins",
    "ranks",
    "winners",
    "faults",
    "turns",
    "duration_s",
]
RESAMPLES = 1000  # bootstrap resamples by default: percentiles to about +-0.5 points
SEED = 0  # the default bootstrap seed: the same numbers on every call
LEVEL = 0.95

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


@dataclass
class Matches:
    """A league's finished matches as arrays: N matches, P seats, in id order."""

    bots: list[str]
    match_id: Ints  # (N,)
    deal: Ints  # (N,)
    bot: Ints  # (N, P): index into bots of the bot in each seat
    coins: Ints  # (N, P)
    place: Ints  # (N, P): 1 is first
    win: npt.NDArray[np.bool_]  # (N, P)
    faults: Ints  # (N, P)
    turns: Ints  # (N,)
    duration: Floats  # (N,) wall seconds of the whole match

    @property
    def n(self) -> int:
        return len(self.match_id)

    @property
    def players(self) -> int:
        return int(self.bot.shape[1]) if self.bot.ndim == 2 else 0


class Collector:
    """Builds :class:`Matches` from rows as they stream past (bounded by the
    arrays, never the rows), so one pass can feed the ranking too."""

    def __init__(self, bots: Sequence[str]) -> None:
        self.bots = list(bots)
        self._index = {b: i for i, b in enumerate(self.bots)}
        self._players = 0
        self._cols: dict[str, array.array[Any]] = {
            name: array.array("q")
            for name in ("match_id", "deal", "bot", "coins", "place", "win", "faults", "turns")
        }
        self._duration = array.array("d")

    def add(self, row: Mapping[str, Any]) -> None:
        seats = row["seats"]
        self._players = self._players or len(seats)
        c = self._cols
        c["match_id"].append(row["match_id"])
        c["deal"].append(row["deal"])
        c["turns"].append(row["turns"])
        self._duration.append(row["duration_s"])
        c["bot"].extend(self._index[b] for b in seats)
        c["coins"].extend(row["coins"])
        c["place"].extend(row["ranks"])
        c["faults"].extend(row["faults"])
        winners = set(row["winners"])
        c["win"].extend(s in winners for s in range(len(seats)))

    def watch(self, rows: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
        """``rows`` unchanged, each one collected on the way."""
        for row in rows:
            self.add(row)
            yield row

    def matches(self) -> Matches:
        p = self._players

        def col(name: str) -> Ints:
            return np.frombuffer(self._cols[name], dtype=np.int64).copy()

        def grid(name: str) -> Ints:
            return col(name).reshape(-1, p) if p else np.zeros((0, 0), np.int64)

        return Matches(
            self.bots,
            col("match_id"),
            col("deal"),
            grid("bot"),
            grid("coins"),
            grid("place"),
            grid("win").astype(bool),
            grid("faults"),
            col("turns"),
            np.frombuffer(self._duration, dtype=np.float64).copy(),
        )


def collect(rows: Iterable[Mapping[str, Any]], bots: Sequence[str]) -> Matches:
    c = Collector(bots)
    for row in rows:
        c.add(row)
    return c.matches()


# -- the block bootstrap ----------------------------------------------------


def deal_blocks(m: Matches) -> tuple[Ints, int]:
    """Each match's block (its deal, numbered 0..D-1) and D."""
    _, block = np.unique(m.deal, return_inverse=True)
    return block.astype(np.int64), int(block.max()) + 1 if m.n else 0


def block_sums(block: Ints, blocks: int, column: Ints, value: Floats, width: int) -> Floats:
    """(blocks, width) sums of ``value`` into ``column`` per block; the three
    arrays are flat and aligned (one entry per match and seat, say)."""
    flat = np.bincount(block * width + column, weights=value, minlength=blocks * width)
    return np.asarray(flat, dtype=np.float64).reshape(blocks, width)


def resample_sums(sums: Floats, resamples: int, seed: int, chunk: int = 100) -> Floats:
    """(resamples, K) column totals of ``sums`` (blocks x K) over blocks drawn
    with replacement: the deal counts of each resample times the block sums."""
    blocks = sums.shape[0]
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, sums.shape[1]))
    for at in range(0, resamples, chunk):
        r = min(chunk, resamples - at)
        drawn = rng.integers(0, blocks, size=(r, blocks))
        drawn += blocks * np.arange(r)[:, None]  # (in place: a big league's draws are 20 MB)
        counts = np.bincount(drawn.ravel(), minlength=r * blocks).reshape(r, blocks)
        out[at : at + r] = counts @ sums
    return out


def ratio(num: Floats, den: Floats) -> Floats:
    """num / den, NaN where den is 0 (a bot absent from a resample)."""
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def interval(samples: Floats, level: float = LEVEL) -> tuple[Floats, Floats]:
    """Percentile interval of each column of ``samples`` (resamples x K)."""
    tail = (1 - level) / 2 * 100
    if samples.shape[0] == 0:
        nan = np.full(samples.shape[1:], np.nan)
        return nan, nan
    with warnings.catch_warnings():  # a column that is NaN throughout: a NaN interval
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = np.nanpercentile(samples, [tail, 100 - tail], axis=0)
    return lo, hi


@dataclass
class Estimate:
    """A point estimate with its bootstrap interval, per cell."""

    value: Floats
    low: Floats
    high: Floats


def estimate(num: Floats, den: Floats, rnum: Floats, rden: Floats) -> Estimate:
    lo, hi = interval(ratio(rnum, rden))
    return Estimate(ratio(num, den), lo, hi)


@dataclass
class LeagueStats:
    """Per-bot, per-seat and head-to-head figures with deal-bootstrap intervals."""

    bots: list[str]
    players: int
    matches: int
    deals: int
    resamples: int
    seed: int
    n: Floats  # (B,) seats filled (a bot in two seats of a match counts twice)
    win_rate: Estimate  # (B,)
    coins: Estimate  # (B,)
    place: Estimate  # (B,)
    first: Floats  # (B,) share of resamples in which the bot has the best mean place
    rank_low: Floats  # (B,) rank interval (1 best) by mean place over resamples
    rank_high: Floats
    seat_n: Floats  # (B, P)
    seat_win: Estimate  # (B, P)
    seat_coins: Estimate  # (B, P)
    h2h_n: Floats  # (B, B) seat pairs where row and column bot sat at one table
    h2h: Estimate  # (B, B) share of those where the row bot finished ahead (ties half)

    # -- rows for the outputs -------------------------------------------------
    def bot_rows(self) -> list[dict[str, Any]]:
        return [
            {
                "bot": b,
                "seats": int(self.n[i]),
                **_cells("win_rate", self.win_rate, i, 4),
                **_cells("mean_coins", self.coins, i, 3),
                **_cells("mean_place", self.place, i, 3),
                "p_first": _num(self.first[i], 4),
                "rank_low": _num(self.rank_low[i], 0),
                "rank_high": _num(self.rank_high[i], 0),
            }
            for i, b in enumerate(self.bots)
        ]

    def seat_rows(self) -> list[dict[str, Any]]:
        return [
            {
                "bot": b,
                "seat": s,
                "matches": int(self.seat_n[i, s]),
                **_cells("win_rate", self.seat_win, (i, s), 4),
                **_cells("mean_coins", self.seat_coins, (i, s), 3),
            }
            for i, b in enumerate(self.bots)
            for s in range(self.players)
        ]

    @property
    def elo(self) -> Estimate:
        """(B, B) the Elo-style difference of the row bot over the column bot
        (docs/statistics.md): the head-to-head score s as 400 log10(s / (1 - s)),
        its interval the score's mapped (the map is monotone)."""
        return Estimate(*(elo(x) for x in (self.h2h.value, self.h2h.low, self.h2h.high)))

    def h2h_rows(self) -> list[dict[str, Any]]:
        return [
            {
                "bot": a,
                "opponent": b,
                "pairs": int(self.h2h_n[i, j]),
                **_cells("ahead", self.h2h, (i, j), 4),
                **_cells("elo", self.elo, (i, j), 1),
            }
            for i, a in enumerate(self.bots)
            for j, b in enumerate(self.bots)
            if i != j
        ]


def elo(score: Floats) -> Floats:
    """The Elo difference whose logistic expected score is ``score``: +-inf
    at 1 and 0 (one bot always ahead), NaN where there is no score."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(400 * np.log10(score / (1 - score)), dtype=np.float64)


def _num(x: Any, digits: int) -> float | int | None:
    """A JSON-friendly number: None for NaN and for an infinite Elo difference."""
    v = float(x)
    if not math.isfinite(v):
        return None
    return int(v) if digits == 0 else round(v, digits)


def _cells(name: str, e: Estimate, at: Any, digits: int) -> dict[str, Any]:
    return {
        name: _num(e.value[at], digits),
        f"{name}_low": _num(e.low[at], digits),
        f"{name}_high": _num(e.high[at], digits),
    }


def league_stats(m: Matches, resamples: int = RESAMPLES, seed: int = SEED) -> LeagueStats:
    """Every figure and its interval from one set of deal resamples."""
    b, p = len(m.bots), m.players
    block, blocks = deal_blocks(m)
    seat_block = np.repeat(block, p)
    bot = m.bot.ravel()
    seat = np.tile(np.arange(p), m.n)
    ones = np.ones(len(bot))
    # Column layout of the block sums: per bot n, wins, coins, place; per bot
    # and seat n, wins, coins; per ordered pair of bots n, ahead.
    win, coins, place = (x.ravel().astype(float) for x in (m.win, m.coins, m.place))
    cell = bot * p + seat
    base = 4 * b
    parts: list[tuple[int, Ints, Floats]] = [  # (first column, column within, value)
        (0, bot, ones),
        (b, bot, win),
        (2 * b, bot, coins),
        (3 * b, bot, place),
        (base, cell, ones),
        (base + b * p, cell, win),
        (base + 2 * b * p, cell, coins),
    ]
    base += 3 * b * p
    width = base + 2 * b * b
    # Summed a part at a time (each a (deals, width) array), not concatenated
    # first: a 100,000-match league's concatenation held some 250 MB. The
    # values are whole numbers and halves, so every sum is exact in any order.
    sums = np.zeros((blocks, width))
    for first, columns, values in parts:
        sums += block_sums(seat_block, blocks, first + columns, values, width)
    for s in range(p):
        for t in range(p):
            if s == t:
                continue
            a, c = m.bot[:, s], m.bot[:, t]
            ahead = (m.place[:, s] < m.place[:, t]) + 0.5 * (m.place[:, s] == m.place[:, t])
            sums += block_sums(block, blocks, base + a * b + c, np.ones(m.n), width)
            sums += block_sums(block, blocks, base + b * b + a * b + c, ahead, width)
    total = sums.sum(axis=0)
    boot = resample_sums(sums, resamples, seed) if blocks else np.zeros((0, width))

    def part(at: int, size: int) -> tuple[Floats, Floats]:
        return total[at : at + size], boot[:, at : at + size]

    n, rn = part(0, b)
    wins, rwins = part(b, b)
    coins, rcoins = part(2 * b, b)
    place, rplace = part(3 * b, b)
    sn, rsn = part(4 * b, b * p)
    sw, rsw = part(4 * b + b * p, b * p)
    sc, rsc = part(4 * b + 2 * b * p, b * p)
    hn, rhn = part(base, b * b)
    ha, rha = part(base + b * b, b * b)

    mean_place = ratio(rplace, rn)
    with np.errstate(invalid="ignore"):
        # A bot's rank in a resample: 1 + how many bots have a better mean place
        # (absent bots, NaN, rank last).
        filled = np.where(np.isnan(mean_place), np.inf, mean_place)
        ranks = 1 + (filled[:, None, :] < filled[:, :, None]).sum(axis=2).astype(float)
    rank_lo, rank_hi = interval(ranks)

    def grid(e: Estimate, rows: int, cols: int) -> Estimate:
        return Estimate(*(x.reshape(rows, cols) for x in (e.value, e.low, e.high)))

    return LeagueStats(
        bots=list(m.bots),
        players=p,
        matches=m.n,
        deals=blocks,
        resamples=resamples,
        seed=seed,
        n=n,
        win_rate=estimate(wins, n, rwins, rn),
        coins=estimate(coins, n, rcoins, rn),
        place=estimate(place, n, rplace, rn),
        first=(ranks == 1).mean(axis=0) if len(ranks) else np.full(b, np.nan),
        rank_low=rank_lo,
        rank_high=rank_hi,
        seat_n=sn.reshape(b, p),
        seat_win=grid(estimate(sw, sn, rsw, rsn), b, p),
        seat_coins=grid(estimate(sc, sn, rsc, rsn), b, p),
        h2h_n=hn.reshape(b, b),
        h2h=grid(estimate(ha, hn, rha, rhn), b, b),
    )


# -- the league as it went on ----------------------------------------------


@dataclass
class Trajectory:
    """Figures at checkpoints (match counts) along the match-id order."""

    at: Ints  # (C,) matches finished
    win_rate: Floats  # (C, B) cumulative
    mu: Floats  # (C, B) TrueSkill mean after that many matches
    sigma: Floats  # (C, B)


def checkpoints(n: int, points: int = 60) -> Ints:
    """Up to ``points`` match counts from 1 to n, evenly spaced."""
    if not n:
        return np.zeros(0, np.int64)
    return np.unique(np.linspace(1, n, min(points, n)).round().astype(np.int64))


def league_path(m: Matches, curve: Curve, points: int = 60) -> Trajectory:
    """Cumulative win rates, and the TrueSkill ratings of ``curve`` (the
    rater's, rated once) at the same checkpoints of the match-id order."""
    b = len(m.bots)
    at = checkpoints(m.n, points)
    per_match = np.zeros((m.n, b))
    wins = np.zeros((m.n, b))
    rows = np.repeat(np.arange(m.n), m.players)
    np.add.at(per_match, (rows, m.bot.ravel()), 1)
    np.add.at(wins, (rows, m.bot.ravel()), m.win.ravel())
    win_rate = ratio(np.cumsum(wins, axis=0)[at - 1], np.cumsum(per_match, axis=0)[at - 1])
    if len(curve.mu) != m.n:
        raise ValueError(f"a curve of {len(curve.mu)} matches for {m.n} matches")
    return Trajectory(at, win_rate, curve.mu[at - 1], curve.sigma[at - 1])


# -- distributions ------------------------------------------------------------


def quantiles(values: npt.ArrayLike, qs: Sequence[float]) -> list[float]:
    v = np.asarray(values, dtype=float)
    if not len(v):
        return [math.nan] * len(qs)
    return [float(x) for x in np.quantile(v, qs)]


def per_bot(m: Matches, values: npt.NDArray[Any]) -> list[npt.NDArray[Any]]:
    """``values`` (N, P) split by the bot in each seat."""
    flat, bots = values.ravel(), m.bot.ravel()
    return [flat[bots == i] for i in range(len(m.bots))]


def per_bot_matches(m: Matches, values: npt.NDArray[Any]) -> list[npt.NDArray[Any]]:
    """``values`` (N,) of the matches each bot sat in (once per match)."""
    return [values[(m.bot == i).any(axis=1)] for i in range(len(m.bots))]
