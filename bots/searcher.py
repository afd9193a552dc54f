"""The bean counter: determinized Monte Carlo search over each real choice.

At a decision with more than one sensible answer, the bot deals the cards
it cannot see afresh several times (``view.determinize``), tries every
candidate answer on each deal (``clone`` + ``apply``) and plays on with a
cheap planner-like policy for every seat (:func:`rollout_policy`) for a
few rounds (with :attr:`BeanCounterBot.modelled`, an offer made this turn
is answered as the trader would answer it; off by default, as it did not
measurably help); the answer with the best mean score wins, where a score is the
seat's coins (plus what its fields would pay now) less the best other
seat's. Every candidate sees the same deals and the same random stream
(common random numbers), so their difference is measured, not their luck.

Trading: the heuristic answer the search starts from is the trader's,
kept away from the rival (the richest other seat, as a rule the other
trading bot): no swap or gift is addressed to it, no card it asks for
goes to one of its growing fields, and when the trader's own offers are
done the active bean counter begs each other seat in turn (poorest first)
for the cards that grow its fields, up to :attr:`BeanCounterBot.begs`
times a turn (a seat that answers at random gives now and then; one that
judges the trade gives only cards it wants to be rid of).

Budget: a fixed number of rollouts a decision (:attr:`BeanCounterBot.playouts`),
sized to take about 20 ms (99th percentile ~30 ms) on the 2-core VM it was
tuned on, so that a seed gives the same match on any machine. No clock
stops a search unless the seat has a time bank (then at 1% of what is left)
or :attr:`BeanCounterBot.max_seconds` is set: a search cut short by the
clock makes the match depend on the machine's speed.

Out of process (a command bot, the sandbox) it asks for the searchable
state (``wants_state``) and searches the same way. Where the view cannot be
searched all the same (a view without a state) every decision falls back
to the trader's heuristics.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

from bohnarena.bohnanza import (
    EMPTY,
    Accept,
    Anytime,
    DraftPick,
    Offer,
    Proposal,
    RuleSet,
    SeatView,
)
from bohnarena.bohnanza.bot import DECISION_METHODS
from bohnarena.bohnanza.state import State
from bohnarena.bohnanza.table import Table
from bohnarena.core.errors import IllegalAnswer
from bohnarena.core.params import Param

from .planner import _grows, field_for, harvest_choice, plants_second
from .trader import Sight, TraderBot, TraderBot02


class _Horizon(Exception):
    """Ends a rollout at its horizon (the state is thrown away after)."""


# -- the rollout policy: the planner's rules, read straight off the table ----
def _worth(fields: list[list[int]], card: int) -> int:
    """2 extends a field, 1 takes an empty one, -1 forces a harvest."""
    empty = False
    for v, _ in fields:
        if v == card:
            return 2
        if v == EMPTY:
            empty = True
    return 1 if empty else -1


def _respond(t: Table, seat: int, offer: Proposal) -> Accept | None:
    """The trader's rule: accept when what comes is worth more than what goes."""
    fields = t.fields[seat]
    gain = 0
    for c in offer.cards:
        gain += _worth(fields, c)
    hand = t.hands[seat]
    give: list[int] = []
    for want in offer.want:
        ref = None
        for r in range(len(hand) - 1, -1, -1):  # back of the hand: planted last
            if hand[r] == want and r not in give:
                ref = r
                break
        if ref is None and seat == t.active:
            for i, c in enumerate(t.revealed):
                if c == want and -1 - i not in give:
                    ref = -1 - i
                    break
        if ref is None:
            return None
        give.append(ref)
        w = _worth(fields, want)
        gain -= max(w, 0) if ref >= 0 else w
    return Accept(tuple(give)) if gain > 0 else None


def rollout_policy(
    state: State, seat: int, kind: str, args: tuple[Any, ...], rng: random.Random
) -> Any:
    """Every seat as a planner that buys a third field when it can, makes
    no offers and takes the trades that help it."""
    t = state.table
    fields = t.fields[seat]
    if kind == "plant":
        return field_for(fields, args[0])
    if kind == "make_room":
        return harvest_choice(fields, t.harvestable(seat), t.payouts)
    if kind == "plant_second":
        return plants_second(fields, t.hands[seat][0])
    if kind == "plant_next":
        for i, card in enumerate(t.trade[seat]):
            if _grows(fields, card):
                return i
        return 0
    if kind == "draft":
        cards = args[0]
        for i, card in enumerate(cards):
            if _grows(fields, card):
                return DraftPick(i, field_for(fields, card))
        for i, card in enumerate(cards):
            f = field_for(fields, card)
            if f >= 0:
                return DraftPick(i, f)
        return DraftPick(0, None)
    if kind == "anytime":
        return Anytime(buy_field=True) if t.can_buy_field(seat) else None
    if kind == "respond":
        return _respond(t, seat, args[0])
    return None  # propose, offer


def score(t: Table, seat: int) -> float:
    """Coins plus what the fields would pay if harvested now, less the same
    for the best other seat: a margin, as only the ranking counts."""
    worth = []
    for s in range(t.players):
        w = float(len(t.coins[s]))
        for v, n in t.fields[s]:
            if n:
                w += t.coins_for(v, n)
        worth.append(w)
    own = worth[seat]
    worth[seat] = float("-inf")
    return own - max(worth)


class BeanCounterBot(TraderBot):
    name = "beancounter"
    wants_state = True  # out of process too: the engine sends the state to search

    #: Rollouts a decision at a 4-player table (candidates x deals; times
    #: 4/players at others): the reproducible budget.
    playouts = 40
    #: Deals a decision at least (more when there are few candidates).
    min_deals = 2
    #: Turns a rollout plays before it is scored (0: to the end of the match).
    horizon_rounds = 2
    #: Coins a sample by which a candidate must beat the heuristic's own
    #: answer to replace it (a few noisy rollouts should not overrule it).
    stay = 0.5
    #: Wall-clock cap a decision, seconds (None: none). Off by default: a
    #: search the clock cuts short makes a seed's match depend on the
    #: machine. With a time bank the cap is 1% of what is left whatever this says.
    max_seconds: float | None = None
    #: The decisions searched; the others are the trader's.
    searched: frozenset[str] = frozenset(DECISION_METHODS)
    #: Candidate offers (besides none) and ways to accept an offer searched.
    offered = 6
    accepts = 3
    #: In the rollouts, offers made this turn are answered as the trader would.
    #: Off: it won more at one seating and less at another (CHANGELOG).
    modelled = False

    #: Begging rounds: after the trader's own offers the active bean counter
    #: asks each seat but the rival (the richest other seat) in turn for
    #: each of its most wanted varieties, for nothing, this many times a
    #: turn (a bot that answers at random gives now and then; one that
    #: judges the trade gives only what it wants to be rid of). 0: none.
    begs = 3
    #: Varieties begged for (the most wanted first).
    beg_wants = 3
    # The trader's parameters as they were before the trader's were tuned:
    # its heuristics seed a search, and were not tuned for that.
    margin = TraderBot02.margin
    wants = TraderBot02.wants
    share = TraderBot02.share
    hope = TraderBot02.hope
    feed = TraderBot02.feed
    #: Its parameters (docs/tuning.md): the trader's and the search's.
    tunable: ClassVar[Mapping[str, Param]] = {
        **TraderBot.tunable,
        "playouts": Param(8, 400, log=True),
        "horizon_rounds": Param(1, 6),
        "stay": Param(0.0, 3.0),
        "offered": Param(1, 12),
        "begs": Param(0, 6),
        "beg_wants": Param(1, 5),
    }

    def decisions(self, rules: RuleSet) -> frozenset[str]:
        # Harvest windows are searched only where a third field can be bought;
        # elsewhere a window harvest is never better than make_room's later.
        asks = frozenset(DECISION_METHODS)
        return asks if rules.third_field_cost else asks - {"anytime"}

    def start(self, seat: int, rules: RuleSet, rng: random.Random) -> None:
        super().start(seat, rules, rng)
        self.searchable = True
        self.searches = 0  # decisions searched
        self.capped = 0  # searches the clock cut short
        # every seat's answer to an offer as the trader gives it (rollouts)
        self._models: list[TraderBot] = []
        for s in range(rules.players):
            model = TraderBot02()  # (as it answered before the trader was tuned)
            model.start(s, rules, random.Random(0))
            self._models.append(model)

    # -- trading: the trader's, kept away from the rival ----------------------
    @staticmethod
    def _rival(view: SeatView) -> int:
        """The richest other seat (the first of equals): the one to beat."""
        coins = view.coins
        return max((s for s in range(view.players) if s != view.seat), key=lambda s: (coins[s], -s))

    def _targets(self, sight: Sight, view: SeatView, cards: Sequence[int]) -> list[int]:
        """The trader's targets but the rival: no swap or gift goes its way."""
        rival = self._rival(view)
        return [s for s in super()._targets(sight, view, cards) if s != rival]

    def _trade_propose(self, view: SeatView) -> Offer | None:
        """The trader's offers, then begging every seat but the rival in
        turn (poorest first) for the cards that grow own fields."""
        offer = TraderBot.propose(self, view)
        if offer is not None or not self.begs:
            return offer
        sight = Sight(self, view)
        wanted = self._wanted(sight, [*view.my_trade_area, *view.revealed])
        rival = self._rival(view)
        seats = sorted(
            (s for s in range(view.players) if s not in (view.seat, rival)),
            key=lambda s: (sight.coins[s], s),
        )
        for round_ in range(self.begs):
            for _, want in wanted[: self.beg_wants]:
                for s in seats:
                    if self._once(view, ("beg", want, s, round_)):
                        return Offer(want=(want,), to=s)
        return None

    def _trade_respond(self, view: SeatView, offer: Proposal) -> Accept | None:
        """The trader's answer, but never a card to the rival's growing fields."""
        answer = TraderBot.respond(self, view, offer)
        if answer is None or offer.by != self._rival(view):
            return answer
        return None if Sight(self, view).feed_cost(offer.by, offer.want) > 0 else answer

    # -- the decisions ----------------------------------------------------------
    def plant(self, view: SeatView, card: int) -> int:
        answer: int = self._search(
            view, "plant", lambda: super(BeanCounterBot, self).plant(view, card)
        )
        return answer

    def make_room(self, view: SeatView, card: int) -> int:
        answer: int = self._search(
            view, "make_room", lambda: super(BeanCounterBot, self).make_room(view, card)
        )
        return answer

    def plant_second(self, view: SeatView) -> bool:
        answer: bool = self._search(
            view, "plant_second", lambda: super(BeanCounterBot, self).plant_second(view)
        )
        return answer

    def plant_next(self, view: SeatView) -> int:
        answer: int = self._search(
            view, "plant_next", lambda: super(BeanCounterBot, self).plant_next(view)
        )
        return answer

    def anytime(self, view: SeatView) -> Anytime | None:
        if not view.can_buy_field():
            return None  # see decisions(): only the purchase is worth a search
        answer: Anytime | None = self._search(
            view, "anytime", lambda: super(BeanCounterBot, self).anytime(view)
        )
        return answer

    def propose(self, view: SeatView) -> Offer | None:
        answer: Offer | None = self._search(view, "propose", lambda: self._trade_propose(view))
        return answer

    def offer(self, view: SeatView) -> Offer | None:
        answer: Offer | None = self._search(
            view, "offer", lambda: super(BeanCounterBot, self).offer(view)
        )
        return answer

    def respond(self, view: SeatView, offer: Proposal) -> Accept | None:
        answer: Accept | None = self._search(
            view, "respond", lambda: self._trade_respond(view, offer)
        )
        return answer

    def draft(self, view: SeatView, cards: tuple[int, ...]) -> DraftPick:
        answer: DraftPick = self._search(
            view, "draft", lambda: super(BeanCounterBot, self).draft(view, cards)
        )
        return answer

    # -- the search -------------------------------------------------------------
    def _search(self, view: SeatView, kind: str, fallback: Callable[[], Any]) -> Any:
        if not self.searchable or kind not in self.searched:
            return fallback()
        rng = self.rng
        try:
            root = view.determinize(rng)
        except (NotImplementedError, RuntimeError):
            self.searchable = False  # no state behind the view: heuristics from now on
            return fallback()
        pending = root.pending
        if pending is None or pending[0] != self.seat or pending[1] != kind:
            return fallback()  # not the decision asked (never expected)
        candidates = self._candidates(root, kind, fallback())
        if len(candidates) == 1:
            return candidates[0]
        self.searches += 1
        return self._best(view, root, candidates)

    def _candidates(self, state: State, kind: str, first: Any) -> list[Any]:
        """The answers worth a search; the heuristic's own first (ties keep it)."""
        legal = state.legal_answers()
        if kind in ("propose", "offer"):
            legal = [None, *self._offers(state, kind)]
        elif kind == "anytime":
            legal = [a for a in legal if a is None or not a.harvest]
        elif kind == "respond":
            legal = legal[: self.accepts + 1]
        try:
            first = state.check(first)
        except IllegalAnswer:  # never expected: the trader answers legally
            return legal
        return [first, *(a for a in legal if a != first)]

    def _offers(self, state: State, kind: str) -> list[Offer]:
        """The sensible offers that help by the trader's measure: they give
        away cards that would force a harvest, ask for cards that extend a
        field; the best few."""
        t = state.table
        seat = self.seat
        fields = t.fields[seat]
        ranked: list[tuple[int, int, Offer]] = []
        for o in state.offers():
            gain = 0
            for r in o.give:
                card = t.hands[seat][r] if r >= 0 else t.revealed[-1 - r]
                w = _worth(fields, card)
                gain -= w
            for v in o.want:
                gain += _worth(fields, v)
                if kind == "offer" and v not in t.revealed:
                    gain -= 3  # the active player rarely gives from the hand
            if gain > 0:
                ranked.append((-gain, len(ranked), o))
        ranked.sort()
        return [o for _, _, o in ranked[: self.offered]]

    def _best(self, view: SeatView, root: State, candidates: list[Any]) -> Any:
        rng = self.rng
        n = len(candidates)
        # A rollout plays a turn per seat: fewer of them at a bigger table,
        # and no more deals than the budget pays for (a draft can offer 18).
        deals = max(self.min_deals, self.playouts * 4 // view.players // n)
        limit = self._limit(view)
        began = time.perf_counter()
        totals = [0.0] * n
        horizon = self.horizon_rounds * view.players
        done = 0
        for d in range(deals):
            state = root if d == 0 else view.determinize(rng)
            self._deal(state, candidates, range(n), totals, horizon)
            done += 1
            if d + 1 < deals and self._overruns(began, done, limit):
                break
        best = max(range(n), key=lambda i: (totals[i], -i))
        if totals[best] - totals[0] <= self.stay * done:
            best = 0  # not clearly better than the heuristic's answer: keep it
        return candidates[best]

    def _overruns(self, began: float, done: int, limit: float) -> bool:
        """Whether one more deal would overrun the cap (the ``done`` deals
        since ``began`` as its cost); counted in ``capped``."""
        if (time.perf_counter() - began) * (done + 1) / done <= limit:
            return False
        self.capped += 1
        return True

    def _limit(self, view: SeatView) -> float:
        """Seconds a search may take: ``max_seconds``, and never more than
        1% of what is left of a time bank."""
        limit = math.inf if self.max_seconds is None else self.max_seconds
        left = view.time_left
        if left is not None:
            limit = min(limit, left / 100)
        return limit

    def _deal(
        self,
        state: State,
        candidates: list[Any],
        which: Iterable[int],
        totals: list[float],
        horizon: int,
    ) -> None:
        """Adds to ``totals`` a rollout of each candidate in ``which`` from
        ``state``, all with the same random stream (common random numbers)."""
        seed = self.rng.getrandbits(64)
        for i in which:
            s = state.clone()
            s.apply(candidates[i])
            totals[i] += self._rollout(s, seed, horizon, self.seat)

    def _rollout(self, state: State, seed: int, horizon: int, seat: int) -> float:
        rng = random.Random(seed)
        t = state.table
        end = t.turn + horizon if horizon else math.inf
        now = t.turn if self.modelled else -1
        models = self._models

        def policy(
            state: State, s: int, kind: str, args: tuple[Any, ...], rng: random.Random
        ) -> Any:
            if t.turn > end:
                raise _Horizon
            if kind == "respond" and t.turn == now and s != seat:
                return models[s].respond(state.view(s), args[0])
            return rollout_policy(state, s, kind, args, rng)

        try:
            state.playout(rng, policy)
        except _Horizon:
            pass
        return score(t, seat)
