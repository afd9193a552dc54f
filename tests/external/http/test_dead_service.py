"""A service that dies mid-league is explained where the organiser looks:
the end of the run and ``rank`` name its fault type and first reason
(issue 45, item 2), not only a replay of one match."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from tests.external.http.conftest import league_text, served

pytestmark = pytest.mark.slow  # a league against a service in a process of its own


def test_a_dead_service_is_named_with_its_first_reason(tmp_path, serve):
    url = serve("planner", "--die-after", "25")
    path = tmp_path / "dead.toml"
    bots = {"remote": served(url), "planner": '"planner"', "random": '"random"'}
    path.write_text(league_text(bots, deals=2))
    out = tmp_path / "out"
    run = CliRunner().invoke(cli, ["run", str(path), "-o", str(out), "-j", "1", "--no-report"])
    assert run.exit_code == 0, run.output  # the league goes on without it
    line = next(s for s in run.output.splitlines() if s.startswith("  remote:"))
    assert re.search(r"\d+ crash \(first in match \d+: crash: ", line), line
    assert "forfeited" in line
    rank = CliRunner().invoke(cli, ["rank", str(out), "--resamples", "10"])
    assert rank.exit_code == 0 and line in rank.output
    report = CliRunner().invoke(cli, ["report", str(out), "--no-matches", "--resamples", "10"])
    assert report.exit_code == 0, report.output
    why = (out / "report.html").read_text().split("Why, bot by bot")[1].split("</ul>")[0]
    assert "<b>remote</b>" in why and " crash (first in match " in why and "forfeited" in why
