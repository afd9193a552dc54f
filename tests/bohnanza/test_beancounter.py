"""The bean counter (bots/searcher.py): legal, reproducible, safe without a
state to search, and stronger than chance; the abacus (bots/abacus.py, its
search on fast playouts) legal and reproducible too."""

from __future__ import annotations

import pytest

from bohnarena.bohnanza import Bot, play_match, ruleset
from bohnarena.bohnanza.view import SeatView
from bohnarena_bots.abacus import AbacusBot
from bohnarena_bots.planner import PlannerBot
from bohnarena_bots.random_bot import RandomBot
from bohnarena_bots.searcher import BeanCounterBot
from bohnarena_bots.trader import TraderBot


class Quick(BeanCounterBot):
    """A small budget, and no clock: the quick loop's matches take a second
    and play the same on any machine."""

    playouts = 6
    min_deals = 1
    horizon_rounds = 1
    max_seconds = 1e9


class QuickAbacus(AbacusBot):
    """The abacus (the bean counter's search on fast playouts), as small."""

    playouts = 8
    min_deals = 1
    horizon_rounds = 1


#: The searchers the first tests hold to the same: legal, reproducible.
SEARCHERS = [Quick, QuickAbacus]


TABLES = [
    ("classic", 4, {}),
    ("anniversary", 4, {"extra_bean": "jumping"}),
    ("riogrande", 5, {}),
    ("riogrande", 3, {}),
]


def table(bot: Bot, players: int) -> list[Bot]:
    others: list[Bot] = [TraderBot(), RandomBot(), PlannerBot(), TraderBot(), RandomBot()]
    return [bot, *others[: players - 1]]


def plays_legally(me: BeanCounterBot, edition: str, players: int, options: dict) -> None:
    """``me`` plays a match without a fault, and searches."""
    bots = table(me, players)
    k = len(options) + players // 2  # not always the first seat
    bots = bots[-k:] + bots[:-k]
    result, records = play_match(ruleset(edition, players, **options), players, bots)
    assert not any(result.faults)
    assert me.searches > 10  # it did search (the view had a state behind it)
    assert not [r for r in records if r[0] == "fault"]


@pytest.mark.slow
@pytest.mark.parametrize("searcher", SEARCHERS)
@pytest.mark.parametrize(("edition", "players", "options"), TABLES)
def test_it_answers_legally_in_every_edition(searcher, edition, players, options):
    plays_legally(searcher(), edition, players, options)


@pytest.mark.slow
@pytest.mark.parametrize("searcher", SEARCHERS)
def test_the_same_seed_plays_the_same_match(searcher):
    rules = ruleset("classic", 4)
    runs = [play_match(rules, 5, table(searcher(), 4)) for _ in range(2)]
    assert runs[0][1] == runs[1][1]
    assert runs[0][0] == runs[1][0]


@pytest.mark.parametrize("error", [NotImplementedError, RuntimeError])
def test_without_a_state_to_search_it_plays_the_traders_heuristics(monkeypatch, error):
    def unavailable(self, rng):
        raise error("no state here")

    monkeypatch.setattr(SeatView, "determinize", unavailable)
    me = Quick()
    result, _ = play_match(ruleset("riogrande", 5), 3, table(me, 5))
    assert not any(result.faults)
    assert me.searches == 0 and not me.searchable


@pytest.mark.slow
def test_it_beats_random_players_clearly():
    rules = ruleset("classic", 4)
    wins = 0.0
    for m in range(8):
        bots: list[Bot] = [RandomBot() for _ in range(4)]
        bots[m % 4] = BeanCounterBot()
        result, _ = play_match(rules, 100 + m, bots)
        if m % 4 in result.winners:
            wins += 1 / len(result.winners)
    assert wins >= 6


@pytest.mark.slow
def test_rollouts_answer_this_turns_offers_as_the_trader(monkeypatch):
    # the search's offers are judged by whether the trader would take them
    asked: list[tuple[Bot, int, int]] = []
    real = TraderBot.respond

    def spy(self, view, offer):
        asked.append((self, view.seat, view.turn))
        return real(self, view, offer)

    monkeypatch.setattr(TraderBot, "respond", spy)
    for modelled in (True, False):
        asked.clear()
        me = Quick()
        me.modelled = modelled
        result, _ = play_match(ruleset("classic", 4), 5, table(me, 4))
        assert not any(result.faults)
        by_models = [(seat, turn) for bot, seat, turn in asked if bot in me._models]
        assert bool(by_models) == modelled
        assert all(seat != me.seat for seat, _ in by_models)


def test_its_trading_keeps_away_from_the_rival_and_begs_the_others():
    # no offer is addressed to the richest other seat (the rival); the
    # others are begged, one by one, for the cards that grow own fields
    proposed: list[tuple[int, object, int]] = []  # (rival, offer, seat)
    real = BeanCounterBot._trade_propose

    def spy(self, view):
        offer = real(self, view)
        proposed.append((self._rival(view), offer, view.seat))
        return offer

    me = Quick()
    me.searched = frozenset()  # the heuristics alone
    me._trade_propose = spy.__get__(me)
    result, _ = play_match(ruleset("classic", 4), 5, table(me, 4))
    assert not any(result.faults)
    offers = [(rival, offer) for rival, offer, _ in proposed if offer is not None]
    assert offers
    assert all(offer.to != rival for rival, offer in offers)
    begs = [o for _, o in offers if not o.give and o.to is not None]
    assert len({o.to for o in begs}) > 1  # more than one seat begged
