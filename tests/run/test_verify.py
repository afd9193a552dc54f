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
    """run.json with the private seed and salt beside it (the organiser's view)."""
    public = json.loads((out / "run.json").read_text())
    return public | json.loads((out / "secret.json").read_text())


@pytest.mark.slow
def test_the_run_commits_to_its_secret_seed_before_playing(played):
    out, said = played
    kept = meta(out)
    assert kept["seed_commitment"] == commitment(kept["seed"], kept["seed_salt"])
    first = said.splitlines()[0]
    assert first == f"seed commitment: {kept['seed_commitment']}"
    ranked = invoke("rank", out)
    assert ranked.exit_code == 0 and f"seed commitment: {kept['seed_commitment']}" in ranked.output
    from bohnarena.analysis.results import read_results
    from bohnarena.report.html import settings

    shown = settings(read_results(out))
    assert ["seed commitment", kept["seed_commitment"]] in shown["facts"]
    assert ["chain head", kept["chain_head"]] in shown["facts"]
    assert kept["seed_salt"] not in shown["run"] and '"seed"' not in shown["run"]


def test_the_commitment_hashes_the_documented_text():
    import hashlib

    text = b"bohnarena seed commitment v1\x0012\x00ab"
    assert commitment(12, "ab") == "sha256:" + hashlib.sha256(text).hexdigest()
    assert commitment(12, "ab") != commitment(12, "ac") != commitment(13, "ab")


def published(out, tmp_path):
    """A copy of what an organiser publishes: the results directory without
    its private file."""
    import shutil

    copy = tmp_path / "published"
    shutil.copytree(out, copy, ignore=shutil.ignore_patterns("secret.json"))
    return copy


@pytest.fixture(scope="module")
def revealed(played):
    out, said = played
    r = invoke("reveal", out)
    assert r.exit_code == 0, r.output
    return out, r.output, said


def played_output(revealed):
    """What the run printed."""
    return revealed[2]


@pytest.mark.slow
def test_a_revealed_league_verifies_from_its_published_files(revealed, tmp_path):
    out, said, _ = revealed
    kept = meta(out)
    assert f"seed: {kept['seed']}" in said.splitlines()
    assert json.loads((out / "reveal.json").read_text())["seed_salt"] == kept["seed_salt"]
    copy = published(out, tmp_path)
    r = invoke("verify", copy, "-j", "1")
    assert r.exit_code == 0, r.output
    head = json.loads((copy / "run.json").read_text())["chain_head"]
    assert r.output.splitlines() == [
        "verified: the seed is the one committed to; 6 matches replayed of 6 the schedule "
        f"has standing; chain head {head}; every check passed"
    ]
    assert f"chain head: {head}" in played_output(revealed)


@pytest.mark.slow
def test_a_wrong_revealed_seed_is_caught(revealed, tmp_path):
    copy = published(revealed[0], tmp_path)
    shown = json.loads((copy / "reveal.json").read_text())
    shown["seed"] += 1
    (copy / "reveal.json").write_text(json.dumps(shown))
    r = invoke("verify", copy, "-j", "1")
    assert r.exit_code == 1
    assert f"seed {shown['seed']} with its salt does not match the commitment" in r.output
    # (and every match's seed is then not the schedule's)
    assert "match 0: seed " in r.output and "is not the schedule's" in r.output


@pytest.mark.slow
def test_a_match_seed_edited_and_resealed_is_caught(revealed, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tests.support.leagues import reseal

    copy = published(revealed[0], tmp_path)
    part = sorted((copy / "matches").glob("part-*.parquet"))[0]
    table = pq.read_table(part)
    first = table.column("match_id")[0].as_py()
    seeds = table.column("seed").to_pylist()
    seeds[0] += 1
    index = table.schema.get_field_index("seed")
    kind = table.schema.field(index)
    table = table.set_column(index, kind, pa.array(seeds, kind.type))
    pq.write_table(table, part)
    reseal(copy)
    r = invoke("verify", copy, "-j", "1")
    assert r.exit_code == 1
    assert r.output.count(f"match {first}: seed {seeds[0]} is not the schedule's") == 1
    assert "6 matches replayed of 6 the schedule has standing" in r.output.splitlines()[-1]
    assert "their rows are not those committed at chain line" in r.output  # (and the chain)


@pytest.mark.slow
def test_a_dropped_part_is_caught_as_missing(revealed, tmp_path):
    from tests.support.leagues import reseal

    copy = published(revealed[0], tmp_path)
    name = sorted((copy / "matches").glob("part-*.parquet"))[-1].name
    for table in ("matches", "moves", "timing"):
        (copy / table / name).unlink(missing_ok=True)
    reseal(copy)
    r = invoke("verify", copy, "-j", "1")
    assert r.exit_code == 1
    assert "match 5: missing (the schedule has it, the published results do not)" in r.output
    assert "match 5: committed at chain line " in r.output  # (and the chain says so)


@pytest.mark.slow
def test_a_league_that_never_drew_a_secret_has_nothing_to_verify(tmp_path):
    from bohnarena.run.dispatch import run_league

    path, out = tmp_path / "v.toml", tmp_path / "out"
    path.write_text(LEAGUE.format(seed=7))
    assert run_league(path, out, workers=1, progress=False).complete
    r = invoke("verify", out)
    assert r.exit_code == 2
    assert r.output.strip().endswith("this league never drew a secret seed: nothing to verify")
    r = invoke("reveal", out)
    assert r.exit_code == 2 and "never drew a secret seed" in r.output
    r = invoke("verify", tmp_path)
    assert r.exit_code == 2 and "is not a bohnarena results directory" in r.output


@pytest.mark.slow
def test_the_commitment_is_in_run_json_before_the_first_match(tmp_path):
    from bohnarena.run.dispatch import run_league

    path, out = tmp_path / "v.toml", tmp_path / "out"
    path.write_text(LEAGUE.format(seed='"secret"'))
    seen = []

    def note(line):
        if not seen:  # the first run: nothing played yet
            assert not list((out / "matches").glob("part-*"))
        seen.append((line, meta(out)["seed_commitment"]))

    assert run_league(path, out, workers=1, progress=False, note=note).complete
    run_league(path, out, workers=1, progress=False, note=note)  # a resume says it again
    assert [line for line, _ in seen] == [f"seed commitment: {kept}" for _, kept in seen]
    assert len(seen) == 2 and seen[0] == seen[1]


@pytest.mark.slow
def test_the_secret_seed_stays_out_of_run_json_until_revealed(played, tmp_path):
    import os
    import shutil
    import stat

    out, _ = played
    public = json.loads((out / "run.json").read_text())
    assert "seed" not in public and "seed_salt" not in public and "seed_commitment" in public
    private = json.loads((out / "secret.json").read_text())
    assert set(private) == {"seed", "seed_salt"}
    assert stat.S_IMODE(os.stat(out / "secret.json").st_mode) == 0o600
    # a published copy has no seed: rank refuses it until the reveal
    copy = tmp_path / "copy"
    shutil.copytree(out, copy, ignore=shutil.ignore_patterns("secret.json", "reveal.json"))
    r = invoke("rank", copy)
    assert r.exit_code != 0 and "no master seed" in r.output
    r = invoke("verify", copy)
    assert r.exit_code == 2 and "the seed is not revealed yet" in r.output


@pytest.mark.slow
def test_a_run_json_that_holds_its_seed_still_reads(played, tmp_path):
    """A results directory of the first slice: the seed in run.json itself."""
    import shutil

    from bohnarena.run.dispatch import run_league

    old = tmp_path / "old"
    shutil.copytree(played[0], old, ignore=shutil.ignore_patterns("reveal.json"))
    both = meta(old)
    (old / "run.json").write_text(json.dumps(both))
    (old / "secret.json").unlink()
    r = invoke("rank", old)
    assert r.exit_code == 0, r.output
    league = tmp_path / "v.toml"
    league.write_text(LEAGUE.format(seed='"secret"'))
    assert run_league(league, old, workers=1, progress=False).played == 0
    assert "seed" not in json.loads((old / "run.json").read_text())  # moved out
    assert meta(old) == both
