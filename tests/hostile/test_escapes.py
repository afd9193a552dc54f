"""Every text that came from a bot is escaped wherever it is written or
shown (issue 22, part 6): its exception's text and class name, the source
lines of its traceback, its stderr, its distribution's version. Terminal
escapes (a window title, a cleared screen), bidirectional controls and
lone surrogates reach neither the run log, errors.json, the report nor the
terminal output of run, play, check-bot and bots."""

import json
import sys
import textwrap

import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.core.plugins import load_bot, registered
from tests.conftest import sandboxed

#: A window title, a cleared screen and a right-to-left override.
EVIL = "\x1b]0;pwned\x07\x1b[2J\u202e"

#: A plugin distribution whose bots raise it (class name, message, and a
#: source line that holds it), make the engine itself raise it, and raise a
#: lone surrogate; its version holds it too.
PLUGIN = textwrap.dedent("""\
    from bohnarena.bohnanza import Bot

    EVIL = {evil!r}
    Evil = type("Evil" + EVIL, (Exception,), {{}})


    class Noisy(Bot):
        def plant_second(self, view):
            raise Evil(EVIL)  # {raw}


    class Surrogate(Bot):
        def plant_second(self, view):
            raise ValueError("\\ud800" + EVIL)


    class Breaks(Bot):
        def plant_second(self, view):
            def record(rec):
                raise RuntimeError(EVIL + "\\ud800\\nFORGED: every match played")

            view._table.record = record  # the engine's next record raises the bot's text
            return False
    """)


def clean(text):
    """No character that is not printable but a line break."""
    bad = {c for c in text.replace("\r\n", "\n") if not c.isprintable() and c != "\n"}
    assert not bad, sorted(bad)


def clean_file(path):
    clean(path.read_bytes().decode("utf-8"))  # (a lone surrogate does not even decode)


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    site = tmp_path / "site"
    (site / "evilbot").mkdir(parents=True)
    (site / "evilbot" / "__init__.py").write_text(PLUGIN.format(evil=EVIL, raw=EVIL))
    info = site / "evilbot-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_bytes(
        f"Metadata-Version: 2.1\nName: evilbot\nVersion: 1.0{EVIL}\n".encode()
    )
    (info / "top_level.txt").write_text("evilbot\n")
    (info / "entry_points.txt").write_text(
        "[bohnarena.bots]\nnoisy = evilbot:Noisy\nsurrogate = evilbot:Surrogate\n"
        "breaks = evilbot:Breaks\n"
    )
    monkeypatch.syspath_prepend(str(site))
    registered.cache_clear()
    load_bot.cache_clear()
    yield site
    registered.cache_clear()
    load_bot.cache_clear()
    for name in [m for m in sys.modules if m.startswith("evilbot")]:
        del sys.modules[name]


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.slow
def test_a_bots_text_is_escaped_in_the_run_log_errors_report_and_terminal(tmp_path, plugin):
    league = tmp_path / "l.toml"
    league.write_text(
        'name = "l"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 3\n'
        '[bots]\nnoisy = "noisy"\nsurrogate = "surrogate"\nbreaks = "breaks"\n'
        'planner = "planner"\n'
    )
    out = tmp_path / "out"
    r = run("run", league, "--out", out, "-j", "1", "--no-progress")
    assert r.exit_code == 1 and "matches could not be played" in r.output, r.output
    clean(r.output)
    assert "\\nFORGED" in r.output and "\nFORGED" not in r.output  # no line of its own
    log = (out / "run.log").read_bytes().decode("utf-8")
    clean(log)
    # Every record is there (none lost to a lone surrogate), its text escaped;
    # no line of a record reads as a record of its own.
    assert "\\x1b]0;pwned\\x07\\x1b[2J\\u202e" in log
    assert "raise Evil(EVIL)  # \\x1b]0;pwned" in log  # the source line
    assert "raised ValueError: \\ud800" in log
    assert "match " in log and "failed: RuntimeError: \\x1b]0;pwned" in log
    assert all(line[:4].isdigit() or line.startswith("  ") for line in log.splitlines()), log
    errors = (out / "errors.json").read_text("ascii")
    clean(errors)
    assert EVIL in json.loads(errors)[0]["reason"]  # the organiser's record keeps it, escaped
    clean_file(out / "report.html")
    assert "1.0\\x1b]0;pwned" in (out / "report.html").read_text()  # the plugin's version
    listing = run("bots")
    assert "noisy" in listing.output
    clean(listing.output)


#: A file bot that does not load: it writes the escapes (and bytes that are
#: not UTF-8) to its stderr and raises them.
BROKEN = (
    "import os\n"
    f"os.write(2, {(EVIL + ' at import').encode()!r} + b' \\xed\\xa0\\x80\\n')\n"
    f"raise ImportError({EVIL!r} + '\\ud800')\n"
)


@sandboxed
@pytest.mark.parametrize(
    "command",
    [
        ["check-bot", "{bot}:B"],
        ["play", "--isolation", "sandbox", "{bot}:B", "planner", "random"],
        ["run", "{league}", "--out", "{out}", "--no-progress"],
    ],
    ids=["check-bot", "play", "run"],
)
def test_a_bots_stderr_and_load_error_are_escaped_on_the_terminal(tmp_path, command):
    bot = tmp_path / "broken.py"
    bot.write_text(BROKEN)
    league = tmp_path / "l.toml"
    league.write_text(
        'name = "l"\nedition = "classic"\nplayers = 3\ndeals = 1\n'
        f'[bots]\nb = {{ spec = "{bot}:B", isolation = "sandbox" }}\n'
        'planner = "planner"\nrandom = "random"\n'
    )
    args = [a.format(bot=bot, league=league, out=tmp_path / "out") for a in command]
    r = run(*args)
    assert r.exit_code == 2, r.output
    clean(r.output)
    last = r.output.strip().splitlines()[-1]
    assert last.startswith("Error: bot ") and "\\x1b]0;pwned" in last, r.output
    assert "Traceback" not in r.output
    assert not (tmp_path / "out").exists()
