"""What a submitted bot may import (issue 24, part 2): out of process, the
standard library, bohnarena, its own code and the packages its league lists
(``packages = [...]``; bohnarena's shipped bots by default); anything else
fails before the league starts, with one line that names the module and the
setting. And command bots as the docs show them (part 3): ``node bot.js``
in check-bot and in a league, a failing one's first error line shown."""

import multiprocessing
import os
import shutil
import signal
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.core.entry import DEFAULT_PACKAGES
from bohnarena.external.packages import PackageError, allowed_code, not_allowed
from bohnarena.league.file import parse_league
from bohnarena.run.provenance import telling
from tests.conftest import SANDBOX_MARKS, sandboxed

#: A file bot built on a shipped bot, as the docs suggest, that may also
#: import numpy (the rl and test extras install it).
BOT = textwrap.dedent("""\
    {imports}
    from bohnarena_bots.planner import PlannerBot

    class Mine(PlannerBot):
        pass
    """)

LEAGUE = (
    'name = "imports"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 3\n{packages}'
    '[run]\nisolation = "{isolation}"\n[bots]\nmine = "{bot}:Mine"\nplanner = "planner"\n'
    'random = "random"\n'
)


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def league(tmp_path, isolation, imports="", packages=""):
    bot = tmp_path / "mine.py"
    bot.write_text(BOT.format(imports=imports))
    path = tmp_path / "l.toml"
    path.write_text(LEAGUE.format(packages=packages, isolation=isolation, bot=bot))
    return path


ISOLATIONS = [
    pytest.param("sandbox", marks=SANDBOX_MARKS),
    pytest.param("process", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_bot_imports_the_shipped_bots_by_default(tmp_path, isolation):
    r = run("run", league(tmp_path, isolation), "--out", tmp_path / "out", "--no-progress")
    assert r.exit_code == 0, r.output
    assert "error" not in r.output, r.output


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_package_the_league_does_not_list_is_refused_in_one_line(tmp_path, isolation):
    path = league(tmp_path, isolation, imports="import numpy")
    r = run("run", path, "--out", tmp_path / "out", "--no-progress")
    assert r.exit_code == 2, r.output
    (line,) = r.output.strip().splitlines()
    assert "it imports numpy, which it may not" in line and "packages = " in line, line
    assert "Traceback" not in r.output
    assert not (tmp_path / "out" / "matches").exists() or not any(
        (tmp_path / "out" / "matches").iterdir()
    )


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_package_the_league_lists_is_importable(tmp_path, isolation):
    listed = f"packages = {[*DEFAULT_PACKAGES, 'numpy']!r}\n".replace("'", '"')
    path = league(tmp_path, isolation, imports="import numpy", packages=listed)
    r = run("run", path, "--out", tmp_path / "out", "--no-progress")
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_listing_packages_replaces_the_default(tmp_path, isolation):
    path = league(tmp_path, isolation, packages='packages = ["numpy"]\n')
    r = run("run", path, "--out", tmp_path / "out", "--no-progress")
    assert r.exit_code == 2 and "it imports bohnarena_bots, which it may not" in r.output


@pytest.mark.slow
@sandboxed
def test_check_bot_takes_packages_and_names_the_option(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text(BOT.format(imports="import numpy"))
    refused = run("check-bot", "mine.py:Mine")
    assert refused.exit_code == 2 and "--package numpy" in refused.output, refused.output
    listed = ("--package", "bohnarena_bots", "--package", "numpy")
    passed = run("check-bot", "mine.py:Mine", *listed, "--game", "bohnanza")
    assert passed.exit_code == 0 and "PASS" in passed.output, passed.output


@pytest.mark.slow
def test_in_process_check_bot_warns_that_nothing_is_enforced(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text(BOT.format(imports="import numpy"))
    r = CliRunner().invoke(cli, ["check-bot", "mine.py:Mine", "--isolation", "inprocess"])
    assert "warning: in process a bot can import anything" in r.output, r.output


def test_a_package_that_is_not_installed_is_a_usage_error():
    with pytest.raises(PackageError, match="'no_such_package_here' is not installed"):
        allowed_code(("no_such_package_here",))


def test_packages_are_checked_in_the_league_file():
    data = {"name": "x", "players": 3, "deals": 1, "bots": {"a": "random", "b": "random"}}
    assert parse_league(data).bots["a"].packages == DEFAULT_PACKAGES
    listed = parse_league({**data, "packages": ["numpy", "numpy"]})
    assert listed.bots["b"].packages == ("numpy",)
    for bad in ("numpy", [1], ["../x"]):
        with pytest.raises(Exception, match="packages must be"):
            parse_league({**data, "packages": bad})


def test_what_is_shown_of_a_package_and_its_requirements():
    code = allowed_code(("pandas",))  # pandas needs numpy (and more) to import
    assert {"pandas", "numpy"} <= set(code)
    own = allowed_code(DEFAULT_PACKAGES)  # bohnarena's bots, not the engine's requirements
    assert set(own) == {"bohnarena_bots"} and "pyarrow" not in own


def test_the_missing_module_is_named_only_when_it_is_not_allowed():
    text = "ModuleNotFoundError: No module named 'numpy'"
    assert "it imports numpy, which it may not" in not_allowed(text, DEFAULT_PACKAGES)
    assert not_allowed(text, ("numpy",)) is None
    assert "not installed here" in not_allowed("No module named 'zzz_nothing'", ())
    assert not_allowed("crash: exited with code 1", ()) is None


def test_the_first_error_line_of_stderr_is_shown():
    node = ["node:internal/modules/cjs/loader:1228", "Error: Cannot find module 'left-pad'"]
    node += ["    at x"] * 12 + ["Node.js v20.20.2"]
    assert "says: Error: Cannot find module 'left-pad'" in telling(node)
    assert telling(["Traceback", "ValueError: no"]) == "; its stderr ends: ValueError: no"
    assert telling([]) == ""


NODE_BOT = textwrap.dedent("""\
    // A bot in JavaScript: it plays the engine's default answer.
    const lines = require("readline").createInterface({ input: process.stdin });
    lines.on("line", (line) => {
      const message = JSON.parse(line);
      if (message.type === "start") console.log(JSON.stringify({ decisions: [] }));
      else if (message.type !== "end") console.log(JSON.stringify({ answer: message.default }));
    });
    """)

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js (node)")


@needs_node
@sandboxed
def test_node_bot_js_as_the_docs_show_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.js").write_text(NODE_BOT)
    (tmp_path / "broken.js").write_text('require("left-pad");\n')
    (tmp_path / "l.toml").write_text(
        'name = "js"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 3\n'
        '[bots]\njs = { command = ["node", "bot.js"] }\nplanner = "planner"\nrandom = "random"\n'
    )
    played = run("run", "l.toml", "--no-progress")
    assert played.exit_code == 0 and "errors" not in played.output, played.output
    broken = run("check-bot", "--command", "node broken.js")
    assert broken.exit_code == 2, broken.output
    assert "Cannot find module 'left-pad'" in broken.output.strip().splitlines()[-1]


@needs_node
@pytest.mark.slow
@sandboxed
def test_check_bot_passes_node_bot_js(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.js").write_text(NODE_BOT)
    checked = run("check-bot", "--command", "node bot.js")
    assert checked.exit_code == 0 and "PASS" in checked.output, checked.output


def made_in_a_child(queue, go, die):
    from bohnarena.external import linkdirs
    from bohnarena.external.sandbox import jail

    queue.put(str(linkdirs.importable(dict(allowed_code(DEFAULT_PACKAGES)), jail.PACKAGE)))
    queue.close()
    queue.join_thread()  # the path sent before anything else happens
    if die:  # as a worker the pool kills: no finalizer runs
        os.kill(os.getpid(), signal.SIGKILL)
    go.get(timeout=60)  # alive until told


def make_in_a_child(die: bool):
    fork = multiprocessing.get_context("fork")
    made, go = fork.Queue(), fork.Queue()
    child = fork.Process(target=made_in_a_child, args=(made, go, die))
    child.start()
    return child, Path(made.get(timeout=60)), go


def test_a_process_bots_import_directory_goes_with_the_worker_that_made_it(monkeypatch):
    # A pool worker ends in os._exit: no atexit handler runs there.
    from bohnarena.external import linkdirs

    monkeypatch.setattr(linkdirs, "_IMPORTABLE", {})
    child, made, go = make_in_a_child(die=False)
    go.put(None)
    child.join(60)
    assert child.exitcode == 0 and made.name.startswith("bohnarena-lib-")
    assert not made.exists()


def test_a_killed_workers_import_directory_goes_with_the_next_one_made(monkeypatch):
    from bohnarena.external import linkdirs

    monkeypatch.setattr(linkdirs, "_IMPORTABLE", {})
    killed, orphan, _ = make_in_a_child(die=True)
    killed.join(60)
    living, held, go = make_in_a_child(die=False)
    assert killed.exitcode == -signal.SIGKILL and orphan.exists() and held.exists()
    for young in (orphan, held):  # both past the grace a maker has to take its lock
        past = time.time() - 2 * linkdirs.GRACE
        os.utime(young / linkdirs.ALIVE, (past, past))
    linkdirs.sweep()  # what making the next one does first
    assert not orphan.exists()
    assert held.exists()  # its maker lives and holds the lock
    go.put(None)
    living.join(60)
    assert not held.exists()
