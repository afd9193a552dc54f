"""A non-trading planner: grows long fields, harvests where it loses least."""

from __future__ import annotations

from bohnarena.bohnanza import EMPTY, Anytime, Bot, DraftPick, RuleSet, SeatView


def best_field(view: SeatView, card: int) -> int:
    """The field for ``card``: its own variety's fullest field, else an empty one."""
    fields = view.my_fields
    return max(view.fields_for(card), key=lambda f: (fields[f][0] == card, fields[f][1]))


def cheapest_harvest(view: SeatView) -> int:
    """The harvestable field that pays most now, preferring fields one more
    card would not improve; among equals the smallest (fewest cards lost)."""
    fields = view.my_fields

    def score(f: int) -> tuple[float, int]:
        v, n = fields[f]
        now = view.coins_for(v, n)
        return now - 0.5 * (view.coins_for(v, n + 1) > now), -n

    return max(view.harvestable(), key=score)


def fits_without_harvest(view: SeatView, card: int) -> bool:
    return bool(view.fields_for(card))


def grows_a_field(view: SeatView, card: int) -> bool:
    return any(f[0] == card for f in view.my_fields)


class PlannerBot(Bot):
    name = "planner"

    def decisions(self, rules: RuleSet) -> frozenset[str]:
        # Harvest windows matter to this bot only when a field can be bought.
        asks = super().decisions(rules)
        return asks if rules.third_field_cost else asks - {"anytime"}

    def plant(self, view: SeatView, card: int) -> int:
        return best_field(view, card)

    def make_room(self, view: SeatView, card: int) -> int:
        return cheapest_harvest(view)

    def plant_second(self, view: SeatView) -> bool:
        card = view.hand[0]
        if grows_a_field(view, card):
            return True
        # Use an empty field only if another stays free for what comes next.
        return sum(v == EMPTY for v, _ in view.my_fields) > 1

    def plant_next(self, view: SeatView) -> int:
        area = view.my_trade_area
        for i, card in enumerate(area):
            if grows_a_field(view, card):
                return i
        return 0

    def anytime(self, view: SeatView) -> Anytime | None:
        # Rio Grande: a third field pays for itself over a game.
        return Anytime(buy_field=True) if view.can_buy_field() else None

    def draft(self, view: SeatView, cards: tuple[int, ...]) -> DraftPick:
        for i, card in enumerate(cards):
            if grows_a_field(view, card):
                return DraftPick(i, best_field(view, card))
        for i, card in enumerate(cards):
            if fits_without_harvest(view, card):
                return DraftPick(i, best_field(view, card))
        return DraftPick(0, None)
