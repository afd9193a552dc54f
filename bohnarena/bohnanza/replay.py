"""Replaying a logged match through the rules engine, without its bots.

The rules play the match again from its seed, and every answer in the log
is applied to the :class:`~.state.State` in turn; every record the rules
make is checked against the logged one as it is made. A changed card, a dropped or
added move, an edited coin count or an illegal logged decision makes the two
streams differ, and :class:`Divergence` names the first move where they do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.game import MatchResult
from ..referee.replaylog import Replayer
from . import ending
from .decisions import DECISIONS
from .records import as_dict, public
from .rules import RuleSet
from .state import State
from .table import Table
from .transcript import Narrator


def replay(
    rules: RuleSet,
    seed: int,
    log: Sequence[tuple[Any, ...]],
    stop_at: int | None = None,
    on_record: Callable[[int, tuple[Any, ...], Table], None] | None = None,
) -> tuple[Table, MatchResult | None]:
    """Replay ``log`` (see :func:`bohnarena.referee.replaylog.apply_log`)."""
    return REPLAYER.replay(rules, seed, log, stop_at, on_record)


def verify(
    rules: RuleSet, seed: int, log: Sequence[tuple[Any, ...]]
) -> tuple[MatchResult | None, str | None]:
    """The replayed result, or the first difference from the log. The end of
    the game is also checked apart from the engine (:mod:`.ending`)."""
    return REPLAYER.verify(rules, seed, log)


def state(table: Table, seat: int | None = None) -> dict[str, Any]:
    """The whole table (or what ``seat`` sees of it) as plain data."""
    t = table
    out: dict[str, Any] = {
        "turn": t.turn,
        "active": t.active,
        "phase": t.phase,
        "exhaustions": t.exhaustions,
        "draw_pile": len(t.deck),
        "discard": list(t.discard),
        "revealed": list(t.revealed),
    }
    if seat is None:
        out["draw_pile_top"] = t.deck[-1] if t.deck else None
    seats = []
    for s in range(t.players):
        own = seat is None or s == seat
        seats.append(
            {
                "seat": s,
                "hand": list(t.hands[s]) if own else None,
                "hand_size": len(t.hands[s]),
                "fields": [list(f) for f in t.fields[s]],
                "trade_area": list(t.trade[s]),
                "coins": len(t.coins[s]),
            }
        )
    out["seats"] = seats
    if seat is not None:
        out["seen_by"] = seat
    return out


#: The card game's replayer: an empty "anytime" answer leaves no record.
REPLAYER = Replayer(State, DECISIONS, state, as_dict, Narrator, public, ending.check)
