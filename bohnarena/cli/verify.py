"""`reveal` and `verify`: a secret seed revealed after its league, and the
published results checked against it (docs/fairness.md)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from .group import cli, echo, one, workers_option


@cli.command("reveal")
@click.argument("results_dir", type=click.Path(file_okay=False))
def reveal_command(results_dir: str) -> None:
    """Reveal a secret seed: write it and its salt to reveal.json beside
    run.json, for anyone to check with `bohnarena verify`."""
    from ..run.verify import REVEAL, reveal

    revealed = reveal(results_dir)
    echo(f"seed: {revealed['seed']}")
    echo(f"salt: {revealed['seed_salt']}")
    echo(f"commitment: {revealed['seed_commitment']}; written to {results_dir}/{REVEAL}")


@cli.command("verify")
@click.argument("results_dir", type=click.Path(file_okay=False))
@click.option("--seed", type=int, help="The master seed to check, instead of reveal.json's.")
@click.option(
    "--head",
    metavar="HEX",
    help="A chain head noted earlier (printed after a run): what was published then must "
    "all still be there, unchanged.",
)
@click.option(
    "--bots",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The directory the league's bot paths resolve from (the league file's; a "
    "ladder's own): each bot's files are hashed against run.json, then matches played "
    "again from them and compared record for record with their logs.",
)
@click.option(
    "--replay",
    "count",
    default="10",
    show_default=True,
    metavar="N|all",
    help="How many matches --bots plays again (drawn by the verifier), or all.",
)
@workers_option
def verify_command(
    results_dir: str,
    seed: int | None,
    head: str | None,
    bots: Path | None,
    count: str,
    workers: int | None,
) -> None:
    """Check a league's published results against its revealed seed: the
    commitment, the chain of what was played (whole, at the published head
    or through --head), every match's seed and place in the schedule, none
    missing, every deal and draw the seed's and every move legal; with
    --bots, matches played again from the bots' files. One line per failed
    check, then a summary line. Exit 0: every check passed; 1: a check
    failed; 2: a usage error (not a results directory, nothing to verify)."""
    from ..run.verify import verify

    if head is not None and not re.fullmatch(r"[0-9a-f]{64}", head):
        raise click.BadParameter(
            f"{head!r} is not a chain head (64 hex digits)", param_hint="--head"
        )
    if count != "all" and not (count.isdigit() and int(count) > 0):
        raise click.BadParameter(f"{count!r} is not a count or 'all'", param_hint="--replay")
    replay = None if count == "all" else int(count)
    verdict = verify(results_dir, seed, workers or 0, head, bots, replay)
    for line in verdict.failures:
        echo(one(line))
    echo(verdict.summary())
    sys.exit(1 if verdict.failures else 0)
