"""``bohnarena play``: one match, its transcript."""

from __future__ import annotations

from typing import Any

import click

from ..core.errors import UsageError
from ..core.game import get_game
from ..core.text import plural
from ..external.cmdline import play_entries
from .group import (
    _isolation,
    cli,
    echo,
    edition_option,
    game_option,
    isolation_choice,
    parse_options,
    rule_option,
)
from .human import HUMAN, human_seat, seated


@cli.command()
@game_option
@edition_option
@rule_option
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="Match seed.")
@click.option("--quiet", "-q", is_flag=True, help="Only the final result, no transcript.")
@click.option(
    "--isolation",
    type=isolation_choice,
    default="inprocess",
    show_default=True,
    callback=_isolation,
    help="Where spec bots run: in this process, or each in its own sandbox process.",
)
@click.option(
    "--html",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="FILE",
    help="Also write the match's viewer page (see `bohnarena view`) to FILE.",
)
@click.option(
    "--human",
    "humans",
    type=int,
    multiple=True,
    metavar="SEAT",
    help="A person plays SEAT in this terminal (the bots fill the other seats; "
    "also `human` among BOTS). See docs/text-seats.md.",
)
@click.option(
    "--human-seconds",
    type=float,
    default=None,
    metavar="SECONDS",
    help="Time for each of a person's decisions (default: none).",
)
@click.option(
    "--model-seconds",
    type=float,
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="Time for each decision of a language model's seat (chat:URL?model=NAME), "
    "its retries and waits included.",
)
@click.argument("bots", nargs=-1, required=True)
def play(
    game: str,
    edition: str | None,
    options: tuple[str, ...],
    seed: int,
    quiet: bool,
    isolation: str,
    html: str | None,
    humans: tuple[int, ...],
    human_seconds: float | None,
    model_seconds: float,
    bots: tuple[str, ...],
) -> None:
    """Play one match and print its transcript.

    BOTS are given in seat order (seat 0 starts), each as a registered bot
    name (see `bohnarena bots`), path/to/file.py:Class, module:Class, or
    'cmd:COMMAND LINE' for a program in any language that speaks the
    JSON-lines protocol (quote it; it always runs as its own process), a
    URL for a bot served over HTTP, or 'chat:URL?model=NAME' for a language
    model behind an OpenAI-compatible chat-completions endpoint, with more
    of a league's chat settings after the model if wanted (temperature,
    max_tokens, retries, structured, system, decisions, allow_private,
    token_env), e.g. '...?model=NAME&temperature=0.2&decisions=propose,respond'.
    A model's token is read from the environment only (BOHNARENA_TOKEN, or
    the BOHNARENA_TOKEN_<KEY> that token_env names; docs/text-seats.md).

    \b
    Examples:
      bohnarena play --edition classic --seed 7 planner trader random random
      bohnarena play planner random 'cmd:bash bots/first_choice.sh'
      bohnarena play --isolation sandbox planner their_bot.py:TheirBot random
      bohnarena play --seed 7 planner trader random --html match.html
      bohnarena play --human 0 planner trader random
      bohnarena play 'chat:http://127.0.0.1:8080/v1?model=qwen2.5-7b' planner trader
    """
    from ..external.http.chat import ChatSeat
    from ..referee.limits import Limits
    from ..run.provenance import preflight
    from ..run.seating import make_seat
    from ..viewer.info import MatchInfo

    if not model_seconds > 0:
        raise UsageError(f"--model-seconds must be above 0, not {model_seconds:g}")
    g = get_game(game)
    bots = seated(bots, humans)
    rules = g.rules(edition or g.editions()[0], len(bots), parse_options(options))
    entries = iter(play_entries([b for b in bots if b != HUMAN], isolation))
    seats: list[Any] = []
    names: list[str] = []
    for bot in bots:
        if bot == HUMAN:
            seats.append(human_seat(g, names, human_seconds))
            names.append(HUMAN)
            continue
        entry = next(entries)
        # Named by its spec (the class of file.py:Class), however it runs.
        names.append(entry.name if entry.spec is None else entry.spec.rpartition(":")[2])
        # A bot that does not start (a constructor that raises, a missing
        # program) is a one-line error before the match, however it runs.
        preflight(g, entry, rules)
        if entry.isolation == "inprocess":  # built at the start: a constructor's error is a fault
            seats.append(make_seat(g, entry))
            continue
        if entry.chat is not None:  # a model thinks for seconds; no time bank to speak of
            limits = Limits(decision_seconds=model_seconds, match_seconds=model_seconds * 10_000)
            seats.append(make_seat(g, entry, limits))
            continue
        seats.append(make_seat(g, entry, Limits()))
    result, records = g.play(rules, seed, seats)
    info = MatchInfo.of_result(
        g, rules.edition, parse_options(options), names, seed, result, len(records)
    )
    echo(f"{info.rules_text()}, seed {seed}")
    if not quiet:
        for line in g.transcript(records, names):
            echo(line)
    echo("\nResult:")
    for line in info.result_lines():
        echo(line)
    echo(
        f"Winner: {', '.join(f'seat {s} ({names[s]})' for s in result.winners)} "
        f"after {result.turns} turns"
    )
    for s, seat in enumerate(seats):
        if isinstance(seat, ChatSeat):  # what the model was asked and cost
            asked = len(seat.exchanges)
            echo(
                f"seat {s} ({names[s]}): {plural(asked, 'decision')} asked, "
                f"{seat.tokens_in} tokens in, {seat.tokens_out} out"
            )
    if html is not None:
        from .replay import write_viewer

        write_viewer(g, rules, records, info, html)
