"""`reveal` and `verify`: a secret seed revealed after its league, and the
published results checked against it (docs/fairness.md)."""

from __future__ import annotations

import sys

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
@workers_option
def verify_command(
    results_dir: str, seed: int | None, head: str | None, workers: int | None
) -> None:
    """Check a league's published results against its revealed seed: the
    commitment, every match's seed and place in the schedule, none missing,
    every move legal. Exit 0: all good; 1: a check failed."""
    from ..run.verify import verify

    verdict = verify(results_dir, seed, workers or 0, head)
    for line in verdict.failures:
        echo(one(line))
    echo(verdict.summary())
    sys.exit(1 if verdict.failures else 0)
