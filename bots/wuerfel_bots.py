"""Bots for the dice game (Würfel Bohnanza)."""

from __future__ import annotations

from collections import Counter

from bohnarena.wuerfel.bot import FULFIL, REDEEM, Bot, DiceView, Keep
from bohnarena.wuerfel.orders import Order, first_roll_chance
from bohnarena.wuerfel.rules import PAYOUT


class RandomDiceBot(Bot):
    """Random dice, random stops, fulfils and redeems at random."""

    name = "wuerfel-random"

    def keep(self, view: DiceView, roll: tuple[int, ...]) -> Keep:
        rng = self.rng
        dice = tuple(rng.sample(range(len(roll)), rng.randint(1, len(roll))))
        return Keep(dice, stop=view.rules.early_stop and rng.random() < 0.1)

    def harvest(self, view: DiceView, dice: tuple[int, ...]) -> str | None:
        if view.fulfillable(dice) and self.rng.random() < 0.8:
            return FULFIL
        if view.covered[view.seat] >= 3 and self.rng.random() < 0.3:
            return REDEEM
        return None


class GreedyDiceBot(Bot):
    """Keeps the dice that bring its lowest unmet order closest, then the
    next; redeems a card when it is full, wins the game, or its next order
    is a long shot."""

    name = "wuerfel-greedy"

    def keep(self, view: DiceView, roll: tuple[int, ...]) -> Keep:
        field = Counter(view.bean_field)
        target = next((o for o in view.open_orders() if not o.met(field)), None)
        kept: list[int] = []
        if target is not None:
            for i, face in sorted(enumerate(roll), key=lambda d: -self._gain(target, field, d[1])):
                if self._gain(target, field, face) > 0:
                    field[face] += 1
                    kept.append(i)
        if not kept:  # keep the die that hurts least: one the target does not forbid
            harmless = [
                i
                for i, f in enumerate(roll)
                if target is None
                or target.deficit(Counter({**field, f: field[f] + 1})) <= target.deficit(field)
            ]
            kept = [harmless[0] if harmless else 0]
        return Keep(tuple(kept))

    @staticmethod
    def _gain(order: Order, field: Counter[int], face: int) -> int:
        after = Counter(field)
        after[face] += 1
        return order.deficit(field) - order.deficit(after)

    def harvest(self, view: DiceView, dice: tuple[int, ...]) -> str | None:
        if view.fulfillable(dice):
            return FULFIL
        covered = view.covered[view.seat]
        if covered < 3:
            return None
        if covered == 6 or view.coins[view.seat] + PAYOUT[covered] >= view.rules.target:
            return REDEEM
        chance = first_roll_chance(view.open_orders()[0], view.rules.faces)
        return REDEEM if covered >= 4 or chance < 0.15 else None
