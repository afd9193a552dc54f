"""The report's "Matches to watch": a few notable matches per bot and per
pairing (:func:`..rating.notable.report_picks`), each linked to its viewer
page, written beside the report (docs/report.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.text import plural
from ..rating.notable import Pick
from ..rating.stats import Matches

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
