"""What a ladder shows: the standing table of its active versions (retired
and suspended ones apart, at their last rating, with why), each version's rating after each run,
and that history as a plot beside the league's report."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from pathlib import Path

from ..core.pages import Markup, render
from ..report.svg import legend, lines
from ..store.parts import write_text
from .catalog import Catalog, Snapshot, Version

HISTORY_PAGE = "history.html"


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(t))


def standing_table(catalog: Catalog) -> str:
    """Active versions by conservative score (mu - 3 sigma) after the last
    run that rated them; those no run has played yet last; suspended and
    retired apart, each with why."""
    rated = catalog.last_ratings()
    head = (
        f"{'#':>2}  {'version':<24} {'score':>7} {'mu':>7} {'sigma':>6} {'matches':>7} {'wins':>5}"
    )
    out = [head]

    def row(i: str, bot: str, vid: int) -> str:
        if vid not in rated:
            return f"{i:>2}  {bot:<24} {'not played yet':>36}"
        mu, sigma, score, matches, wins = rated[vid]
        return f"{i:>2}  {bot:<24} {score:>7.2f} {mu:>7.2f} {sigma:>6.2f} {matches:>7} {wins:>5}"

    active = sorted(catalog.active(), key=lambda v: -rated.get(v.id, (0, 0, -math.inf))[2])
    out += [row(str(i), v.bot, v.id) for i, v in enumerate(active, 1)]
    for state, title in (
        ("suspended", "Suspended until reinstated (ladder reinstate NAME)"),
        ("retired", "Retired"),
    ):
        versions = catalog.versions(states=(state,))
        if versions:
            out += ["", f"{title} (their last rating; their matches stay in the results):"]
            out += [row("-", v.bot, v.id) + f"  {v.reason}" for v in versions]
    return "\n".join(out)


def history_table(snapshots: list[Snapshot]) -> str:
    out = [f"{'run':>3}  {'finished':<16} {'version':<24} {'score':>7} {'mu':>7} {'sigma':>6}"]
    out[0] += f" {'matches':>7}"
    for s in snapshots:
        out.append(
            f"{s.run:>3}  {_when(s.finished):<16} {s.bot:<24} {s.score:>7.2f} {s.mu:>7.2f} "
            f"{s.sigma:>6.2f} {s.matches:>7}"
        )
    return "\n".join(out)


def history_page(snapshots: list[Snapshot], title: str, suspended: Sequence[Version] = ()) -> str:
    """A page of one line per entry, its versions joined: after each run the
    score of its newest version that run rated (a dot at each; the table
    names the versions), entries by their last score; the ``suspended``
    versions first, each with why."""
    chart, entries = history_chart(snapshots)
    return render(
        __package__,
        "history.html",
        title=title,
        chart=chart,
        legend=legend(entries),
        snapshots=snapshots,
        when=_when,
        suspended=suspended,
    )


def history_chart(snapshots: list[Snapshot]) -> tuple[Markup, list[str]]:
    """The history's plot (each entry's line, in the order of the returned
    entries: by their last score), as the history page and the site draw it."""
    runs = sorted({s.run for s in snapshots})
    score: dict[tuple[int, str], float] = {}
    for s in snapshots:  # (in id order within a run: the newest version last)
        score[s.run, s.bot.rpartition(".")[0]] = s.score
    last = {entry: v for (_, entry), v in score.items()}  # (runs in order: the last run's)
    entries = sorted(last, key=lambda e: -last[e])
    series = [[score.get((r, e), math.nan) for r in runs] for e in entries]
    xs = [float(r) for r in runs]
    chart = lines(
        "Each entry's score after each run (its versions joined)",
        xs,
        series,
        "run",
        "score",
        xinteger=True,
        dots=True,
    )
    return chart, entries


def write_history(ladder: Path, catalog: Catalog, title: str) -> Path:
    path = ladder / HISTORY_PAGE
    suspended = catalog.versions(states=("suspended",))
    write_text(path, history_page(catalog.history(), title, suspended))
    return path
