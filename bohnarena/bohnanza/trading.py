"""The trading of phase 2 (the card game): rounds of offers, each put to
its responders in turn; the first to accept trades. A mixin of
:class:`bohnarena.bohnanza.state.State`, whose steps these are."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..referee.gamestate import Frame, GameState
from .bot import Accept, Offer, Proposal
from .decisions import ref_cards
from .rules import RuleSet
from .table import Table


class Trading(GameState):
    """The trading steps of :class:`~bohnarena.bohnanza.state.State`."""

    table: Table
    rules: RuleSet
    _busy: bool  # a trading round in which something was offered

    if TYPE_CHECKING:

        def _window_then_ask(
            self, seat: int, kind: str, args: tuple[Any, ...], then: Frame
        ) -> None: ...

    def _trading(self, f: Frame) -> None:
        t = self.table
        a = t.active
        proposes = "propose" in self.declared[a]
        offerers = tuple(
            s for i in range(1, t.players) if "offer" in self.declared[s := (a + i) % t.players]
        )
        if proposes or offerers:
            self._round((Trading._round, 0, proposes, offerers))

    def _round(self, f: Frame) -> None:
        _, r, proposes, offerers = f
        if r >= self.rules.max_trade_rounds:
            return
        self._busy = False
        push = self._stack.append
        push((Trading._round_over, r, proposes, offerers))
        for s in reversed(offerers):
            push((Trading._offer, s))
        if proposes:
            push((Trading._propose, 0))

    def _round_over(self, f: Frame) -> None:
        if self._busy:
            self._stack.append((Trading._round, f[1] + 1, f[2], f[3]))

    def _propose(self, f: Frame) -> None:
        k = f[1]
        if k < self.rules.max_offers:
            self._window_then_ask(self.table.active, "propose", (), (Trading._proposed, k))

    def _proposed(self, f: Frame) -> None:
        offer: Offer | None = self._answer
        if offer is None:
            return  # no more offers this round
        self._busy = True
        t = self.table
        a = t.active
        self._stack.append((Trading._propose, f[1] + 1))
        if offer.to is not None:
            others: tuple[int, ...] = (offer.to,)
        else:
            others = tuple((a + i) % t.players for i in range(1, t.players))
        self._resolve(a, offer, others)

    def _offer(self, f: Frame) -> None:
        self._window_then_ask(f[1], "offer", (), (Trading._offered, f[1]))

    def _offered(self, f: Frame) -> None:
        offer: Offer | None = self._answer
        if offer is not None:
            self._busy = True
            self._resolve(f[1], offer, (self.table.active,))

    def _resolve(self, by: int, offer: Offer, responders: tuple[int, ...]) -> None:
        """Put ``offer`` to ``responders`` in turn; the first to accept trades."""
        t = self.table
        give = ref_cards(t, by, offer.give)
        t.record(("offered", by, -1 if offer.to is None else offer.to, give, offer.want))
        proposal = Proposal(by, offer.to, give, offer.want, offer.say)
        self._respond((Trading._respond, by, offer, proposal, responders, 0))

    def _respond(self, f: Frame) -> None:
        _, by, offer, proposal, responders, i = f
        if i < len(responders):
            then = (Trading._responded, by, offer, proposal, responders, i)
            self._window_then_ask(responders[i], "respond", (proposal,), then)

    def _responded(self, f: Frame) -> None:
        _, by, offer, proposal, responders, i = f
        t = self.table
        r = responders[i]
        accept: Accept | None = self._answer
        if accept is None:
            t.record(("declined", r, by))
            self._stack.append((Trading._respond, by, offer, proposal, responders, i + 1))
            return
        got = ref_cards(t, r, accept.give)
        self._hand_over(by, offer.give, r)
        self._hand_over(r, accept.give, by)
        active, other = (by, r) if by == t.active else (r, by)
        a_gives, o_gives = (proposal.cards, got) if by == t.active else (got, proposal.cards)
        t.record(("traded", active, other, a_gives, o_gives))

    def _hand_over(self, giver: int, refs: tuple[int, ...], to: int) -> None:
        t = self.table
        t.trade[to].extend(ref_cards(t, giver, refs))
        for r in sorted((r for r in refs if r >= 0), reverse=True):
            t.hands[giver].pop(r)
        for i in sorted((-1 - r for r in refs if r < 0), reverse=True):
            t.revealed.pop(i)
