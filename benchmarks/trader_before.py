"""The trader as it was before the strength work (commit 6549ae2), kept
verbatim as the yardstick of ``trader_strength.py``.

A trader: the planner's fields, plus offers of what it cannot use and
requests for what extends its fields; accepts trades and gifts that help."""

from __future__ import annotations

from collections import Counter

from bohnarena.bohnanza import EMPTY, Accept, Offer, Proposal, SeatView
from bohnarena_bots.planner import PlannerBot


def worth(view: SeatView, card: int) -> int:
    """How welcome ``card`` is to plant: 2 extends a field, 1 takes an empty
    field, -1 forces a harvest."""
    fields = view.my_fields
    if any(v == card for v, _ in fields):
        return 2
    return 1 if any(v == EMPTY for v, _ in fields) else -1


def unwanted_hand_card(view: SeatView) -> int | None:
    """Position of the front-most hand card that would force a harvest."""
    for pos, card in enumerate(view.hand[:3]):
        if worth(view, card) < 0:
            return pos
    return None


class TraderBot(PlannerBot):
    name = "trader-before"

    def start(self, seat, rules, rng):  # type: ignore[no-untyped-def]
        super().start(seat, rules, rng)
        self._tried: set[tuple[object, ...]] = set()

    def _once(self, view: SeatView, key: tuple[object, ...]) -> bool:
        """True the first time ``key`` comes up this turn."""
        key = (view.turn, *key)
        if key in self._tried:
            return False
        self._tried.add(key)
        return True

    def propose(self, view: SeatView) -> Offer | None:
        wants = tuple(v for v, n in view.my_fields if v != EMPTY and n)[:1]
        for i, card in enumerate(view.revealed):
            if worth(view, card) < 0:
                if self._once(view, ("swap", card)) and wants:
                    return Offer(give=(-1 - i,), want=wants)
                if self._once(view, ("gift", card)):
                    return Offer(give=(-1 - i,))
        pos = unwanted_hand_card(view)
        if pos is not None and self._once(view, ("hand", view.hand[pos], len(view.hand))):
            return Offer(give=(pos,))
        return None

    def offer(self, view: SeatView) -> Offer | None:
        for card in view.revealed:
            if worth(view, card) == 2 and self._once(view, ("ask", card)):
                pos = unwanted_hand_card(view)
                return Offer(give=() if pos is None else (pos,), want=(card,))
        return None

    def respond(self, view: SeatView, offer: Proposal) -> Accept | None:
        hand = list(view.hand)
        refs = list(range(len(hand)))
        if view.seat == view.active:
            refs += [-1 - i for i in range(len(view.revealed))]
            hand += list(view.revealed)
        gain = sum(worth(view, c) for c in offer.cards)
        give: list[int] = []
        need = Counter(offer.want)
        for ref, card in sorted(zip(refs, hand, strict=False), key=lambda rc: worth(view, rc[1])):
            if need[card] > 0:
                need[card] -= 1
                give.append(ref)
                gain -= max(worth(view, card), 0) if ref >= 0 else worth(view, card)
        if sum(need.values()) or gain <= 0:
            return None
        return Accept(tuple(give))
