"""A command bot sees its own files only (issue 22, part 1): the files its
command names, each alone, or a directory it declares (``dir``) that holds
no league file and no results; a layout that would show it those is
refused with one line before anything starts."""

import json
import textwrap

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.core.entry import BotEntry
from bohnarena.external.botfiles import check_layout
from bohnarena.external.sandbox.jail import CMD, OWN_DIR, command_files
from bohnarena.league.file import load_league
from bohnarena.run.dispatch import run_league
from bohnarena.run.provenance import source_hash
from tests.conftest import sandboxed
from tests.support.leagues import bot_log

#: A command bot in Python (stdlib only) that tries, at the start of every
#: match, to read what lies beside its own file and what an organiser's
#: layout puts there; it answers nothing itself (every decision a default).
SPY = textwrap.dedent("""\
    import json, os, sys
    from pathlib import Path
    HOST = {host!r}
    here = Path(__file__).resolve().parent
    def probe():
        print("beside me", sorted(os.listdir(here)), file=sys.stderr)
        for name in ("b.toml", "a.toml", "other.py", "results/a/run.json",
                     "results/b/run.json", "results/a/moves", "results/a/bots"):
            for where in (here, Path(HOST)):
                path = where / name
                try:
                    got = sorted(os.listdir(path)) if path.is_dir() else path.read_text()[:60]
                    print("GOT", path, repr(got), file=sys.stderr)
                except OSError as e:
                    print("sealed", path, type(e).__name__, file=sys.stderr)
        sys.stderr.flush()
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "start":
            probe()
            print(json.dumps({{"decisions": []}}), flush=True)
    """)

LEAGUE = 'name = "{name}"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = "secret"\n'


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@sandboxed
def test_a_command_bot_beside_its_league_sees_none_of_it(tmp_path, monkeypatch):
    """The red team's layout: ``command = ["python3", "spy.py"]`` beside the
    league file, run from there with the default --out, after another
    league's run left its results (secret.json with the secret seed, moves,
    logs) beside it too."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "other.py").write_text("SECRET = 'another bot of the organiser'\n")
    (tmp_path / "spy.py").write_text(SPY.format(host=str(tmp_path)))
    bots = '[bots]\nspy = { command = ["python3", "spy.py"] }\nplanner = "planner"\n'
    (tmp_path / "a.toml").write_text(LEAGUE.format(name="a") + bots + 'random = "random"\n')
    (tmp_path / "b.toml").write_text(LEAGUE.format(name="b") + bots + 'trader = "trader"\n')
    for name in ("a", "b"):  # b's spy starts with a's results all there, b's own begun
        r = run("run", f"{name}.toml", "-j", "1", "--no-progress", "--no-report")
        assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "results" / "b" / "secret.json").read_text())["seed"]
    log = bot_log(tmp_path / "results" / "b", "spy")
    assert "GOT" not in log, log
    assert "beside me ['spy.py']" in log and "sealed" in log, log


def league_with_dir(tmp_path, own, command=("python3", "bots/mine/main.py")):
    path = tmp_path / "l.toml"
    path.write_text(
        LEAGUE.format(name="l")
        + f"[bots]\nmine = {{ command = {json.dumps(list(command))}, dir = {json.dumps(own)} }}\n"
        + 'planner = "planner"\nrandom = "random"\n'
    )
    return path


def refused(r, what):
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert "its sandbox would show" in r.output and what in r.output, r.output
    assert 'dir = "bots/NAME"' in r.output  # it says how to lay it out


@pytest.mark.parametrize(
    "own,what",
    [
        (".", "the run's league file"),  # the league file's own directory
        ("bots", "the league file"),  # another league among the bots
        ("bots/mine", "the results directory"),  # an old run's results inside
        ("..", "the run's"),  # above the league and the results to come
    ],
)
def test_a_declared_dir_that_holds_a_league_or_results_is_refused(tmp_path, own, what):
    mine = tmp_path / "bots" / "mine"
    mine.mkdir(parents=True)
    (mine / "main.py").write_text("print('never started')\n")
    if own == "bots":
        (tmp_path / "bots" / "old.toml").write_text(LEAGUE.format(name="old") + "[bots]\n")
    (mine / "run.json").write_text("{}")  # the bot's own file of that name: not results
    if own == "bots/mine":
        (mine / "results" / "x" / "matches").mkdir(parents=True)
        (mine / "results" / "x" / "run.json").write_text("{}")
    out = tmp_path / "out"
    refused(run("run", league_with_dir(tmp_path, own), "--out", out, "--no-progress"), what)
    assert not out.exists()


@pytest.mark.parametrize("name,table", [("old.toml", '["bots"]'), ("old.league", "[bots]")])
def test_a_league_among_the_bots_is_found_whatever_its_name_and_quoting(tmp_path, name, table):
    """A league file written with a quoted key, or named other than .toml
    (``run`` takes either), was shown to the bot with its seed."""
    mine = tmp_path / "bots" / "mine"
    mine.mkdir(parents=True)
    (mine / "main.py").write_text("print('never started')\n")
    (tmp_path / "bots" / name).write_text(LEAGUE.format(name="old") + f"{table}\nx = 'random'\n")
    out = tmp_path / "out"
    refused(run("run", league_with_dir(tmp_path, "bots"), "--out", out), "the league file")
    assert not out.exists()


def test_a_declared_dir_inside_or_above_the_results_is_refused(tmp_path):
    mine = tmp_path / "bots" / "mine"
    mine.mkdir(parents=True)
    (mine / "main.py").write_text("")
    path = league_with_dir(tmp_path, "bots/mine")
    for out in (tmp_path / "bots", mine / "out"):  # results to be written above it, or in it
        refused(run("run", path, "--out", out, "--no-progress"), "the run's results directory")
        assert not (out / "run.json").exists()


def test_a_command_that_names_a_league_file_is_refused(tmp_path):
    (tmp_path / "other.toml").write_text(LEAGUE.format(name="o") + "[bots]\n")
    path = tmp_path / "l.toml"
    path.write_text(LEAGUE.format(name="l") + '[bots]\ncat = { command = ["cat", "other.toml"] }\n')
    refused(run("run", path, "--out", tmp_path / "out", "--no-progress"), "the league file")


def test_each_named_file_is_shown_alone_and_a_declared_dir_whole(tmp_path):
    mine = tmp_path / "bots" / "mine"
    (mine / "classes").mkdir(parents=True)
    (mine / "run.json").write_text("{}")
    (tmp_path / "solo.py").write_text("")
    path = tmp_path / "l.toml"
    path.write_text(
        LEAGUE.format(name="l")
        + '[bots]\nsolo = { command = ["python3", "solo.py", "-v"] }\n'
        + 'java = { command = ["java", "-cp", "bots/mine/classes", "Main"], dir = "bots/mine" }\n'
    )
    bots = load_league(path).bots
    argv, shown = command_files(bots["solo"].command, bots["solo"].dir)
    assert argv == ["python3", f"{CMD}/0/solo.py", "-v"]
    assert shown == {(tmp_path / "solo.py").resolve(): f"{CMD}/0/solo.py"}
    argv, shown = command_files(bots["java"].command, bots["java"].dir)
    assert argv == ["java", "-cp", f"{OWN_DIR}/classes", "Main"]
    assert shown == {mine.resolve(): OWN_DIR}
    for entry in bots.values():
        check_layout(entry, path, tmp_path / "results" / "l")  # nothing of the organiser's


def test_check_bot_builds_a_command_bot_as_a_league_does(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "l.toml").write_text(LEAGUE.format(name="l") + '[bots]\nx = "planner"\n')
    (tmp_path / "bot.py").write_text("")
    r = run("check-bot", "--command", "python3 bot.py", "--dir", ".")
    refused(r, "the league file")
    assert "--dir goes with --command" in run("check-bot", "planner", "--dir", ".").output


def test_the_source_hash_covers_exactly_what_the_sandbox_shows(tmp_path):
    mine = tmp_path / "bots" / "mine"
    mine.mkdir(parents=True)
    (mine / "main.py").write_text("import helper\n")
    (mine / "helper.py").write_text("X = 1\n")
    (tmp_path / "bots" / "unrelated.txt").write_text("not the bot's")
    entry = load_league(league_with_dir(tmp_path, "bots/mine")).bots["mine"]
    assert entry.dir == str(mine.resolve())
    assert entry.command == ("python3", str((mine / "main.py").resolve()))
    before = source_hash(entry, object)
    (tmp_path / "bots" / "unrelated.txt").write_text("changed, but never shown")
    assert source_hash(entry, object) == before
    (mine / "sub").mkdir()
    (mine / "sub" / "data.bin").write_bytes(b"\0")  # a file anywhere below is shown
    assert source_hash(entry, object) != before
    alone = BotEntry("a", command=("python3", str(mine / "main.py")), isolation="sandbox")
    before = source_hash(alone, object)
    (mine / "helper.py").write_text("X = 2\n")  # beside its one file: not shown, not hashed
    assert source_hash(alone, object) == before


@sandboxed
def test_a_bot_of_several_files_plays_from_its_own_dir(tmp_path):
    mine = tmp_path / "bots" / "mine"
    mine.mkdir(parents=True)
    (mine / "helper.py").write_text("DECISIONS = []\n")
    (mine / "main.py").write_text(
        "import json, os, sys\nfrom helper import DECISIONS\n"
        "print('beside me', sorted(os.listdir(os.path.dirname(__file__))), file=sys.stderr)\n"
        "for line in sys.stdin:\n"
        "    if json.loads(line)['type'] == 'start':\n"
        "        print(json.dumps({'decisions': DECISIONS}), flush=True)\n"
    )
    out = tmp_path / "out"
    s = run_league(league_with_dir(tmp_path, "bots/mine"), out, workers=1, progress=False)
    assert s.complete and s.played == 3
    log = bot_log(out, "mine")
    assert "beside me ['helper.py', 'main.py']" in log, log
