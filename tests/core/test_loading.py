"""Loading bots: entry points (malformed, clashing), `bots`, locating a
sandboxed bot without importing it, and starting out-of-process bots before
a league writes anything."""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from bohnarena import __version__
from bohnarena.cli import cli
from bohnarena.core import plugins
from bohnarena.core.entry import BotEntry
from bohnarena.core.errors import BotLoadError
from bohnarena.core.plugins import load_bot, locate, registered
from bohnarena.league.file import load_league
from bohnarena.run.provenance import source_hash
from tests.conftest import SANDBOX_MARKS, sandboxed

ROOT = Path(__file__).resolve().parents[2]
FIRST_CHOICE = ROOT / "bots" / "first_choice.sh"


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def one_line_error(r, message):
    assert r.exit_code == 2, r.output
    assert message in r.output, r.output
    assert "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1, r.output


@pytest.fixture
def site(tmp_path, monkeypatch):
    yield from fake_site(tmp_path, monkeypatch, ("sidefx", "twobots"))


def fake_site(tmp_path, monkeypatch, modules):
    """A temporary sys.path entry for fake distributions (also on PYTHONPATH,
    for sandbox processes); the entry-point caches are cleared around the
    test, and ``modules`` (top-level names) forgotten after it."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    registered.cache_clear()
    load_bot.cache_clear()
    yield root
    registered.cache_clear()
    load_bot.cache_clear()
    for name in [m for m in sys.modules if m.split(".")[0] in modules]:
        del sys.modules[name]


def fake_dist(
    site: Path,
    name: str,
    entry_points: str = "",
    top_level: str | None = None,
    requires: tuple[str, ...] = (),
    record: tuple[str, ...] | None = None,
) -> Path:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n"
    meta += "".join(f"Requires-Dist: {r}\n" for r in requires)
    (info / "METADATA").write_text(meta)
    if entry_points:
        (info / "entry_points.txt").write_text(entry_points)
    if top_level is not None:
        (info / "top_level.txt").write_text(top_level)
    if record is not None:
        (info / "RECORD").write_text("".join(f"{f},,\n" for f in record))
    return info


def league_file(path: Path, bots: str, first: str = "planner") -> Path:
    path.write_text(
        'name = "t"\nedition = "classic"\nplayers = 3\ndeals = 1\n'
        f'[bots]\n{first} = "{first}"\nrandom = "random"\n{bots}\n'
    )
    return path


# -- 1. a malformed entry_points.txt of an unrelated package ------------------
@pytest.mark.slow
def test_a_malformed_entry_points_file_breaks_nothing(site, tmp_path):
    fake_dist(site, "foo", "[bohnarena.bots]\nplanner\n[console_scripts\n")
    listing = run("bots")
    assert listing.exit_code == 0, listing.output
    assert "planner" in listing.output and "skipped distribution foo" in listing.output
    assert run("play", "-q", "planner", "random", "trader").exit_code == 0
    out = tmp_path / "out"
    league = league_file(tmp_path / "l.toml", 'trader = "trader"')
    r = run("run", league, "--out", out, "-j", "1", "--no-progress")
    assert r.exit_code == 0, r.output


@sandboxed
# -- 2. two distributions registering one name ---------------------------------
def test_a_name_two_distributions_register_is_an_error_naming_both(site, tmp_path):
    fake_dist(site, "evil", "[bohnarena.bots]\nplanner = evil.bot:Planner\n")
    fake_dist(site, "foo", "[bohnarena.bots]\ndupe = foo.bot:Dupe\n")
    fake_dist(site, "bar", "[bohnarena.bots]\ndupe = bar.bot:Dupe\n")
    r = run("play", "-q", "planner", "random", "trader")
    one_line_error(r, "'planner' is registered by 2 distributions")
    assert f"bohnarena {__version__}" in r.output and "evil 1.0" in r.output
    with pytest.raises(BotLoadError, match=r"foo 1\.0.*bar 1\.0|bar 1\.0.*foo 1\.0"):
        load_bot("dupe", object)
    with pytest.raises(BotLoadError, match="registered by 2"):
        locate("dupe")
    out = tmp_path / "out"
    league = league_file(tmp_path / "l.toml", 'dupe = "dupe"', first="trader")
    one_line_error(run("run", league, "--out", out, "--no-progress"), "'dupe' is registered by 2")
    assert not out.exists()
    sandboxed = league_file(
        tmp_path / "s.toml", 'dupe = { spec = "dupe", isolation = "subprocess" }', first="trader"
    )
    one_line_error(
        run("run", sandboxed, "--out", out, "--no-progress"), "'dupe' is registered by 2"
    )
    assert not out.exists()
    # the listing shows the clash for every registration instead of failing
    listing = run("bots")
    assert listing.exit_code == 0, listing.output
    dupes = [line for line in listing.output.splitlines() if line.startswith("dupe ")]
    assert len(dupes) == 2 and all("name clash" in line for line in dupes)
    planners = [line for line in listing.output.splitlines() if line.startswith("planner ")]
    assert {"bohnarena", "evil"} <= {w for line in planners for w in line.split()}
    assert any("evil 1.0 registers it too" in line for line in planners)


# -- 3. `bots`: the game, load problems, --no-load -----------------------------
SIDEFX_INIT = """\
import os
with open({marker!r}, "a") as f:
    f.write(f"{{os.getpid()}}\\n")
"""

SIDEFX_BOT = """\
from bohnarena.bohnanza import Bot

class SideBot(Bot):
    name = "sidefx"
"""


def make_sidefx(site: Path, tmp_path: Path) -> Path:
    """A plugin package whose __init__ records the pid of every process that imports it."""
    marker = tmp_path / "imported-by"
    pkg = site / "sidefx"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(SIDEFX_INIT.format(marker=str(marker)))
    (pkg / "bot.py").write_text(SIDEFX_BOT)
    fake_dist(
        site,
        "sidefx",
        "[bohnarena.bots]\nsidefx = sidefx.bot:SideBot\n",
        "sidefx\n",
        requires=("six", "pytest>=8 ; extra == 'test'", "not-installed-anywhere"),
    )
    return marker


def importers(marker: Path) -> list[int]:
    return [int(x) for x in marker.read_text().split()] if marker.exists() else []


def test_bots_lists_each_bots_game_and_why_a_plugin_does_not_load(site, tmp_path):
    marker = make_sidefx(site, tmp_path)
    fake_dist(
        site,
        "broken",
        "[bohnarena.bots]\nbroken = no_such_module_xyz:Bot\nnotabot = os.path:join\n",
    )
    quiet = run("bots", "--no-load")
    assert quiet.exit_code == 0, quiet.output
    assert not marker.exists()  # --no-load imports nothing
    r = run("bots")
    assert r.exit_code == 0, r.output
    lines = {line.split()[0]: line for line in r.output.splitlines()}
    assert lines["planner"].split()[1] == "bohnanza"
    assert lines["wuerfel-greedy"].split()[1] == "wuerfel"
    assert lines["sidefx"].split()[1] == "bohnanza"
    assert "ModuleNotFoundError" in lines["broken"] and "no_such_module_xyz" in lines["broken"]
    assert "not a bot class" in lines["notabot"]
    assert importers(marker) == [os.getpid()]  # listing imports, as its help says


# -- 4. locate(): without importing ---------------------------------------------
@pytest.mark.slow
def test_locating_the_shipped_planner_imports_nothing_of_it():
    code = textwrap.dedent("""\
        import sys
        from bohnarena.core.entry import BotEntry
        from bohnarena.core.plugins import locate
        from bohnarena.run.dispatch import source_hash
        found = locate("planner")
        source_hash(BotEntry("p", spec="planner", isolation="subprocess"), object)
        assert "bohnarena_bots" not in sys.modules, "imported"
        print(found.module, found.attr, found.dist, found.paths["bohnarena_bots"],
              found.paths["bohnarena"], "click" in found.paths)
        """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    module, attr, dist, bots_dir, engine_dir, click = r.stdout.split()
    assert (module, attr, dist, click) == (
        "bohnarena_bots.planner",
        "PlannerBot",
        "bohnarena",
        "True",
    )
    assert (Path(bots_dir) / "planner.py").is_file() and (
        Path(engine_dir) / "core" / "plugins.py"
    ).is_file()


def test_locate_runs_no_package_code_and_follows_requirements(site, tmp_path):
    marker = make_sidefx(site, tmp_path)
    for spec in ("sidefx", "sidefx.bot:SideBot"):
        found = locate(spec)
        assert (found.module, found.attr, found.dist) == ("sidefx.bot", "SideBot", "sidefx")
        assert found.paths["sidefx"] == site / "sidefx"
        assert found.paths["six"].name == "six.py"  # a runtime requirement
        assert "pytest" not in found.paths and "_pytest" not in found.paths  # an extra's
        assert "bohnarena" not in found.paths  # not a declared requirement
    assert not marker.exists() and "sidefx" not in sys.modules
    before = locate("sidefx").source_hash()
    assert source_hash(BotEntry("s", spec="sidefx", isolation="subprocess"), object)
    (site / "sidefx" / "bot.py").write_text(SIDEFX_BOT + "# changed\n")
    assert locate("sidefx").source_hash() != before
    assert not marker.exists()
    with pytest.raises(BotLoadError, match=r"cannot find module sidefx\.nope"):
        locate("sidefx.nope:X")
    with pytest.raises(BotLoadError, match="cannot find module no_such_top"):
        locate("no_such_top.mod:X")


def test_locate_a_file_spec_and_a_module_without_a_distribution(site, tmp_path):
    bot = tmp_path / "mine.py"
    bot.write_text(SIDEFX_BOT)
    found = locate(f"{bot}:SideBot")
    assert (found.module, found.attr, found.dist, found.file) == ("mine", "SideBot", None, bot)
    assert dict(found.paths) == {"mine": tmp_path}
    pkg = site / "loose" / "sub"
    pkg.mkdir(parents=True)
    (site / "loose" / "__init__.py").write_text("raise SystemExit('imported')\n")
    (pkg / "__init__.py").write_text("")
    (pkg / "b.py").write_text(SIDEFX_BOT)
    loose = locate("loose.sub.b:SideBot")
    assert loose.dist is None and dict(loose.paths) == {"loose": site / "loose"}


def test_top_levels_come_from_the_record_when_there_is_no_top_level_txt(site):
    (site / "wheelmod.py").write_text("")
    (site / "wheelpkg").mkdir()
    (site / "wheelpkg" / "__init__.py").write_text("raise SystemExit('imported')\n")
    (site / "wheelpkg.libs").mkdir()
    info = fake_dist(
        site,
        "wheelish",
        record=(
            "wheelmod.py",
            "wheelpkg/__init__.py",
            "wheelpkg.libs/libx.so",
            "../../../bin/tool",
            "__editable__.wheelish-1.0.pth",
            "__editable___wheelish_finder.py",
            "__pycache__/x.pyc",
            "wheelish-1.0.dist-info/METADATA",
            "README.txt",
        ),
    )
    from importlib.metadata import PathDistribution

    dist = PathDistribution(info)
    assert plugins._top_levels(dist) == ["wheelmod", "wheelpkg", "wheelpkg.libs"]
    assert plugins._top_path("wheelmod", dist) == site / "wheelmod.py"
    assert plugins._top_path("wheelpkg", dist) == site / "wheelpkg"
    assert plugins._top_path("wheelpkg.libs", dist) == site / "wheelpkg.libs"


# -- 5. out-of-process bots start before a league writes anything ------------
@sandboxed
@pytest.mark.parametrize(
    "bot,message",
    [
        ('cmd = { command = ["no-such-program-xyz"] }', "cannot start no-such-program-xyz"),
        (
            'cmd = { command = ["bash", "-c", "echo it broke >&2; exit 3"] }',
            "exited with code 3; its stderr ends: it broke",
        ),
        ('cmd = { command = ["bash", "-c", "read line; echo not json"] }', "protocol: not JSON"),
        (
            'bad = { spec = "no_such_module_xyz:Bot", isolation = "subprocess" }',
            "cannot find module no_such_module_xyz",
        ),
    ],
)
def test_a_bot_that_does_not_start_stops_the_league_before_it_writes(tmp_path, bot, message):
    out = tmp_path / "out"
    league = league_file(tmp_path / "l.toml", bot)
    r = run("run", league, "--out", out, "--no-progress")
    one_line_error(r, message)
    assert not out.exists()


@sandboxed
def test_an_import_error_inside_the_sandbox_is_reported_up_front(tmp_path):
    bot = tmp_path / "fails.py"
    bot.write_text("import no_such_dependency_xyz\n")
    out = tmp_path / "out"
    league = league_file(
        tmp_path / "l.toml", f'f = {{ spec = "{bot}:B", isolation = "subprocess" }}'
    )
    r = run("run", league, "--out", out, "--no-progress")
    one_line_error(r, "bot 'f' does not start: start: the bot does not load in the sandbox")
    assert "No module named 'no_such_dependency_xyz'" in r.output
    assert not out.exists()


@sandboxed
def test_command_paths_resolve_against_the_league_files_directory(tmp_path):
    where = tmp_path / "leagues"
    where.mkdir()
    (where / "first.sh").write_bytes(FIRST_CHOICE.read_bytes())
    league = league_file(where / "l.toml", 'sh = { command = ["bash", "first.sh", "--flag"] }')
    entry = load_league(league).bots["sh"]
    assert entry.command == ("bash", str(where / "first.sh"), "--flag")
    assert Path.cwd() != where
    r = run("run", league, "--out", tmp_path / "out", "-j", "1", "--no-progress")
    assert r.exit_code == 0, r.output


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
@pytest.mark.slow
def test_the_dice_game_runs_sandboxed_bots(tmp_path):
    out = tmp_path / "out"
    league = tmp_path / "w.toml"
    league.write_text(
        'name = "w"\ngame = "wuerfel"\nplayers = 2\ndeals = 1\n'
        '[bots]\na = { spec = "wuerfel-greedy", isolation = "subprocess" }\n'
        'b = "wuerfel-random"\n'
    )
    r = run("run", league, "--out", out, "--no-progress")
    assert r.exit_code == 0 and "2 matches played" in r.output, r.output


@sandboxed
# -- 6. check-bot and play --------------------------------------------------------
def test_check_bot_sandboxes_a_bot_that_is_not_shipped(tmp_path):
    marker = tmp_path / "imported-by"
    bot = tmp_path / "loud.py"
    # In the sandbox the marker's directory cannot be written: the import fails there.
    bot.write_text("import no_such_dependency_xyz\n" + SIDEFX_INIT.format(marker=str(marker)))
    r = run("check-bot", f"{bot}:B")
    assert r.exit_code == 2, r.output
    assert "the bot's stderr ends with:" in r.output
    assert r.output.strip().splitlines()[-1].startswith("Error: bot ")
    assert "No module named 'no_such_dependency_xyz'" in r.output.strip().splitlines()[-1]
    assert os.getpid() not in importers(marker)
    bot.write_text(SIDEFX_INIT.format(marker=str(marker)) + "import no_such_dependency_xyz\n")
    here = run("check-bot", f"{bot}:B", "--isolation", "inprocess")
    one_line_error(here, "No module named 'no_such_dependency_xyz'")
    assert os.getpid() in importers(marker)


@sandboxed
def test_check_bot_of_an_unknown_spec_is_one_line():
    one_line_error(run("check-bot", "no_such_module_xyz:Bot"), "cannot find module")
    r = run("check-bot", "--command", "no-such-program-xyz")
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert r.output.strip().splitlines()[-1].startswith("Error: bot ")
    assert "cannot start no-such-program-xyz" in r.output.strip().splitlines()[-1]


@sandboxed
def test_play_seats_command_bots_and_sandboxed_bots():
    r = run("play", "-q", "planner", "random", f"cmd:bash {FIRST_CHOICE}")
    assert r.exit_code == 0, r.output
    assert "first_choice.sh" in r.output and "Winner:" in r.output
    s = run("play", "-q", "--isolation", "subprocess", "planner", "random", "trader")
    assert s.exit_code == 0, s.output
    assert "planner" in s.output and "faults" not in s.output
    assert "cmd:" in run("play", "--help").output


@sandboxed
@pytest.mark.parametrize(
    "args,message",
    [
        (["cmd:", "planner", "planner"], "needs a command line"),
        (["cmd:no-such-program-xyz", "planner", "planner"], "cannot start no-such-program-xyz"),
        (["cmd:bash -c 'exit 4", "planner", "planner"], "cannot split"),
        (
            ["--isolation", "subprocess", "no_such_module_xyz:Bot", "planner", "planner"],
            "cannot find module",
        ),
        (
            ["--isolation", "bogus", "planner", "planner", "planner"],
            "Invalid value for '--isolation'",
        ),
    ],
)
def test_bad_play_bots_are_one_line(args, message):
    r = run("play", "-e", "classic", *args)
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output
    if "Invalid value" not in message:  # click's own usage errors print the usage line too
        one_line_error(r, message)


# -- 7. a bot that exits or interrupts as it is imported (issue 22) --------------
AT_IMPORT = {
    "exit0": ("import sys\nsys.exit(0)\n", "SystemExit: 0"),
    "exit3": ("import sys\nsys.exit(3)\n", "SystemExit: 3"),
    "interrupt": ("raise KeyboardInterrupt\n", "KeyboardInterrupt"),
    "generatorexit": ("raise GeneratorExit\n", "GeneratorExit"),
}
BOT_CLASS = "from bohnarena.bohnanza import Bot\n\nclass B(Bot):\n    pass\n"


def leaving_bot(tmp_path, raises):
    bot = tmp_path / "leaves.py"
    bot.write_text(AT_IMPORT[raises][0] + BOT_CLASS)
    return bot


def the_commands(tmp_path, bot, isolation):
    """run, play and check-bot of ``bot``, each: (argv, what the error names)."""
    league = league_file(
        tmp_path / "l.toml", f'leaves = {{ spec = "{bot}:B", isolation = "{isolation}" }}'
    )
    return {
        "run": (["run", league, "--out", tmp_path / "out", "--no-progress"], "'leaves'"),
        "play": (["play", "-q", "--isolation", isolation, f"{bot}:B", "planner", "planner"], bot),
        "check-bot": (["check-bot", f"{bot}:B", "--isolation", isolation], bot),
    }


@pytest.mark.parametrize("raises", AT_IMPORT)
@pytest.mark.parametrize("isolation", ["inprocess", pytest.param("sandbox", marks=SANDBOX_MARKS)])
def test_an_exit_or_interrupt_at_import_is_a_load_error_naming_the_bot(tmp_path, raises, isolation):
    """sys.exit(0) at import made run and play exit 0 and write nothing;
    a KeyboardInterrupt read as the user's Ctrl-C (130)."""
    bot = leaving_bot(tmp_path, raises)
    for command, (argv, names) in the_commands(tmp_path, bot, isolation).items():
        r = run(*argv)
        assert r.exit_code == 2, (command, r.exit_code, r.output)
        last = r.output.strip().splitlines()[-1]
        assert last.startswith("Error: ") and str(names) in last, (command, r.output)
        assert AT_IMPORT[raises][1] in last, (command, r.output)
        # one line; check-bot quotes the end of a sandboxed bot's stderr above it
        said = [line for line in r.output.splitlines() if not line.startswith("  | ")]
        assert "Traceback" not in "\n".join(said), (command, r.output)
        assert len(said) == 1 or said[:1] == ["the bot's stderr ends with:"], (command, r.output)
    assert not (tmp_path / "out").exists()


def test_a_registered_bot_that_exits_at_import_is_listed_and_refused(site, tmp_path):
    (site / "quitter.py").write_text("import sys\nsys.exit(0)\n")
    fake_dist(site, "quitter", "[bohnarena.bots]\nquitter = quitter:Bot\n", "quitter\n")
    (site / "stopper.py").write_text("raise KeyboardInterrupt\n")
    fake_dist(site, "stopper", "[bohnarena.bots]\nstopper = stopper:Bot\n", "stopper\n")
    listing = run("bots")
    assert listing.exit_code == 0, listing.output
    lines = {line.split()[0]: line for line in listing.output.splitlines()}
    assert "SystemExit: 0" in lines["quitter"] and "KeyboardInterrupt" in lines["stopper"]
    one_line_error(run("play", "-q", "quitter", "planner", "planner"), "SystemExit: 0")
    by_module = run("play", "-q", "quitter:Bot", "planner", "planner")
    one_line_error(by_module, "importing quitter raised SystemExit: 0")


@pytest.mark.slow
def test_the_users_ctrl_c_during_a_bots_import_still_stops(tmp_path):
    """A SIGINT that really arrives while a bot is imported is the user's: 130."""
    bot = tmp_path / "slow.py"
    bot.write_text(
        "import os, signal, time\nos.kill(os.getpid(), signal.SIGINT)\ntime.sleep(5)\n" + BOT_CLASS
    )
    r = subprocess.run(
        [sys.executable, "-m", "bohnarena", "play", "-q", f"{bot}:B", "planner", "planner"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 130, (r.returncode, r.stderr)
    assert r.stderr.strip() == "Interrupted." and "Traceback" not in r.stderr


def test_where_no_ctrl_c_can_arrive_a_keyboard_interrupt_at_import_is_the_bots(tmp_path):
    """A worker ignores SIGINT, and signals reach only the main thread: there
    a KeyboardInterrupt raised by a bot's import is always the bot's."""
    import signal
    import threading

    bot = leaving_bot(tmp_path, "interrupt")
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with pytest.raises(BotLoadError, match="raised KeyboardInterrupt"):
            load_bot(f"{bot}:B", object)
    finally:
        signal.signal(signal.SIGINT, previous)
    raised = []

    def load():
        try:
            load_bot(f"{bot}:B", object)
        except BaseException as e:
            raised.append(e)

    thread = threading.Thread(target=load)
    thread.start()
    thread.join()
    assert isinstance(raised[0], BotLoadError), raised
