"""The HTML report: self-contained, complete for both games and for partial
runs, written by `run`; drawn in a real headless Chromium (slow)."""

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.run.dispatch import run_league

ROOT = Path(__file__).resolve().parents[2]
ARTEFACTS = ROOT / "results" / "test-artefacts"  # results/ is not committed
SECTIONS = [
    "Leaderboard",
    "As the league went on",
    "Head to head",
    "Win rate by seat",
    "Coins and match length",
    "Faults and time",
    "Settings and versions",
]
PLOTS = 8


def write_league(d: Path, text: str) -> Path:
    path = d / "league.toml"
    path.write_text(text)
    return path


CLASSIC = (
    'name = "r"\nedition = "classic"\nplayers = 4\ndeals = 3\nseed = 9\n'
    '[bots]\ntrader = "trader"\nplanner = "planner"\nrandom = "random"\nrandom2 = "random"\n'
)
WUERFEL = (
    'name = "w"\ngame = "wuerfel"\nplayers = 3\ndeals = 2\nseed = 4\n'
    '[bots]\ngreedy = "wuerfel-greedy"\nrandom = "wuerfel-random"\nrandom2 = "wuerfel-random"\n'
)


@pytest.fixture(scope="module")
def classic(tmp_path_factory):
    d = tmp_path_factory.mktemp("classic")
    r = CliRunner().invoke(
        cli, ["run", str(write_league(d, CLASSIC)), "--out", str(d / "o"), "-j", "1"]
    )
    assert r.exit_code == 0, r.output
    return d / "o"


def offline(page: str) -> None:
    """Nothing in the page can fetch anything."""
    assert not re.search(r"<script|<link|<img|<iframe|@import|url\(", page, re.I)
    assert "default-src 'none'" in page


@pytest.mark.slow
def test_run_writes_a_self_contained_report_with_every_section(classic):
    page = (classic / "report.html").read_text()
    offline(page)
    for section in SECTIONS:
        assert f"<h2>{section}</h2>" in page
    assert page.count('<svg class="plot"') == PLOTS
    assert "Partial run" not in page and "12 matches; 12 finished" in page
    assert "decision time (median / p99 / max)" in page and "(12 of 12 matches have them)" in page
    assert len(page) < 100_000


@pytest.mark.slow
def test_report_command_writes_where_asked_and_no_report_skips_it(classic, tmp_path):
    out = tmp_path / "x.html"
    r = CliRunner().invoke(cli, ["report", str(classic), "-o", str(out), "--resamples", "50"])
    assert r.exit_code == 0, r.output
    assert "50 resamples of the 3 deals" in out.read_text()
    league = write_league(tmp_path, CLASSIC.replace("deals = 3", "deals = 1"))
    r = CliRunner().invoke(
        cli, ["run", str(league), "--out", str(tmp_path / "o"), "-j", "1", "--no-report"]
    )
    assert r.exit_code == 0 and not (tmp_path / "o" / "report.html").exists()


@pytest.mark.slow
def test_a_partial_run_and_the_dice_game(tmp_path):
    league = write_league(tmp_path, WUERFEL)
    run_league(league, tmp_path / "half", workers=1, progress=False, shard=(1, 2))
    r = CliRunner().invoke(cli, ["report", str(tmp_path / "half")])
    assert r.exit_code == 0, r.output
    page = (tmp_path / "half" / "report.html").read_text()
    offline(page)
    assert "Partial run: 3 of 6 matches" in page and "wuerfel" in page
    assert page.count('<svg class="plot"') == PLOTS


def test_a_run_with_no_finished_match_still_reports(tmp_path):
    league = write_league(tmp_path, WUERFEL)
    run_league(league, tmp_path / "o", workers=1, progress=False, stop_when=lambda: True)
    assert not list((tmp_path / "o" / "matches").glob("*.parquet"))
    r = CliRunner().invoke(cli, ["report", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    assert "No finished matches yet" in (tmp_path / "o" / "report.html").read_text()


# -- in a real browser ---------------------------------------------------------

CHROMIUM = shutil.which("chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
]
# Injected into a copy of the page: measures every plot and its marks as
# laid out, and writes the result into the DOM that --dump-dom prints.
PROBE = """<script>
const plots = [...document.querySelectorAll("svg.plot")].map((s) => {
  const marks = [...s.querySelectorAll(".mark")];
  const box = s.getBoundingClientRect();
  return {label: s.getAttribute("aria-label"), marks: marks.length, width: box.width,
          height: box.height, drawn: marks.filter((m) => {
            const b = m.getBBox(); return b.width > 0 || b.height > 0; }).length};
});
document.body.setAttribute("data-probe", JSON.stringify(plots));
</script>"""


def chromium(tmp_path: Path, page: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def console(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (Debian package chromium)")
def test_chromium_draws_every_plot_without_console_errors(classic, tmp_path):
    report = classic / "report.html"
    shot = tmp_path / "report.png"
    shown = chromium(tmp_path, report, "--window-size=1100,4400", f"--screenshot={shot}")
    assert console(shown.stderr) == [] and shot.stat().st_size > 10_000
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, ARTEFACTS / "report.png")

    # The probe needs inline script, which the report's own policy forbids.
    page = report.read_text().replace(
        "default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';"
    )
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", PROBE + "</body>"))
    dom = chromium(tmp_path, probe, "--dump-dom")
    assert console(dom.stderr) == []
    found = re.search(r'data-probe="([^"]*)"', dom.stdout)
    assert found, dom.stdout[:500]
    plots = json.loads(html.unescape(found[1]))
    assert len(plots) == PLOTS
    for plot in plots:
        assert plot["width"] > 100 and plot["height"] > 100, plot
        assert plot["marks"] > 0 and plot["drawn"] == plot["marks"], plot


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (Debian package chromium)")
def test_the_console_check_sees_an_error(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><script>console.error('boom')</script></body></html>")
    assert any("boom" in line for line in console(chromium(tmp_path, bad, "--dump-dom").stderr))


@pytest.mark.slow
def test_a_secret_master_seed_stays_out_of_the_report(tmp_path):
    league = write_league(tmp_path, WUERFEL.replace("seed = 4", 'seed = "secret"'))
    run_league(league, tmp_path / "o", workers=1, progress=False)
    seed = json.loads((tmp_path / "o" / "secret.json").read_text())["seed"]
    r = CliRunner().invoke(cli, ["report", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    assert str(seed) not in (tmp_path / "o" / "report.html").read_text()
