"""``bohnarena rank`` and ``report``: the ranking and statistics tables,
the HTML report of a results directory."""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..core.errors import UsageError

if TYPE_CHECKING:
    from ..rating.skill import Ranking
    from ..store.faultlog import BotFaults
from .group import (
    bootstrap_seed_option,
    cli,
    echo,
    resamples_option,
)


@cli.command("rank")
@click.argument("results_dir", type=click.Path(file_okay=False))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "csv", "json"]),
    default="text",
    show_default=True,
)
@click.option(
    "--by",
    type=click.Choice(["bot", "seat"]),
    default="bot",
    show_default=True,
    help="seat: each bot's win rate in each seat, instead of the ranking.",
)
@click.option(
    "--head-to-head",
    is_flag=True,
    help="How often each bot finishes ahead of each other one, instead of the ranking.",
)
@resamples_option
@bootstrap_seed_option
def rank_command(
    results_dir: str,
    fmt: str,
    by: str,
    head_to_head: bool,
    resamples: int | None,
    bootstrap_seed: int | None,
) -> None:
    """Rank the bots of a results directory with TrueSkill, with 95% intervals
    from a bootstrap over deals (docs/statistics.md).

    --by seat and --head-to-head show those tables instead (both at once in
    text, Markdown or JSON).
    """
    from ..analysis.results import read_results
    from ..rating.stats import RESAMPLES, SEED, league_stats
    from ..rating.statstables import render

    views = [v for v, on in (("seat", by == "seat"), ("head-to-head", head_to_head)) if on]
    if fmt == "csv" and len(views) > 1:
        raise UsageError("CSV holds one table: give --by seat or --head-to-head, not both")
    data = read_results(results_dir)
    figures = league_stats(
        data.matches,
        RESAMPLES if resamples is None else resamples,
        SEED if bootstrap_seed is None else bootstrap_seed,
    )
    from ..store.faultlog import faults_text

    text = render(fmt, data.ranking, figures, views or ["ranking"]).rstrip("\n")
    faults = fault_summary(results_dir, data.ranking)
    if fmt == "json" and faults is not None:
        parsed = json.loads(text)
        parsed["fault_reasons"] = {bot: asdict(f) for bot, f in faults.items()}
        text = json.dumps(parsed, indent=2)
    elif fmt in ("text", "markdown") and faults:
        text += "\n\n" + faults_text(faults, [s.bot for s in data.ranking.standings])
    committed = data.meta.get("seed_commitment")
    if committed is not None and fmt in ("text", "markdown"):  # docs/fairness.md
        text += f"\n\nseed commitment: {committed}"
        if (head := data.meta.get("chain_head")) is not None:
            text += f"\nchain head: {head}"
    echo(text)


def fault_summary(path: str | Path, ranking: Ranking) -> dict[str, BotFaults] | None:
    """Each faulting bot's faults by type with the first reason (None:
    the run logged no moves); read only when some bot faulted."""
    from ..store.faultlog import fault_reasons

    if not any(s.faults for s in ranking.standings):
        return {}
    return fault_reasons(path)


@cli.command("report")
@click.argument("results_dir", type=click.Path(file_okay=False))
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    default=None,
    help="Where to write the HTML file. Default: RESULTS_DIR/report.html.",
)
@click.option(
    "--no-matches",
    is_flag=True,
    help="Do not write the viewer pages of the notable matches beside the report.",
)
@resamples_option
@bootstrap_seed_option
def report_command(
    results_dir: str,
    output: str | None,
    no_matches: bool,
    resamples: int | None,
    bootstrap_seed: int | None,
) -> None:
    """Write the league report: one self-contained HTML file (leaderboard with
    intervals, convergence, head to head, seats, coins, faults, match length,
    the matches to watch, settings), readable offline, with the viewer pages
    of those matches in matches/ beside it. Works on an interrupted run too."""
    from ..analysis.results import read_results
    from ..rating.stats import RESAMPLES, SEED
    from ..report.html import write_report
    from ..report.watch import write_pages

    start = time.perf_counter()
    results = read_results(results_dir)
    path = write_report(
        results_dir,
        output,
        RESAMPLES if resamples is None else resamples,
        SEED if bootstrap_seed is None else bootstrap_seed,
        results,
        None if no_matches else write_pages,
    )
    echo(
        f"report: {path} ({path.stat().st_size / 1024:,.0f} kB, "
        f"{time.perf_counter() - start:.1f} s)"
    )
