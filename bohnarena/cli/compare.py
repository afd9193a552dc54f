"""``bohnarena compare``: A against B on the same deals and seats, with paired tests or the SPRT."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..core.errors import UsageError
from ..core.game import get_game, sparring_bots
from .group import (
    cli,
    echo,
    edition_option,
    game_option,
    parse_options,
    progress_option,
    rule_option,
)


@cli.command()
@click.argument("a")
@click.argument("b")
@click.option(
    "--results",
    type=click.Path(file_okay=False),
    default=None,
    help="Compare A and B (league bot names) in this results directory instead of playing.",
)
@click.option(
    "--against",
    "opponents",
    multiple=True,
    metavar="[NAME=]SPEC",
    help="An opponent (repeatable). Default: the game's quick shipped bots (not the searcher).",
)
@game_option
@edition_option
@rule_option
@click.option("--players", "-p", type=int, default=4, show_default=True)
@click.option(
    "--deals",
    "-n",
    type=click.IntRange(1),
    default=200,
    show_default=True,
    help="Deals to play (with --sprt: at most).",
)
@click.option("--seed", "-s", type=int, default=1, show_default=True, help="Master seed.")
@click.option("--seatings", type=click.Choice(["rotations", "permutations"]), default="rotations")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default=None,
    help="Results directory. Default: results/compare-A-B/ (run again to resume).",
)
@click.option("--workers", "-j", type=click.IntRange(min=1), default=None)
@click.option("--moves/--no-moves", default=False, help="Log every move (default: off).")
@progress_option
@click.option("--sprt", is_flag=True, help="Stop as soon as a sequential test decides.")
@click.option(
    "--metric",
    type=click.Choice(["coins", "place", "win"]),
    default="coins",
    show_default=True,
    help="What the SPRT tests.",
)
@click.option("--h0", type=float, default=0.0, show_default=True, help="SPRT: A - B under H0.")
@click.option(
    "--h1",
    type=float,
    default=None,
    help="SPRT: A - B under H1. Default: 0.5 coins, 0.1 places or 0.05 wins.",
)
@click.option("--alpha", type=float, default=0.05, show_default=True, help="SPRT: P(H1 | H0).")
@click.option("--beta", type=float, default=0.05, show_default=True, help="SPRT: P(H0 | H1).")
@click.option(
    "--min-deals",
    type=click.IntRange(2),
    default=20,
    show_default=True,
    help="SPRT: deals before it may decide.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: the report as data (schema: docs/compare.schema.json, bohnarena schema --compare).",
)
def compare(
    a: str,
    b: str,
    results: str | None,
    opponents: tuple[str, ...],
    game: str,
    edition: str | None,
    options: tuple[str, ...],
    players: int,
    deals: int,
    seed: int,
    seatings: str,
    out: str | None,
    workers: int | None,
    moves: bool,
    progress: bool | None,
    sprt: bool,
    metric: str,
    h0: float,
    h1: float | None,
    alpha: float,
    beta: float,
    min_deals: int,
    fmt: str,
) -> None:
    """A paired A/B test of two bots (two versions of one, say).

    Both play the same deals in the same seats against the same opponents
    (format "paired": the schedule swaps A for B, nothing else); the mean
    per-deal difference A - B in coins, place and wins is printed with its
    95% interval and p-value. With --sprt the matches stop as soon as a
    sequential probability ratio test decides between H0 and H1; every
    figure is then the one at its decision, and the exit code says which:
    0 H1 accepted, 3 H0 accepted, 4 undecided (1 error, 2 usage, 130
    interrupted).
    A and B are bot specs ([NAME=]SPEC), or with --results the league names
    of two bots of a finished (or partial) results directory. See
    docs/statistics.md.
    """
    from ..rating.paired import Sprt
    from ..run import compare as cmp
    from ..run.paired import play_pairs
    from . import verdict

    test = None
    if sprt:
        if h1 is None:
            h1 = {"coins": 0.5, "place": 0.1, "win": 0.05}[metric]
        try:
            test = Sprt(h0, h1, alpha, beta, min_deals)
        except ValueError as e:
            raise UsageError(f"--sprt: {e}") from None
    if results is not None:
        pairing = cmp.compare_results(results, a, b, test, metric)
    else:
        g = get_game(game)
        (na, sa), (nb, sb) = cmp.bot_names([a, b])
        field = cmp.bot_names(opponents or sparring_bots(g), (na, nb))
        name = f"compare-{na}-{nb}"
        settings = {
            "name": name,
            "game": g.name,
            "edition": edition or g.editions()[0],
            "players": players,
            "deals": deals,
            "seed": seed,
            "seatings": seatings,
        }
        played = play_pairs(
            (na, sa),
            (nb, sb),
            field,
            settings,
            parse_options(options),
            Path(out) if out else Path("results") / name,
            workers,
            progress,
            test,
            metric,
            moves,
        )
        pairing, summary = played.pairing, played.summary
        if summary.interrupted:
            sys.exit(summary.exit_code)
        if fmt == "text":
            echo(
                f"{summary.played} matches played now, {summary.done_before} before; "
                f"results in {summary.out}"
            )
    if fmt == "json":
        echo(json.dumps(verdict.to_json(pairing, test), indent=2))
    else:
        for line in verdict.report(pairing, test):
            echo(line)
    if test is not None:
        sys.exit(verdict.exit_code(pairing))
