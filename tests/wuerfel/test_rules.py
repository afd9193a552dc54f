"""The dice game's rule sentences (004_c585761ad839bb9f.txt)."""

import random
from collections import Counter
from itertools import product

import pytest

from bohnarena.core.errors import RulesError
from bohnarena.wuerfel.bot import FULFIL, REDEEM, Bot, DiceView, Keep
from bohnarena.wuerfel.match import Match
from bohnarena.wuerfel.orders import first_roll_chance, parse
from bohnarena.wuerfel.rules import dice_faces, ruleset, variety_ids
from bohnarena_bots.wuerfel_bots import GreedyDiceBot, RandomDiceBot

from .rolls import sample

V = variety_ids()


class Dice:
    """Stands in for the table's random stream: rolls come from a script.
    ``real``: each scripted face must be on the die rolled (its faces)."""

    def __init__(self, *rolls, real=False):
        self.faces = [V[f] for roll in rolls for f in roll.split()]
        self.real = real

    def choice(self, faces):
        face = self.faces.pop(0)
        assert not self.real or face in faces, f"no die of faces {faces} shows {face}"
        return face

    def shuffle(self, x):
        pass


def scripted(**answers):
    attrs = {k: (lambda self, view, *a, _f=f: _f(view, *a)) for k, f in answers.items()}
    return type("Scripted", (Bot,), attrs)()


def rig(players=3, bots=None, cards=None, covered=None, coins=None, rolls=(), **options):
    """A match before its first turn: seat i holds harvest card cards[i] (and a cover)."""
    m = Match(ruleset("standard", players, **options), 0, bots or [Bot() for _ in range(players)])
    t = m.table
    m.referee.seat_all(m.rules, 0)
    for s in range(players):
        t.active_card[s] = (cards or {}).get(s, 10 + s)
        t.cover_card[s] = t.deck.pop()
        t.covered[s] = (covered or {}).get(s, 0)
        t.coins[s] = (coins or {}).get(s, 0)
    t.deck = [c for c in t.deck if c not in t.active_card]
    t.rng = Dice(*rolls)
    t.turn, t.active = 1, 0
    return m


def rest(face):
    """Rolls of 6, 5, ... 1 dice all showing ``face`` (the default bot keeps one die a roll)."""
    return [" ".join([face] * n) for n in range(6, 0, -1)]


def kinds(m, *wanted):
    return [r for r in m.records if r[0] in wanted]


def test_2_to_5_players_and_seven_dice_of_two_kinds():
    for p in (2, 3, 4, 5):
        assert ruleset("standard", p).players == p
    for p in (1, 6):
        with pytest.raises(RulesError):
            ruleset("standard", p)
    faces = dice_faces()
    assert len(faces) == 7
    assert len(set(faces[:4])) == 1 and len(set(faces[4:])) == 1 and faces[0] != faces[4]
    assert set(V) == {"garden", "red", "china", "blue", "soy", "broad", "snap"}


def test_setup_two_cards_each_one_active_one_covering():
    m = Match(ruleset("standard", 4), 5, [Bot() for _ in range(4)])
    m.play()
    dealt = kinds(m, "dealt")
    assert len(dealt) == 4 and all(len(r[2]) == 2 for r in dealt)
    assert len({c for r in dealt for c in r[2]}) == 8


def test_active_rolls_all_seven_sets_aside_at_least_one_and_never_rerolls_them():
    m = rig(
        rolls=["soy soy soy soy soy soy soy", "blue blue blue blue blue", "red red red", "red"],
        bots=[
            scripted(keep=lambda v, roll: Keep((0, 1)) if len(roll) > 1 else Keep((0,))),
            Bot(),
            Bot(),
        ],
    )
    m.play_turn()
    rolled = [len(r[2]) for r in kinds(m, "rolled")]
    assert rolled == [7, 5, 3, 1]
    assert sum(len(r[2]) for r in kinds(m, "set_aside")) == 7


def test_kept_beige_dice_leave_only_white_dice_to_roll() -> None:
    def keep_beige(
        view: DiceView, roll: tuple[int, ...]
    ) -> Keep:  # the beige dice first (dice 4-6), else one white die
        beige = tuple(i for i, die in enumerate(view.hand) if die >= 4)
        return Keep(beige or (0,))

    white, beige = set(dice_faces()[0]), set(dice_faces()[4])
    for seed in range(30):
        m = rig(bots=[scripted(keep=keep_beige), Bot(), Bot()])
        m.table.rng = random.Random(seed)
        m.play_turn()
        rolls = [r[2] for r in kinds(m, "rolled")]
        kept = [r[2] for r in kinds(m, "set_aside")]
        assert len(rolls[0]) == 7 and len(kept[0]) == 3 and set(kept[0]) <= beige
        # The three beige dice are on the field: the four white dice roll white faces only.
        assert len(rolls) == 5 and all(set(r) <= white for r in rolls[1:]), (seed, rolls)


@pytest.mark.slow
def test_no_impossible_roll_in_a_thousand_turns() -> None:
    turns, impossible = sample(1_000)
    assert turns >= 1_000 and impossible == 0


@pytest.mark.slow
def test_no_impossible_roll_in_ten_thousand_turns() -> None:
    turns, impossible = sample(10_000)
    assert turns >= 10_000 and impossible == 0


def test_adam_barbara_and_claus_play_the_texts_example_with_the_shipped_dice() -> None:
    # Die order: 4 white (0-3), 3 beige (4-6); each face must be on its die.
    rolls = (
        "red garden soy snap china broad snap",  # no Blue; Adam keeps China, Soy
        "blue soy red china blue",  # dice 0, 1, 3, 5, 6: two Blue and China, kept
        "garden snap",  # dice 1 and 3: Claus's Garden and Snap
    )
    positions = iter([(4, 2), (0, 3, 4), (0, 1)])
    adam = scripted(keep=lambda v, roll: Keep(next(positions)))
    m = rig(bots=[adam, Bot(), Bot()], rolls=rolls)
    m.table.rng.real = True
    deck = list(m.rules.deck)
    cards = {
        0: ("china:2", "blue:2 soy", "different:5", "red"),
        1: ("none:blue", "china garden red", "kind:4"),
        2: ("garden snap", "red:3"),
    }
    for seat, orders in cards.items():
        card = m.table.active_card[seat]
        deck[card] = (*(parse(o, V) for o in orders), *deck[card][len(orders) :])
    with_deck(m, deck)
    m.play_turn()
    assert [len(r[2]) for r in kinds(m, "rolled")] == [7, 5, 2]
    assert m.table.covered == [3, 2, 1]  # Adam three orders, Barbara two, Claus his first


def test_setting_aside_nothing_is_a_fault_and_one_die_is_set_aside_instead():
    m = rig(
        rolls=["soy soy soy soy soy soy soy", *rest("soy")],
        bots=[scripted(keep=lambda v, roll: Keep(())), Bot(), Bot()],
    )
    m.play_turn()
    assert kinds(m, "fault")[0][2] == "keep"
    assert [len(r[2]) for r in kinds(m, "set_aside")] == [1] * 7


def test_early_stop_is_a_rule_option():
    stop = scripted(keep=lambda v, roll: Keep((0,), stop=True))
    m = rig(rolls=["soy soy soy soy soy soy soy"], bots=[stop, Bot(), Bot()])
    m.play_turn()
    assert len(kinds(m, "rolled")) == 1
    strict = rig(
        rolls=["soy soy soy soy soy soy soy", *rest("soy")],
        bots=[stop, Bot(), Bot()],
        early_stop=False,
    )
    strict.play_turn()
    assert len(kinds(strict, "rolled")) == 7 and kinds(strict, "fault")[0][2] == "keep"


def with_deck(m, deck):
    import dataclasses

    rules = m.table.rules
    patched = type("Patched", (type(rules),), {"deck": property(lambda self: tuple(deck))})
    m.table.rules = patched(**{f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)})


def test_others_fulfil_from_the_fresh_roll_lowest_order_first_each_die_many_times():
    m = rig()
    deck = list(m.rules.deck)
    deck[11] = (
        parse("soy", V),
        parse("soy:2", V),
        parse("kind:3", V),
        parse("red", V),
        *deck[11][4:],
    )
    with_deck(m, deck)
    m.table.rng = Dice("soy soy soy blue blue snap snap", *rest("blue"))
    m.play_turn()
    mine = [r for r in kinds(m, "fulfilled") if r[1] == 1]
    # One set of dice meets three orders in a row (each die used for several), not the 4th.
    assert [r[3] for r in mine[:3]] == [1, 2, 3]
    assert not [r for r in mine if r[3] == 4 and r[2] == 11]  # order 4 (red) was not met


def test_others_cannot_use_dice_already_on_the_bean_field():
    seen = []

    def harvest(view, dice):  # passes on the fresh roll, then claims the red pair later
        seen.append(dice)
        return FULFIL if len(seen) == 2 else None

    keep = scripted(
        keep=lambda v, roll: Keep((0, 1)) if len(roll) == 7 else Keep(tuple(range(len(roll))))
    )
    m = rig(bots=[keep, scripted(harvest=harvest), Bot()])
    deck = list(m.rules.deck)
    deck[11] = (parse("red:2", V), *deck[11][1:])
    with_deck(m, deck)
    m.table.rng = Dice("red red blue blue blue blue blue", "blue blue blue blue blue")
    m.play_turn()
    assert seen[1] == (V["blue"],) * 5  # the second window shows only the fresh dice
    fault = kinds(m, "fault")[0]
    assert fault[1:3] == (1, "harvest") and "do not meet" in fault[3]
    assert m.table.covered[1] == 0


def test_fulfilling_an_order_the_dice_do_not_meet_is_a_fault():
    m = rig(bots=[Bot(), scripted(harvest=lambda v, d: FULFIL), Bot()])
    deck = list(m.rules.deck)
    deck[11] = (parse("none:blue", V), *deck[11][1:])
    with_deck(m, deck)
    m.table.rng = Dice("blue blue blue blue blue blue blue", *rest("blue"))
    m.play_turn()
    assert [r[2] for r in kinds(m, "fault")][:1] == ["harvest"]
    assert m.table.covered[1] == 0


@pytest.mark.parametrize("covered,coins", [(3, 1), (4, 2), (5, 3), (6, 4)])
def test_redeeming_after_the_3rd_to_6th_order_pays_1_to_4_coins(covered, coins):
    m = rig(
        covered={1: covered},
        bots=[Bot(), scripted(harvest=lambda v, d: REDEEM if v.covered[1] else None), Bot()],
    )
    cover = m.table.cover_card[1]
    pile = len(m.table.deck)
    m.fulfil_window(1, (V["soy"],))
    assert m.table.coins[1] == coins
    assert kinds(m, "redeemed")[0][3] == coins
    assert m.table.active_card[1] == cover and m.table.covered[1] == 0  # the cover card is active
    assert len(m.table.deck) == pile - (coins - 1) - 1  # extra coin cards, and a new cover card
    assert len(m.table.coin_cards[1]) == coins


def test_redeeming_before_the_3rd_order_is_a_fault():
    m = rig(covered={1: 2}, bots=[Bot(), scripted(harvest=lambda v, d: REDEEM), Bot()])
    m.fulfil_window(1, (V["soy"],))
    assert kinds(m, "fault") and m.table.coins[1] == 0


def test_empty_draw_pile_turns_the_overview_card():
    m = rig(
        covered={1: 6},
        bots=[Bot(), scripted(harvest=lambda v, d: REDEEM if v.covered[1] == 6 else None), Bot()],
    )
    t = m.table
    t.coin_cards[1] = [1, 2, 3, 4, 5]
    t.coins[1] = 5
    t.deck = []
    m.fulfil_window(1, ())
    assert kinds(m, "overview") == [("overview", 1)]
    assert t.coins[1] == 9  # 5 + 4: the overview card's 5 replace the 5 returned coins
    assert t.overview_turned[1]


def test_a_seat_without_a_covering_card_waits_for_cards_an_overview_card_returns() -> None:
    def redeem(view: DiceView, dice: tuple[int, ...]) -> str | None:
        return REDEEM if view.covered[view.seat] >= 3 else None

    m = rig(covered={1: 6, 2: 3}, bots=[Bot(), scripted(harvest=redeem), scripted(harvest=redeem)])
    t = m.table
    t.deck = []
    t.overview_turned[1] = True  # seat 1 has turned its overview card already
    t.coin_cards[2], t.coins[2] = [1, 2, 3, 4, 5], 5
    old_cover = t.cover_card[1]
    m.fulfil_window(1, ())
    # Its coins count; the covering card became active; nothing covers it.
    assert t.coins[1] == 4 and t.active_card[1] == old_cover and t.cover_card[1] == -1
    view = DiceView(t, 1)
    assert view.open_orders() == t.rules.deck[old_cover] and view.fulfillable((V["blue"],) * 7) == 0
    m.fulfil_window(2, ())  # seat 2 turns its overview card: five cards back to the pile
    assert kinds(m, "overview") == [("overview", 2)]
    drew = kinds(m, "drew")
    assert [r[1] for r in drew] == [2, 1]  # seat 2 takes its card first, then seat 1 is served
    assert t.cover_card[1] == drew[1][2] and len(t.deck) == 3
    assert t.coins[2] == 6 and len(t.coin_cards[2]) == 1  # 5 + 1; the overview card holds 5


def test_a_seat_without_a_covering_card_cannot_fulfil_or_redeem() -> None:
    m = rig(covered={1: 0}, bots=[Bot(), scripted(harvest=lambda v, d: FULFIL), Bot()])
    m.table.cover_card[1] = -1
    card = m.table.active_card[1]
    m.fulfil_window(1, tuple(V.values()))
    assert kinds(m, "fault")[0][2] == "harvest" and m.table.covered[1] == 0
    m.table.covered[1] = 3  # not reachable in play; the check stands anyway
    m.referee.seats[1].bot = scripted(harvest=lambda v, d: REDEEM)
    m.fulfil_window(1, ())
    assert "no covering card" in kinds(m, "fault")[-1][3]
    assert m.table.active_card[1] == card and m.table.coins[1] == 0


def test_the_first_to_13_coins_wins_and_the_active_player_stops_rolling():
    m = rig(
        coins={2: 12},
        covered={2: 3},
        bots=[Bot(), Bot(), scripted(harvest=lambda v, d: REDEEM if v.covered[2] == 3 else None)],
    )
    m.table.rng = Dice("soy soy soy soy soy soy soy")
    winners = m.play_turn()
    assert winners == [2]
    assert len(kinds(m, "rolled")) == 1 and not kinds(m, "set_aside")


def test_shared_victory_unless_one_has_more_than_13():
    m = rig(coins={1: 13, 2: 13})
    assert m.reached_target() == [1, 2]
    m.table.coins[2] = 14
    assert m.reached_target() == [2]
    result = m.finish([2])
    assert result.winners == (2,) and result.ranks[2] == 1


def _text_says(roll: tuple[int, ...]) -> dict[str, bool]:
    """The text's example orders, read straight from its words over one roll
    of seven dice: written apart from Order.met, which they check."""
    c = Counter(roll)
    counts = sorted(c.values(), reverse=True)
    soy, blue, snap, red, china = (c[V[n]] for n in ("soy", "blue", "snap", "red", "china"))
    return {
        "soy:2 blue snap": soy >= 2 and blue >= 1 and snap >= 1,
        "red:2 | china:2": red >= 2 or china >= 2,
        "different:6": len(c) >= 6,
        "kind:4": counts[0] >= 4,
        "house:3+2 soy": (soy >= 3 and any(k >= 2 for v, k in c.items() if v != V["soy"]))
        or (soy >= 2 and any(k >= 3 for v, k in c.items() if v != V["soy"])),
        "combo:5 blue+snap": blue + snap >= 5,
        "none:blue": blue == 0,
        "triples:2": sum(k >= 3 for k in counts) >= 2,
        "pairs:3": sum(k >= 2 for k in counts) >= 3,
    }


@pytest.mark.slow
def test_exact_first_roll_chance_matches_brute_force() -> None:
    faces = dice_faces()
    hits: Counter[str] = Counter()
    for roll in product(*faces):  # all 6**7 rolls, one by one
        hits.update(text for text, met in _text_says(roll).items() if met)
    for text in _text_says((0,) * 7):
        assert abs(first_roll_chance(parse(text, V), faces) - hits[text] / 6**7) < 1e-12, text


def test_same_seed_same_match():
    def bots():
        return [GreedyDiceBot(), RandomDiceBot(), GreedyDiceBot()]

    a = Match(ruleset("standard", 3), 42, bots())
    b = Match(ruleset("standard", 3), 42, bots())
    assert a.play() == b.play() and a.records == b.records


@pytest.mark.slow
def test_past_the_overview_cards_every_seat_keeps_its_own_active_card() -> None:
    seen = {"waiting": 0}

    class Watcher(GreedyDiceBot):
        def harvest(self, view: DiceView, dice: tuple[int, ...]) -> str | None:
            deck = view.rules.deck
            for s in range(view.players):
                assert (
                    view.cards[s] >= 0
                    and view.open_orders(s) == deck[view.cards[s]][view.covered[s] :]
                )
                if view.cover_cards[s] < 0:
                    seen["waiting"] += 1
                    assert view.covered[s] == 0
            return super().harvest(view, dice)

    for seed in range(40):  # a target above 13 runs the draw pile dry
        Match(ruleset("standard", 5, target=16), seed, [Watcher() for _ in range(5)]).play()
    assert seen["waiting"] > 0
