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
