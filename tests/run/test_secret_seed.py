"""seed = "secret": a master seed no bot can read or guess, drawn at the
first run and kept with its results, so resume and replay still work."""

import json

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.core.errors import UsageError
from bohnarena.league.file import load_league
from bohnarena.run.dispatch import run_league

LEAGUE = (
    'name = "s"\nedition = "classic"\nplayers = 3\ndeals = 2\nseed = {seed}\n'
    '[bots]\nplanner = "planner"\nrandom = "random"\ntrader = "trader"\n'
)


def write(tmp_path, seed):
    path = tmp_path / "s.toml"
    path.write_text(LEAGUE.format(seed=seed))
    return path


def seeds(out):
    return sorted(r["seed"] for r in pq.read_table(out / "matches").to_pylist())


@pytest.mark.slow
def test_a_secret_seed_is_drawn_once_and_kept(tmp_path):
    path = write(tmp_path, '"secret"')
    assert load_league(path).seed is None
    first = run_league(path, tmp_path / "a", workers=1, progress=False)
    assert first.complete
    kept = json.loads((tmp_path / "a" / "secret.json").read_text())["seed"]
    assert isinstance(kept, int) and kept.bit_length() > 40
    again = run_league(path, tmp_path / "a", workers=1, progress=False)  # a resume
    assert again.played == 0
    assert json.loads((tmp_path / "a" / "secret.json").read_text())["seed"] == kept
    run_league(path, tmp_path / "b", workers=1, progress=False)
    assert seeds(tmp_path / "a") != seeds(tmp_path / "b")  # another run, other deals
    replayed = CliRunner().invoke(cli, ["replay", str(tmp_path / "a"), "--verify-all", "-j", "1"])
    assert replayed.exit_code == 0, replayed.output


def test_a_secret_seed_cannot_be_sharded(tmp_path):
    with pytest.raises(UsageError, match="sharded"):
        run_league(write(tmp_path, '"secret"'), tmp_path / "a", shard=(1, 2), progress=False)
    assert not (tmp_path / "a").exists()


@pytest.mark.parametrize("seed", ['"open"', "true", "1.5"])
def test_other_seeds_are_refused(tmp_path, seed):
    r = CliRunner().invoke(cli, ["run", str(write(tmp_path, seed))])
    assert r.exit_code == 2 and "seed must be" in r.output


def test_a_small_seed_with_sandboxed_bots_is_warned_about(tmp_path):
    path = write(tmp_path, 7)
    path.write_text(
        path.read_text().replace(
            'trader = "trader"', 'trader = { spec = "trader", isolation = "sandbox" }'
        )
    )
    league = load_league(path)
    from bohnarena.league.file import guessable_seed

    assert guessable_seed(league)
    path.write_text(path.read_text().replace("seed = 7", 'seed = "secret"'))
    assert not guessable_seed(load_league(path))
