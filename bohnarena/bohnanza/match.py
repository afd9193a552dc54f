"""The match driver: deals, runs turns and phases, asks seats for decisions,
checks every answer, and ends the game.

When seats are asked (the "at any time" rule made concrete):

* A seat's ``anytime`` (harvest, buy a third field) is asked at every phase
  boundary, for every seat clockwise from the active player, and right
  before every other decision that seat is asked.
* A decision with exactly one legal answer is not asked; it is played, and
  recorded with ``how`` "forced".
* A decision the seat's bot does not override is not asked either: the
  base class's answer is played (same outcome, no call) and recorded with
  ``how`` "default".
* A seat whose bot answers ``anytime`` is offered every window, and every
  window's answer is recorded, an empty one too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..game import MatchResult
from ..seats import FORCED, NOT_ASKED, BotSeat, Referee, Seat
from .bot import Anytime, Bot, Offer, Proposal
from .decisions import DECISIONS, ref_cards
from .rules import RuleSet
from .table import FINAL_PHASE, FROM_HAND, FROM_TRADE_AREA, GameOver, Table
from .view import SeatView

MAX_TURNS = 100_000  # a guard against engine bugs only; real games end far sooner


class Match:
    def __init__(self, rules: RuleSet, seed: int, players: Sequence[Bot | Seat]) -> None:
        """Each player is a Bot (run in this process, unlimited) or a ready Seat."""
        seats = [BotSeat(p, DECISIONS) if isinstance(p, Bot) else p for p in players]
        if len(seats) != rules.players:
            raise ValueError(f"{len(seats)} seats for a {rules.players}-player rule set")
        self.rules = rules
        self.seed = seed
        self.table = Table(rules, seed)
        self.referee = Referee(
            seats, DECISIONS, Bot, self.table, SeatView, how=True, notes=True, live_views=True
        )
        self.table.referee = self.referee
        self._asks = self.referee.asks  # the referee's list (a forfeit empties an entry)
        self._ask = self.referee.ask  # (seat, kind, args): one call less than self.ask
        self._any_anytime = False  # a fast skip of phase-boundary windows
        self._any_trade = False

    @property
    def seats(self) -> list[Seat]:
        return self.referee.seats

    @property
    def records(self) -> list[tuple[Any, ...]]:
        return self.table.records

    @property
    def faults(self) -> list[int]:
        return self.referee.faults

    # -- asking -------------------------------------------------------------
    def ask(self, seat: int, kind: str, *args: Any) -> Any:
        return self.referee.ask(seat, kind, args)

    def forced(self, seat: int, kind: str, answer: Any, *args: Any) -> Any:
        """Play the only legal answer to a decision, without asking (recorded)."""
        rec = DECISIONS[kind].encode(answer, args)
        self.table.records.append((kind, seat, *rec, FORCED))
        return answer

    def window(self, seat: int) -> None:
        """A harvest window for one seat (see the module docstring)."""
        if "anytime" in self._asks[seat]:
            self._take_window(seat, self._ask(seat, "anytime"))

    def window_then_ask(self, seat: int, kind: str, *args: Any) -> Any:
        """A harvest window for ``seat``, then its decision ``kind``: as
        :meth:`window` then :meth:`ask`, in one round trip to a bot out of
        process when the window passes."""
        if "anytime" in self._asks[seat]:
            taken, answer = self.referee.ask_pair(seat, "anytime", kind, args)
            if answer is not NOT_ASKED:
                return answer
            self._take_window(seat, taken)
        return self._ask(seat, kind, args)

    def _take_window(self, seat: int, answer: Anytime | None) -> None:
        if answer is None:
            return
        t = self.table
        if answer.buy_field:
            t.buy_field(seat)
        for f in answer.harvest:
            if f not in t.harvestable(seat):
                break  # a draft set off by an earlier harvest changed the fields
            self.harvest(seat, f)

    def boundary(self) -> None:
        t = self.table
        for i in range(t.players):
            self.window((t.active + i) % t.players)

    # -- rule steps that ask --------------------------------------------------
    def harvest(self, seat: int, field: int) -> None:
        if self.table.harvest(seat, field):
            self.draft(seat)

    def place(self, seat: int, zone: list[int], index: int, source: int) -> None:
        """Plant ``zone[index]``, harvesting first if it fits no field."""
        t = self.table
        card = zone[index]
        fits = t.fields_for(seat, card)
        while not fits:
            room = t.harvestable(seat)
            if len(room) == 1:
                field = room[0]
                # self.forced(seat, "make_room", field, card), inlined (as below):
                # the forced plays are most of a match's decisions
                t.records.append(("make_room", seat, card, field, FORCED))
            else:
                field = self._ask(seat, "make_room", (card,))
            if t.harvest(seat, field):
                self.draft(seat)
            fits = t.fields_for(seat, card)
        if len(fits) == 1:
            field = fits[0]
            t.records.append(("plant", seat, card, field, FORCED))
        else:
            field = self._ask(seat, "plant", (card,))
        zone.pop(index)
        t.plant(seat, card, field, source)

    def draw(self, zone: list[int], kind: str, seat: int) -> bool:
        """Draw one card (see :meth:`Table.draw`). The draw pile's last run-out
        ends the game at once (000: "as soon as the draw pile becomes empty
        for the third time"), unless it happens where the edition's
        ``end_grace`` lets phases 2 and 3 of this turn be played to the end."""
        t = self.table
        deck = t.deck
        if len(deck) > 1:  # Table.draw's common case, inlined: no run-out, no end
            card = deck.pop()
            zone.append(card)
            t.records.append((kind, seat, card))
            return True
        if not t.draw(zone, kind, seat):
            return False
        if t.ended and not t.playing_out:
            grace = kind == "revealed" or self.rules.end_grace == "phase_2"
            if t.phase != 2 or not grace:
                raise GameOver
            t.playing_out = True
        return True

    def draft(self, harvester: int) -> None:
        """The Jumping Bean draft (000, "The Jumping Bean")."""
        t = self.table
        cards: list[int] = []
        t.drafts.append(cards)
        for _ in range(t.players + 1):
            if not self.draw(cards, "draft_card", harvester):
                break  # played out after the end: the draft goes on with what it drew
        seat = harvester
        for _ in range(t.players):
            if len(cards) < 2:
                break
            pick = self.window_then_ask(seat, "draft", tuple(cards))
            card = cards.pop(pick.index)
            if pick.field is None:
                t.discard.append(card)
            else:
                f = t.fields[seat][pick.field]
                f[0], f[1] = card, f[1] + 1
            t.records.append(("picked", seat, card, -1 if pick.field is None else pick.field))
            seat = (seat - 1) % t.players  # passed to the right
        if cards:
            t.coins[harvester].append(cards.pop())
            t.records.append(("draft_coin", harvester, t.coins[harvester][-1]))
        t.drafts.pop()  # drafts nest: the newest ends first

    # -- trading ------------------------------------------------------------
    def trading(self) -> None:
        t, rules = self.table, self.rules
        a = t.active
        others = [(a + i) % t.players for i in range(1, t.players)]
        proposes = "propose" in self.seats[a].asks
        offerers = [s for s in others if "offer" in self.seats[s].asks]
        if not proposes and not offerers:
            return
        for _ in range(rules.max_trade_rounds):
            busy = False
            for _ in range(rules.max_offers if proposes else 0):
                offer = self.window_then_ask(a, "propose")
                if offer is None:
                    break
                busy = True
                self.resolve(a, offer, [offer.to] if offer.to is not None else others)
            for s in offerers:
                offer = self.window_then_ask(s, "offer")
                if offer is not None:
                    busy = True
                    self.resolve(s, offer, [a])
            if not busy:
                break

    def resolve(self, by: int, offer: Offer, responders: list[int]) -> None:
        """Put ``offer`` to ``responders`` in turn; the first to accept trades."""
        t = self.table
        give = ref_cards(t, by, offer.give)
        t.records.append(("offered", by, -1 if offer.to is None else offer.to, give, offer.want))
        proposal = Proposal(by, offer.to, give, offer.want)
        for r in responders:
            accept = self.window_then_ask(r, "respond", proposal)
            if accept is None:
                t.records.append(("declined", r, by))
                continue
            got = ref_cards(t, r, accept.give)
            self._hand_over(by, offer.give, r)
            self._hand_over(r, accept.give, by)
            active, other = (by, r) if by == t.active else (r, by)
            a_gives, o_gives = (give, got) if by == t.active else (got, give)
            t.records.append(("traded", active, other, a_gives, o_gives))
            return

    def _hand_over(self, giver: int, refs: tuple[int, ...], to: int) -> None:
        t = self.table
        self.table.trade[to].extend(ref_cards(t, giver, refs))
        for r in sorted((r for r in refs if r >= 0), reverse=True):
            t.hands[giver].pop(r)
        for i in sorted((-1 - r for r in refs if r < 0), reverse=True):
            t.revealed.pop(i)

    # -- turns --------------------------------------------------------------
    def seat_all(self) -> None:
        self.referee.seat_all(self.rules, self.seed)
        self._any_anytime = any("anytime" in asks for asks in self._asks)
        # No trading phase to run when no seat makes offers (trading() says so too)
        self._any_trade = any("propose" in s.asks or "offer" in s.asks for s in self.seats)

    def play(self) -> MatchResult:
        t = self.table
        self.seat_all()
        self.deal()
        try:
            while t.turn < MAX_TURNS:
                t.active = t.turn % t.players
                t.turn += 1
                t.records.append(("turn", t.active, t.turn))
                self.play_turn()
            raise RuntimeError("match did not end")  # pragma: no cover
        except GameOver:
            pass
        result = self.finish()
        self.referee.end_all(result)
        return result

    def deal(self) -> None:
        """Deal one card at a time; the first card dealt is the front card."""
        t = self.table
        for k in range(max(self.rules.deal)):
            for s in range(t.players):
                if k < self.rules.deal[s]:
                    t.hands[s].append(t.deck.pop())
        for s in range(t.players):
            t.records.append(("dealt", s, tuple(t.hands[s])))

    def _phase(self, n: int) -> None:
        """Begin phase ``n`` (play_turn inlines this when no seat takes windows)."""
        t = self.table
        t.phase = n
        t.records.append(("phase", t.active, n))
        self.boundary()

    def play_turn(self) -> None:
        t = self.table
        a = t.active
        hand = t.hands[a]
        windows = self._any_anytime  # else every self.window() is a no-op
        ask = self.window_then_ask if windows else self._ask
        if windows:
            self._phase(1)
        else:
            t.phase = 1
            t.records.append(("phase", a, 1))
        if hand:  # an empty hand goes straight to phase 2
            if windows:
                self.window(a)
            self.place(a, hand, 0, FROM_HAND)
            if hand and ask(a, "plant_second"):
                if windows:
                    self.window(a)
                self.place(a, hand, 0, FROM_HAND)

        if windows:
            self._phase(2)
        else:
            t.phase = 2
            t.records.append(("phase", a, 2))
        for _ in range(self.rules.reveal):
            if not self.draw(t.revealed, "revealed", a) or t.ended:
                break  # phases 2 and 3 are still played, with what was revealed
        if self._any_trade:
            self.trading()
        t.records.append(("kept", a, tuple(t.revealed)))  # also when all were traded away
        t.trade[a].extend(t.revealed)
        t.revealed.clear()

        if windows:
            self._phase(3)
        else:
            t.phase = 3
            t.records.append(("phase", a, 3))
        for i in range(t.players):
            s = (a + i) % t.players
            area = t.trade[s]
            while area:
                if len(area) == 1:
                    if windows:
                        self.window(s)
                    k = 0
                    t.records.append(("plant_next", s, k, FORCED))  # self.forced(), inlined
                else:
                    k = ask(s, "plant_next")
                self.place(s, area, k, FROM_TRADE_AREA)
        if t.ended:
            raise GameOver

        if windows:
            self._phase(4)
        else:
            t.phase = 4
            t.records.append(("phase", a, 4))
        for _ in range(self.rules.draw):
            if not self.draw(hand, "drew", a):
                raise GameOver  # (a run-out here ends the game in self.draw)

    def finish(self) -> MatchResult:
        """Final harvest of every field (no protection, no draft), then ranks."""
        t = self.table
        t.phase = FINAL_PHASE
        t.records.append(("final_harvest", -1))
        for s in range(t.players):
            for f, (_, count) in enumerate(t.fields[s]):
                if count:
                    t.harvest(s, f, final=True)
        coins = tuple(len(p) for p in t.coins)
        t.records.append(("ended", -1, coins))
        breaks: dict[str, Callable[[int], int]] = {
            "seat": lambda s: s,
            "hand": lambda s: len(t.hands[s]),
        }
        keys = [
            (
                s not in self.referee.forfeited,
                coins[s],
                *(breaks[b](s) for b in self.rules.tie_break),
            )
            for s in range(t.players)
        ]
        ranks = tuple(1 + sum(k > keys[s] for k in keys) for s in range(t.players))
        return MatchResult(
            coins,
            ranks,
            tuple(s for s in range(t.players) if ranks[s] == 1),
            t.turn,
            tuple(self.faults),
        )


def play_match(
    rules: RuleSet, seed: int, players: Sequence[Bot | Seat]
) -> tuple[MatchResult, list[tuple[Any, ...]]]:
    """Play one match; each player is a Bot (run in this process, unlimited)
    or a ready Seat. Returns the result and the record stream."""
    match = Match(rules, seed, players)
    return match.play(), match.records
