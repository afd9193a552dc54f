"""Standings while a run plays (issue 25, part 5): under the progress bar
on a terminal (a run driven under a pseudo-terminal, its table read back),
and without one a standings line in the run log every N matches, the last
of them the final ranking."""

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios

import pytest
from click.testing import CliRunner

from bohnarena.analysis.results import read_results
from bohnarena.cli import cli

pytestmark = pytest.mark.slow  # every test here plays leagues: `pytest -m slow` runs them

LEAGUE = (
    'name = "live"\nedition = "classic"\nplayers = 3\ndeals = {deals}\nseed = 4\n'
    "[run]\nmoves = false\nbatch_size = 3\n"
    '[bots]\ntrader = "trader"\nplanner = "planner"\nrandom = "random"\n'
)

#: The live table's head (the closing ranking's has sigma between mu and matches).
HEAD = r"#\s+bot\s+score\s+mu\s+matches\s+win rate"


def under_a_pty(args, cwd, sized=True):
    """Run ``args`` with stdin, stdout and stderr on a pseudo-terminal; its output."""
    primary, secondary = pty.openpty()
    if sized:  # a terminal of 40 rows, 120 columns (a new pseudo-terminal has none)
        fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen(args, stdin=secondary, stdout=secondary, stderr=secondary, cwd=cwd)
    os.close(secondary)
    out = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not chunk:
            break
        out += chunk
    os.close(primary)
    assert proc.wait(timeout=120) == 0, out.decode(errors="replace")
    return out.decode(errors="replace")


def test_a_terminal_shows_the_standings_under_the_progress_bar(tmp_path):
    (tmp_path / "live.toml").write_text(LEAGUE.format(deals=10))
    args = [sys.executable, "-m", "bohnarena", "run", "live.toml", "--out", "o", "-j", "1"]
    screen = under_a_pty([*args, "--no-report"], tmp_path)
    assert re.search(HEAD, screen)  # the live table's head
    shown = re.findall(r"\s([123])\. (trader|planner|random)\s+(-?\d+\.\d\d)\s+(-?\d+\.\d\d)"
                       r"\s+(\d+)\s+(\d+\.\d)%", screen)  # fmt: skip
    assert {bot for _, bot, *_ in shown} == {"trader", "planner", "random"}
    assert "match/s" in screen and "<" in screen  # the bar, with its ETA
    # the table moves as the rater advances: a bot is shown after several match counts
    counts = {int(n) for _, bot, _, _, n, _ in shown if bot == "trader"}
    assert len(counts) >= 2, screen


def test_no_standings_under_the_bar_where_the_terminal_has_no_size_or_is_none(tmp_path):
    (tmp_path / "live.toml").write_text(LEAGUE.format(deals=4))
    args = [sys.executable, "-m", "bohnarena", "run", "live.toml", "-j", "1", "--no-report"]
    screen = under_a_pty([*args, "--out", "o", "--progress"], tmp_path, sized=False)
    assert "match" in screen and not re.search(HEAD, screen)  # the bar alone
    here = ["run", str(tmp_path / "live.toml"), "-j", "1", "--no-report", "--progress"]
    r = CliRunner().invoke(cli, [*here, "--out", str(tmp_path / "p")])
    assert r.exit_code == 0 and "match" in r.output and not re.search(HEAD, r.output)


def test_without_a_terminal_the_run_log_has_a_standings_line_every_n_matches(tmp_path):
    path = tmp_path / "live.toml"
    path.write_text(LEAGUE.format(deals=4))  # 12 matches
    out = tmp_path / "o"
    r = CliRunner().invoke(
        cli,
        ["run", str(path), "--out", str(out), "-j", "1", "--no-report", "--standings-every", "4"],
    )
    assert r.exit_code == 0, r.output
    assert not re.search(HEAD, r.output)  # no live table: not a terminal
    lines = [ln for ln in (out / "run.log").read_text().splitlines() if "standings after" in ln]
    assert [int(re.search(r"after (\d+) of 12", ln)[1]) for ln in lines] == [4, 8, 12]
    final = read_results(out).ranking.standings
    expected = "; ".join(
        f"{i}. {st.bot} {st.score:.2f} ({st.matches} matches, {st.win_rate:.1%} won)"
        for i, st in enumerate(final, 1)
    )
    assert lines[-1].endswith(expected)
    none = tmp_path / "none"
    r = CliRunner().invoke(cli, ["run", str(path), "--out", str(none), "-j", "1", "--no-report",
                                 "--standings-every", "0"])  # fmt: skip
    assert r.exit_code == 0 and "standings after" not in (none / "run.log").read_text()


def test_a_watcher_is_told_the_standings_the_run_computes(tmp_path, monkeypatch):
    from bohnarena.run import standings
    from bohnarena.run.dispatch import run_league

    monkeypatch.setattr(standings, "WATCH_SECONDS", 0.0)  # every match (the run is short)
    path = tmp_path / "live.toml"
    path.write_text(LEAGUE.format(deals=4))  # 12 matches
    told = []
    run_league(path, tmp_path / "o", 1, progress=False, watch=lambda *a: told.append(a))
    assert [(n, total) for n, total, _ in told] == [(0, 12), *((n, 12) for n in range(1, 13))]
    assert [s.sigma for s in told[0][2]] == [25 / 3] * 3  # before any match
    final = read_results(tmp_path / "o").ranking.standings
    assert [(s.bot, s.mu, s.sigma) for s in told[-1][2]] == [(s.bot, s.mu, s.sigma) for s in final]
