"""Any name a submission brings round-trips (issue 43, hole 3): a file bot
named 😀.py stopped every ladder run, because league.toml was written with
json.dumps, whose surrogate escapes TOML forbids. The league file is now
written by a TOML writer, and a name no file could carry back (a control
character, bytes that are not UTF-8, a path or line separator) is refused at
submit in one line."""

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bohnarena.bohnanza import Bot
from bohnarena.core.plugins import load_bot
from bohnarena.ladder.catalog import Catalog
from bohnarena.ladder.check import Verdict
from bohnarena.ladder.season import write_league
from bohnarena.ladder.settings import load_settings
from bohnarena.ladder.submission import submit
from bohnarena.ladder.unpack import SubmissionError
from bohnarena.league.file import load_league

from .builders import BOT, file_bot
from .conftest import join, run, run_ok

#: Any code point: letters of every script, emoji, controls, lone surrogates, separators.
NAMES = st.text(st.characters(codec=None, categories=None), min_size=1, max_size=12)


@pytest.fixture(scope="module")
def names_ladder(tmp_path_factory):
    path = tmp_path_factory.mktemp("names") / "ladder"
    assert run("ladder", "init", path).exit_code == 0
    return path


@pytest.mark.slow  # 60 submissions and league files
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=NAMES)
def test_a_name_is_refused_in_one_line_or_read_back_and_loaded(names_ladder, name):
    ladder = names_ladder
    settings_, catalog = load_settings(ladder), Catalog(ladder)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"{name}.py"
            try:
                path.write_text(BOT.format(name="Named"))
            except (OSError, ValueError):  # no file of that name here ("/", NUL, too long)
                return
            try:
                entry = f"e{len(catalog.versions())}"
                version, _ = submit(
                    ladder, settings_, catalog, entry, f"{path}:Named", None, None, accepted
                )
            except SubmissionError as e:
                refused = str(e)
            else:
                refused = ""
        if refused:  # one line, its name shown in ASCII escapes
            assert "\n" not in refused and refused.isascii() and "holds" in refused, refused
            return
        league = load_league(write_league(ladder, settings_, catalog))
        spec = league.bots[version.bot].spec
        assert spec is not None and spec.endswith(f"/{name}.py:Named"), spec
        assert issubclass(load_bot(spec, Bot), Bot)  # the run's own load of it
    finally:
        catalog.close()


def accepted(league, entry):
    return Verdict()


@pytest.mark.parametrize(
    "name, said",
    [
        ("tab\there", "a control character (U+0009)"),
        ("esc\x1b[31m", "a control character (U+001B)"),
        ("\udcff", "bytes that are not UTF-8 (U+DCFF)"),
        ("rtl\u202egnp", "an invisible or unassigned character (U+202E)"),
        ("line\u2028break", "a line separator (U+2028)"),
        ("no\u00a0break", "a space other than U+0020 (U+00A0)"),
        ("back\\slash", "a path separator (U+005C)"),
    ],
)
def test_a_name_that_cannot_round_trip_is_one_line_exit_2(tmp_path, name, said):
    path = tmp_path / f"{name}.py"
    path.write_text(BOT.format(name="Named"))
    home = tmp_path / "ladder"
    assert run("ladder", "init", home).exit_code == 0
    r = run("ladder", "submit", home, "mine", f"{path}:Named")
    assert r.exit_code == 2 and r.output.count("\n") == 1 and said in r.output, r.output
    assert "\x1b" not in r.output


@pytest.mark.slow  # it plays a ladder run
def test_a_bot_named_by_an_emoji_plays_its_ladder_run(ladder, tmp_path):
    text = (ladder / "ladder.toml").read_text()
    text = text.replace("players = 4", "players = 3").replace("deals = 2 ", "deals = 1 ")
    (ladder / "ladder.toml").write_text(text.replace('"sandbox"', '"process"'))
    join(ladder, "ann", file_bot(tmp_path, "Ann"))
    join(ladder, "bob", file_bot(tmp_path, "Bob"))
    smile = tmp_path / "😀.py"
    smile.write_text(BOT.format(name="Smile"))
    join(ladder, "smile", f"{smile}:Smile")
    run_ok(ladder, 3, 0)  # one table, one deal, its three seatings
    assert "😀.py:Smile" in (ladder / "league.toml").read_text("utf-8")
