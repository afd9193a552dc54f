"""A match's viewer page, for any game that draws its table (a game's
``viewer`` capability, which makes a :class:`.film.Viewer`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.errors import BohnarenaError, UsageError
from ..core.game import Game, capabilities
from ..referee.replaylog import Divergence
from .film import Viewer
from .info import MatchInfo
from .page import page


class DoesNotReplay(BohnarenaError):
    """A log the rules do not replay: there is no table to draw."""


def viewer_of(game: Game) -> Viewer:
    """The game's viewer, as its capabilities declare it."""
    make = capabilities(game).viewer
    viewer = None if make is None else make()
    if not isinstance(viewer, Viewer):
        raise UsageError(f"the game {game.name} has no viewer (see docs/adding-a-game.md)")
    return viewer


def viewer_page(
    game: Game,
    rules: Any,
    log: Sequence[tuple[Any, ...]],
    info: MatchInfo,
    replies: Mapping[int, Sequence[str]] | None = None,
) -> str:
    """The viewer page of a match (its log replayed through the rules);
    ``replies``: what a seat that plays in words said, by the record its
    decision became (shown beside that move, as text)."""
    viewer = viewer_of(game)
    try:
        film = viewer.film(rules, info.seed, log, info.seats)
    except Divergence:
        _, problem = game.verify(rules, info.seed, log)
        raise DoesNotReplay(f"{info.name.lower()} does not replay: {problem}") from None
    title = f"{info.name}: {info.title} ({', '.join(info.seats)}) - bohnarena viewer"
    data = film.as_json(game.name, info.as_json())
    if replies:
        data["replies"] = {str(seq): list(said) for seq, said in replies.items()}
    return page(title, data)
