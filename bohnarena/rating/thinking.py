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

from ..store.parts import Listing, read_table
from .stats import Matches

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


def thinking(listing: Listing, m: Matches) -> Thinking:
    """The decision times of the matches in ``m`` from the timing files of
    ``listing`` (a listing checked by its reader)."""
    n_bots = len(m.bots)
    histogram = np.zeros(n_bots * _BINS, np.int64)
    longest = np.zeros(n_bots, np.int64)
    spent = np.zeros(m.bot.shape if m.n else (0, 0), np.int64)
    timed = np.zeros(m.n, np.bool_)
    for _, path in listing.files("timing"):
        t = read_table(path, columns=["match_id", "seat", "micros"])
        ids = t.column("match_id").to_numpy()
        seats = t.column("seat").to_numpy()
        micros = t.column("micros").to_numpy()
        at = np.searchsorted(m.match_id, ids)
        known = at < m.n
        known[known] = m.match_id[at[known]] == ids[known]  # (a match without its row: none)
        at, seats, micros = at[known], seats[known], micros[known]
        if not len(at):
            continue
        bots = m.bot[at, seats].astype(np.int64)
        histogram += np.bincount(bots * _BINS + _bins(micros), minlength=n_bots * _BINS)
        # the slowest per bot: the last of its keys (bot, time) in order
        keys = np.sort((bots << 32) | micros.astype(np.int64))
        ends = np.searchsorted(keys, (np.arange(n_bots, dtype=np.int64) + 1) << 32) - 1
        mine = (ends >= 0) & ((keys[np.maximum(ends, 0)] >> 32) == np.arange(n_bots))
        longest[mine] = np.maximum(longest[mine], keys[ends[mine]] & 0xFFFFFFFF)
        low = int(at.min())  # a file holds a range of matches: count within it
        flat = (at - low) * m.players + seats
        sums = np.bincount(flat, weights=micros, minlength=int(flat.max()) + 1)
        window = spent[low : low + len(sums) // m.players + 1].reshape(-1)
        window[: len(sums)] += sums[: len(window)].astype(np.int64)
        timed[at] = True
    per_match = [spent[timed][m.bot[timed] == i] for i in range(n_bots)]
    return Thinking(m.bots, histogram.reshape(n_bots, _BINS), longest, per_match, int(timed.sum()))
