import sys

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.cli import cli
from bohnarena.ladder.catalog import Catalog
from bohnarena.ladder.settings import load_settings
from bohnarena.ladder.submission import submit

from .builders import file_bot


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def ladder(tmp_path):
    """A fresh ladder of small leagues (two deals a table)."""
    path = tmp_path / "spring"
    assert run("ladder", "init", path).exit_code == 0
    text = (path / "ladder.toml").read_text()
    (path / "ladder.toml").write_text(text.replace("deals = 10 ", "deals = 2 "))
    return path


@pytest.fixture
def processes(ladder, tmp_path):
    """``ladder`` with four accepted file bots run as processes (their check
    passed unplayed: the run is what is tested): one table, 2 deals, 8 matches."""
    from bohnarena.ladder.catalog import Catalog
    from bohnarena.ladder.check import Verdict
    from bohnarena.ladder.settings import load_settings
    from bohnarena.ladder.submission import submit

    from .builders import file_bot

    text = (ladder / "ladder.toml").read_text()
    text = text.replace('isolation = "sandbox"', 'isolation = "process"')
    (ladder / "ladder.toml").write_text(text)
    settings, catalog = load_settings(ladder), Catalog(ladder)
    for i, name in enumerate(["ann", "bob", "cy", "dee"]):
        bot = file_bot(tmp_path, f"Bot{i}")
        submit(ladder, settings, catalog, name, bot, None, None, lambda *_: Verdict())
    catalog.close()
    return ladder


LADDER = [sys.executable, "-m", "bohnarena", "ladder"]


@pytest.fixture
def field(ladder, tmp_path):
    """A ladder of four accepted file bots run as processes, one match a batch."""
    text = (
        (ladder / "ladder.toml")
        .read_text()
        .replace('isolation = "sandbox"', 'isolation = "process"')
    )
    (ladder / "ladder.toml").write_text(
        text.replace("deals = 2 ", "deals = 6 ") + "batch_size = 1\n"
    )
    settings, catalog = load_settings(ladder), Catalog(ladder)
    for i, name in enumerate(["ann", "bob", "cy", "dee"]):
        submit(ladder, settings, catalog, name, file_bot(tmp_path, f"Bot{i}"), None, None, passed)
    catalog.close()
    return ladder


def match_ids(ladder):
    return pq.read_table(ladder / "results" / "matches", columns=["match_id"])[
        "match_id"
    ].to_pylist()


def passed(league, entry):
    """A check passed unplayed."""
    from bohnarena.ladder.check import Verdict

    return Verdict()


def join(ladder, name, spec, command=None):
    """A new version of ``name``, its check passed unplayed."""
    from bohnarena.ladder.catalog import Catalog
    from bohnarena.ladder.check import Verdict
    from bohnarena.ladder.settings import load_settings
    from bohnarena.ladder.submission import submit

    settings, catalog = load_settings(ladder), Catalog(ladder)
    try:
        return submit(ladder, settings, catalog, name, spec, None, command, lambda *_: Verdict())
    finally:
        catalog.close()


def run_ok(ladder, played, before, *options):
    """``ladder run`` that plays ``played`` matches with ``before`` on disk."""
    r = run("ladder", "run", ladder, *options)
    assert r.exit_code == 0, r.output
    assert f"{played} matches played now, {before} before" in r.output, r.output
    return r
