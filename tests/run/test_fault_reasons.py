"""Why a bot faulted, where the organiser looks: the end of a run and
``rank`` name each bot's fault types with the first reason of each, escaped
(issue 45, item 2); a run without moves says the counts alone."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.store.faultlog import fault_reasons

HERE = Path(__file__).parents[1] / "support"
BOTS = {
    "faulty": f"{HERE / 'fault_bots.py'}:RaisesOnPlant",
    "honest": f"{HERE / 'fault_bots.py'}:Honest",
    "planner": "planner",
}


def _run(league, tmp_path, extra=""):
    path = league(bots=BOTS, deals=1, extra=extra)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["run", str(path), "-o", str(out), "-j", "1", "--no-report"])
    assert result.exit_code == 0, result.output
    return out, result.output


def test_the_end_of_a_run_names_each_fault_type_and_its_first_reason(league, tmp_path):
    out, printed = _run(league, tmp_path)
    faults = fault_reasons(out)
    assert set(faults) == {"faulty"}  # the honest bots have none
    kinds = faults["faulty"].kinds
    assert set(kinds) == {"raised", "illegal"}
    assert kinds["raised"].first_reason.startswith("raised ValueError: bad plant")
    # the counts add up to the matches table's
    assert sum(k.count for k in kinds.values()) == sum(
        s["faults"] for s in json.loads(_rank(out, "json"))["bots"] if s["bot"] == "faulty"
    )
    line = next(line for line in printed.splitlines() if line.startswith("  faulty:"))
    assert " raised (first in match 0: raised ValueError" in line and " illegal (" in line
    # a bot's text cannot drive the terminal or forge a line
    assert "\x1b" not in printed and "\\x1b[31m" in line and "second line" in line


def _rank(out, fmt="text"):
    result = CliRunner().invoke(cli, ["rank", str(out), "--format", fmt, "--resamples", "10"])
    assert result.exit_code == 0, result.output
    return result.output


def test_rank_says_it_too(league, tmp_path):
    out, _ = _run(league, tmp_path)
    text = _rank(out)
    assert "Faults (each type" in text and re.search(r"\n  faulty: \d+ raised \(first", text)
    assert "honest:" not in text.split("Faults (")[1]
    data = json.loads(_rank(out, "json"))
    assert set(data["fault_reasons"]) == {"faulty"}
    assert data["fault_reasons"]["faulty"]["kinds"]["illegal"]["count"] > 0
    assert "Faults (each type" in _rank(out, "markdown")


def test_without_moves_only_the_counts_are_known(league, tmp_path):
    out, printed = _run(league, tmp_path, extra="[run]\nmoves = false\n")
    assert fault_reasons(out) is None
    assert "Faults (" not in printed and "Faults (" not in _rank(out)


def test_the_report_says_it_too_as_text(league, tmp_path):
    out, _ = _run(league, tmp_path)
    r = CliRunner().invoke(cli, ["report", str(out), "--no-matches", "--resamples", "10"])
    assert r.exit_code == 0, r.output
    page = (out / "report.html").read_text()
    why = page.split("Why, bot by bot")[1].split("</ul>")[0]
    assert "<b>faulty</b>" in why and " raised (first in match 0: raised ValueError" in why
    assert "&lt;b&gt;red&lt;/b&gt;" in why and "<b>red</b>" not in page  # markup as text
    assert "honest" not in why
