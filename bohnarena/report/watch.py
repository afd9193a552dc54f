"""The report's "Matches to watch": a few notable matches per bot and per
pairing (:func:`..rating.notable.report_picks`), each linked to its viewer
page, written beside the report (docs/report.md): :func:`write_pages`
writes those pages (the command line only calls it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..analysis.notable import Pick
from ..core.errors import BohnarenaError
from ..core.text import plural
from ..core.untrusted import one_line
from ..rating.stats import Matches
from ..store import layout

if TYPE_CHECKING:
    from ..analysis.results import LeagueResults

#: Where the viewer pages go, beside the report (and their links' prefix): not
#: `matches/`, which in a results directory holds the matches table.
FOLDER = "watch"


def page_name(match_id: int) -> str:
    return f"match-{match_id}.html"


@dataclass
class Watched:
    """The picks, the relative link of each one whose page was written (by
    match id), and why the others have none."""

    picks: Sequence[Pick]
    links: Mapping[int, str] = field(default_factory=dict)
    missing: str = ""


def place(p: int) -> str:
    return f"{p}{'th' if 10 <= p % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(p % 10, 'th')}"


def result(m: Matches, row: int) -> list[str]:
    """Seats in order of place: "1st name 45 coins", ..., with faults."""
    seats = sorted(range(m.players), key=lambda s: (m.place[row, s], s))
    parts = []
    for s in seats:
        faults = int(m.faults[row, s])
        parts.append(
            f"{place(int(m.place[row, s]))} {m.bots[m.bot[row, s]]} (seat {s}) "
            f"{int(m.coins[row, s])}" + (f", {plural(faults, 'fault')}" if faults else "")
        )
    return parts


def section(m: Matches, watched: Watched) -> dict[str, Any] | None:
    """The section's figures (``templates/sections.html`` shows them), or
    None when there is no notable match."""
    if not watched.picks:
        return None
    rows = []
    for pick in watched.picks:
        mid = int(m.match_id[pick.row])
        rows.append(
            {
                "id": mid,
                "link": watched.links.get(mid),
                "deal": int(m.deal[pick.row]),
                "why": list(pick.why),
                "result": result(m, pick.row),
                "turns": int(m.turns[pick.row]),
            }
        )
    return {"rows": rows, "folder": FOLDER, "missing": watched.missing}


def write_pages(results: LeagueResults, report: Path) -> Watched:
    """Write the viewer pages of the report's notable matches into the
    folder beside ``report``; what the report says of them."""
    from ..analysis.notable import report_picks, scores
    from ..run.replay import Run, write_pages_all

    m = results.matches
    order = [m.bots.index(s.bot) for s in results.ranking.standings if s.bot in m.bots]
    picks = report_picks(m, scores(m, results.ranking), order)
    try:
        run = Run.open(results.path, "off")  # the results were read and checked
    except BohnarenaError as e:
        return Watched(picks, missing=f"No viewer pages: {one_line(str(e), 2000)}.")
    if not run.listing.files(layout.MOVES):
        return Watched(picks, missing="No viewer pages: the league logs no moves (moves = false).")
    folder = report.parent / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    ids = [int(m.match_id[pick.row]) for pick in picks]
    written = write_pages_all(run.store.path, [(mid, str(folder / page_name(mid))) for mid in ids])
    links = {mid: f"{FOLDER}/{page_name(mid)}" for mid in ids if written.get(mid, "") is None}
    failed = [str(mid) for mid in ids if mid not in links]
    missing = f"No viewer page for match {', '.join(failed)}." if failed else ""
    return Watched(picks, links, missing)
