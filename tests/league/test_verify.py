"""Commit and reveal (docs/fairness.md): a secret seed's commitment is
public from before the first match, its seed revealed after the last, and
`verify` checks the published files against both."""

import json

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.core.seeding import commitment

LEAGUE = (
    'name = "v"\nedition = "classic"\nplayers = 3\ndeals = 2\nseed = {seed}\n'
    '[bots]\nplanner = "planner"\nrandom = "random"\ntrader = "trader"\n'
)


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A secret-seed league played once (copied by each test that edits it)."""
    tmp = tmp_path_factory.mktemp("v")
    path = tmp / "v.toml"
    path.write_text(LEAGUE.format(seed='"secret"'))
    r = invoke("run", path, "-o", tmp / "out", "-j", "1", "--no-report", "--no-progress")
    assert r.exit_code == 0, r.output
    return tmp / "out", r.output


def meta(out):
    return json.loads((out / "run.json").read_text())


@pytest.mark.slow
def test_the_run_commits_to_its_secret_seed_before_playing(played):
    out, said = played
    kept = meta(out)
    assert kept["seed_commitment"] == commitment(kept["seed"], kept["seed_salt"])
    first = said.splitlines()[0]
    assert first == f"seed commitment: {kept['seed_commitment']}"
    ranked = invoke("rank", out)
    assert ranked.exit_code == 0 and f"seed commitment: {kept['seed_commitment']}" in ranked.output
    from bohnarena.rating.results import read_results
    from bohnarena.report.html import settings

    shown = settings(read_results(out))
    assert ["seed commitment", kept["seed_commitment"]] in shown["facts"]
    assert kept["seed_salt"] not in shown["run"] and '"seed"' not in shown["run"]


def test_the_commitment_hashes_the_documented_text():
    import hashlib

    text = b"bohnarena seed commitment v1\x0012\x00ab"
    assert commitment(12, "ab") == "sha256:" + hashlib.sha256(text).hexdigest()
    assert commitment(12, "ab") != commitment(12, "ac") != commitment(13, "ab")
