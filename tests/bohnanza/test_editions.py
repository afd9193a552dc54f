"""Edition data: decks, fields, deals and parameters match the rule texts."""

import pytest

from bohnarena.bohnanza import ruleset, varieties
from bohnarena.core.errors import RulesError

from .helpers import V


def deck_of(rules):
    return {varieties()[v].key: n for v, n in enumerate(rules.deck) if n}


@pytest.mark.parametrize("players,fields", [(3, 3), (4, 2), (5, 2)])
def test_classic_104_cards_8_varieties_and_fields_by_player_count(players, fields):
    r = ruleset("classic", players)
    assert r.total_cards == 104
    assert list(deck_of(r)) == [
        "blue",
        "chili",
        "stink",
        "green",
        "soy",
        "blackeyed",
        "red",
        "garden",
    ]
    assert r.fields == fields
    assert r.deal == (5,) * players and r.draw == 3 and r.reveal == 2 and r.exhaustions == 3


@pytest.mark.parametrize("players", [2, 6])
def test_classic_is_for_3_to_5_players(players):
    with pytest.raises(RulesError, match="3, 4, 5 players"):
        ruleset("classic", players)


@pytest.mark.parametrize("extra", ["garden", "jumping"])
def test_anniversary_plays_104_of_110_cards_with_garden_or_jumping(extra):
    r = ruleset("anniversary", 4, extra_bean=extra)
    assert r.total_cards == 104
    other = {"garden": "jumping", "jumping": "garden"}[extra]
    assert extra in deck_of(r) and other not in deck_of(r)
    assert sum(deck_of(r).values()) + varieties()[V[other]].cards == 110
    assert r.protection == "no_single_while_multi"


def test_anniversary_rejects_a_third_choice():
    with pytest.raises(RulesError, match="extra_bean"):
        ruleset("anniversary", 4, extra_bean="cocoa")


#: The Rio Grande edition's eleven varieties (text 002's card list).
RIO_GRANDE = (
    *("coffee", "wax", "blue", "chili", "stink", "green"),
    *("soy", "blackeyed", "red", "garden", "cocoa"),
)


def test_riogrande_154_cards_11_varieties():
    assert sum(varieties()[V[k]].cards for k in RIO_GRANDE) == 154


@pytest.mark.parametrize(
    "players,removed",
    [
        (3, {"cocoa"}),
        (4, {"coffee"}),
        (5, {"coffee"}),
        (6, {"cocoa", "garden"}),
        (7, {"cocoa", "garden"}),
    ],
)
def test_riogrande_removes_varieties_by_player_count(players, removed):
    r = ruleset("riogrande", players)
    assert set(deck_of(r)) == set(RIO_GRANDE) - removed


def test_riogrande_player_count_parameters():
    three = ruleset("riogrande", 3)
    assert three.fields == 3 and three.exhaustions == 2 and three.third_field_cost == 0
    for p in (4, 5):
        r = ruleset("riogrande", p)
        assert r.fields == 2 and r.third_field_cost == 3 and r.draw == 3 and r.exhaustions == 3
    for p in (6, 7):
        r = ruleset("riogrande", p)
        assert r.third_field_cost == 2 and r.draw == 4
        assert r.deal == (3, 4, 5, 6, 6, 6, 6)[:p]
    assert ruleset("riogrande", 4).protection == "single_only_if_all_single"
    assert ruleset("riogrande", 4).tie_break == ("hand",)


def test_options_override_and_unknown_options_are_errors():
    r = ruleset("classic", 4, protection="no_single_while_multi", max_trade_rounds=1)
    assert r.protection == "no_single_while_multi" and r.max_trade_rounds == 1
    with pytest.raises(RulesError, match="unknown rule option"):
        ruleset("classic", 4, bogus=1)
    with pytest.raises(RulesError, match="protection"):
        ruleset("classic", 4, protection="maybe")
    with pytest.raises(RulesError, match="unknown edition"):
        ruleset("deluxe", 4)


@pytest.mark.parametrize(
    "key,meter",
    [
        ("coffee", (4, 7, 10, 12)),
        ("wax", (4, 7, 9, 11)),
        ("blue", (4, 6, 8, 10)),
        ("chili", (3, 6, 8, 9)),
        ("stink", (3, 5, 7, 8)),
        ("green", (3, 5, 6, 7)),
        ("soy", (2, 4, 6, 7)),
        ("blackeyed", (2, 4, 5, 6)),
        ("red", (2, 3, 4, 5)),
        ("garden", (0, 2, 3, 0)),
        ("cocoa", (0, 2, 3, 4)),
    ],
)
def test_beanometers_match_the_facts_table(key, meter):
    v = varieties()[V[key]]
    assert v.beanometer == meter
    for coins, least in enumerate(meter, start=1):
        if least:
            assert v.coins(least) == coins and v.coins(least - 1) < coins


def test_rulebook_beanometer_examples():
    stink, blue, garden = (varieties()[V[k]] for k in ("stink", "blue", "garden"))
    # 000 and 002: 1-2 Stink pay nothing, 3-4 one, 5-6 two, 7 three, 8+ four.
    assert [stink.coins(n) for n in range(1, 11)] == [0, 0, 1, 1, 2, 2, 3, 4, 4, 4]
    # 001: Blue 1-3 none, 4-5 one, 6-7 two, 8-9 three, 10+ four; Garden 1 none, 2 two, 3+ three.
    assert [blue.coins(n) for n in range(1, 12)] == [0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert [garden.coins(n) for n in range(1, 7)] == [0, 2, 3, 3, 3, 3]
    assert max(v.coins(99) for v in varieties()) == 4  # never more than 4 coins


@pytest.mark.parametrize(
    "option,value",
    [
        ("tie_break", 5),
        ("fields", "abc"),
        ("max_offers", True),
        ("draw", 2.5),
        ("protection", 3),
    ],
)
def test_rule_options_of_the_wrong_type_are_errors(option, value):
    with pytest.raises(RulesError, match=f"rule option {option} must be"):
        ruleset("classic", 4, **{option: value})
