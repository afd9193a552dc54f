"""The shipped trader: legal in every edition, never feeds a rival's field
with a gift, deterministic, and clearly stronger than the baselines."""

from __future__ import annotations

from typing import Any

import pytest

from bohnarena.bohnanza import EMPTY, Offer, SeatView, play_match, ruleset
from bohnarena_bots.planner import PlannerBot
from bohnarena_bots.random_bot import RandomBot
from bohnarena_bots.trader import Sight, TraderBot

# (edition, players, options): every edition, the smallest and largest tables,
# both anniversary extra beans (the Jumping Bean brings drafts)
TABLES = [
    ("classic", 3, {}),
    ("classic", 4, {}),
    ("classic", 5, {}),
    ("anniversary", 3, {"extra_bean": "jumping"}),
    ("anniversary", 4, {"extra_bean": "garden"}),
    ("anniversary", 5, {"extra_bean": "jumping"}),
    ("riogrande", 3, {}),
    ("riogrande", 5, {}),
    ("riogrande", 7, {}),
]


class GiftChecker(TraderBot):
    """The trader, noting every gift it offers and what the receiver grew then."""

    def start(self, seat: int, rules: Any, rng: Any) -> None:
        super().start(seat, rules, rng)
        self.gifts: list[tuple[int | None, tuple[int, ...], tuple[tuple[int, int], ...]]] = []

    def _note(self, view: SeatView, offer: Offer | None) -> Offer | None:
        if offer is not None and not offer.want and offer.give:
            hand, revealed = view.hand, view.revealed
            cards = tuple(hand[r] if r >= 0 else revealed[-1 - r] for r in offer.give)
            fields = () if offer.to is None else view.fields[offer.to]
            self.gifts.append((offer.to, cards, fields))
        return offer

    def propose(self, view: SeatView) -> Offer | None:
        return self._note(view, super().propose(view))

    def offer(self, view: SeatView) -> Offer | None:
        return self._note(view, super().offer(view))


def seats(players: int, seed: int, lead: list[Any]) -> list[Any]:
    """``lead`` then random and planner bots, rotated by ``seed``."""
    bots = [*lead, *[[RandomBot, PlannerBot][i % 2]() for i in range(players - len(lead))]]
    k = seed % players
    return bots[k:] + bots[:k]


@pytest.mark.parametrize("edition,players,options", TABLES)
@pytest.mark.slow
def test_every_answer_is_legal(edition: str, players: int, options: dict[str, Any]) -> None:
    rules = ruleset(edition, players, **options)
    for seed in range(6):
        result, _ = play_match(rules, seed, seats(players, seed, [TraderBot(), TraderBot()]))
        assert sum(result.faults) == 0, (edition, players, seed, result.faults)


@pytest.mark.slow
@pytest.mark.parametrize("edition,players,options", TABLES)
def test_every_answer_is_legal_over_many_matches(
    edition: str, players: int, options: dict[str, Any]
) -> None:
    rules = ruleset(edition, players, **options)
    for seed in range(100, 160):
        result, _ = play_match(rules, seed, seats(players, seed, [TraderBot(), TraderBot()]))
        assert sum(result.faults) == 0, (edition, players, seed, result.faults)


@pytest.mark.slow
def test_no_gift_feeds_the_receiver() -> None:
    gifts = 0
    for edition, players, options in TABLES[1::2]:
        rules = ruleset(edition, players, **options)
        for seed in range(5):
            checkers = [GiftChecker(), GiftChecker()]
            result, _ = play_match(rules, seed, seats(players, seed, list(checkers)))
            assert sum(result.faults) == 0
            for bot in checkers:
                for to, cards, fields in bot.gifts:
                    gifts += 1
                    assert to is not None, "a gift goes to a chosen seat, not to the first taker"
                    assert not {v for v, n in fields if n} & set(cards), (to, cards, fields)
    assert gifts > 10  # the check saw gifts at all


@pytest.mark.slow
def test_same_seed_same_match() -> None:
    rules = ruleset("riogrande", 5)
    for seed in range(3):
        plays = [
            play_match(rules, seed, seats(5, seed, [TraderBot(), TraderBot()]))[1] for _ in range(2)
        ]
        assert plays[0] == plays[1]


def wins(edition: str, players: int, matches: int, rivals: list[type]) -> float:
    """The trader's share of wins against ``rivals``, seats rotated."""
    rules = ruleset(edition, players)
    won = 0.0
    for seed in range(matches):
        bots = [TraderBot(), *(r() for r in rivals)]
        k = seed % players
        result, _ = play_match(rules, seed, bots[k:] + bots[:k])
        if (players - k) % players in result.winners:  # the trader's seat
            won += 1 / len(result.winners)
    return won / matches


@pytest.mark.slow
def test_beats_random_clearly() -> None:
    assert wins("classic", 4, 24, [RandomBot, RandomBot, RandomBot]) > 0.8


@pytest.mark.slow
def test_beats_planner_and_random_in_every_edition() -> None:
    for edition in ("classic", "anniversary", "riogrande"):
        share = wins(edition, 4, 60, [PlannerBot, RandomBot, PlannerBot])
        assert share > 0.6, (edition, share)


def test_a_field_is_worth_more_the_more_cards_it_holds() -> None:
    rules = ruleset("classic", 4)
    seen: list[Sight] = []

    class Peek(TraderBot):
        def plant(self, view: SeatView, card: int) -> int:
            if not seen:
                seen.extend((Sight(self, view), Sight(self, view)))
            return super().plant(view, card)

    play_match(rules, 0, [Peek(), RandomBot(), RandomBot(), RandomBot()])
    sight = seen[0]
    chili = 3  # beanometer 3, 6, 8, 9
    values = [sight.worth(chili, n) for n in range(1, 10)]
    assert values == sorted(values) and values[2] >= 1 and sight.worth(EMPTY, 0) == 0
    # no unseen Chili left: a field has nothing more to hope for
    gone = seen[1]
    gone.avail[chili] = 0
    assert gone.worth(chili, 5) == gone.paid(chili, 5) == 1 < sight.worth(chili, 5)
