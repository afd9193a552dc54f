"""Uniformly random over legal choices, trading included: the baseline."""

from __future__ import annotations

from bohnarena.bohnanza import Accept, Anytime, Bot, DraftPick, Offer, Proposal, SeatView


class RandomBot(Bot):
    name = "random"

    def plant(self, view: SeatView, card: int) -> int:
        return self.rng.choice(view.fields_for(card))

    def make_room(self, view: SeatView, card: int) -> int:
        return self.rng.choice(view.harvestable())

    def plant_second(self, view: SeatView) -> bool:
        return self.rng.random() < 0.5

    def plant_next(self, view: SeatView) -> int:
        return self.rng.randrange(len(view.my_trade_area))

    def anytime(self, view: SeatView) -> Anytime | None:
        rng = self.rng
        if view.can_buy_field() and rng.random() < 0.2:
            return Anytime(buy_field=True)
        fields = view.harvestable()
        if fields and rng.random() < 0.05:
            return Anytime(harvest=(rng.choice(fields),))
        return None

    def _offer(self, view: SeatView, revealed: bool) -> Offer | None:
        rng = self.rng
        if rng.random() < 0.5:
            return None
        refs = list(range(len(view.hand)))
        if revealed:
            refs += [-1 - i for i in range(len(view.revealed))]
        give = tuple(rng.sample(refs, rng.randint(0, min(2, len(refs)))))
        want = tuple(rng.choice(view.rules.in_play) for _ in range(rng.randint(0, 2)))
        if not give and not want:
            return None
        return Offer(give=give, want=want)

    def propose(self, view: SeatView) -> Offer | None:
        offer = self._offer(view, revealed=True)
        if offer is not None and self.rng.random() < 0.5:
            to = self.rng.choice([s for s in range(view.players) if s != view.seat])
            offer = Offer(offer.give, offer.want, to)
        return offer

    def offer(self, view: SeatView) -> Offer | None:
        return self._offer(view, revealed=False)

    def respond(self, view: SeatView, offer: Proposal) -> Accept | None:
        if self.rng.random() < 0.5:
            return None
        refs = list(range(len(view.hand)))
        cards = list(view.hand)
        if view.seat == view.active:
            refs += [-1 - i for i in range(len(view.revealed))]
            cards += list(view.revealed)
        give = []
        for variety in offer.want:
            pairs = zip(refs, cards, strict=True)
            options = [r for r, c in pairs if c == variety and r not in give]
            if not options:
                return None
            give.append(self.rng.choice(options))
        return Accept(tuple(give))

    def draft(self, view: SeatView, cards: tuple[int, ...]) -> DraftPick:
        i = self.rng.randrange(len(cards))
        fits = view.fields_for(cards[i])
        return DraftPick(i, self.rng.choice(fits) if fits and self.rng.random() < 0.7 else None)
