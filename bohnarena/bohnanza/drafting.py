"""The Jumping Bean draft (000, "The Jumping Bean"; the card game's
``extra_bean = "jumping"``): a harvest of enough Jumping Beans draws a card
a seat and one more, and the seats pick in turn. A mixin of
:class:`bohnarena.bohnanza.state.State`, whose steps these are."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..referee.gamestate import Frame, GameState
from .bot import DraftPick
from .table import Table


class Drafting(GameState):
    """The draft steps of :class:`~bohnarena.bohnanza.state.State`."""

    table: Table

    if TYPE_CHECKING:

        def _draw(self, zone: list[int], kind: str, seat: int) -> bool: ...

        def _window_then_ask(
            self, seat: int, kind: str, args: tuple[Any, ...], then: Frame
        ) -> None: ...

    def _draft(self, f: Frame) -> None:
        """The Jumping Bean draft (000, "The Jumping Bean"): draw, then the
        seats pick in turn, passing to the right."""
        harvester = f[1]
        t = self.table
        cards: list[int] = []
        t.drafts.append(cards)
        for _ in range(t.players + 1):
            if not self._draw(cards, "draft_card", harvester):
                break  # played out after the end: the draft goes on with what it drew
        self._draft_pick((Drafting._draft_pick, harvester, harvester, 0))

    def _draft_pick(self, f: Frame) -> None:
        _, harvester, seat, k = f
        t = self.table
        cards = t.drafts[-1]  # drafts nest: the newest is the one going on
        if k < t.players and len(cards) >= 2:
            then = (Drafting._drafted, harvester, seat, k)
            self._window_then_ask(seat, "draft", (tuple(cards),), then)
            return
        if cards:
            t.coins[harvester].append(cards.pop())
            t.record(("draft_coin", harvester, t.coins[harvester][-1]))
        t.drafts.pop()

    def _drafted(self, f: Frame) -> None:
        _, harvester, seat, k = f
        t = self.table
        pick: DraftPick = self._answer
        card = t.drafts[-1].pop(pick.index)
        if pick.field is None:
            t.discard.append(card)
        else:
            field = t.fields[seat][pick.field]
            field[0], field[1] = card, field[1] + 1
        t.record(("picked", seat, card, -1 if pick.field is None else pick.field))
        self._stack.append((Drafting._draft_pick, harvester, (seat - 1) % t.players, k + 1))
