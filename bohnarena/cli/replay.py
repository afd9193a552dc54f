"""``bohnarena replay``: logged matches shown, verified and played again;
``bohnarena view``: a match's viewer page."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ..core.errors import UsageError
from ..core.game import Game
from .group import (
    cli,
    echo,
    one,
)

F = TypeVar("F", bound=Callable[..., Any])

if TYPE_CHECKING:
    from ..viewer.info import MatchInfo


def _number(name: str, metavar: str, text: str, low: int = 1) -> Callable[[F], F]:
    """An option that takes a move or turn number (none by default)."""
    return click.option(
        name, type=click.IntRange(min=low), default=None, metavar=metavar, help=text
    )


def _match_option(text: str, required: bool = False) -> Callable[[F], F]:
    return click.option(
        "--match",
        "-m",
        "match_id",
        type=click.IntRange(0, 2**63 - 1),
        required=required,
        help=text,
    )


@cli.command()
@click.argument("results_dir", type=click.Path(file_okay=False))
@_match_option("The match id to show or check.")
@_number("--at", "N", "Show the whole table as it stood after move N.", low=0)
@_number("--turn", "N", "Show the match from the start of turn N on.")
@_number("--turns", "K", "Show K turns (from --turn N, or from the first).")
@_number("--to-turn", "M", "Show up to the end of turn M.")
@click.option("--seat", type=int, default=None, help="Show only what seat S could see.")
@click.option("--json", "as_json", is_flag=True, help="JSON lines instead of text.")
@click.option(
    "--verify",
    is_flag=True,
    help="Rebuild the match from its seed and logged decisions through the rules; "
    "exit 1 at the first difference.",
)
@click.option(
    "--rerun",
    is_flag=True,
    help="Play the match again with the same bots and seed; exit 1 at the first move that differs.",
)
@click.option("--verify-all", is_flag=True, help="Verify every match of the run, in parallel.")
@click.option(
    "--stderr",
    "show_stderr",
    is_flag=True,
    help="Show what each bot at the table that runs outside the worker wrote to stderr "
    "in the match (the end of it, escaped; each of its lines indented).",
)
@click.option(
    "--workers",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes for --verify-all (default: all cores).",
)
def replay(
    results_dir: str,
    match_id: int | None,
    at: int | None,
    turn: int | None,
    turns: int | None,
    to_turn: int | None,
    seat: int | None,
    as_json: bool,
    verify: bool,
    rerun: bool,
    verify_all: bool,
    show_stderr: bool,
    workers: int | None,
) -> None:
    """Replay a logged match move by move, from the Parquet logs alone.

    \b
    Examples:
      bohnarena replay results/quickstart --match 7
      bohnarena replay results/quickstart --match 7 --turn 12 --turns 2
      bohnarena replay results/quickstart --match 7 --at 120 --seat 2
      bohnarena replay results/quickstart --match 7 --verify
      bohnarena replay results/quickstart --match 7 --stderr
      bohnarena replay results/quickstart --verify-all
    """
    from ..referee.replaylog import NoSuchTurn
    from ..run import replay as rp
    from ..store.parts import read_again

    if at is not None and (turn or turns or to_turn) is not None:
        raise UsageError(
            "--at shows the table after one move, --turn the moves from a turn on: give one"
        )
    first, last = rp.turn_range(turn, turns, to_turn)
    if verify_all:
        checked, parts, failures = read_again(lambda: rp.verify_all(results_dir, workers or 0))
        for problem in parts[:10]:
            click.echo(problem)
        for mid, problem in failures[:10]:
            echo(f"match {mid}: {one(problem)}")
        echo(
            f"verified {checked} matches: "
            + (
                "every one replays to its logged result"
                if not failures
                else f"{len(failures)} do not"
            )
            + (f"; {len(parts)} part problem{'s' * (len(parts) > 1)}" if parts else "")
        )
        sys.exit(1 if failures or parts else 0)
    if match_id is None:
        raise UsageError("give --match ID (or --verify-all)")
    run = rp.Run.open(results_dir)
    row, log = run.match(match_id)
    seat = rp.parse_seat(seat, len(row["seats"]))
    names = row["seats"]
    if show_stderr:
        _stderr(Path(results_dir), match_id, names)
        return
    if verify or rerun:
        problem = run.check(row, log) if verify else None
        if problem is None and rerun:
            problem = run.rerun(row, log)
        what = "the bots replay" if rerun else "the log replays under the rules"
        echo(f"match {match_id}: " + one(problem or f"OK, {what} move for move ({len(log)} moves)"))
        sys.exit(1 if problem else 0)
    if at is not None:
        if at >= len(log):
            raise UsageError(f"match {match_id} has {len(log)} moves (0-{len(log) - 1})")
        lines: Iterable[str] = run.game.table_at(
            run.rules, row["seed"], log, at, names, seat, as_json
        )
    else:
        try:
            lines = run.game.replay_lines(
                run.rules, row["seed"], log, names, seat, as_json, True, first, last
            )
        except NoSuchTurn as e:
            raise UsageError(f"match {match_id}: {e}") from None
        if not as_json:
            lines = [*run.info(row, len(log)).header(), *lines]
    for line in lines:
        echo(line)


def _stderr(results: Path, match_id: int, names: Sequence[str]) -> None:
    """Each bot's stderr in the match: a line of ours, then its lines
    indented (none of them can read as a line of ours)."""
    from ..store.botlogs import stderr_of

    for bot in dict.fromkeys(names):
        found = stderr_of(results, bot, match_id)
        if found is None:
            echo(f"{bot}: no stderr log of this match (it ran in the worker, or before logs split)")
            continue
        cut = f", its last {found.size - found.shown_from:,}" if found.shown_from else ""
        echo(f"{bot}: {found.size:,} bytes of stderr{cut}")
        for line in found.text.splitlines():
            echo("  " + line)


def write_viewer(
    game: Game,
    rules: Any,
    log: Sequence[tuple[Any, ...]],
    info: MatchInfo,
    path: str | Path,
    replies: Mapping[int, Sequence[str]] | None = None,
) -> None:
    """Write a match's viewer page to ``path`` and say where it is
    (``replies``: what its seats that play in words said, by record)."""
    from ..store.parts import write_text
    from ..viewer.match import viewer_page

    target = Path(path)
    write_text(target, viewer_page(game, rules, log, info, replies))
    size = target.stat().st_size / 1024
    echo(f"viewer: {target} ({size:,.0f} kB; open it in a browser)")


@cli.command()
@click.argument("results_dir", type=click.Path(file_okay=False))
@_match_option("The match id to watch.", required=True)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    default=None,
    help="Where to write the HTML file. Default: RESULTS_DIR/match-ID.html.",
)
def view(results_dir: str, match_id: int, output: str | None) -> None:
    """Write a match's viewer: one self-contained HTML page that draws the
    table move by move (step with the arrow keys, play with space), from the
    Parquet logs replayed through the rules. It needs no network.

    \b
    Examples:
      bohnarena view results/quickstart --match 7
      bohnarena view results/quickstart -m 7 -o match7.html
    """
    from ..run.replay import Run

    run = Run.open(results_dir)
    row, log = run.match(match_id)
    target = output or run.store.path / f"match-{match_id}.html"
    info = run.info(row, len(log))
    write_viewer(run.game, run.rules, log, info, target, run.replies(match_id))
