"""``bohnarena bench``: games and playouts per second on one core."""

from __future__ import annotations

import click

from ..core.errors import UsageError
from ..core.game import capabilities, get_game
from .group import (
    _setup,
    cli,
    echo,
    edition_option,
    game_option,
    rule_option,
)


@cli.command()
@game_option
@edition_option
@rule_option
@click.option("--players", "-p", type=int, default=4, show_default=True)
@click.option(
    "--bot",
    "-b",
    "bot_specs",
    multiple=True,
    help="Bot spec; repeat to seat different bots in turn (cycled over the seats)."
    " Default: the game's first shipped bot (planner, wuerfel-greedy).",
)
@click.option("--games", "-n", type=int, default=1000, show_default=True, help="Games per round.")
@click.option(
    "--rounds",
    "-r",
    type=int,
    default=5,
    show_default=True,
    help="Timed rounds; the median is reported.",
)
@click.option(
    "--playouts",
    type=click.IntRange(min=0),
    default=200,
    show_default=True,
    help="Random playouts a round (clone + playout of the game's state; 0: none).",
)
@click.option("--seed", "-s", type=int, default=0, show_default=True)
def bench(
    game: str,
    edition: str | None,
    options: tuple[str, ...],
    players: int,
    bot_specs: tuple[str, ...],
    games: int,
    rounds: int,
    playouts: int,
    seed: int,
) -> None:
    """Measure games per second on one core (no logging, no workers), and
    the playouts per second a search gets from the game's state."""
    from ..tools.bench import games_per_second, playouts_per_second

    bot_specs = bot_specs or (get_game(game).shipped_bots[0],)
    specs = [bot_specs[i % len(bot_specs)] for i in range(players)]
    g, rules, classes = _setup(game, edition, players, options, specs)
    if games < 1 or rounds < 1:
        raise UsageError("--games and --rounds must be at least 1")
    rates = games_per_second(g, rules, classes, games, rounds, seed)
    rates.sort()
    median = rates[len(rates) // 2]
    echo(f"{g.name} {rules.edition}, {players} players, bots {', '.join(specs)}")
    echo(
        f"{median:,.0f} games/s on one core (median of {rounds} rounds of {games}; "
        f"min {rates[0]:,.0f}, max {rates[-1]:,.0f})"
    )
    new_state = capabilities(g).new_state
    if playouts and new_state is not None:
        rates = sorted(playouts_per_second(new_state, rules, playouts, rounds, seed))
        echo(
            f"{rates[len(rates) // 2]:,.0f} random playouts/s from the first decision "
            f"(state.clone() + state.playout(); median of {rounds} rounds of {playouts})"
        )
