"""The bean harvest, bean protection, the Jumping Bean and the third field."""

import pytest

from bohnarena.bohnanza import Anytime, Bot, DraftPick
from bohnarena.bohnanza.table import EMPTY

from .helpers import V, cards, census_ok, kinds, rig, scripted

DRAWS = ("green", "green", "stink", "stink", "stink")


def harvest_first_window(seat_fields, once=True):
    """An anytime() that harvests ``seat_fields`` at the first window it gets."""
    done = []

    def anytime(view):
        if done and once:
            return None
        done.append(1)
        return Anytime(harvest=tuple(seat_fields))

    return anytime


def test_example5_three_fire_beans_pay_one_coin_two_to_discard():
    keno = scripted(anytime=harvest_first_window([0]))
    m = rig(
        bots=[Bot(), keno, Bot(), Bot()],
        fields={1: [(V["chili"], 3), (0, 0)]},
        hands={0: cards("soy")},
        top=cards(*DRAWS),
    )
    discard_before = len(m.table.discard)
    m.play_turn()
    # Keno (seat 1) is not the active player: harvesting at any time.
    assert kinds(m, "harvested")[0][1:] == (1, 0, V["chili"], 3, 1)
    assert m.table.coins[1] == [V["chili"]]
    assert len(m.table.discard) == discard_before + 2
    assert m.table.fields[1][0] == [EMPTY, 0]  # a harvested field is always empty
    assert census_ok(m.table)


def test_coins_follow_the_beanometer_for_every_count():
    for count in range(1, 11):
        bot = scripted(anytime=harvest_first_window([0]))
        m = rig(
            bots=[bot, Bot(), Bot(), Bot()],
            fields={0: [(V["blue"], count), (0, 0)]},
            hands={0: cards("soy")},
            top=cards(*DRAWS),
        )
        m.play_turn()
        paid = kinds(m, "harvested")[0][5]
        assert paid == [0, 0, 0, 1, 1, 2, 2, 3, 3, 4][count - 1]


@pytest.mark.parametrize(
    "edition,fields,allowed",
    [
        ("classic", [1, 3], [0, 1]),
        ("anniversary", [1, 3], [1]),  # 000: no single while another field has more
        ("anniversary", [1, 1], [0, 1]),
        ("anniversary", [1, 0], [0]),
        ("riogrande", [1, 3], [1]),
        ("riogrande", [1, 1], [0, 1]),
        ("riogrande", [1, 0], []),  # stricter: *all* fields must hold one card
    ],
)
def test_bean_protection_rule(edition, fields, allowed):
    kw = {"extra_bean": "garden"} if edition == "anniversary" else {}
    fs = [(V["soy"], fields[0]), (V["red"], fields[1])]
    m = rig(edition, 4, fields={2: fs}, **kw)
    assert m.table.harvestable(2) == allowed


def test_harvesting_a_protected_single_is_a_fault():
    bot = scripted(anytime=harvest_first_window([0]))
    m = rig(
        "anniversary",
        4,
        bots=[Bot(), bot, Bot(), Bot()],
        fields={1: [(V["soy"], 1), (V["red"], 3)]},
        hands={0: cards("soy")},
        top=cards(*DRAWS),
    )
    m.play_turn()
    fault = kinds(m, "fault")[0]
    assert fault[1:3] == (1, "anytime") and "field to harvest" in fault[3]
    assert m.table.fields[1][0] == [V["soy"], 1]


def test_protection_applies_in_order_within_one_answer():
    # Harvesting the 3-card field first makes the single harvestable next.
    bot = scripted(anytime=harvest_first_window([1, 0]))
    m = rig(
        "anniversary",
        4,
        bots=[Bot(), bot, Bot(), Bot()],
        fields={1: [(V["soy"], 1), (V["red"], 3)]},
        hands={0: cards("soy")},
        top=cards(*DRAWS),
    )
    m.play_turn()
    assert not kinds(m, "fault")
    assert [r[2] for r in kinds(m, "harvested")] == [1, 0]


def test_final_harvest_ignores_protection_and_hand_cards_do_not_count():
    m = rig(
        "anniversary", 4, fields={0: [(V["soy"], 1), (V["red"], 5)]}, hands={0: cards("blue") * 9}
    )
    result = m.finish()
    assert result.coins[0] == 0 + 4  # 1 Soy pays nothing, 5 Red pay 4; the hand pays nothing


def test_example6_jumping_bean_draft():
    # Keno (seat 0) harvests 2 Jumping Beans; 4 players draw 5 cards.
    draft = cards("red", "soy", "blue", "chili", "stink")
    picks = {0: 1, 3: 0, 2: 0, 1: 0}  # Keno takes the Soy; then to the right: 3, 2, 1
    order = []

    def pick(view, offered):
        order.append((view.seat, offered))
        i = picks[view.seat]
        fits = view.fields_for(offered[i])
        return DraftPick(i, fits[0] if fits and view.seat != 2 else None)

    keno = scripted(anytime=harvest_first_window([1]), draft=pick)
    bots = [keno] + [scripted(draft=pick) for _ in range(3)]
    m = rig(
        "anniversary",
        4,
        bots=bots,
        extra_bean="jumping",
        fields={0: [(V["soy"], 2), (V["jumping"], 2)]},
        hands={0: cards("soy")},
        top=draft + cards(*DRAWS),
    )
    m.play_turn()
    h = kinds(m, "harvested")[0]
    assert h[1:] == (0, 1, V["jumping"], 2, 0)  # no coins: laid on the discard pile
    assert [r[2] for r in kinds(m, "draft_card")] == draft  # drawn one by one
    assert [s for s, _ in order] == [0, 3, 2, 1]  # harvester first, then to the right
    assert [len(c) for _, c in order] == [5, 4, 3, 2]
    picked = kinds(m, "picked")
    assert picked[0][1:] == (0, V["soy"], 0)  # planted at once
    assert picked[2][3] == -1  # seat 2 discarded its pick
    assert kinds(m, "draft_coin")[0][1:] == (0, V["stink"])
    assert V["stink"] in m.table.coins[0]
    assert census_ok(m.table)


def test_single_jumping_bean_pays_nothing_and_triggers_nothing():
    keno = scripted(anytime=harvest_first_window([1]))
    m = rig(
        "anniversary",
        4,
        bots=[keno, Bot(), Bot(), Bot()],
        extra_bean="jumping",
        fields={0: [(V["soy"], 1), (V["jumping"], 1)]},
        hands={0: cards("soy")},
        top=cards(*DRAWS),
    )
    m.play_turn()
    assert kinds(m, "harvested")[0][4:] == (1, 0)
    assert not kinds(m, "draft_card")


def test_draft_plant_must_fit_a_field():
    bad = scripted(anytime=harvest_first_window([1]), draft=lambda view, c: DraftPick(0, 0))
    m = rig(
        "anniversary",
        4,
        bots=[bad, Bot(), Bot(), Bot()],
        extra_bean="jumping",
        fields={0: [(V["soy"], 2), (V["jumping"], 3)]},
        hands={0: cards("soy")},
        top=cards("red", "soy", "blue", "chili", "stink", *DRAWS),
    )
    m.play_turn()
    assert kinds(m, "fault")[0][2] == "draft"


@pytest.mark.parametrize("players,cost", [(4, 3), (5, 3), (6, 2), (7, 2)])
def test_riogrande_third_field_bought_once_for_its_price(players, cost):
    buys = []

    def anytime(view):
        if view.can_buy_field():
            buys.append(view.my_coins)
            return Anytime(buy_field=True)
        return None

    coins = cards("soy") * 5
    m = rig(
        "riogrande",
        players,
        bots=[scripted(anytime=anytime)] + [Bot()] * (players - 1),
        coins={0: coins},
        hands={0: cards("soy")},
        top=cards(*DRAWS, "red"),
    )
    before = len(m.table.discard)
    m.play_turn()
    assert len(m.table.fields[0]) == 3 and len(buys) == 1
    assert len(m.table.coins[0]) == 5 - cost
    assert len(m.table.discard) == before + cost  # paid coins go to the discard pile
    # the coin cards paid are the newest of the pile
    assert kinds(m, "bought_field") == [("bought_field", 0, cost, tuple(coins[-cost:]))]
    assert census_ok(m.table)


@pytest.mark.parametrize("edition,players", [("classic", 4), ("anniversary", 4), ("riogrande", 3)])
def test_no_third_field_where_the_edition_has_none(edition, players):
    bot = scripted(anytime=lambda view: Anytime(buy_field=True))
    m = rig(
        edition,
        players,
        bots=[bot] + [Bot()] * (players - 1),
        coins={0: cards("soy") * 5},
        hands={0: cards("soy")},
        top=cards(*DRAWS),
    )
    m.play_turn()
    assert kinds(m, "fault") and kinds(m, "fault")[0][2] == "anytime"
    assert len(m.table.fields[0]) == m.rules.fields


def test_buying_needs_enough_coins():
    m = rig("riogrande", 4, coins={0: cards("soy") * 2})
    assert not m.table.can_buy_field(0)
