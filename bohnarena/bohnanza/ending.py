"""The end of the game, checked from the log alone.

An independent reading of the rule texts' end of game, sharing no code
with the turn engine (:mod:`.match`): ``replay --verify`` runs it beside
the engine's replay, so an engine that played on after the end would not
pass its own check.

000, "End of the Game": "The game ends as soon as the draw pile becomes
empty for the third time. If this happens while revealing the cards in
Phase 2 [...] (even if only one card could be revealed), Phases 2 and 3
are still played to the end." 003 grants the same "during phase ②
(turning over and trading)". The rule set's ``end_grace`` says which.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .rules import RuleSet

_DRAWS = ("revealed", "drew", "draft_card")
#: Once the game is over: the final harvest, the scores, and end-hook faults.
_AFTER = frozenset({"harvested", "ended", "fault", "forfeit"})
#: What cannot happen while phases 2 and 3 are played out after the end.
_NEVER_AFTER_END = frozenset({"turn", "revealed", "drew", "draft_card", "exhausted"})


def check(rules: RuleSet, log: Sequence[tuple[Any, ...]]) -> str | None:
    """None when the log ends the game where the rules say; else why not."""
    phase = 0
    last: int | None = None  # index of the last exhaustion
    for i, rec in enumerate(log):
        if rec[0] == "phase":
            phase = rec[2]
        elif rec[0] == "exhausted" and rec[2] >= rules.exhaustions:
            last = i
            break
    final = next((i for i, rec in enumerate(log) if rec[0] == "final_harvest"), None)
    if last is None:
        return None if final is None else f"move {final}: the game ends before the last run-out"
    if final is None:
        return f"move {last}: the draw pile ran out for the last time, but the game goes on"
    draw = next(rec[0] for rec in reversed(log[:last]) if rec[0] not in ("exhausted", "reshuffled"))
    if draw not in _DRAWS:
        return f"move {last}: the draw pile ran out without a card drawn ({draw!r})"
    grace = phase == 2 and (draw == "revealed" or rules.end_grace == "phase_2")
    between = log[last + 1 : final]
    if not grace and between:
        return (
            f"move {last + 1}: the game ended at move {last} ({draw} in phase {phase}),"
            f" but the log goes on with {between[0][0]!r}"
        )
    for k, rec in enumerate(between, start=last + 1):
        if rec[0] in _NEVER_AFTER_END or (rec[0] == "phase" and rec[2] != 3):
            return f"move {k}: {rec[0]!r} after the end, while phases 2 and 3 are played out"
    for k, rec in enumerate(log[final + 1 :], start=final + 1):
        if rec[0] not in _AFTER:
            return f"move {k}: {rec[0]!r} after the final harvest"
    return None
