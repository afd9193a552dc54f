"""``bohnarena run`` and ``merge``: a league run (sharded or not), and shards
merged into one run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..core.errors import UsageError
from ..store import layout
from .group import (
    backend_option,
    cli,
    echo,
    one,
    progress_option,
    secrets_option,
    workers_option,
)

if TYPE_CHECKING:
    from ..run.dispatch import RunSummary


@cli.command()
@click.argument("league_file", type=click.Path(dir_okay=False))
@click.option(
    "--out",
    "-o",
    type=click.Path(file_okay=False),
    default=None,
    help="Results directory. Default: results/<league name>/.",
)
@workers_option
@click.option(
    "--restart", is_flag=True, help="Discard the results directory's earlier run and start over."
)
@click.option("--no-moves", is_flag=True, help="Do not log moves (matches and ranking only).")
@click.option("--no-report", is_flag=True, help="Do not write report.html at the end.")
@progress_option
@click.option(
    "--standings-every",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="A standings line in the run log every N matches (0: none). "
    "Default: ten a run, at least every 1000 matches.",
)
@backend_option
@click.option(
    "--scheduler",
    default=None,
    metavar="tcp://HOST:PORT",
    help="Dask scheduler address; without it --backend dask starts a LocalCluster.",
)
@click.option(
    "--shared-dir/--no-shared-dir",
    default=None,
    help="Dask workers can write to the results directory (a shared file system). "
    "Default: yes for a LocalCluster, no for a remote scheduler.",
)
@click.option(
    "--shard",
    default=None,
    metavar="K/N",
    help="Run only the K-th of N disjoint slices of the league (see `bohnarena merge`).",
)
@secrets_option
def run(
    league_file: str,
    out: str | None,
    workers: int | None,
    restart: bool,
    no_moves: bool,
    no_report: bool,
    progress: bool | None,
    standings_every: int | None,
    backend: str,
    scheduler: str | None,
    shared_dir: bool | None,
    shard: str | None,
    secrets: Path | None,
) -> None:
    """Run a league: every table, deal and seat rotation, across processes.

    Running it again on the same results directory plays only what is
    missing (after Ctrl-C, SIGTERM, a crash or kill -9). On a terminal the
    top of the standings shows under the progress bar as matches finish. Exit code 0 when
    every match was played, 1 when some could not be, 130 when interrupted
    by Ctrl-C (143 by SIGTERM, 129 by SIGHUP).
    """
    from ..external.sandbox.jail import bwrap
    from ..league.file import load_league
    from ..run.dispatch import run_league
    from ..run.execution import DaskBackend

    league = load_league(league_file)  # bad input is reported before any cluster starts
    if any(b.isolation == "sandbox" for b in league.bots.values()):
        bwrap()  # a missing sandbox is the error to see, before any warning

    part = parse_shard(shard)
    if scheduler and backend != "dask":
        raise UsageError("--scheduler goes with --backend dask")
    pool = DaskBackend(scheduler, workers or 0, shared_dir) if backend == "dask" else None
    summary = run_league(
        league,  # parsed once
        out,
        workers,
        restart,
        False if no_moves else None,
        progress,
        backend=pool,
        shard=part,
        warn=lambda text: echo(f"Warning: {text}", err=True),
        standings_every=standings_every,
        secrets_dir=secrets,
        note=echo,
    )
    ended(summary, not no_report)


def ended(summary: RunSummary, report: bool = True) -> None:
    """What a run says when it ends (``run``, ``ladder run``): its ranking,
    report and counts, or how to resume it; the exit code of an interrupted
    run or of one whose matches could not all be played."""
    if summary.interrupted:
        echo(
            f"Interrupted: {summary.done_before + summary.played} of {summary.total} matches "
            f"are saved in {summary.out}; run the same command again to resume.",
            err=True,
        )
        sys.exit(summary.exit_code)
    if summary.ranking is not None:
        echo(summary.ranking.to_text())
        from ..store.faultlog import faults_text
        from .rank import fault_summary

        faults = fault_summary(summary.out, summary.ranking)
        if faults:
            echo(faults_text(faults, [s.bot for s in summary.ranking.standings]))
        if report:
            from ..report.html import write_report
            from ..report.watch import write_pages

            written = write_report(summary.out, results=summary.results, watch=write_pages)
            echo(f"report: {written}")
    if summary.chain_head is not None:
        echo(f"chain head: {summary.chain_head}")
    echo(
        f"{summary.played} matches played now, {summary.done_before} before; "
        f"results in {summary.out}"
    )
    if summary.errors:
        echo(
            f"Error: {len(summary.errors)} matches could not be played "
            f"(see {summary.out / layout.ERRORS}): {one(summary.errors[0][1])}",
            err=True,
        )
        sys.exit(1)


def parse_shard(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    k, sep, n = text.partition("/")
    if not (sep and k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise UsageError(f"--shard takes K/N with 1 <= K <= N, not {text!r}")
    return int(k), int(n)


@cli.command()
@click.argument("out", type=click.Path(file_okay=False))
@click.argument("dirs", nargs=-1, required=True, type=click.Path(file_okay=False))
def merge(out: str, dirs: tuple[str, ...]) -> None:
    """Merge shard directories (bohnarena run --shard K/N) of one league into OUT.

    Refuses directories of different leagues, and matches two of them hold.
    OUT is then a run like any other: rank it, replay it, or run the league
    on it to finish what the shards did not.
    """
    from ..run.rankfiles import merge_and_rank

    ranking, done, total = merge_and_rank(out, [*dirs])
    echo(ranking.to_text())
    echo(
        f"merged {len(done)} of {total} matches from {len(dirs)} directories into {out}"
        + ("" if len(done) == total else f"; run the league with --out {out} to finish it")
    )
