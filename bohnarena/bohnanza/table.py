"""The state of one match (every zone of cards) and the rule primitives that
change it. Nothing here asks a bot anything: that is :mod:`.match`.

Cards are variety ids (small ints). A field is ``[variety, count]`` since a
field only ever holds one variety; ``EMPTY`` marks an empty field.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from itertools import chain
from typing import TYPE_CHECKING, Any

from ..core.seeding import derive_seed
from ..referee.gamestate import MatchOver, no_state
from .rules import RuleSet

if TYPE_CHECKING:
    from ..referee.seats import Referee
    from .state import State

EMPTY = -1

# Record sources for "planted": where the card came from (a draft card
# planted is a "picked" record).
FROM_HAND, FROM_TRADE_AREA = 0, 1

#: Phases 1-4 are the active player's; phase 5 is the final harvest.
FINAL_PHASE = 5

#: The Jumping Bean count of a variety that sets off no draft.
NO_DRAFT = 1 << 30


# The rule helpers below run several times a decision: plain loops, as a
# comprehension or generator costs a call of its own (twice the time for
# two or three fields).


def _no_protection(fields: list[list[int]]) -> list[int]:
    out = []
    for i, (_, c) in enumerate(fields):
        if c:
            out.append(i)
    return out


def _multi(fields: list[list[int]]) -> list[int]:
    """Fields with more than one card."""
    out = []
    for i, (_, c) in enumerate(fields):
        if c > 1:
            out.append(i)
    return out


def _no_single_while_multi(fields: list[list[int]]) -> list[int]:
    # 000: "You may not harvest a field containing a single bean card if at
    # least one of your fields contains more than one bean card."
    # (_multi(fields) or _no_protection(fields), in one pass: every forced
    # harvest of the classic game asks it, twice in a playout)
    multi, single = [], []
    for i, (_, c) in enumerate(fields):
        if c > 1:
            multi.append(i)
        elif c:
            single.append(i)
    return multi or single


def _single_only_if_all_single(fields: list[list[int]]) -> list[int]:
    # Rio Grande: a single-card field only if *all* own fields hold one card.
    for _, c in fields:
        if c != 1:
            return _multi(fields)
    return list(range(len(fields)))


PROTECTION: dict[str, Callable[[list[list[int]]], list[int]]] = {
    "none": _no_protection,
    "no_single_while_multi": _no_single_while_multi,
    "single_only_if_all_single": _single_only_if_all_single,
}


def shuffle(cards: list[int], rng: random.Random) -> None:
    """``rng.shuffle(cards)``: the same permutation from the same stream
    (CPython's Fisher-Yates over ``_randbelow``, the same in 3.11 to 3.13),
    written out: it runs in a third of the time, a tenth of a short match
    and half a sample's dealing."""
    getrandbits = rng.getrandbits
    n = len(cards)  # swap the n-th card with one of the first n, n falling
    k = n.bit_length()  # (the bits _randbelow(n) draws: the same for a band of n)
    while n > 1:
        least = 1 << (k - 1)  # the least n of k bits
        while n >= least:
            j = getrandbits(k)
            while j >= n:
                j = getrandbits(k)
            n -= 1
            cards[n], cards[j] = cards[j], cards[n]
        k -= 1


class GameOver(MatchOver):
    """Raised inside the turn loop when the last exhaustion ends the game."""


class Table:
    """Every card of the match, in exactly one zone at every moment."""

    def __init__(self, rules: RuleSet, seed: int) -> None:
        self.rules = rules
        n = rules.players
        self.players = n
        self._rng = random.Random(derive_seed(seed, "deck"))
        self._rng_shared = False  # with a copy of this table (see copy())
        self.deck: list[int] = [v for v, k in enumerate(rules.deck) for _ in range(k)]
        shuffle(self.deck, self._rng)  # the top of the draw pile is the list's end
        self.discard: list[int] = []  # top is the end
        self.hands: list[list[int]] = [[] for _ in range(n)]  # front card first
        self.fields: list[list[list[int]]] = [
            [[EMPTY, 0] for _ in range(rules.fields)] for _ in range(n)
        ]
        self.trade: list[list[int]] = [[] for _ in range(n)]  # cards lying crosswise
        self.revealed: list[int] = []
        self.coins: list[list[int]] = [[] for _ in range(n)]  # coin piles (cards, coin side up)
        self.drafts: list[list[int]] = []  # Jumping Bean drafts in progress
        self.exhaustions = 0
        self.ended = False
        self.playing_out = False  # ended, but phases 2 and 3 of this turn are still played
        self.active = 0
        self.turn = 0
        self.phase = 0
        self.records: list[tuple[Any, ...]] = []
        #: Where every record goes (replay checks each against the log as it is made).
        self.record: Callable[[tuple[Any, ...]], None] = self.records.append
        #: False in a fast playout (whose records go nowhere): the steps
        #: then skip building the records a turn makes most of, a sixth of
        #: a playout's time.
        self.recording = True
        #: The searchable state this table is part of, if any (a weak
        #: reference: a match's table and state are freed without the gc).
        self.state: Callable[[], State | None] = no_state
        #: The match's referee (set by the match): what a seat's view tells
        #: of its own seat (time bank, match id). None: a bare table.
        self.referee: Referee | None = None
        self._protect = PROTECTION[rules.protection]
        #: By variety: coins for 0, 1, 2... cards (the last entry for longer fields).
        self.payouts = [v.payout for v in rules.varieties]
        # (a count no field reaches where a variety sets off no draft)
        self._draft_at = [v.draft_at or NO_DRAFT for v in rules.varieties]

    @property
    def rng(self) -> random.Random:
        """The match's random stream (the reshuffles)."""
        if self._rng_shared:  # copied on first use, not with every table copy
            rng = random.Random.__new__(random.Random)  # (not seeded: no os.urandom)
            rng.setstate(self._rng.getstate())
            self._rng, self._rng_shared = rng, False
        return self._rng

    @rng.setter
    def rng(self, rng: random.Random) -> None:
        self._rng, self._rng_shared = rng, False

    def copy(self) -> Table:
        """An independent copy of every zone (the records list is copied too,
        the random stream is the same stream's copy)."""
        # Attribute by attribute: copying the __dict__ whole would make it a
        # plain dict, in the copy and here (CPython 3.11), and every
        # attribute read of either slower (a third of a playout).
        new = Table.__new__(Table)
        new.rules, new.players = self.rules, self.players
        # one stream object for both until either draws from it (a playout
        # may never reshuffle; copying it was a tenth of a playout)
        new._rng, new._rng_shared = self._rng, True
        self._rng_shared = True
        new.deck, new.discard = self.deck[:], self.discard[:]
        # (map(list.copy): a comprehension is a call of its own, a few a playout)
        new.hands = list(map(list.copy, self.hands))
        new.fields = [list(map(list.copy, fs)) for fs in self.fields]
        new.trade = list(map(list.copy, self.trade))
        new.revealed = self.revealed[:]
        new.coins = list(map(list.copy, self.coins))
        new.drafts = list(map(list.copy, self.drafts))
        new.exhaustions, new.ended, new.playing_out = (
            self.exhaustions,
            self.ended,
            self.playing_out,
        )
        new.active, new.turn, new.phase = self.active, self.turn, self.phase
        new.records = self.records[:]
        new.record, new.recording = new.records.append, True
        new.state = no_state
        new.referee = self.referee
        new._protect, new.payouts, new._draft_at = self._protect, self.payouts, self._draft_at
        return new

    # -- the draw pile ------------------------------------------------------
    def draw(self, zone: list[int], kind: str | None, seat: int) -> bool:
        """Move the top card of the draw pile onto ``zone`` and record
        ``(kind, seat, card)`` (unless ``kind`` is None). False once the game
        has ended and nothing can be drawn.

        Drawing the last card counts an exhaustion; below the edition's limit
        the discard pile is shuffled into a new draw pile. An empty discard
        pile makes an empty new pile, which counts as the next exhaustion.
        """
        deck = self.deck
        if not deck:
            return False
        card = deck.pop()
        zone.append(card)
        if kind is not None:
            self.record((kind, seat, card))
        while not deck and not self.ended:
            self.exhaustions += 1
            self.record(("exhausted", -1, self.exhaustions))
            if self.exhaustions >= self.rules.exhaustions:
                self.ended = True
            else:
                deck.extend(self.discard)
                self.discard.clear()
                shuffle(deck, self.rng)
                self.record(("reshuffled", -1, len(deck)))
        return True

    # -- fields -------------------------------------------------------------
    def fields_for(self, seat: int, card: int) -> list[int]:
        """Fields that take ``card`` now: one of its variety, or an empty one."""
        out = []
        for i, (v, _) in enumerate(self.fields[seat]):
            if v == card or v == EMPTY:  # noqa: SIM109 (a tuple test costs more)
                out.append(i)
        return out

    def harvestable(self, seat: int) -> list[int]:
        """Non-empty fields the edition's bean protection lets ``seat`` harvest."""
        return self._protect(self.fields[seat])

    def plant(self, seat: int, card: int, field: int, source: int) -> None:
        f = self.fields[seat][field]
        f[0] = card
        f[1] += 1
        if self.recording:
            self.record(("planted", seat, card, field, source))

    def coins_for(self, variety: int, count: int) -> int:
        """The beanometer: coins a field of ``count`` cards of ``variety`` pays."""
        table = self.payouts[variety]
        return table[count] if count < len(table) else table[-1]

    def harvest(self, seat: int, field: int, final: bool = False) -> bool:
        """Harvest a whole field. Returns True when a Jumping Bean draft is due."""
        f = self.fields[seat][field]
        variety, count = f
        table = self.payouts[variety]  # self.coins_for(), inlined: a call less a harvest
        paid = table[count] if count < len(table) else table[-1]
        if paid:  # (most harvests of a playout pay nothing)
            self.coins[seat] += [variety] * paid
        self.discard.extend([variety] * (count - paid))
        f[0], f[1] = EMPTY, 0
        if self.recording:
            self.record(("harvested", seat, field, variety, count, paid))
        return count >= self._draft_at[variety] and not final

    def can_buy_field(self, seat: int) -> bool:
        cost = self.rules.third_field_cost
        return (
            cost > 0
            and len(self.fields[seat]) == self.rules.fields
            and len(self.coins[seat]) >= cost
        )

    def buy_field(self, seat: int) -> None:
        """Rio Grande: buy the third field; the coins go face down to the discard pile."""
        cost = self.rules.third_field_cost
        pile = self.coins[seat]
        paid = pile[-cost:]
        del pile[-cost:]
        self.discard.extend(paid)
        self.fields[seat].append([EMPTY, 0])
        self.record(("bought_field", seat, cost, tuple(paid)))

    # -- bookkeeping --------------------------------------------------------
    def census(self) -> list[int]:
        """Cards of each variety over all zones (must equal the deck, always)."""
        count = Counter(
            chain(
                self.deck,
                self.discard,
                self.revealed,
                *self.hands,
                *self.trade,
                *self.coins,
                *self.drafts,
            )
        )
        for seat_fields in self.fields:
            for v, c in seat_fields:
                if c:
                    count[v] += c
        return [count[v] for v in range(len(self.rules.deck))]
