"""Hidden information, immutable views, seeded randomness and fault handling."""

import random

from bohnarena.bohnanza import Bot, Offer, SeatView, play_match, ruleset
from bohnarena.bohnanza.records import public_history
from bohnarena_bots.random_bot import RandomBot
from bohnarena_bots.trader import TraderBot

from .helpers import V, cards, rig, scripted

PUBLIC = {
    "determinize",  # a sample: the hidden cards dealt afresh (tests/bohnanza/test_state.py)
    "seat",
    "rules",
    "players",
    "active",
    "turn",
    "phase",
    "hand",
    "my_fields",
    "my_trade_area",
    "my_coins",
    "fields",
    "trade_areas",
    "revealed",
    "coins",
    "hand_sizes",
    "draw_pile",
    "discard",
    "exhaustions",
    "history",
    "unseen",
    "beanometer",
    "time_left",
    "match_id",
    "fields_for",
    "harvestable",
    "coins_for",
    "can_buy_field",
}


def test_view_surface_is_exactly_what_a_seat_may_see():
    names = {n for n in dir(SeatView) if not n.startswith("_")}
    assert names == PUBLIC
    m = rig(hands={0: cards("soy"), 1: cards("red", "blue")})
    view = SeatView(m.table, 0)
    assert view.hand == tuple(cards("soy"))
    assert view.hand_sizes[1] == 2  # another hand: its size only
    assert isinstance(view.draw_pile, int)  # the draw pile: its size only
    skip = {
        "fields_for",
        "harvestable",
        "coins_for",
        "can_buy_field",
        "determinize",
        "rules",
        "time_left",
        "match_id",
    }
    for name in PUBLIC - skip:
        value = getattr(view, name)
        assert isinstance(value, (int, tuple)), name


def test_history_masks_other_seats_dealt_and_drawn_cards():
    _, records = play_match(ruleset("classic", 4), 3, [Bot() for _ in range(4)])
    seen = public_history(records, 1)
    dealt = {r[1]: r[2] for r in seen if r[0] == "dealt"}
    assert all(c >= 0 for c in dealt[1]) and dealt[0] == (-1,) * 5
    assert all(r[2] == -1 for r in seen if r[0] == "drew" and r[1] != 1)
    assert all(r[2] >= 0 for r in seen if r[0] == "drew" and r[1] == 1)
    assert not [r for r in seen if r[0] in ("plant", "respond", "propose", "seat") and r[1] != 1]


def test_responders_see_varieties_not_hand_positions():
    got = []
    m = rig(
        bots=[
            scripted(propose=lambda v: Offer(give=(0,), to=1) if not got else None),
            scripted(respond=lambda v, o: got.append(o)),
            Bot(),
            Bot(),
        ],
        hands={0: cards("red", "blue", "soy")},
        top=cards("green", "green", "stink", "stink", "stink"),
    )
    m.play_turn()
    assert got[0].cards == (V["blue"],) and not hasattr(got[0], "give")


class Vandal(Bot):
    """Tries to change the game through its views."""

    def plant(self, view, card):
        try:
            view.hand.append(card)
        except AttributeError:
            pass
        try:
            view.seat = 3
        except AttributeError:
            pass
        f = view.my_fields
        return super().plant(view, card) if f else 0

    def plant_second(self, view):
        list(view.fields)[0] = ()  # noqa: RUF015 - vandalising a copy
        return False


def strip(recs):
    return [r for r in recs if r[0] not in ("seat", "plant", "plant_second")]


def test_nothing_a_bot_does_to_its_view_changes_the_game():
    rules = ruleset("classic", 4)
    for seed in range(20):
        _, plain = play_match(rules, seed, [Bot(), Bot(), Bot(), Bot()])
        _, vandal = play_match(rules, seed, [Vandal(), Bot(), Bot(), Bot()])
        assert strip(plain) == strip(vandal)


def test_engine_never_touches_global_random_and_bots_get_own_streams():
    random.seed(1234)
    state = random.getstate()
    play_match(ruleset("anniversary", 5, extra_bean="jumping"), 9, [RandomBot() for _ in range(5)])
    assert random.getstate() == state

    class Greedy(RandomBot):  # burns its own stream: the deck must not change
        def plant(self, view, card):
            for _ in range(50):
                self.rng.random()
            return super().plant(view, card)

    def chance(recs):
        return [r for r in recs if r[0] in ("dealt", "reshuffled")]

    _, a = play_match(ruleset("classic", 4), 5, [RandomBot() for _ in range(4)])
    _, b = play_match(ruleset("classic", 4), 5, [Greedy()] + [RandomBot() for _ in range(3)])
    assert chance(a)[:4] == chance(b)[:4]


def test_same_seed_same_match_different_seed_different_match():
    rules = ruleset("riogrande", 5)

    def bots():
        return [TraderBot(), RandomBot(), TraderBot(), RandomBot(), TraderBot()]

    a = play_match(rules, 77, bots())
    b = play_match(rules, 77, bots())
    c = play_match(rules, 78, bots())
    assert a == b and a[1] != c[1]


class Raiser(Bot):
    def start(self, seat, rules, rng):
        super().start(seat, rules, rng)
        raise RuntimeError("boom at start")

    def plant(self, view, card):
        raise ValueError("boom")

    def make_room(self, view, card):
        return "the big one"

    def plant_second(self, view):
        return "yes"

    def propose(self, view):
        return Offer(give=(99,))


def test_faults_are_recorded_against_the_bot_and_the_match_goes_on():
    result, records = play_match(ruleset("classic", 3), 4, [Bot(), Raiser(), Bot()])
    faults = [r for r in records if r[0] == "fault"]
    assert {r[1] for r in faults} == {1}
    assert result.faults[1] == len(faults) and result.faults[0] == result.faults[2] == 0
    reasons = {r[2]: r[3] for r in faults}
    assert "boom at start" in reasons["start"]
    assert (
        "ValueError: boom" in reasons["plant_second"] or "must be a bool" in reasons["plant_second"]
    )
    assert "must be an int" in reasons["make_room"]
    assert "not in the hand" in reasons["propose"]
    assert records[-1][0] == "ended"


def test_default_answers_replace_faults_so_outcome_equals_a_silent_bot():
    class Silent(Bot):
        def plant_second(self, view):
            raise RuntimeError

    rules = ruleset("classic", 4)
    a, ra = play_match(rules, 8, [Silent(), Bot(), Bot(), Bot()])
    b, rb = play_match(rules, 8, [Bot(), Bot(), Bot(), Bot()])
    assert a.coins == b.coins
    # the replaced answer is recorded as the default, exactly as a silent bot's
    assert [r for r in ra if r[0] not in ("fault", "seat")] == [r for r in rb if r[0] != "seat"]


def test_bad_decisions_hook_is_a_fault():
    class Odd(Bot):
        def decisions(self, rules):
            return ["plant"]

    _, records = play_match(ruleset("classic", 3), 1, [Odd(), Bot(), Bot()])
    assert [r[2] for r in records if r[0] == "fault"] == ["start"]
