"""Bad league files and directories: one line, exit code 2, nothing written."""

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli

GOOD = """name = "bad"
edition = "classic"
players = 3
deals = 1
[bots]
a = "planner"
b = "random"
c = "trader"
"""


@pytest.mark.parametrize(
    "text,message",
    [
        ('name = "x"\nplayers = [', "is not valid TOML"),
        (GOOD + "colour = 'red'\n", "unknown bot 'red'"),  # lands inside [bots]
        ("colour = 1\n" + GOOD, "unknown key 'colour'"),
        (GOOD.replace("deals = 1", 'deals = "one"'), "deals must be int"),
        (GOOD.replace("deals = 1", "deals = 0"), "deals must be from 1 to"),
        (GOOD.replace("players = 3", "players = 9"), "not 9"),
        (GOOD.replace('"classic"', '"deluxe"'), "unknown edition"),
        (GOOD.replace('name = "bad"', 'name = "../x"'), "must be letters"),
        (GOOD.replace('"planner"', '"nosuchbot"'), "unknown bot 'nosuchbot'"),
        (GOOD.replace('"planner"', '"bohnarena.cli:main"'), "not a bot class"),
        (GOOD.replace('"planner"', '"missing/file.py:Bot"'), "does not exist"),
        (GOOD.replace("[bots]", "[rules]\nprotection = 'maybe'\n[bots]"), "protection must be"),
        (GOOD.replace("[bots]", "[run]\nturbo = true\n[bots]"), "unknown key run.turbo"),
    ],
)
def test_bad_league_files(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    out = tmp_path / "out"
    r = CliRunner().invoke(cli, ["run", str(path), "--out", str(out), "--no-progress"])
    assert r.exit_code == 2, r.output
    assert message in r.output
    assert len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output
    assert not out.exists()  # nothing half-written


def test_missing_league_file(tmp_path):
    r = CliRunner().invoke(cli, ["run", str(tmp_path / "nope.toml")])
    assert r.exit_code == 2 and "cannot read league file" in r.output


def test_unwritable_output_directory(tmp_path):
    path = tmp_path / "ok.toml"
    path.write_text(GOOD)
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = CliRunner().invoke(cli, ["run", str(path), "--out", str(blocker / "sub"), "--no-progress"])
    assert r.exit_code == 2 and "cannot write results" in r.output


def test_restart_refuses_to_delete_a_directory_that_is_not_a_run(tmp_path):
    path = tmp_path / "ok.toml"
    path.write_text(GOOD)
    other = tmp_path / "precious"
    other.mkdir()
    (other / "thesis.tex").write_text("...")
    r = CliRunner().invoke(cli, ["run", str(path), "--out", str(other), "--restart"])
    assert r.exit_code == 2 and "refusing to delete" in r.output
    assert (other / "thesis.tex").exists()


def test_rank_of_a_directory_that_is_not_a_run(tmp_path):
    r = CliRunner().invoke(cli, ["rank", str(tmp_path)])
    assert r.exit_code == 2 and "not a bohnarena results directory" in r.output


@pytest.mark.slow
def test_a_corrupt_matches_file_is_one_line_for_rank_and_played_again_by_run(tmp_path):
    path = tmp_path / "ok.toml"
    path.write_text(GOOD)
    out = tmp_path / "out"
    run = ["run", str(path), "--out", str(out), "--no-progress"]
    assert CliRunner().invoke(cli, run).exit_code == 0
    (part,) = (out / "matches").glob("*.parquet")
    part.write_bytes(part.read_bytes()[:50])
    r = CliRunner().invoke(cli, ["rank", str(out)])
    assert r.exit_code == 2 and "corrupt or truncated" in r.output and "Traceback" not in r.output
    assert len(r.output.splitlines()) == 1 and part.name in r.output
    # a resume plays a damaged part's matches again, as it does a moves part's
    r = CliRunner().invoke(cli, run)
    assert r.exit_code == 0 and "3 matches played now, 0 before" in r.output, r.output
    assert "does not read" in (out / "run.log").read_text()
    assert CliRunner().invoke(cli, ["rank", str(out)]).exit_code == 0
