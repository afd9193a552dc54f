"""``bohnarena ladder``: a ladder that takes submissions at any time
(docs/ladder.md): init, submit, retire, list, run, rank, history, report,
season new and season end (docs/fairness.md)."""

from __future__ import annotations

import sys
import time
from functools import partial
from itertools import groupby
from pathlib import Path

import click

from ..store import layout
from .group import backend_option, cli, echo, one, progress_option, secrets_option, workers_option
from .run import ended

ladder_arg = click.argument("ladder", type=click.Path(file_okay=False, path_type=Path))


@cli.group()
def ladder() -> None:
    """A ladder: bots and new versions submitted at any time, each checked
    in the sandbox before it plays, then played as a league that grows."""


@ladder.command("init")
@ladder_arg
def init(ladder: Path) -> None:
    """Make LADDER: its settings (ladder.toml, to edit before the first
    submission) and its catalog."""
    from ..ladder.catalog import Catalog
    from ..ladder.settings import SETTINGS, TEMPLATE, LadderError, load_settings
    from ..ladder.submission import BOTS, INCOMING

    settings = ladder / SETTINGS
    if settings.exists():
        raise LadderError(f"{ladder} is a ladder already ({settings} exists)")
    try:
        ladder.mkdir(parents=True, exist_ok=True)
        name = ladder.resolve().name
        settings.write_text(TEMPLATE.format(name=name), "utf-8")
        for where in (BOTS, INCOMING):
            (ladder / where).mkdir(exist_ok=True)
    except OSError as e:
        raise LadderError(f"cannot make a ladder in {ladder}: {e.strerror or e}") from None
    load_settings(ladder)
    Catalog(ladder, create=True).close()
    echo(f"ladder {ladder}: settings in {settings}, no entries yet")


@ladder.command("submit")
@ladder_arg
@click.argument("name")
@click.argument("source")
@click.option(
    "--bot",
    default=None,
    metavar="NAME|module:Class",
    help="Which bot of a package, wheel or sdist (an entry point's name, or module:Class); "
    "a file's class (or write FILE.py:Class).",
)
@click.option(
    "--command",
    default=None,
    metavar="COMMAND",
    help="SOURCE is a directory and its bot this command line, run in it "
    "(paths relative to SOURCE).",
)
@click.option(
    "--token-env",
    default=None,
    metavar="VAR",
    help="SOURCE is a URL: the environment variable that holds its bearer token, "
    "BOHNARENA_TOKEN_<KEY> (the ladder keeps the name; the token is read when it plays).",
)
@click.option(
    "--token-file",
    default=None,
    metavar="NAME",
    help="SOURCE is a URL: the file of the ladder's secrets directory that holds its "
    "bearer token, by name (the ladder keeps the name).",
)
@secrets_option
@progress_option
def submit(
    ladder: Path,
    name: str,
    source: str,
    bot: str | None,
    command: str | None,
    token_env: str | None,
    token_file: str | None,
    secrets: Path | None,
    progress: bool | None,
) -> None:
    """Submit SOURCE as the new version of entry NAME: a file (FILE.py:Class),
    a package directory, a wheel, an sdist, a directory with --command, or
    the http:// or https:// URL of a bot served over HTTP.

    Nothing of it is installed or runs here: it is copied (or unpacked)
    into the ladder, its declared requirements must be on the ladder's
    packages, and it plays the conformance check of check-bot in the
    sandbox (a URL: against the service) on the ladder's own edition,
    player count and rules: every seat, each match twice (a bar shows it
    on a terminal). Accepted, it retires NAME's
    active version. Rejected by its check: exit code 1 (as check-bot's for
    a failing bot), and nothing changes; refused before it (not a ladder,
    a bad name or file, a requirement not allowed): one line, exit code 2."""
    from ..ladder.catalog import Catalog
    from ..ladder.check import validate
    from ..ladder.settings import load_settings
    from ..ladder.submission import Rejected
    from ..ladder.submission import submit as take
    from .bots import steps

    settings = load_settings(ladder).with_secrets(secrets)
    catalog = Catalog(ladder)
    try:
        with steps(settings.players, "seat", "check", progress) as playing:
            version, old = take(
                ladder,
                settings,
                catalog,
                name,
                source,
                bot,
                command,
                partial(validate, progress=playing),
                token_env,
                token_file,
            )
    except Rejected as e:
        echo(f"Rejected: {one(str(e))}", err=True)
        if e.verdict.stderr:
            echo("the bot's stderr ends with:", err=True)
            for line, times in groupby(e.verdict.stderr):
                again = len(list(times)) - 1
                echo(
                    f"  | {one(line)}" + (f"  (and {again} times more)" if again else ""), err=True
                )
        sys.exit(1)
    finally:
        catalog.close()
    echo(
        f"{version.bot} is active"
        + (f"; {old.bot} is retired" if old else "")
        + ": the next ladder run plays its matches"
    )


@ladder.command("retire")
@ladder_arg
@click.argument("name")
def retire(ladder: Path, name: str) -> None:
    """Retire entry NAME's active version: it leaves the standings at the
    next run; its matches and history stay."""
    from ..ladder.catalog import Catalog

    catalog = Catalog(ladder)
    try:
        old = catalog.retire(name, "retired by the organiser")
    finally:
        catalog.close()
    echo(f"{old.bot} is retired")


@ladder.command("reinstate")
@ladder_arg
@click.argument("name")
def reinstate(ladder: Path, name: str) -> None:
    """Put entry NAME's suspended version back in the league: the next
    ladder run plays it again (docs/ladder.md, "Suspended versions")."""
    from ..ladder.catalog import Catalog

    catalog = Catalog(ladder)
    try:
        version = catalog.reinstate(name)
    finally:
        catalog.close()
    echo(f"{version.bot} is active again: the next ladder run plays it")


@ladder.command("list")
@ladder_arg
def list_versions(ladder: Path) -> None:
    """Every version submitted: its state, when, and why it was rejected,
    retired or suspended."""
    from ..ladder.catalog import Catalog

    catalog = Catalog(ladder)
    try:
        versions = catalog.versions()
    finally:
        catalog.close()
    echo(f"{'version':<24} {'kind':<8} {'state':<10} {'submitted':<16} source / reason")
    for v in versions:
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(v.submitted))
        echo(
            f"{v.bot:<24} {v.kind:<8} {v.state:<10} {when:<16} "
            f"{one(v.source)}{' / ' + one(v.reason) if v.reason else ''}"
        )


@ladder.command("run")
@ladder_arg
@workers_option
@progress_option
@backend_option
@secrets_option
def run_command(
    ladder: Path, workers: int | None, progress: bool | None, backend: str, secrets: Path | None
) -> None:
    """Play every pending match of the active versions: those of versions
    accepted since the last run. Killed, it resumes where it stopped when
    run again. Each version's rating after the run is kept (ladder history).
    Exit codes as for bohnarena run."""
    from ..ladder.season import run_ladder
    from ..ladder.settings import load_settings
    from ..run.execution import DaskBackend

    settings = load_settings(ladder).with_secrets(secrets)
    pool = DaskBackend(None, workers or 0, None) if backend == "dask" else None
    summary = run_ladder(
        ladder,
        settings,
        workers,
        progress,
        pool,
        lambda text: echo(f"Warning: {text}", err=True),
        note=echo,
    )
    ended(summary, report=False)


@ladder.command("rank")
@ladder_arg
def rank(ladder: Path) -> None:
    """The standing table: each active version at its rating after the last
    ladder run (conservative score, mu - 3 sigma); retired versions apart.
    Then the season's seed commitment and chain head (docs/fairness.md)."""
    from ..ladder.catalog import Catalog
    from ..ladder.seasons import fairness
    from ..ladder.standings import standing_table

    catalog = Catalog(ladder)
    try:
        echo(standing_table(catalog))
    finally:
        catalog.close()
    if lines := fairness(ladder):
        echo("\n" + "\n".join(lines))


@ladder.group("season")
def season() -> None:
    """A ladder's seasons: each has one secret seed, committed before its
    first match and revealed at its end (docs/fairness.md)."""


@season.command("end")
@ladder_arg
def season_end(ladder: Path) -> None:
    """Reveal the season's secret seed (results/reveal.json), for anyone to
    check with `bohnarena verify LADDER/results`. No run plays on after it:
    `ladder season new` starts the next season."""
    from ..ladder.seasons import end_season
    from ..ladder.settings import RESULTS, load_settings

    load_settings(ladder)  # (a ladder, or its one-line error)
    revealed = end_season(ladder)
    echo(f"seed: {revealed['seed']}")
    echo(f"salt: {revealed['seed_salt']}")
    echo(f"commitment: {revealed['seed_commitment']}")
    echo(f"season ended: bohnarena verify {ladder / RESULTS}")


@season.command("new")
@ladder_arg
def season_new(ladder: Path) -> None:
    """Start a new season: the current one closed (its seed revealed if it
    was not) and kept under seasons/N, a new secret seed drawn and its
    commitment printed, before any of its matches. The next `ladder run`
    plays every active version afresh under it."""
    from ..ladder.seasons import new_season
    from ..ladder.settings import load_settings

    kept, committed = new_season(ladder, load_settings(ladder))
    if kept is not None:
        echo(f"the season before is closed; its results are kept in {kept}")
    if committed is not None:
        echo(f"seed commitment: {committed}")
    echo(f"the next bohnarena ladder run {ladder} plays the new season")


@ladder.command("history")
@ladder_arg
@click.argument("name", required=False)
def history(ladder: Path, name: str | None) -> None:
    """Each version's rating after each ladder run (of entry NAME only, if given)."""
    from ..ladder.catalog import Catalog
    from ..ladder.settings import LadderError
    from ..ladder.standings import history_table

    catalog = Catalog(ladder)
    try:
        if name is not None and not catalog.versions(name):
            raise LadderError(f"{ladder} has no entry {name!r}")
        echo(history_table(catalog.history(name)))
    finally:
        catalog.close()


@ladder.command("report")
@ladder_arg
def report(ladder: Path) -> None:
    """Write the report of the ladder's league (results/report.html: its
    active versions as the last run left them) and the ratings' history
    as a plot (history.html)."""
    from ..ladder.catalog import Catalog
    from ..ladder.settings import RESULTS, LadderError, load_settings
    from ..ladder.standings import write_history
    from ..report.html import write_report

    settings = load_settings(ladder)
    if not (ladder / RESULTS / layout.RUN_JSON).is_file():
        raise LadderError(f"{ladder} has no results yet: bohnarena ladder run {ladder}")
    echo(f"report: {write_report(ladder / RESULTS)}")
    catalog = Catalog(ladder)
    try:
        echo(f"history: {write_history(ladder, catalog, settings.data['name'])}")
    finally:
        catalog.close()
