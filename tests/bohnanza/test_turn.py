"""Setup and phases 1, 3 and 4 of a turn (000 "Course of Play", 003)."""

from bohnarena.bohnanza import Bot, Match, play_match, ruleset

from .helpers import V, cards, census_ok, kinds, rig, scripted


def test_deal_five_one_at_a_time_first_card_is_front():
    rules = ruleset("classic", 4)
    m = Match(rules, 3, [Bot() for _ in range(4)])
    deck = list(m.table.deck)
    m.seat_all()
    m.deal()
    top_down = deck[::-1]
    for s in range(4):
        assert m.table.hands[s] == top_down[s:20:4]
    assert len(m.table.deck) == 104 - 20


def test_riogrande_six_players_deal_3_4_5_6():
    rules = ruleset("riogrande", 6)
    m = Match(rules, 1, [Bot() for _ in range(6)])
    m.seat_all()
    m.deal()
    assert [len(h) for h in m.table.hands] == [3, 4, 5, 6, 6, 6]


def test_start_player_is_seat_0_and_play_goes_clockwise():
    _, records = play_match(ruleset("classic", 4), 5, [Bot() for _ in range(4)])
    turns = [r[1] for r in records if r[0] == "turn"]
    assert turns[:9] == [0, 1, 2, 3, 0, 1, 2, 3, 0]


def test_phase1_front_card_must_be_planted_and_hand_order_kept():
    hand = cards("soy", "red", "blue", "chili")
    m = rig(
        hands={0: hand}, top=cards("green", "green", "wax" if False else "stink", "stink", "stink")
    )
    m.play_turn()
    planted = [r for r in kinds(m, "planted") if r[1] == 0 and r[4] == 0]
    assert [r[2] for r in planted] == [V["soy"]]
    # Rest of the hand in the same order, then the three cards drawn at the back.
    assert m.table.hands[0] == cards("red", "blue", "chili", "stink", "stink", "stink")


def test_phase1_optional_second_card_is_the_new_front_and_no_third():
    bot = scripted(plant_second=lambda view: True)
    m = rig(
        bots=[bot, Bot(), Bot(), Bot()],
        hands={0: cards("soy", "red", "blue")},
        fields={0: [(V["soy"], 1), (0, 0)]},
        top=cards("green", "green", "stink", "stink", "stink"),
    )
    m.play_turn()
    from_hand = [r[2] for r in kinds(m, "planted") if r[1] == 0 and r[4] == 0]
    assert from_hand == cards("soy", "red")
    assert m.table.hands[0][0] == V["blue"]  # the third card stays
    assert len(kinds(m, "plant_second")) == 1


def test_phase1_empty_hand_goes_straight_to_phase2():
    m = rig(hands={0: []}, top=cards("green", "soy", "stink", "stink", "stink"))
    m.play_turn()
    assert not [r for r in kinds(m, "planted") if r[4] == 0]
    assert [r[2] for r in kinds(m, "revealed")] == cards("green", "soy")


def test_a_field_holds_one_variety_so_a_card_that_fits_none_forces_a_harvest():
    asked = []
    bot = scripted(make_room=lambda view, card: asked.append(card) or 1)
    m = rig(
        bots=[bot, Bot(), Bot(), Bot()],
        hands={0: cards("red")},
        fields={0: [(V["soy"], 2), (V["chili"], 3)]},
        top=cards("soy", "red", "stink", "stink", "stink"),
    )
    m.play_turn()
    assert asked == [V["red"]]
    h = kinds(m, "harvested")[0]
    assert h[1:] == (0, 1, V["chili"], 3, 1)
    assert kinds(m, "planted")[0][2:4] == (V["red"], 1)
    assert census_ok(m.table)


def test_same_variety_may_grow_in_two_fields_and_player_chooses():
    bot = scripted(plant=lambda view, card: 1)
    m = rig(
        bots=[bot, Bot(), Bot(), Bot()],
        hands={0: cards("soy")},
        fields={0: [(V["soy"], 2), (V["soy"], 1)]},
        top=cards("stink", "stink", "red", "red", "red"),
    )
    m.play_turn()
    assert kinds(m, "planted")[0][2:4] == (V["soy"], 1)


def test_planting_into_a_field_of_another_variety_is_a_fault():
    bot = scripted(plant=lambda view, card: 0)  # field 0 holds Soy, the card is Red
    m = rig(
        bots=[bot, Bot(), Bot()],
        hands={0: cards("red")},
        fields={0: [(V["soy"], 2), (0, 0), (0, 0)]},
        players=3,
        top=cards("stink", "stink", "red", "red", "red"),
    )
    # two fields take Red (1 and 2), so the bot is asked, answers field 0: illegal
    m.play_turn()
    fault = kinds(m, "fault")[0]
    assert fault[1] == 0 and fault[2] == "plant" and "illegal" in fault[3]
    assert kinds(m, "planted")[0][2:4] == (V["red"], 1)  # the default: first legal field
    assert m.table.fields[0][0] == [V["soy"], 2]


def test_phase3_every_player_plants_all_traded_and_kept_cards_in_chosen_order():
    order = []

    def plant_next(view):
        order.append(view.my_trade_area)
        return len(view.my_trade_area) - 1  # last first

    bot = scripted(plant_next=plant_next)
    m = rig(
        players=3,
        bots=[bot, Bot(), Bot()],
        hands={0: cards("soy")},
        top=cards("red", "blue", "stink", "stink", "stink"),
    )
    m.play_turn()
    assert order == [tuple(cards("red", "blue"))]
    kept = [r for r in kinds(m, "planted") if r[4] == 1]
    assert [r[2] for r in kept] == cards("blue", "red")
    assert all(not a for a in m.table.trade)


def test_phase4_draws_three_to_the_back_then_left_neighbour_is_active():
    m = rig(hands={0: cards("soy", "red")}, top=cards("green", "green", "stink", "chili", "blue"))
    m.play_turn()
    assert m.table.hands[0] == cards("red", "stink", "chili", "blue")
    _, records = play_match(ruleset("classic", 4), 2, [Bot() for _ in range(4)])
    assert [r for r in records if r[0] == "turn"][1][1] == 1


def test_riogrande_six_players_draw_four():
    m = rig(
        "riogrande",
        6,
        hands={0: cards("soy")},
        top=cards("green", "green", "stink", "chili", "blue", "red"),
    )
    m.play_turn()
    assert [r[2] for r in kinds(m, "drew")] == cards("stink", "chili", "blue", "red")
