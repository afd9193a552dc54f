"""A trader: plants like the planner, but values every card by what it does
to its fields, and trades on that.

A field is worth the coins it pays now plus a share of the next beanometer
step, the share shrinking with the cards still missing and with how few of
that variety are still unseen (the field cannot grow on cards that are gone).
A card is worth what planting it changes: growing a field gains, a card that
fits no field costs the field it forces to harvest. Trades are judged by the
whole phase 3 they lead to (every card waiting in the trade area planted), and
cards go only where they do not feed another player's growing field.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import ClassVar

from bohnarena.bohnanza import EMPTY, Accept, Anytime, DraftPick, Offer, Proposal, RuleSet, SeatView
from bohnarena.core.params import Param

from .planner import PlannerBot

Fields = list[list[int]]

# How much a hand card counts by its position. The front two are planted next
# turn (Sight.settle plants them); later ones on fields that will change.
HAND_WEIGHT = (1.0, 1.0, 0.5, 0.35, 0.25)
# Worth of a card in a draft (Jumping Bean): the harvest draws a card each
# and the harvester keeps the last as a coin.
DRAFT_WORTH = 1.5


class Sight:
    """What one decision reads of the view, read once: own fields, the
    unseen cards, and how many of them can still come out."""

    __slots__ = (
        "_gains",
        "_settled",
        "_worths",
        "avail",
        "coins",
        "feed",
        "fields",
        "hand",
        "hope",
        "others",
        "pay",
        "steps",
    )

    def __init__(self, bot: TraderBot, view: SeatView) -> None:
        self.pay = bot._payouts
        self.steps = bot._steps
        self.hope = bot.hope
        self.feed = bot.feed
        unseen = view.unseen
        rules = view.rules
        # In the last run through the draw pile only its cards still come
        # out; the other players' hands (the rest of unseen) stay there.
        if view.exhaustions >= rules.exhaustions - 1:
            left = view.draw_pile / max(1, sum(unseen))
        else:
            left = 1.0
        # a seat sees about its share of those cards, a little more by trading
        share = min(1.0, bot.share / view.players) * left
        self.avail = [u * share for u in unseen]
        self.fields: Fields = [list(f) for f in view.my_fields]
        self.hand = view.hand
        self.coins = view.coins
        self.others = view.fields
        # (the same few fields and cards come up again and again in one decision)
        self._worths: dict[tuple[int, int], float] = {}
        self._gains: dict[int, float] = {}
        self._settled: dict[tuple[tuple[int, ...], tuple[int, ...]], float] = {}

    # -- fields -------------------------------------------------------------
    def paid(self, v: int, n: int) -> float:
        """Coins a harvest of ``n`` cards of ``v`` brings now."""
        if v == EMPTY or not n:
            return 0.0
        pay = self.pay[v]
        if not pay[-1] and self.steps[v]:  # Jumping Beans pay in a draft
            return DRAFT_WORTH if n >= self.steps[v][0] else 0.0
        return float(pay[n] if n < len(pay) else pay[-1])

    def worth(self, v: int, n: int) -> float:
        """A field of ``n`` cards of ``v``: coins now plus the hope of the next step."""
        if v == EMPTY or not n:
            return 0.0
        known = self._worths.get((v, n))
        if known is not None:
            return known
        now = value = self.paid(v, n)
        for step in self.steps[v]:
            if step > n:
                need = step - n
                chance = min(1.0, self.avail[v] / (need * 2.0)) * self.hope**need
                value = now + (self.paid(v, step) - now) * chance
                break
        self._worths[v, n] = value
        return value

    def loss(self, fields: Fields, f: int) -> float:
        """What harvesting field ``f`` gives up (its hope; the coins are banked)."""
        v, n = fields[f]
        return self.worth(v, n) - self.paid(v, n)

    def room(self, fields: Fields, harvestable: Sequence[int] | None = None) -> int:
        """The field to harvest when a card fits none: the one that loses least,
        among equals the one paying most (every field, unless ``harvestable``)."""
        best, least = -1, 0.0
        for f in range(len(fields)) if harvestable is None else harvestable:
            v, n = fields[f]
            lost = self.worth(v, n) - 0.99 * self.paid(v, n)
            if best < 0 or lost < least:
                best, least = f, lost
        return best

    def settle(self, cards: Sequence[int], hand: Sequence[int] | None = None) -> float:
        """Plant ``cards`` on (a copy of) own fields as phase 3 would, growing
        fields first, then the next turn's hand cards (the front one, and the
        second where it fits): coins harvested on the way plus the fields' worth."""
        front = tuple(self.hand[:2] if hand is None else hand[:2])
        key = (tuple(sorted(cards)), front)
        known = self._settled.get(key)
        if known is None:
            known = self._settled[key] = self._settle(key[0], front)
        return known

    def _settle(self, cards: Sequence[int], front: Sequence[int]) -> float:
        fs = [list(f) for f in self.fields]
        grows = {v for v, n in fs if n}
        banked = 0.0
        for c in sorted(cards, key=lambda c: (c not in grows, c)):
            banked += self._plant(fs, c)
        if front:
            banked += self._plant(fs, front[0])
            if len(front) > 1 and any(v == front[1] or v == EMPTY for v, _ in fs):
                banked += self._plant(fs, front[1])
        return banked + sum(self.worth(v, n) for v, n in fs)

    def _plant(self, fs: Fields, c: int) -> float:
        """Plant ``c`` in ``fs`` (its fullest field, an empty one, else after
        the harvest that loses least); the coins that harvest pays."""
        f = -1
        for i, (v, n) in enumerate(fs):
            if v == c and (f < 0 or n > fs[f][1]):
                f = i
        if f < 0:
            for i, (v, _) in enumerate(fs):
                if v == EMPTY:
                    f = i
                    break
        banked = 0.0
        if f < 0:
            f = self.room(fs)
            banked = self.paid(*fs[f])
            fs[f] = [EMPTY, 0]
        fs[f] = [c, fs[f][1] + 1]
        return banked

    def without(self, positions: Sequence[int]) -> list[int]:
        """Own hand less the cards at ``positions``."""
        return [c for i, c in enumerate(self.hand) if i not in positions]

    def tail_cost(self, positions: Sequence[int]) -> float:
        """What giving away hand cards behind the front two loses, by their
        position (negative: a relief); the front two count in :meth:`settle`."""
        cost = 0.0
        for pos in positions:
            if pos >= 2:
                card = self.hand[pos]
                gain = self._gains.get(card)
                if gain is None:
                    gain = self._gains[card] = self.settle((card,), ()) - self.settle((), ())
                cost += HAND_WEIGHT[min(pos, len(HAND_WEIGHT) - 1)] * gain
        return cost

    def hand_cost(self, pending: Sequence[int], pos: int) -> float:
        """What giving away the hand card at ``pos`` loses (negative: a relief)."""
        if pos >= 2:
            return self.tail_cost((pos,))
        return self.settle(pending) - self.settle(pending, self.without((pos,)))

    # -- other seats --------------------------------------------------------
    def feeds(self, seat: int, card: int) -> bool:
        """Does ``seat`` have a field of ``card`` growing?"""
        return any(v == card and n for v, n in self.others[seat])

    def feed_cost(self, seat: int, cards: Sequence[int]) -> float:
        """How much ``cards`` help ``seat``'s growing fields, weighed up for a
        leader (helping any one rival counts less than helping oneself)."""
        cost = 0.0
        for c in cards:
            for v, n in self.others[seat]:
                if v == c and n:
                    cost += self.worth(v, n + 1) - self.worth(v, n)
                    break
        if not cost:
            return 0.0
        leads = self.coins[seat] >= max(self.coins)
        return cost * (1.0 if leads else self.feed)


class TraderBot(PlannerBot):
    name = "trader"

    # The defaults are tuned (`bohnarena tune`, docs/tuning.md); bohnarena
    # 0.2's are :class:`TraderBot02`'s.
    #: A trade or gift must gain at least this much to be worth making.
    margin = 0.015
    #: How many of the varieties it wants most it asks for.
    wants = 2
    #: The unseen cards a seat may hope to see: this many tables' worth of
    #: its share (a little more than its own share, by trading).
    share = 0.6
    #: The chance of a field's next step shrinks by this for each card it lacks.
    hope = 0.9
    #: What feeding a rival who does not lead counts (feeding the leader: 1).
    feed = 0.6
    #: Its parameters (docs/tuning.md).
    tunable: ClassVar[Mapping[str, Param]] = {
        "margin": Param(0.0, 1.0),
        "wants": Param(1, 4),
        "share": Param(0.5, 4.0),
        "hope": Param(0.2, 1.0),
        "feed": Param(0.0, 1.0),
    }

    def start(self, seat: int, rules: RuleSet, rng: random.Random) -> None:
        super().start(seat, rules, rng)
        self._tried: set[tuple[object, ...]] = set()  # offers made this turn
        self._turn = -1
        self._steps = [tuple(sorted({s for s in v.beanometer if s})) for v in rules.varieties]
        for v in rules.varieties:
            if v.draft_at:
                self._steps[v.id] = (v.draft_at,)

    def _once(self, view: SeatView, key: tuple[object, ...]) -> bool:
        """True the first time ``key`` comes up this turn."""
        if view.turn != self._turn:
            self._turn = view.turn
            self._tried.clear()
        if key in self._tried:
            return False
        self._tried.add(key)
        return True

    # -- planting -----------------------------------------------------------
    def make_room(self, view: SeatView, card: int) -> int:
        sight = Sight(self, view)
        return sight.room(sight.fields, view.harvestable())

    def plant_second(self, view: SeatView) -> bool:
        hand = view.hand
        fields = view.my_fields
        card = hand[0]
        if any(v == card for v, _ in fields):
            return True
        empty = sum(v == EMPTY for v, _ in fields)
        if empty > 1:
            return True
        if empty == 1:
            # Keep the empty field for a revealed card, unless the next hand
            # card could not use it anyway.
            return len(hand) > 1 and hand[1] == card
        # A harvest now: only of a field that has nothing more to hope for;
        # else keep the card to give away in phase 2.
        sight = Sight(self, view)
        return sight.loss(sight.fields, sight.room(sight.fields)) < 0.05

    # -- at any time --------------------------------------------------------
    def anytime(self, view: SeatView) -> Anytime | None:
        # Rio Grande: a third field pays for itself, unless the game is nearly over.
        if view.can_buy_field() and view.exhaustions < view.rules.exhaustions - 1:
            return Anytime(buy_field=True)
        return None

    def draft(self, view: SeatView, cards: tuple[int, ...]) -> DraftPick:
        sight = Sight(self, view)
        base = sight.settle(())
        best, top, where = 0, 0.0, None
        for i, card in enumerate(cards):
            fits = view.fields_for(card)
            if not fits:
                continue
            gained = sight.settle((card,)) - base
            if where is None or gained > top:
                best, top, where = i, gained, self._field_for(view.my_fields, card, fits)
        if where is not None and top > 0:
            return DraftPick(best, where)
        # Nothing worth planting: take away what the next picker (to the right) grows.
        right = (view.seat - 1) % view.players
        for i, card in enumerate(cards):
            if sight.feeds(right, card):
                return DraftPick(i, None)
        return DraftPick(best, where if top > -0.05 else None)

    @staticmethod
    def _field_for(fields: Sequence[tuple[int, int]], card: int, fits: Sequence[int]) -> int:
        for f in fits:
            if fields[f][0] == card:
                return f
        return fits[0]

    # -- trading ------------------------------------------------------------
    @staticmethod
    def _wanted(sight: Sight, pending: Sequence[int]) -> list[tuple[float, int]]:
        """Varieties of own growing fields, by what one more card gains."""
        base = sight.settle(pending)
        out = []
        for v in {v for v, n in sight.fields if n}:
            gained = sight.settle([*pending, v]) - base
            if gained > 0.1:
                out.append((gained, v))
        out.sort(reverse=True)
        return out

    def _targets(self, sight: Sight, view: SeatView, cards: Sequence[int]) -> list[int]:
        """Seats that ``cards`` feed not at all, poorest first."""
        seats = [
            s
            for s in range(view.players)
            if s != view.seat and not any(sight.feeds(s, c) for c in cards)
        ]
        seats.sort(key=lambda s: (sight.coins[s], s))
        return seats

    def propose(self, view: SeatView) -> Offer | None:
        sight = Sight(self, view)
        revealed = view.revealed
        hand = view.hand
        pending = [*view.my_trade_area, *revealed]
        base = sight.settle(pending)
        wanted = self._wanted(sight, pending)
        # Cards to be rid of: revealed ones that cost a harvest (one, or both
        # together where each alone would not be worth it), front hand cards
        # that will.
        unwanted: list[tuple[float, tuple[int, ...], tuple[int, ...]]] = []  # relief, refs, cards
        for i, card in enumerate(revealed):
            rest = list(pending)
            rest.remove(card)
            relief = sight.settle(rest) - base
            if relief > self.margin:
                unwanted.append((relief, (-1 - i,), (card,)))
        if len(revealed) > 1:
            rest = list(view.my_trade_area)
            relief = sight.settle(rest) - base
            if relief > self.margin:
                refs = tuple(-1 - i for i in range(len(revealed)))
                unwanted.append((relief - self.margin, refs, tuple(revealed)))
        for pos in range(min(3, len(hand))):
            relief = -sight.hand_cost(pending, pos)
            if relief > self.margin:
                unwanted.append((relief, (pos,), (hand[pos],)))
        unwanted.sort(reverse=True)
        for _, refs, cards in unwanted:
            targets = self._targets(sight, view, cards)
            for _, want in wanted[: self.wants]:
                if len(targets) == view.players - 1:
                    if self._once(view, ("swap", cards, want, None)):
                        return Offer(give=refs, want=(want,))
                elif targets and self._once(view, ("swap", cards, want, targets[0])):
                    return Offer(give=refs, want=(want,), to=targets[0])
            for s in targets:
                if self._once(view, ("gift", cards, s)):
                    return Offer(give=refs, to=s)
        # Ask for cards that grow own fields, for nothing.
        for _, want in wanted[: self.wants]:
            if self._once(view, ("beg", want)):
                return Offer(want=(want,))
        return None

    def offer(self, view: SeatView) -> Offer | None:
        sight = Sight(self, view)
        hand = view.hand
        pending = list(view.my_trade_area)
        base = sight.settle(pending)
        active = view.active
        # the revealed cards, then what grows own fields from the active hand
        asks = dict.fromkeys(view.revealed)
        for _, v in self._wanted(sight, pending)[: self.wants]:
            asks.setdefault(v)
        gains = [(card, sight.settle([*pending, card]) - base) for card in asks]
        gains = [(card, gained) for card, gained in gains if gained > self.margin]
        if not gains:
            return None
        # what each hand card costs to give, and how much it feeds the active player
        spends = [
            sight.hand_cost(pending, pos) + sight.feed_cost(active, (c,))
            for pos, c in enumerate(hand)
        ]
        best: tuple[float, tuple[int, ...], int] | None = None
        for card, gained in gains:
            # give the hand card that costs least and feeds the active player least
            give: tuple[int, ...] = ()
            cost = 0.0
            for pos, c in enumerate(hand):
                if c == card:
                    continue
                spent = spends[pos]
                if spent < cost or (not give and spent < gained - self.margin):
                    give, cost = (pos,), spent
            value = gained - cost
            tried = view.turn == self._turn and ("ask", card, give) in self._tried
            if not tried and (best is None or value > best[0]):
                best = (value, give, card)
        if best is None or not self._once(view, ("ask", best[2], best[1])):
            return None
        return Offer(give=best[1], want=(best[2],))

    def respond(self, view: SeatView, offer: Proposal) -> Accept | None:
        sight = Sight(self, view)
        hand = view.hand
        active = view.seat == view.active
        revealed = view.revealed if active else ()
        pending = [*view.my_trade_area, *revealed]
        # each wanted card from where giving it costs least
        give: list[int] = []
        need = Counter(offer.want)
        left = list(pending)
        for card, count in need.items():
            for _ in range(count):
                ref = self._cheapest_ref(sight, hand, revealed, left, card, give)
                if ref is None:
                    return None
                give.append(ref)
                if ref < 0:
                    left.remove(card)
        gained = (
            sight.settle([*left, *offer.cards], sight.without(give))
            - sight.settle(pending)
            - sight.tail_cost(give)
        )
        gained -= sight.feed_cost(offer.by, offer.want)
        if gained <= self.margin:
            return None
        return Accept(tuple(give))

    @staticmethod
    def _cheapest_ref(
        sight: Sight,
        hand: Sequence[int],
        revealed: Sequence[int],
        left: Sequence[int],
        card: int,
        taken: Sequence[int],
    ) -> int | None:
        best, least = None, 0.0
        base = sight.settle(left)
        if card in left:
            for i, c in enumerate(revealed):
                if c == card and -1 - i not in taken:
                    rest = list(left)
                    rest.remove(card)
                    best, least = -1 - i, base - sight.settle(rest)
                    break
        for pos, c in enumerate(hand):
            if c == card and pos not in taken:
                cost = sight.hand_cost(left, pos)
                if best is None or cost < least:
                    best, least = pos, cost
        return best


class TraderBot02(TraderBot):
    """The trader with bohnarena 0.2's defaults, before they were tuned:
    registered as ``trader-0.2``, so a league that played ``trader`` then
    plays the same matches again under that name."""

    name = "trader-0.2"
    margin = 0.05
    wants = 2
    share = 1.5
    hope = 0.7
    feed = 0.6
