"""A season in the sandbox: a file bot, a package, a wheel, an sdist and a
command bot submitted and checked; a wheel's .pth file and an sdist's
setup.py never run; an entry point named like a shipped bot shadows
nothing; a failing bot is rejected with its stderr escaped and changes
nothing; the league grows by the new version's matches only."""

import importlib.metadata

import pyarrow.parquet as pq
import pytest

from bohnarena.core.plugins import entry_point
from bohnarena.ladder.catalog import Catalog

from ..conftest import SANDBOX_MARKS
from .builders import command_dir, failing_bot, file_bot, package_dir, sdist, wheel
from .conftest import run

pytestmark = SANDBOX_MARKS


@pytest.fixture(scope="module")
def season(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("season")
    ladder = tmp / "spring"
    assert run("ladder", "init", ladder).exit_code == 0
    text = (ladder / "ladder.toml").read_text().replace("deals = 10 ", "deals = 2 ")
    (ladder / "ladder.toml").write_text(text.replace("workers = 0 ", "workers = 2 "))
    marker = tmp / "marker"
    outputs = {}
    for name, args in [
        ("mine", [file_bot(tmp)]),
        ("rando", [package_dir(tmp), "--bot", "rando.bot:Rando"]),
        ("wheeled", [wheel(tmp, marker)]),
        ("sourced", [sdist(tmp, marker)]),
        ("shell", [command_dir(tmp), "--command", "bash bot.sh"]),
    ]:
        r = run("ladder", "submit", ladder, name, *args)
        assert r.exit_code == 0, r.output
        outputs[name] = r.output
    first = run("ladder", "run", ladder)
    assert first.exit_code == 0, first.output
    return ladder, marker, outputs, first


def test_every_kind_of_submission_is_active(season):
    ladder, _, outputs, _ = season
    catalog = Catalog(ladder)
    kinds = {v.name: (v.kind, v.state) for v in catalog.versions()}
    assert kinds == {
        "mine": ("file", "active"),
        "rando": ("package", "active"),
        "wheeled": ("wheel", "active"),
        "sourced": ("sdist", "active"),
        "shell": ("command", "active"),
    }
    assert all(f"{v.bot} is active" in outputs[v.name] for v in catalog.versions())


def test_no_code_of_a_package_runs_outside_the_sandbox(season):
    _, marker, _, first = season
    assert "40 matches played now" in first.output
    assert not marker.exists()  # neither the wheel's .pth nor the sdist's setup.py ran
    shipped = entry_point("planner")
    assert shipped is not None and shipped.value.startswith("bohnarena_bots")
    names = [d.metadata["Name"] for d in importlib.metadata.distributions()]
    assert "wheelbot" not in names and "sbot" not in names


def test_a_failing_bot_is_rejected_and_changes_nothing(season, tmp_path):
    ladder = season[0]
    before = [(v.id, v.state) for v in Catalog(ladder).versions()]
    bots = sorted(p.name for p in (ladder / "bots").iterdir())
    r = run("ladder", "submit", ladder, "mine", failing_bot(tmp_path))
    assert r.exit_code == 1
    assert "is rejected: it fails the conformance check: faults raised" in r.output
    assert "broken bot says \\x1b[31mred\\x1b[0m  (and 9 times more)" in r.output
    assert "\x1b" not in r.output
    after = Catalog(ladder).versions()
    assert [(v.id, v.state) for v in after][: len(before)] == before
    assert after[-1].state == "rejected" and len(after) == len(before) + 1
    assert sorted(p.name for p in (ladder / "bots").iterdir()) == bots


def test_a_new_version_retires_the_old_and_plays_its_matches_only(season, tmp_path):
    ladder = season[0]
    r = run("ladder", "submit", ladder, "mine", file_bot(tmp_path, extra="# v2\n"))
    assert r.exit_code == 0 and "is retired" in r.output, r.output
    r = run("ladder", "run", ladder)
    assert r.exit_code == 0, r.output
    # 5 active at 4 seats: the 4 tables of the new version, 4 rotations, 2 deals
    assert "32 matches played now" in r.output
    assert pq.read_table(ladder / "results" / "matches").num_rows == 40 + 32
    again = run("ladder", "run", ladder)
    assert "0 matches played now" in again.output
    table = run("ladder", "rank", ladder).output
    active, _, retired = table.partition("Retired")
    assert active.count("mine.") == 1 and "replaced by" in retired
    history = run("ladder", "history", ladder, "mine").output.splitlines()
    assert len(history) == 1 + 1 + 2  # a header; the first version in one run, the second in two
    report = run("ladder", "report", ladder)
    assert report.exit_code == 0 and (ladder / "history.html").is_file()
