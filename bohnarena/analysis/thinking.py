"""Each bot's decision times, read from a results directory's timing files
(docs/logs.md, "timing"): per decision and per match (its time bank used).

A league of 100,000 matches logs some 150 million think times: they are
streamed a file at a time into histograms of 32 bins per doubling, so the
quantiles shown are within 1.6% of the exact ones (the maximum is exact),
in memory that does not grow with the league.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from ..rating.stats import Matches
from ..store import layout
from ..store.parts import Listing, read_table

#: Mantissa bits kept of a time as a float32: 2**5 bins per doubling.
_BITS = 5
_SHIFT = 23 - _BITS
_BINS = (255 << _BITS) + (1 << _BITS)  # every float32 exponent


def _bins(micros: npt.NDArray[np.int32]) -> npt.NDArray[np.int64]:
    """Each time's histogram bin: its float32's exponent and top mantissa bits."""
    return (micros.astype(np.float32).view(np.int32) >> _SHIFT).astype(np.int64)


def _middle(bins: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """The time (µs) in the middle of each bin (0 for the zero bin)."""
    bits = ((bins << _SHIFT) | (1 << (_SHIFT - 1))).astype(np.int32)
    middle = bits.view(np.float32).astype(np.float64)
    return np.where(bins == 0, 0.0, middle)


@dataclass(frozen=True)
class Thinking:
    """Decision times per bot (index into ``bots``)."""

    bots: list[str]
    #: (bots, bins): how many decisions took each bin's time
    histogram: npt.NDArray[np.int64]
    longest: npt.NDArray[np.int64]  # (bots,) µs of the slowest decision
    #: per bot: µs of its decisions in each match it sat in with timing
    per_match: list[npt.NDArray[np.int64]]
    timed_matches: int  # matches with a timing file (older runs have none)

    def decisions(self, bot: int) -> int:
        return int(self.histogram[bot].sum())

    def quantile(self, bot: int, q: float) -> float:
        """The ``q`` quantile of ``bot``'s decision times, in µs (nan: none)."""
        counts = self.histogram[bot]
        total = counts.sum()
        if not total:
            return float("nan")
        where = int(np.searchsorted(np.cumsum(counts), q * total, side="left"))
        return float(_middle(np.array([where], np.int64))[0])


@dataclass(frozen=True)
class Timed:
    """Think times summed up so that summaries merge exactly: a batch's (its
    worker hands it to the run with the matches, so the run's end reads no
    timing file) or one timing file's."""

    bots: list[str]  # the bots its keys count
    #: histogram cells (bot index * bins + bin), ascending, and their counts
    keys: npt.NDArray[np.int64]
    counts: npt.NDArray[np.int64]
    longest: npt.NDArray[np.int64]  # (bots,) µs of the slowest decision
    match_id: npt.NDArray[np.int64]  # (n,) the matches timed, ascending
    spent: npt.NDArray[np.int64]  # (n, players) µs each seat spent in each

    @staticmethod
    def of(
        bots: list[str],
        players: int,
        ids: npt.NDArray[np.int64],
        seats: npt.NDArray[np.int64],
        who: npt.NDArray[np.int64],
        micros: npt.NDArray[np.int32],
    ) -> Timed:
        """Decisions given as aligned arrays: match, seat, bot (index into
        ``bots``) and µs."""
        # (counted, not sorted: a file of 100,000 decisions is read in a few ms)
        cells = np.bincount(who * _BINS + _bins(micros), minlength=len(bots) * _BINS)
        keys = np.flatnonzero(cells)
        counts = cells[keys]
        longest = np.zeros(len(bots), np.int64)
        for b in range(len(bots)):
            mine = micros[who == b]
            longest[b] = mine.max() if len(mine) else 0
        low = int(ids.min()) if len(ids) else 0  # a summary holds a range of matches
        p = max(players, 1)  # (none: no matches, no decisions)
        flat = (ids - low) * p + seats
        sums = np.bincount(flat, weights=micros, minlength=p).astype(np.int64)
        sums = np.pad(sums, (0, -len(sums) % p)).reshape(-1, p)
        timed = np.bincount(ids - low) > 0 if len(ids) else np.zeros(0, np.bool_)
        match_id = np.flatnonzero(timed).astype(np.int64) + low
        spent = sums[timed]
        return Timed(bots, keys, counts.astype(np.int64), longest, match_id, spent)


def _rows_of(
    rows: npt.NDArray[np.int64], ids: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
    """Where each of ``ids`` is in ``rows`` (ascending), and whether it is
    there at all (a match without its row counts for none)."""
    at = np.searchsorted(rows, ids)
    known = at < len(rows)
    known[known] = rows[at[known]] == ids[known]
    return at, known


def batch_timed(matches: pa.Table, timing: pa.Table) -> Timed:
    """A batch's summary, from its matches and timing tables (the bots by
    name: a worker does not know the league's order)."""
    seats = matches.column("seats").to_pylist()
    bots = sorted({b for names in seats for b in names})
    index = {b: i for i, b in enumerate(bots)}
    players = max((len(names) for names in seats), default=0)
    by_match = np.array([[index[b] for b in names] for names in seats], np.int64)
    rows = np.array(matches.column("match_id").to_pylist(), np.int64)
    order = np.argsort(rows)
    ids = np.asarray(timing.column("match_id").to_numpy(), np.int64)
    at, known = _rows_of(rows[order], ids)
    seat = np.asarray(timing.column("seat").to_numpy(), np.int64)[known]
    who = by_match[order[at[known]], seat] if len(seat) else np.zeros(0, np.int64)
    micros = np.asarray(timing.column("micros").to_numpy(), np.int32)[known]
    return Timed.of(bots, players, ids[known], seat, who, micros)


class Timings:
    """Summaries merged as they come (each match's in one of them), into
    the figures of :class:`Thinking`."""

    def __init__(self, bots: list[str]) -> None:
        self.bots = bots
        self._index = {b: i for i, b in enumerate(bots)}
        self.histogram = np.zeros(len(bots) * _BINS, np.int64)
        self.longest = np.zeros(len(bots), np.int64)
        self._ids: list[npt.NDArray[np.int64]] = []
        self._spent: list[npt.NDArray[np.int64]] = []

    def add(self, t: Timed) -> None:
        mine = np.array([self._index[b] for b in t.bots], np.int64)
        bins = t.keys % _BINS
        self.histogram += np.bincount(
            mine[t.keys // _BINS] * _BINS + bins, weights=t.counts, minlength=len(self.histogram)
        ).astype(np.int64)
        np.maximum.at(self.longest, mine, t.longest)
        if len(t.match_id):
            self._ids.append(t.match_id)
            self._spent.append(t.spent)

    def covered(self) -> npt.NDArray[np.int64]:
        """The ids of the matches summed up so far, ascending."""
        return np.unique(np.concatenate(self._ids)) if self._ids else np.zeros(0, np.int64)

    def read(self, listing: Listing, m: Matches) -> None:
        """Add the decisions of the matches of ``m`` not summed up yet, from
        the timing files of ``listing`` (those of a run resumed, or all)."""
        covered = self.covered()
        for (first, last), path in listing.files(layout.TIMING):
            lo, hi = np.searchsorted(m.match_id, [first, last + 1])
            if np.isin(m.match_id[lo:hi], covered).all():
                continue  # (every match there is summed up already, or none is in m)
            t = read_table(path, columns=["match_id", "seat", "micros"])
            ids = t.column("match_id").to_numpy()
            at, known = _rows_of(m.match_id, ids)
            if len(covered):
                known &= ~np.isin(ids, covered)
            if not known.any():
                continue
            seats = t.column("seat").to_numpy()[known].astype(np.int64)
            bots = m.bot[at[known], seats].astype(np.int64)
            micros = t.column("micros").to_numpy()[known]
            self.add(Timed.of(m.bots, m.players, ids[known], seats, bots, micros))

    def fits(self, m: Matches) -> bool:
        """Whether every match summed up is one of ``m``'s, its bots ``m``'s."""
        ids = self.covered()
        at = np.searchsorted(m.match_id, ids)
        return self.bots == m.bots and bool(
            (at < m.n).all() and (m.match_id[np.minimum(at, m.n - 1)] == ids).all()
        )

    def thinking(self, m: Matches) -> Thinking:
        """The figures of the matches of ``m`` summed up (each once)."""
        n_bots = len(self.bots)
        spent = np.zeros(m.bot.shape if m.n else (0, 0), np.int64)
        timed = np.zeros(m.n, np.bool_)
        if self._ids:
            at = np.searchsorted(m.match_id, np.concatenate(self._ids))
            np.add.at(spent, at, np.concatenate(self._spent))
            timed[at] = True
        per_match = [spent[timed][m.bot[timed] == i] for i in range(n_bots)]
        return Thinking(
            m.bots,
            self.histogram.reshape(n_bots, _BINS).copy(),
            self.longest.copy(),
            per_match,
            int(timed.sum()),
        )


def thinking(listing: Listing, m: Matches, run: Timings | None = None) -> Thinking:
    """The decision times of the matches in ``m``: those ``run`` summed up
    as they finished (None: none), the others from the timing files of
    ``listing`` (a listing checked by its reader)."""
    if run is None or not run.fits(m):
        run = Timings(m.bots)
    run.read(listing, m)
    return run.thinking(m)
