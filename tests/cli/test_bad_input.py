"""Every subcommand, fed malformed arguments and files: one line, exit code
2, never a traceback."""

import shutil

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.run.dispatch import run_league
from tests.conftest import SANDBOX_MARKS, sandboxed
from tests.support.leagues import reseal

LEAGUE = (
    'name = "b"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 3\n'
    '[bots]\nplanner = "planner"\nrandom = "random"\n{extra}'
)
RAISES_IN_INIT = (
    "from bohnarena.bohnanza import Bot\n"
    "class B(Bot):\n    def __init__(self):\n        raise ValueError('no')\n"
)


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def one_line(result, code, text):
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output and text in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("run")
    path = tmp / "b.toml"
    path.write_text(LEAGUE.format(extra=""))
    run_league(path, tmp / "out", workers=1, progress=False)
    return tmp / "out"


@pytest.mark.parametrize(
    "text,message",
    [
        (b'name = "x\xff"\n', "is not UTF-8 text"),
        (
            LEAGUE.format(extra="").replace("deals = 1", "deals = 9223372036854775807").encode(),
            "deals must be from 1 to",
        ),
        (LEAGUE.format(extra="[limits]\ndecision_seconds = nan\n").encode(), "positive number"),
        (LEAGUE.format(extra="[limits]\ndecision_seconds = -1\n").encode(), "positive number"),
        (LEAGUE.format(extra="[limits]\nmatch_seconds = 0\n").encode(), "positive number"),
        (LEAGUE.format(extra="[limits]\nmemory_mb = 1\n").encode(), "memory_mb must be at least"),
        (LEAGUE.format(extra="[limits]\nmax_processes = inf\n").encode(), "positive number"),
    ],
)
def test_bad_league_files(tmp_path, text, message):
    path = tmp_path / "l.toml"
    path.write_bytes(text)
    one_line(invoke("run", path, "-o", tmp_path / "out"), 2, message)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "args,message",
    [
        (["check-bot", "planner", "--decision-seconds", "nan"], "positive number"),
        (["check-bot", "planner", "--decision-seconds", "0"], "positive number"),
        (["check-bot", "--command", ""], "needs a command line"),
        (["check-bot", "--command", "python3 'x"], "cannot split"),
        (["new-bot", "a" * 300], "at most 64"),
        (["play", "nosuchbot", "planner", "random"], "unknown bot"),
        (["bench", "--games", "0"], "at least 1"),
    ],
)
def test_bad_arguments(args, message):
    one_line(invoke(*args), 2, message)


@pytest.mark.parametrize("isolation", ["inprocess", pytest.param("sandbox", marks=SANDBOX_MARKS)])
def test_a_bot_whose_constructor_raises_does_not_start_in_play(tmp_path, isolation):
    bot = tmp_path / "b.py"
    bot.write_text(RAISES_IN_INIT)
    r = invoke("play", "-q", "--isolation", isolation, f"{bot}:B", "planner", "random")
    # as run says of a bot that does not start: one line, before any match
    one_line(r, 2, "does not start: ")
    assert "raised ValueError: no" in r.output


def test_a_huge_match_id(finished):
    r = invoke("replay", finished, "--match", 2**70)
    assert r.exit_code == 2 and "Traceback" not in r.output


@pytest.mark.parametrize(
    "command", [["rank"], ["replay", "--match", "1"], ["replay", "--verify-all", "-j", "1"]]
)
@pytest.mark.parametrize(
    "damage,message",
    [
        ("run.json list", "is not a JSON object"),
        ("column dropped", "has no column 'coins'"),
    ],
)
def test_damaged_results(tmp_path, finished, command, damage, message):
    out = tmp_path / "copy"
    shutil.copytree(finished, out)
    if damage == "run.json list":
        (out / "run.json").write_text("[1, 2]")
    else:
        for part in (out / "matches").glob("*.parquet"):
            pq.write_table(pq.read_table(part).drop_columns(["coins"]), part)
        reseal(out)  # as its run committed it: the reader's own check must speak
    one_line(invoke(*command[:1], out, *command[1:]), 2, message)


WALK = [  # every subcommand, fed a wrong argument: (args, what the one line says)
    (["run", "{tmp}/nonexistent.toml"], "cannot read league file"),
    (["run", "{league}", "--shard", "3/2"], "--shard takes K/N"),
    (["rank", "{tmp}"], "is not a bohnarena results directory"),
    (["replay", "{run}"], "give --match ID"),
    (["replay", "{run}", "--match", "100000"], "no finished match 100000"),
    (["replay", "{run}", "--match", "1", "--seat", "9"], "--seat must be between"),
    (["replay", "{run}", "--match", "1", "--at", "999999"], "moves (0-"),
    (["replay", "{tmp}/none", "--verify-all"], "is not a bohnarena results directory"),
    (["merge", "{tmp}/m", "{tmp}/none"], "is not a bohnarena results directory"),
    (["merge", "{run}", "{run}"], "already exists"),
    (["play", "planner"], "is for 3, 4, 5 players"),
    (["play", "-e", "nosuch", "planner", "random", "trader"], "unknown edition"),
    (["play", "-o", "bogus=1", "planner", "random", "trader"], "unknown rule option"),
    (["play", "-o", "noequals", "planner", "random", "trader"], "takes key=value"),
    (["play", "--game", "wuerfel", "planner", "random"], "is not a bot class"),
    (["bench", "-p", "99"], "is for 3, 4, 5 players"),
    (["bench", "-b", "nosuch"], "unknown bot"),
    (["check-bot", "planner", "--game", "wuerfel"], "is not a bot class"),
    (["check-bot", "{tmp}/x.py:Y"], "does not exist"),
]


@pytest.mark.parametrize(
    "args,message", WALK, ids=[" ".join(a[:2]) + f" #{i}" for i, (a, _) in enumerate(WALK)]
)
def test_every_subcommand_refuses_bad_input_in_one_line(tmp_path, finished, args, message):
    league = tmp_path / "l.toml"
    league.write_text(LEAGUE.format(extra=""))
    filled = [a.format(tmp=tmp_path, run=finished, league=league) for a in args]
    one_line(invoke(*filled), 2, message)


@sandboxed
def test_a_program_that_is_not_there_is_said_to_be_missing():
    r = invoke("check-bot", "--command", "/nonexistent/binary")
    assert r.exit_code == 2 and "Traceback" not in r.output
    # its sandbox's child exits as a shell does for a command not found, and says why
    assert "exited with code 127" in r.output, r.output
    assert "cannot start /nonexistent/binary: No such file or directory" in r.output


def test_a_league_name_too_long_for_the_file_system_leaves_no_results_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    league = tmp_path / "long.toml"
    league.write_text(
        f'name = "{"x" * 300}"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 1\n'
        '[bots]\na = "random"\nb = "random"\nc = "random"\n'
    )
    one_line(invoke("run", league), 2, "cannot write results to results/xxx")
    assert not (tmp_path / "results").exists()  # it made nothing it left behind
    (tmp_path / "results" / "other").mkdir(parents=True)  # and where results/ holds runs:
    one_line(invoke("run", league), 2, "File name too long")
    assert [p.name for p in (tmp_path / "results").iterdir()] == ["other"]


def test_a_bot_file_named_with_bytes_that_are_not_utf8_is_one_line(tmp_path):
    import os
    import subprocess

    name = os.fsdecode(b"bot\xff.py")
    (tmp_path / name).write_text("from bohnarena_bots.random_bot import RandomBot as Bot\n")
    r = subprocess.run(
        ["bohnarena", "play", f"{name}:Bot", "random", "random"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        errors="replace",
    )
    assert r.returncode == 2 and "not UTF-8" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
