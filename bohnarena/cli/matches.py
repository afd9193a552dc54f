"""``bohnarena matches``: a league's matches found by bot, seat, deal and
faults, sorted by upset, length, faults or margin, each with the commands
that watch it."""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING, Any

import click

from ..analysis.notable import SORTS, Found, Query
from ..core.errors import UsageError
from ..core.text import plural
from .group import cli, echo

if TYPE_CHECKING:
    from ..rating.stats import Matches

WHAT = {
    "id": "by match id",
    "upset": "by upset, largest first (only matches with one)",
    "longest": "by turns, longest first",
    "faults": "by faults, most first",
    "margin": "by winning margin in coins, largest first",
}


def bot_index(m: Matches, name: str | None, option: str) -> int | None:
    if name is None:
        return None
    if name not in m.bots:
        raise UsageError(f"{option}: no bot {name!r} in this league (it has {', '.join(m.bots)})")
    return m.bots.index(name)


def commands(results_dir: str, match_id: int) -> list[str]:
    where = shlex.quote(results_dir)
    return [f"bohnarena {c} {where} --match {match_id}" for c in ("view", "replay")]


def seat_text(m: Matches, row: int, s: int) -> str:
    return f"{m.bots[m.bot[row, s]]} (seat {s})"


def value_text(m: Matches, f: Found, sort: str, bot: str | None) -> str:
    """What the match was sorted by, in words."""
    if sort == "upset":
        return (
            f"upset {f.value:.2f}: {seat_text(m, f.row, f.ahead)} "
            f"ahead of {seat_text(m, f.row, f.behind)}"
        )
    if sort == "faults":
        return plural(int(f.value), "fault") + (f" by {bot}" if bot is not None else "")
    if sort == "margin":
        return f"won by {f.value:.0f} coins"
    return f"{int(m.turns[f.row])} turns"


def result_text(m: Matches, row: int) -> str:
    seats = sorted(range(m.players), key=lambda s: (m.place[row, s], s))
    return ", ".join(
        f"{m.place[row, s]}. {seat_text(m, row, s)} {m.coins[row, s]} coins"
        + (f" ({plural(int(m.faults[row, s]), 'fault')})" if m.faults[row, s] else "")
        for s in seats
    )


def as_json(m: Matches, f: Found, sort: str, results_dir: str) -> dict[str, Any]:
    r = f.row
    view, replay = commands(results_dir, int(m.match_id[r]))
    out: dict[str, Any] = {
        "match_id": int(m.match_id[r]),
        "deal": int(m.deal[r]),
        "seats": [m.bots[b] for b in m.bot[r]],
        "coins": m.coins[r].tolist(),
        "places": m.place[r].tolist(),
        "faults": m.faults[r].tolist(),
        "turns": int(m.turns[r]),
        sort: f.value if sort == "upset" else int(f.value),
        "view": view,
        "replay": replay,
    }
    if sort == "upset":
        out["ahead_seat"], out["behind_seat"] = f.ahead, f.behind
    return out


@cli.command("matches")
@click.argument("results_dir", type=click.Path(file_okay=False))
@click.option("--bot", "-b", default=None, help="Only matches this bot plays in.")
@click.option("--against", default=None, help="Only those it plays against this bot (with --bot).")
@click.option("--seat", type=click.IntRange(min=0), default=None, help="--bot sits in seat K.")
@click.option("--deal", type=click.IntRange(min=0), default=None, help="Only deal D's matches.")
@click.option(
    "--faults", "faulted", is_flag=True, help="Only matches with a fault (by --bot, with it)."
)
@click.option(
    "--sort",
    type=click.Choice(SORTS),
    default="id",
    show_default=True,
    help="upset: a lower-rated bot ahead of a higher-rated one, by the score gap; "
    "longest: turns; faults; margin: the winner's lead in coins.",
)
@click.option(
    "--limit",
    "-n",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="Show the first N (0: all).",
)
@click.option("--json", "json_out", is_flag=True, help="One JSON document instead of text.")
def matches_command(
    results_dir: str,
    bot: str | None,
    against: str | None,
    seat: int | None,
    deal: int | None,
    faulted: bool,
    sort: str,
    limit: int,
    json_out: bool,
) -> None:
    """List a league's matches: filtered by bot, seat, deal and faults, sorted
    by upset, length, faults or margin, each with the commands that watch it
    (docs/viewer.md).

    \b
    Examples:
      bohnarena matches results/quickstart --sort upset
      bohnarena matches results/quickstart --bot mine --faults
      bohnarena matches results/quickstart --bot mine --against planner --sort margin
      bohnarena matches results/quickstart --bot mine --seat 0 --deal 3
    """
    from ..analysis.notable import find, scores
    from ..analysis.results import read_results

    if (against is not None or seat is not None) and bot is None:
        raise UsageError("--against and --seat go with --bot")
    data = read_results(results_dir)
    m = data.matches
    if seat is not None and seat >= data.league.players:
        raise UsageError(f"--seat: the league has seats 0-{data.league.players - 1}")
    query = Query(
        bot_index(m, bot, "--bot"),
        bot_index(m, against, "--against"),
        seat,
        deal,
        faulted,
        sort,
        limit or None,
    )
    found, total = find(m, scores(m, data.ranking), query)
    if json_out:
        shown = [as_json(m, f, sort, results_dir) for f in found]
        echo(json.dumps({"total": total, "sort": sort, "matches": shown}, indent=1))
        return
    first = f"; the first {len(found)}" if len(found) < total else ""
    echo(f"{total} of {m.n} matches, {WHAT[sort]}{first}:")
    for f in found:
        mid = int(m.match_id[f.row])
        sorted_by = "" if sort == "id" else f": {value_text(m, f, sort, bot)}"
        echo(f"match {mid}, deal {m.deal[f.row]}{sorted_by}")
        echo(f"  {result_text(m, f.row)}; {m.turns[f.row]} turns")
        for command in commands(results_dir, mid):
            echo(f"  {command}")
