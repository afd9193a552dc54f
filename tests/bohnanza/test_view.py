"""The view members for authors (issue 16, part 3): unseen-card counts,
beanometer, time bank, named history; the same over JSON."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from bohnarena.bohnanza import Bot, SeatView, play_match, ruleset, wire
from bohnarena.bohnanza.records import LAYOUT, RECORD_TYPES
from bohnarena.referee.limits import Limits
from bohnarena.referee.seats import BotSeat
from bohnarena_bots.random_bot import RandomBot


class Checker(RandomBot):
    """Plays at random and checks its view at every decision."""

    checked = 0

    def plant(self, view: SeatView, card: int) -> int:  # type: ignore[override]
        check(view)
        return super().plant(view, card)

    def propose(self, view: SeatView) -> Any:  # type: ignore[override]
        check(view)
        return super().propose(view)


def check(view: SeatView) -> None:
    t = view._table
    hidden = Counter(t.deck)
    for s, hand in enumerate(t.hands):
        if s != view.seat:
            hidden.update(hand)
    unseen = view.unseen
    assert all(n >= 0 for n in unseen)
    assert unseen == tuple(hidden[v] for v in range(len(t.rules.deck)))
    others = sum(n for s, n in enumerate(view.hand_sizes) if s != view.seat)
    assert sum(unseen) == view.draw_pile + others
    for rec in view.history:
        assert rec._fields == ("kind", "seat", *LAYOUT[rec.kind])  # type: ignore[attr-defined]
    # The same over the wire, as a Python bot out of process sees it.
    data = json.loads(json.dumps(wire.view_json(view)))
    jv = wire.json_view(data, view.rules, list(view.history))
    assert jv.unseen == unseen
    assert jv.beanometer == view.beanometer
    assert jv.harvestable() == view.harvestable() == tuple(data["harvestable"])
    assert jv.can_buy_field() == view.can_buy_field() == data["can_buy_field"]
    assert jv.players == view.players
    assert jv.time_left == view.time_left
    assert jv.history == view.history
    Checker.checked += 1


@pytest.mark.slow
def test_unseen_is_the_draw_pile_and_other_hands_and_json_agrees() -> None:
    for edition, players in (("classic", 4), ("riogrande", 5), ("anniversary", 3)):
        rules = ruleset(edition, players)
        Checker.checked = 0
        play_match(rules, 7, [Checker()] + [RandomBot() for _ in range(players - 1)])
        assert Checker.checked > 20


def test_history_records_are_named_and_still_tuples() -> None:
    rec = RECORD_TYPES["planted"]._make(("planted", 1, 3, 0, 0))  # type: ignore[attr-defined]
    assert rec == ("planted", 1, 3, 0, 0) and rec[2] == rec.card == 3  # type: ignore[attr-defined]
    kind, seat, *rest = rec
    assert (kind, seat, rest) == ("planted", 1, [3, 0, 0])


def test_time_left_counts_down_with_limits_and_is_none_without() -> None:
    seen: list[float | None] = []

    class Clock(Bot):
        def plant(self, view: SeatView, card: int) -> int:
            seen.append(view.time_left)
            return super().plant(view, card)

    rules = ruleset("classic", 4)
    play_match(rules, 1, [Clock()] + [Bot() for _ in range(3)])
    assert seen and all(t is None for t in seen)
    seen.clear()
    lim = Limits()
    seat = BotSeat(Clock(), wire.DECISIONS, limits=lim)
    play_match(rules, 1, [seat] + [Bot() for _ in range(3)])
    assert seen and all(t is not None and 0 < t <= lim.match_seconds for t in seen)
    assert seen[-1] < lim.match_seconds  # type: ignore[operator]
