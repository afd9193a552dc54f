"""The ``bohnarena`` command group: one line and exit code 2 for usage
errors, stops that keep what is done; the options several commands
share."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from .. import __version__
from ..core import untrusted
from ..core.entry import ISOLATION_ALIASES, ISOLATIONS
from ..core.errors import BohnarenaError, UsageError
from ..core.game import get_game
from ..core.plugins import load_bot
from ..core.stopping import exit_code, interrupted, stop_on_signals

#: The longest error message printed (a bot's stderr or text may be in it).
ERROR_CHARS = 2000


def echo(text: str = "", err: bool = False, nl: bool = True) -> None:
    """Everything the command line prints: text that came from a bot (its
    stderr, a fault, a plugin's name or version) may be in it, so every
    character that is not printable but a line break is escaped."""
    click.echo(untrusted.lines(text), err=err, nl=nl)


def one(text: str) -> str:
    """A text that may be a bot's (an exception's message, a plugin's import
    error), kept on its line: its own line breaks cannot forge lines of ours."""
    return untrusted.one_line(text, ERROR_CHARS)


class _Group(click.Group):
    """Turns bohnarena's own errors into one line on stderr and exit code 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            with stop_on_signals():
                return super().invoke(ctx)
        except BohnarenaError as e:
            echo(f"Error: {one(str(e))}", err=True)
            ctx.exit(2 if isinstance(e, UsageError) else 1)
        except KeyboardInterrupt as stop:  # Ctrl-C, SIGTERM or SIGHUP at any stage
            echo(interrupted(ctx.invoked_subcommand), err=True)
            ctx.exit(exit_code(stop))


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bohnarena")
def cli() -> None:
    """Run Bohnanza (and Würfel Bohnanza) bot tournaments: play one match, run
    leagues across all cores or a Dask cluster, rank bots with TrueSkill, and
    replay any seeded match."""


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``key=value`` pairs; values are read as TOML (numbers, strings, lists)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--option takes key=value, not {pair!r}")
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        out[key.strip()] = value
    return out


# Not a click.Choice: games are read from entry points only when one is
# played, so a broken third-party game cannot break the CLI for the others.
game_option = click.option(
    "--game",
    default="bohnanza",
    show_default=True,
    help="Which game (a name registered in the entry-point group bohnarena.games).",
)
edition_option = click.option(
    "--edition",
    "-e",
    default=None,
    help="Rule set (bohnanza: classic, anniversary, riogrande). Default: the game's first.",
)
rule_option = click.option(
    "--option",
    "-o",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override a rule parameter, e.g. -o extra_bean=jumping "
    "or -o max_trade_rounds=2. Repeatable.",
)


def _setup(
    game_name: str, edition: str | None, players: int, options: Sequence[str], specs: Sequence[str]
) -> tuple[Any, Any, list[type]]:
    game = get_game(game_name)
    edition = edition or game.editions()[0]
    rules = game.rules(edition, players, parse_options(options))
    classes = [load_bot(spec, game.bot_base) for spec in specs]
    return game, rules, classes


isolation_choice = click.Choice([*ISOLATIONS, *ISOLATION_ALIASES])


def _isolation(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    return ISOLATION_ALIASES.get(value, value) if value else value


resamples_option = click.option(
    "--resamples",
    type=click.IntRange(min=0),
    default=None,
    help="Deal-bootstrap resamples for the intervals (default 1000; 0: none).",
)
bootstrap_seed_option = click.option(
    "--bootstrap-seed",
    type=int,
    default=None,
    help="Seed of the deal bootstrap (default 0): the same intervals every time.",
)


def main() -> None:
    cli(prog_name="bohnarena")


#: Options that several commands share (``run``, ``ladder run``, ``check-bot``, ``compare``).
workers_option = click.option(
    "--workers",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes. Default: the league's [run] workers, else all cores.",
)
progress_option = click.option(
    "--progress/--no-progress",
    default=None,
    help="Progress bar. Default: only when stderr is a terminal.",
)
backend_option = click.option(
    "--backend",
    type=click.Choice(["local", "dask"]),
    default="local",
    show_default=True,
    help="Where batches run: a local process pool, or Dask (needs the dask extra).",
)
secrets_option = click.option(
    "--secrets",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    metavar="DIR",
    help="The directory of served bots' token files: a league's token_file names a file "
    "in it, by name alone (docs/http-bots.md).",
)
