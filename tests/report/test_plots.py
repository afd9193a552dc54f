"""The report's plots read as the standings do (issue 45, item 6): legends
in the standings' order, lines that coincide both visible, and the
leaderboard's words the same as ``rank``'s."""

from __future__ import annotations

import re

from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.report import svg

from .test_report import CLASSIC, write_league


def _widths(chart: str) -> list[float]:
    return [float(w) for w in re.findall(r'<polyline[^>]*stroke-width="([\d.]+)"', chart)]


def test_lines_that_coincide_are_both_drawn_the_later_inside_the_earlier():
    flat = [0.0, 0.0, 0.0]
    chart = str(svg.lines("t", [0, 1, 2], [flat, flat, [0.0, 0.5, 1.0]], "x", "y", percent=True))
    widths = _widths(chart)
    assert len(widths) == 3 and widths[0] > widths[1] > widths[2] >= 2  # each shows round the next
    dots = str(svg.lines("t", [0, 1], [[1.0, 1.0], [1.0, 1.0]], "x", "y", dots=True))
    radii = [float(r) for r in re.findall(r'<circle[^>]*r="([\d.]+)"', dots)]
    assert radii[0] > radii[-1]


def test_legends_follow_the_standings_and_the_leaderboard_says_matches(tmp_path):
    # the league file's order puts the weakest first; the standings put it last
    text = CLASSIC.replace(
        '[bots]\ntrader = "trader"\nplanner = "planner"\nrandom = "random"\nrandom2 = "random"\n',
        '[bots]\nrandom = "random"\nplanner = "planner"\ntrader = "trader"\n',
    ).replace("players = 4", "players = 3")
    out = tmp_path / "o"
    r = CliRunner().invoke(
        cli, ["run", str(write_league(tmp_path, text)), "--out", str(out), "-j", "1"]
    )
    assert r.exit_code == 0, r.output
    standings = [line.split()[1] for line in r.output.splitlines()[1:4]]
    assert standings[-1] == "random"
    page = (out / "report.html").read_text()
    legends = re.findall(r'<div class="legend">(.*?)</div>', page)
    assert legends
    for legend in legends:
        assert re.findall(r"</i>([^<]+)</span>", legend) == standings
    board = page.split("<h2>Leaderboard</h2>")[1].split("</tr>")[0]
    assert "<th>matches</th>" in board and "<th>seats</th>" not in board
