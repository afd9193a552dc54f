"""Standings while a run plays (docs/leagues.md): on a terminal, the top of
the table (TrueSkill score, matches, win rate) under the progress bar (its
ETA included), refreshed as the in-order rater advances; in the run log, a
standings line every N matches, terminal or not.

The rater is the run's own (results.py): nothing is rated twice, and a
refresh costs one sort of the bots, at most every REFRESH_SECONDS."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from typing import IO

from tqdm import tqdm

from ..rating.skill import BotStanding, Rater

log = logging.getLogger("bohnarena")

#: Bots shown under the bar.
TOP = 8
#: The table is redrawn at most this often.
REFRESH_SECONDS = 0.5
#: The clock is read once per this many matches rated.
CHECK_EVERY = 8
#: A watcher is told at most this often (and after the last match).
WATCH_SECONDS = 1.0
#: A watcher of the standings: (matches rated, matches planned, the standings, best first).
Watch = Callable[[int, int, list[BotStanding]], None]


def every(total: int) -> int:
    """A standings line in the run log every this many matches by default:
    ten a run, at least every 1000 matches (and one after the last match)."""
    return max(1, min(1000, total // 10))


def row(place: int, st: BotStanding) -> str:
    return (
        f"{place:>2}. {st.bot:<16.16} {st.score:>7.2f} {st.mu:>6.2f} {st.matches:>8} "
        f"{st.win_rate:>9.1%}"
    )


HEAD = f"{'#':>3} {'bot':<16} {'score':>7} {'mu':>6} {'matches':>8} {'win rate':>9}"


def line(rater: Rater, total: int) -> str:
    """The standings as one line of the run log."""
    ranked = rater.ranking().standings
    table = "; ".join(
        f"{i}. {st.bot} {st.score:.2f} ({st.matches} matches, {st.win_rate:.1%} won)"
        for i, st in enumerate(ranked, 1)
    )
    return f"standings after {rater.count} of {total} matches: {table}"


def room(fp: IO[str]) -> int:
    """The lines of the terminal ``fp`` writes to: 0 for none, or for one
    that reports no size (a new pseudo-terminal, some CI consoles), where
    lines drawn in place would scroll as garbage."""
    try:
        size = os.get_terminal_size(fp.fileno())
    except (AttributeError, OSError, ValueError):  # not a terminal (io.UnsupportedOperation)
        return 0
    return size.lines if size.columns else 0


class Standings:
    """Told of each match the run's rater rates (:meth:`rated`)."""

    def __init__(
        self, rater: Rater, total: int, log_every: int | None = None, watch: Watch | None = None
    ) -> None:
        self.rater, self.total = rater, total
        self.log_every = every(total) if log_every is None else log_every
        self.lines: list[tqdm] = []
        self.due = 0.0
        self.watch, self.watch_due = watch, 0.0

    def under(self, bar: tqdm) -> None:
        """Show the table under ``bar`` when it shows (a terminal, or asked)
        on a terminal with room for both."""
        shown = min(TOP, len(self.rater.standing)) + 1
        if bar.disable or room(bar.fp) <= shown:
            return
        self.lines = [
            tqdm(
                total=0,
                position=k + 1,
                bar_format="{desc}",
                leave=False,
                file=bar.fp,
                dynamic_ncols=True,
            )
            for k in range(shown)
        ]
        self.draw()

    def rated(self) -> None:
        if not self.rater.ready:  # still counting the matches a kept curve rated
            return
        count = self.rater.count
        if self.log_every and (count % self.log_every == 0 or count == self.total):
            log.info("%s", line(self.rater, self.total))
        if self.lines and count % CHECK_EVERY == 0 and time.monotonic() >= self.due:
            self.draw()
        if self.watch is not None and (count == self.total or time.monotonic() >= self.watch_due):
            self.tell()

    def tell(self) -> None:
        """The watcher told the standings now (none before the rater is ready)."""
        if self.watch is None:
            return
        self.watch_due = time.monotonic() + WATCH_SECONDS
        ranked = self.rater.ranking().standings if self.rater.ready else []
        self.watch(self.rater.count if self.rater.ready else 0, self.total, ranked)

    def draw(self) -> None:
        self.due = time.monotonic() + REFRESH_SECONDS
        if not self.rater.ready:
            return
        ranked = self.rater.ranking().standings[: len(self.lines) - 1]
        texts = [HEAD, *(row(i, st) for i, st in enumerate(ranked, 1))]
        for bar, text in zip(self.lines, texts, strict=False):
            bar.set_description_str(text)

    def close(self) -> None:
        for bar in reversed(self.lines):
            bar.close()
        self.lines = []
