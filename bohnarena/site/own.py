"""What a participant may read of its own bots in a finished match (the
API with a bearer token, a page after a login): the seats its entries
played, and each of those bots' stderr, escaped; never another bot's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.untrusted import lines
from ..ladder.tokens import Holder
from ..store import botlogs
from ..store.parts import ResultsError
from . import shown
from .intake import Refused

if TYPE_CHECKING:
    from .app import Site

#: The most of a bot's stderr shown at once (its end).
STDERR_BYTES = 1 << 16


@dataclass(frozen=True)
class OwnStderr:
    bot: str
    seats: list[int]
    logged: bool  # (no log: it ran in the worker, whose stderr is the run's)
    size: int
    shown_from: int
    text: str  # escaped, its line breaks kept

    def as_json(self) -> dict[str, object]:
        return {
            "bot": self.bot,
            "seats": self.seats,
            "logged": self.logged,
            "bytes": self.size,
            "shown_from": self.shown_from,
            "lines": self.text.splitlines(),
        }


def own_seats(
    site: Site, holder: Holder | None, match_id: int, what: str
) -> tuple[list[str], list[int]]:
    """The match's seats' bots, and those of its seats ``holder``'s entries
    played; Refused if there are none, or the match is hidden."""
    if holder is None:
        raise Refused(401, "a valid token is needed: Authorization: Bearer TOKEN")
    veil = shown.veil(site.ladder)
    if veil.hides(match_id):
        raise Refused(403, f"a match's {what} {veil.reason}")
    try:
        row, _ = site.matches.run(site.ladder).match(match_id)
    except ResultsError:
        raise Refused(404, f"no finished match {match_id}") from None
    seats: list[str] = list(row["seats"])
    mine = [s for s, b in enumerate(seats) if holder.may_touch(b.rpartition(".")[0])]
    if not mine:
        raise Refused(403, "none of this token's entries played this match")
    return seats, mine


def own_stderr(site: Site, match_id: int, seats: list[str], mine: list[int]) -> list[OwnStderr]:
    """What each of the bots at the seats ``mine`` wrote to stderr in the match."""
    results, found = shown.results_of(site.ladder), []
    for bot in dict.fromkeys(seats[s] for s in mine):
        got = botlogs.stderr_of(results, bot, match_id, STDERR_BYTES)
        found.append(
            OwnStderr(
                bot,
                [s for s in mine if seats[s] == bot],
                got is not None,
                got.size if got else 0,
                got.shown_from if got else 0,
                lines(got.text) if got else "",
            )
        )
    return found
