"""A non-trading planner: grows long fields, harvests where it loses least.

Written for speed (it is the engine benchmark's bot, and leagues play it by
the million): each decision reads the view once and scans the fields in a
plain loop. The comments give each choice as the ``max`` it computes.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bohnarena.bohnanza import EMPTY, Anytime, Bot, DraftPick, RuleSet, SeatView

Fields = tuple[tuple[int, int], ...]


def best_field(view: SeatView, card: int) -> int:
    """The field for ``card``: its own variety's fullest field, else an empty one."""
    return _best_field(view.my_fields, card)


def _best_field(fields: Fields, card: int) -> int:
    field = field_for(fields, card)
    if field < 0:
        raise ValueError("no field takes this card")
    return field


def field_for(fields: Sequence[Sequence[int]], card: int) -> int:
    """:func:`best_field` over ``(variety, count)`` pairs; -1: no field takes it."""
    # max(fields_for(card), key=lambda f: (fields[f][0] == card, fields[f][1])):
    # max keeps the first of equal keys.
    same, most, empty = -1, -1, -1
    for f, (v, n) in enumerate(fields):
        if v == card:
            if n > most:
                same, most = f, n
        elif v == EMPTY and empty < 0:
            empty = f
    return same if same >= 0 else empty


def cheapest_harvest(view: SeatView) -> int:
    """The harvestable field that pays most now, preferring fields one more
    card would not improve; among equals the smallest (fewest cards lost)."""
    return _cheapest_harvest(view, [v.payout for v in view.rules.varieties])


def _cheapest_harvest(view: SeatView, payouts: Sequence[tuple[int, ...]]) -> int:
    best = harvest_choice(view.my_fields, view.harvestable(), payouts)
    if best < 0:
        raise ValueError("no field may be harvested")
    return best


def harvest_choice(
    fields: Sequence[Sequence[int]], harvestable: Sequence[int], payouts: Sequence[Sequence[int]]
) -> int:
    """:func:`cheapest_harvest` over ``(variety, count)`` pairs; -1: none."""
    # max(harvestable, key=lambda f: (now - 0.5 * (coins_for(v, n + 1) > now), -n)),
    # reading the beanometers (payout[n]; the last entry for longer fields)
    # rather than calling view.coins_for twice a field
    best, top, fewest = -1, 0.0, 0
    for f in harvestable:
        v, n = fields[f]
        pay = payouts[v]
        last = len(pay) - 1
        now = pay[n] if n < last else pay[last]
        score = now - 0.5 * ((pay[n + 1] if n + 1 < last else pay[last]) > now)
        if best < 0 or score > top or (score == top and n < fewest):
            best, top, fewest = f, score, n
    return best


def plants_second(fields: Sequence[Sequence[int]], front: int) -> bool:
    """Plant the new front card too: when it grows a field, or an empty
    field stays free for what comes next."""
    if _grows(fields, front):
        return True
    empty = 0
    for v, _ in fields:
        if v == EMPTY:
            empty += 1
    return empty > 1


def fits_without_harvest(view: SeatView, card: int) -> bool:
    return bool(view.fields_for(card))


def grows_a_field(view: SeatView, card: int) -> bool:
    return _grows(view.my_fields, card)


def _grows(fields: Sequence[Sequence[int]], card: int) -> bool:
    for v, _ in fields:  # noqa: SIM110 (a loop: any() of a generator costs twice as much)
        if v == card:
            return True
    return False


class PlannerBot(Bot):
    name = "planner"

    def decisions(self, rules: RuleSet) -> frozenset[str]:
        # Harvest windows matter to this bot only when a field can be bought.
        asks = super().decisions(rules)
        return asks if rules.third_field_cost else asks - {"anytime"}

    def plant(self, view: SeatView, card: int) -> int:
        return _best_field(view.my_fields, card)

    def start(self, seat: int, rules: RuleSet, rng: random.Random) -> None:
        super().start(seat, rules, rng)
        self._payouts = [v.payout for v in rules.varieties]

    def make_room(self, view: SeatView, card: int) -> int:
        return _cheapest_harvest(view, self._payouts)

    def plant_second(self, view: SeatView) -> bool:
        return plants_second(view.my_fields, view.hand[0])

    def plant_next(self, view: SeatView) -> int:
        fields = view.my_fields
        for i, card in enumerate(view.my_trade_area):
            if _grows(fields, card):
                return i
        return 0

    def anytime(self, view: SeatView) -> Anytime | None:
        # Rio Grande: a third field pays for itself over a game.
        return Anytime(buy_field=True) if view.can_buy_field() else None

    def draft(self, view: SeatView, cards: tuple[int, ...]) -> DraftPick:
        fields = view.my_fields
        for i, card in enumerate(cards):
            if _grows(fields, card):
                return DraftPick(i, _best_field(fields, card))
        for i, card in enumerate(cards):
            if fits_without_harvest(view, card):
                return DraftPick(i, _best_field(fields, card))
        return DraftPick(0, None)
