"""The card game as a searchable state: the table plus where the turn is.

A :class:`State` runs the rules until a seat must decide something, and
stops there: :attr:`State.pending` says who decides what, :meth:`State.apply`
gives the answer and runs on to the next decision. ``clone`` copies a state
cheaply; ``determinize`` makes a full state a seat could believe in (the
cards it cannot see sampled afresh). The referee drives a league's matches
through the same object (:meth:`bohnarena.referee.seats.Referee.run`), and replay
applies the logged answers to it.

Where the turn is lives in a stack of frames: ``(step, *values)`` tuples
of plain values, run top first. A step runs the rules on until it needs an
answer; then it pushes the frame that takes the answer and sets
``pending``. Nothing in a frame refers to a zone of cards by object (zones
are named by seat and source), so a copy of the stack serves a copy of the
table.

When seats are asked (the "at any time" rule made concrete):

* A seat's ``anytime`` (harvest, buy a third field) is asked at every phase
  boundary, for every seat clockwise from the active player, and right
  before every other decision that seat is asked in phases 1 to 3 (not
  before ``plant`` or ``make_room``, which come inside a planting).
* A decision with exactly one legal answer is not asked; it is played, and
  recorded with ``how`` "forced".
* A decision a seat does not answer (not in its ``asks``) is not asked
  either: the default answer is played and recorded with ``how`` "default".
* A seat that answers ``anytime`` is offered every window, and every
  window's answer is recorded, an empty one too.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..core.botapi import FORCED
from ..core.game import MatchResult
from ..referee.gamestate import STOPPED, Frame
from .answers import LEGAL, sensible_offers
from .bot import DECISION_METHODS, Anytime, Offer
from .decisions import DECISIONS
from .drafting import Drafting
from .policies import RANDOM_DECIDES, Policy, random_answer, random_policy
from .rules import RuleSet
from .sampling import sample
from .table import EMPTY, FINAL_PHASE, FROM_HAND, FROM_TRADE_AREA, GameOver, Table
from .trading import Trading
from .view import SeatView

MAX_TURNS = 100_000  # a guard against engine bugs only; real games end far sooner

#: Every decision: what a seat that answers everything is asked.
EVERYTHING = frozenset(DECISION_METHODS)


class State(Trading, Drafting):
    """One match of the card game, stopped at a decision (or over).

    ``asks[seat]`` are the decisions that seat is asked (the others are
    played with their default answer); a forfeit empties it. ``declared``
    are the decisions each seat said it answers at the start (who takes
    part in trading follows them).
    """

    DECISIONS = DECISIONS
    RECORDS_HOW = True
    RANDOM_DECIDES = RANDOM_DECIDES
    table: Table

    def __init__(self, rules: RuleSet, seed: int, asks: Sequence[frozenset[str]] | None = None):
        n = rules.players
        self._begin(rules, Table(rules, seed), asks, n)
        self._busy = False  # a trading round in which something was offered
        self._windows = False  # does any seat take harvest windows?
        self._trades = False  # does any seat make offers?
        self._views: list[SeatView] = [SeatView(self.table, s) for s in range(n)]

    # -- the public interface ------------------------------------------------
    def seated(self, declared: Sequence[frozenset[str]] | None = None) -> None:
        """``declared``: what each seat said it answers (default: its ``asks``)."""
        self.declared = list(declared) if declared is not None else list(self.asks)
        self._windows = any("anytime" in a for a in self.asks)
        self._trades = any("propose" in a or "offer" in a for a in self.declared)

    def _narrowed(self) -> None:
        # Where no seat makes offers (nor opens windows before them), the
        # trading rounds would be all declined: they are left out.
        windows = any("anytime" in a for a in self.asks)
        offers = any("propose" in a or "offer" in a for a in self.asks)
        self._trades = self._trades and (offers or windows)
        self._windows = windows

    def start(self, declared: Sequence[frozenset[str]] | None = None) -> None:
        """Deal, and play on to the first decision (see :meth:`seated`)."""
        self.seated(declared if declared is not None else self.declared)
        self.deal()
        self._stack.append(STEP_TURN)
        self._run()

    def deal(self) -> None:
        """Deal one card at a time; the first card dealt is the front card."""
        t = self.table
        deal = self.rules.deal
        for k in range(max(deal)):
            for s in range(t.players):
                if k < deal[s]:
                    t.hands[s].append(t.deck.pop())
        for s in range(t.players):
            t.record(("dealt", s, tuple(t.hands[s])))

    def returns(self) -> tuple[int, ...]:
        """Coins of each seat (final once the match is over)."""
        return tuple(map(len, self.table.coins))

    def legal_answers(self) -> list[Any]:
        """Every legal answer to the pending decision, but for trade offers
        (``propose``, ``offer``), where it is :meth:`offers` and None."""
        if self.pending is None:
            return []
        seat, kind, args = self.pending
        return LEGAL[kind](self, seat, *args)

    def offers(self, seat: int | None = None) -> list[Offer]:
        """A finite set of sensible trade offers for ``seat`` (default: the
        pending decision's): every single card it may give for nothing, for
        one card of any variety in play, and the same for two cards of one
        variety; and asking for one card of each variety as a gift. See
        docs/search.md for why this set."""
        if seat is None:
            assert self.pending is not None
            seat = self.pending[0]
        return sensible_offers(self, seat)

    def clone(self) -> State:
        """An independent copy: playing on one never changes the other."""
        new: State = self._copy()
        new._own(self.table.copy())
        new._busy, new._windows, new._trades = self._busy, self._windows, self._trades
        new._views = [SeatView(new.table, s) for s in range(len(self._views))]
        return new

    def determinize(self, seat: int, rng: random.Random) -> State:
        """A full state consistent with what ``seat`` has seen: the other
        seats' hands and the draw pile are dealt afresh, with ``rng``, from
        the cards ``seat`` cannot place (``view.unseen``), in the same sizes;
        the draw pile's later reshuffles follow ``rng`` too. The result does
        not depend on the hidden cards' real places (the sample is drawn
        from the unseen counts, not from the cards themselves), and it keeps
        no records (its history starts now). What the seat may have learnt
        of another hand from a declined offer is not used, nor where in that
        hand the cards of an offer on the table are (only their varieties
        were shown: the sample's offer gives the hand's hindmost cards)."""
        return sample(self, seat, rng)

    # -- running the rules -----------------------------------------------------
    def _end(self) -> None:
        self.finish()

    def view(self, seat: int) -> SeatView:
        """What ``seat`` sees (a live view of this state)."""
        return self._views[seat]

    def _ask(self, seat: int, kind: str, args: tuple[Any, ...], then: Frame) -> None:
        """Ask ``seat``; ``then`` takes the answer (``self._answer``)."""
        answer = self._decide(seat, kind, args, then)
        if answer is not STOPPED:
            self._answer = answer
            then[0](self, then)

    def _window_then_ask(self, seat: int, kind: str, args: tuple[Any, ...], then: Frame) -> None:
        """A harvest window for ``seat``, then its decision ``kind``."""
        if "anytime" in self.asks[seat]:
            self._stack.append((State._ask_frame, seat, kind, args, then))
            self._ask(seat, "anytime", (), (State._window_taken, seat))
            if self.pending is not None:
                self.then = (kind, args)
            return
        self._ask(seat, kind, args, then)

    def _ask_frame(self, f: Frame) -> None:
        self._ask(f[1], f[2], f[3], f[4])

    def _window(self, f: Frame) -> None:
        seat = f[1]
        if "anytime" in self.asks[seat]:
            self._ask(seat, "anytime", (), (State._window_taken, seat))

    def _window_taken(self, f: Frame) -> None:
        answer: Anytime | None = self._answer
        if answer is None:
            return
        seat = f[1]
        if answer.buy_field:
            self.table.buy_field(seat)
        if answer.harvest:
            self._stack.append((State._harvests, seat, answer.harvest))

    def _harvests(self, f: Frame) -> None:
        """Harvest the fields in turn; a draft one sets off comes first."""
        _, seat, fields = f
        t = self.table
        field = fields[0]
        if field not in t.harvestable(seat):
            return  # a draft set off by an earlier harvest changed the fields
        if len(fields) > 1:
            self._stack.append((State._harvests, seat, fields[1:]))
        if t.harvest(seat, field):
            self._stack.append((State._draft, seat))

    # -- planting -----------------------------------------------------------
    def _place(self, f: Frame) -> None:
        self._plant(f[1], f[2], f[3])

    def _plant(self, seat: int, source: int, index: int) -> None:
        """Plant card ``index`` of ``seat``'s hand or trade area, harvesting
        first if it fits no field. (The frame that would plant it again, after
        a draft or an answer, is built only then: every card planted comes
        here.)"""
        t = self.table
        zone = t.trade[seat] if source else t.hands[seat]  # (FROM_TRADE_AREA or FROM_HAND)
        card = zone[index]
        fields = t.fields[seat]
        fits = []  # t.fields_for(), inlined: every card planted asks it
        for i, (v, _) in enumerate(fields):
            if v == card or v == EMPTY:  # noqa: SIM109 (a tuple test costs more)
                fits.append(i)
        if not fits:  # the card fits no field: harvest one first
            room = t._protect(fields)  # t.harvestable(), inlined
            if len(room) == 1:
                field = room[0]
                if t.recording:
                    t.record(("make_room", seat, card, field, FORCED))
            else:
                self.options, self.options_for = room, (args := (card,))  # (listed once)
                policy = self._policy
                if policy is not None and "make_room" in self.asks[seat]:
                    # a playout: _decide()'s first case, inlined (half a playout's decisions)
                    field = policy(self, seat, "make_room", args, self._policy_rng)
                else:
                    then = (State._room_made, seat, source, index)
                    field = self._decide(seat, "make_room", args, then)
                self.options = self.options_for = None
                if field is STOPPED:
                    return
            if t.harvest(seat, field):
                self._stack.append((State._place, seat, source, index))  # once the draft is over
                self._stack.append((State._draft, seat))
                return
            # the harvested field, empty now, is the only one the card fits
            if t.recording:
                t.record(("plant", seat, card, field, FORCED))
        elif len(fits) == 1:
            field = fits[0]
            if t.recording:
                t.record(("plant", seat, card, field, FORCED))
        else:
            self.options, self.options_for = fits, (args := (card,))
            field = self._decide(seat, "plant", args, (State._planted, seat, source, index))
            self.options = self.options_for = None
            if field is STOPPED:
                return
        zone.pop(index)
        planted = fields[field]  # t.plant(), inlined: a call less a card planted
        planted[0] = card
        planted[1] += 1
        if t.recording:
            t.record(("planted", seat, card, field, source))

    def _room_made(self, f: Frame) -> None:
        _, seat, source, index = f
        if self.table.harvest(seat, self._answer):
            self._stack.append((State._place, seat, source, index))
            self._stack.append((State._draft, seat))
        else:
            self._plant(seat, source, index)

    def _planted(self, f: Frame) -> None:
        _, seat, source, index = f
        t = self.table
        zone = t.hands[seat] if source == FROM_HAND else t.trade[seat]
        t.plant(seat, zone.pop(index), self._answer, source)

    # -- drawing ------------------------------------------------------------
    def _draw(self, zone: list[int], kind: str, seat: int) -> bool:
        """Draw one card (see :meth:`Table.draw`). The draw pile's last run-out
        ends the game at once (000: "as soon as the draw pile becomes empty
        for the third time"), unless it happens where the edition's
        ``end_grace`` lets phases 2 and 3 of this turn be played to the end."""
        t = self.table
        deck = t.deck
        if len(deck) > 1:  # Table.draw's common case, inlined: no run-out, no end
            card = deck.pop()
            zone.append(card)
            if t.recording:
                t.record((kind, seat, card))
            return True
        if not t.draw(zone, kind, seat):
            return False
        if t.ended and not t.playing_out:
            grace = kind == "revealed" or self.rules.end_grace == "phase_2"
            if t.phase != 2 or not grace:
                raise GameOver
            t.playing_out = True
        return True

    # -- the turn -----------------------------------------------------------
    # Each step below pushes what comes after it and runs the first of it
    # itself (a frame pushed only to be popped next costs a tenth of a match).
    def _turn(self, f: Frame) -> None:
        t = self.table
        if t.turn >= MAX_TURNS:
            raise RuntimeError("match did not end")  # pragma: no cover
        t.active = t.turn % t.players
        t.turn += 1
        if t.recording:
            t.record(("turn", t.active, t.turn))
        # this step again after the phases; with no record to make and no
        # window to open, a phase's first step is its work (it sets the phase)
        self._stack += TURN if t.recording or self._windows else QUIET_TURN
        self._phase_1(f)

    def push_turn_phases(self) -> None:
        """The four phases of the active player's turn, to run next."""
        self._stack += [STEP_PHASE_4, STEP_PHASE_3, STEP_PHASE_2, STEP_PHASE_1]

    def _windows_then(self, then: Frame) -> None:
        """A phase boundary's windows, every seat clockwise from the active
        player, then ``then``."""
        t = self.table
        push = self._stack.append
        push(then)
        for i in range(t.players - 1, -1, -1):
            push((State._window, (t.active + i) % t.players))

    def _phase_1(self, f: Frame) -> None:
        """Plant the front card of the hand, and maybe the next one."""
        t = self.table
        a = t.active
        t.phase = 1
        if t.recording:
            t.record(("phase", a, 1))
        if self._windows:
            self._windows_then(STEP_FRONT)
            return
        if t.hands[a]:  # an empty hand goes straight to phase 2
            self._stack.append(STEP_SECOND)
            self._plant(a, FROM_HAND, 0)

    def _front(self, f: Frame) -> None:
        a = self.table.active
        if self.table.hands[a]:
            self._stack.append(STEP_SECOND)
            self._window_then_place(a, FROM_HAND, 0)

    def _window_then_place(self, seat: int, source: int, index: int) -> None:
        if self._windows:
            self._stack.append((State._place, seat, source, index))
            self._window((State._window, seat))
        else:
            self._plant(seat, source, index)

    def _second(self, f: Frame) -> None:
        a = self.table.active
        if not self.table.hands[a]:
            return
        if self._windows:
            self._window_then_ask(a, "plant_second", (), STEP_SECOND_PLANTED)
            return
        policy = self._policy
        if policy is not None and "plant_second" in self.asks[a]:  # _decide(), inlined
            second = policy(self, a, "plant_second", (), self._policy_rng)
        else:
            second = self._decide(a, "plant_second", (), STEP_SECOND_PLANTED)
        if second is True:
            self._plant(a, FROM_HAND, 0)  # self._second_planted(), inlined

    def _second_planted(self, f: Frame) -> None:
        if self._answer:
            self._window_then_place(self.table.active, FROM_HAND, 0)

    def _phase_2(self, f: Frame) -> None:
        """Reveal two cards (three in some editions), then trade."""
        t = self.table
        t.phase = 2
        if t.recording:
            t.record(("phase", t.active, 2))
        if self._windows:
            self._windows_then(STEP_REVEAL)
        else:
            self._reveal(f)

    def _reveal(self, f: Frame) -> None:
        t = self.table
        t.phase = 2  # (set already unless the turn is quiet)
        a, revealed, deck = t.active, t.revealed, t.deck
        if not t.recording and (rest := len(deck) - self.rules.reveal) > 0:
            # a fast playout, no run-out: the cards at once (no record to make between them)
            cards = deck[: rest - 1 : -1]  # the top ones, top first
            del deck[rest:]
            if not self._trades:
                t.trade[a] += cards  # revealed and kept at once: self._keep(), inlined
                return
            revealed += cards
        else:
            for _ in range(self.rules.reveal):
                if len(deck) > 1:  # self._draw()'s common case, inlined
                    card = deck.pop()
                    revealed.append(card)
                    if t.recording:
                        t.record(("revealed", a, card))
                elif not self._draw(revealed, "revealed", a) or t.ended:
                    break  # phases 2 and 3 are still played, with what was revealed
        if self._trades:
            self._stack.append(STEP_KEEP)
            self._trading(STEP_TRADING)
        else:
            self._keep(f)

    def _keep(self, f: Frame) -> None:
        t = self.table
        if t.recording:
            t.record(("kept", t.active, tuple(t.revealed)))  # also when all were traded away
        t.trade[t.active].extend(t.revealed)
        t.revealed.clear()

    def _phase_3(self, f: Frame) -> None:
        """Every seat, from the active player on, plants its trade area."""
        t = self.table
        t.phase = 3
        if t.recording:
            t.record(("phase", t.active, 3))
        if self._windows:
            self._windows_then(PLANT_AREAS)
        else:
            self._plant_area(PLANT_AREAS)

    def _plant_area(self, f: Frame) -> None:
        t = self.table
        t.phase = 3  # (set already unless the turn is quiet)
        i = f[1]
        stack, windows = self._stack, self._windows
        players, active, trade = t.players, t.active, t.trade
        while i < players:
            s = (active + i) % players
            area = trade[s]
            if not area:
                if not any(trade):
                    break  # (no seat has a card left to plant: the common case, at once)
                i += 1
                continue
            again = (State._plant_area, i)  # on the stack while a bot thinks: the rest of phase 3
            stack.append(again)
            if len(area) > 1:
                if windows:
                    self._window_then_ask(s, "plant_next", (), (State._plant_chosen, s))
                else:
                    policy = self._policy
                    if policy is not None and "plant_next" in self.asks[s]:  # _decide(), inlined
                        k = policy(self, s, "plant_next", (), self._policy_rng)
                    else:
                        k = self._decide(s, "plant_next", (), (State._plant_chosen, s))
                    if k is not STOPPED:
                        self._plant(s, FROM_TRADE_AREA, k)  # then, inlined
            elif windows:
                stack.append((State._place, s, FROM_TRADE_AREA, 0))
                stack.append((State._plant_only, s))
                self._window((State._window, s))
            else:
                if t.recording:
                    t.record(("plant_next", s, 0, FORCED))  # self._plant_only(), inlined
                self._plant(s, FROM_TRADE_AREA, 0)
            if self.pending is not None or stack[-1] is not again:
                return  # a decision or a draft comes first
            stack.pop()
        if t.ended:
            raise GameOver

    def _plant_only(self, f: Frame) -> None:
        # the forced answer, recorded after the window before it
        self.table.record(("plant_next", f[1], 0, FORCED))

    def _plant_chosen(self, f: Frame) -> None:
        self._plant(f[1], FROM_TRADE_AREA, self._answer)

    def _phase_4(self, f: Frame) -> None:
        """Draw to the hand."""
        t = self.table
        t.phase = 4
        if t.recording:
            t.record(("phase", t.active, 4))
        if self._windows:
            self._windows_then(STEP_DRAW_HAND)
        else:
            self._draw_hand(f)

    def _draw_hand(self, f: Frame) -> None:
        t = self.table
        t.phase = 4  # (set already unless the turn is quiet)
        a = t.active
        hand, deck, record, recording = t.hands[a], t.deck, t.record, t.recording
        if not recording and (rest := len(deck) - self.rules.draw) > 0:
            hand += deck[: rest - 1 : -1]  # as in self._reveal()
            del deck[rest:]
            return
        for _ in range(self.rules.draw):
            if len(deck) > 1:  # self._draw()'s common case, inlined
                card = deck.pop()
                hand.append(card)
                if recording:
                    record(("drew", a, card))
            elif not self._draw(hand, "drew", a):
                raise GameOver  # (a run-out here ends the game in self._draw)

    def finish(self) -> MatchResult:  # (also for rule tests: the end, now)
        """End the match: final harvest of every field (no protection, no
        draft), then ranks."""
        self._stack.clear()
        self.pending = self.then = None
        t = self.table
        t.phase = FINAL_PHASE
        t.record(("final_harvest", -1))
        for s in range(t.players):
            for f, (_, count) in enumerate(t.fields[s]):
                if count:
                    t.harvest(s, f, final=True)
        coins = self.returns()
        t.record(("ended", -1, coins))
        keys = []
        for s in range(t.players):
            key = [s not in self.forfeited, coins[s]]
            for by in self.rules.tie_break:
                key.append(s if by == "seat" else len(t.hands[s]))  # (or "hand")
            keys.append(key)
        ranks, winners = [], []
        for s, key in enumerate(keys):  # (loops: a generator is a call a step)
            rank = 1 + sum(map(key.__lt__, keys))  # 1 + the seats ahead
            ranks.append(rank)
            if rank == 1:
                winners.append(s)
        self.result = MatchResult(coins, tuple(ranks), tuple(winners), t.turn, ())
        return self.result


# Frames without values, made once (a turn pushes several).
STEP_DRAW_HAND: Frame = (State._draw_hand,)
STEP_FRONT: Frame = (State._front,)
STEP_KEEP: Frame = (State._keep,)
STEP_PHASE_1: Frame = (State._phase_1,)
STEP_PHASE_2: Frame = (State._phase_2,)
STEP_PHASE_3: Frame = (State._phase_3,)
STEP_PHASE_4: Frame = (State._phase_4,)
STEP_REVEAL: Frame = (State._reveal,)
STEP_SECOND: Frame = (State._second,)
STEP_SECOND_PLANTED: Frame = (State._second_planted,)
STEP_TRADING: Frame = (State._trading,)
STEP_TURN: Frame = (State._turn,)
PLANT_AREAS: Frame = (State._plant_area, 0)
#: What a turn pushes after its phase 1: the phases left, then the next turn;
#: and the same where no phase is recorded nor has windows (a fast playout).
TURN = (STEP_TURN, STEP_PHASE_4, STEP_PHASE_3, STEP_PHASE_2)
QUIET_TURN = (STEP_TURN, STEP_DRAW_HAND, PLANT_AREAS, STEP_REVEAL)


State.random_policy = staticmethod(random_policy)  # type: ignore[method-assign]

__all__ = [
    "EVERYTHING",
    "LEGAL",
    "RANDOM_DECIDES",
    "Policy",
    "State",
    "random_answer",
    "random_policy",
    "sensible_offers",
]
