import pytest
from click.testing import CliRunner

from bohnarena.cli import cli


@pytest.fixture(scope="package")
def run_dir(tmp_path_factory):
    """A league's results: three matches of the card game."""
    base = tmp_path_factory.mktemp("view")
    league = base / "v.toml"
    league.write_text(
        'name = "v"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 2\n'
        '[bots]\ntrader = "trader"\nplanner = "planner"\nrandom = "random"\n'
    )
    r = CliRunner().invoke(cli, ["run", str(league), "--out", str(base / "out"), "-j", "1"])
    assert r.exit_code == 0, r.output
    return base / "out"


FAULTER = "tests/viewer/faulting_bots.py:RaiseInSeatOne"


@pytest.fixture(scope="package")
def league_dir(tmp_path_factory):
    """A league's results with a space in their path: four bots at tables of
    three, two deals (24 matches); ``faulter`` faults in seat 1 only."""
    from pathlib import Path

    base = tmp_path_factory.mktemp("matches") / "my results"
    base.mkdir()
    league = base / "m.toml"
    faulter = Path(__file__).resolve().parents[2] / FAULTER
    league.write_text(
        'name = "m"\nedition = "classic"\nplayers = 3\ndeals = 2\nseed = 3\n'
        '[bots]\nplanner = "planner"\ntrader = "trader"\nrandom = "random"\n'
        f'faulter = "{faulter}"\n'
    )
    r = CliRunner().invoke(cli, ["run", str(league), "--out", str(base / "out"), "-j", "1"])
    assert r.exit_code == 0, r.output
    return base / "out"
