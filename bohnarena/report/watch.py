"""The report's "Matches to watch": a few notable matches per bot and per
pairing (:func:`..rating.notable.report_picks`), each linked to its viewer
page, written beside the report (docs/report.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..core.untrusted import html_text
from ..rating.notable import Pick, plural
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


def result(m: Matches, row: int) -> str:
    """Seats in order of place: "1st name 45 coins, ...", with faults."""
    seats = sorted(range(m.players), key=lambda s: (m.place[row, s], s))
    parts = []
    for s in seats:
        faults = int(m.faults[row, s])
        parts.append(
            f"{place(int(m.place[row, s]))} {html_text(m.bots[m.bot[row, s]])} (seat {s}) "
            f"{int(m.coins[row, s])}" + (f", {plural(faults, 'fault')}" if faults else "")
        )
    return "<br>".join(parts)


def section(m: Matches, watched: Watched) -> str:
    """The section, or nothing when there is no notable match."""
    if not watched.picks:
        return ""
    rows = []
    for pick in watched.picks:
        mid = int(m.match_id[pick.row])
        link = watched.links.get(mid)
        name = f'<a href="{html_text(link)}">match {mid}</a>' if link else f"match {mid}"
        rows.append(
            f"<tr><td>{name}</td><td>{int(m.deal[pick.row])}</td>"
            f"<td>{'<br>'.join(html_text(w) for w in pick.why)}</td>"
            f"<td>{result(m, pick.row)}</td><td>{int(m.turns[pick.row])}</td></tr>"
        )
    head = "".join(f"<th>{h}</th>" for h in ("match", "deal", "why", "result (coins)", "turns"))
    missing = f" {html_text(watched.missing)}" if watched.missing else ""
    return (
        "<h2>Matches to watch</h2>"
        f'<table class="watch"><tr>{head}</tr>{"".join(rows)}</table>'
        '<p class="note">For each bot: its biggest win (by coins over the runner-up), the '
        "largest upset it suffered (a bot with a lower TrueSkill score finishing ahead of it; "
        "size: the difference of the two scores) and the match where it faulted most; then "
        "the largest upset of each pairing. Each link opens the match's viewer page, "
        f"written in <code>{FOLDER}/</code> beside this report; "
        f"<code>bohnarena matches</code> finds more.{missing}</p>"
    )
