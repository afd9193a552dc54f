"""Phase 2 trading (000 "Rules for bean trading", 003 "Trading rules")."""

import pytest

from bohnarena.bohnanza import Accept, Bot, Offer
from bohnarena.bohnanza.records import public_history

from .helpers import V, cards, census_ok, kinds, rig, scripted

TOP = ("soy", "blue", "stink", "stink", "stink")  # reveals Soy, Blue; then draws


def once(offer):
    """A propose() that makes ``offer`` once per turn."""
    made = []

    def propose(view):
        if made:
            return None
        made.append(1)
        return offer

    return propose


def table(active_bot, others=None, hands=None, **kw):
    bots = [active_bot, *(others or [Bot(), Bot(), Bot()])]
    hands = hands or {
        0: cards("red", "garden"),
        1: cards("chili", "green", "chili", "soy"),
        2: cards("red", "red"),
        3: cards("green"),
    }
    return rig(bots=bots, hands=hands, top=cards(*TOP), **kw)


def test_active_trades_a_revealed_card_for_a_hand_card_from_any_position():
    accept = scripted(respond=lambda view, o: Accept((3,)))  # seat 1's Soy, at the back
    m = table(
        scripted(propose=once(Offer(give=(-2,), want=(V["soy"],), to=1))),
        others=[accept, Bot(), Bot()],
    )
    m.play_turn()
    traded = kinds(m, "traded")
    assert traded == [("traded", 0, 1, (V["blue"],), (V["soy"],))]
    assert m.table.hands[1] == cards("chili", "green", "chili")  # order of the rest kept
    # Received cards were laid in the trade areas, then planted in phase 3.
    planted = [(r[1], r[2]) for r in kinds(m, "planted") if r[4] == 1]
    assert (1, V["blue"]) in planted and (0, V["soy"]) in planted
    assert census_ok(m.table)


def test_any_number_for_any_number_and_hand_cards_of_the_active_player():
    accept = scripted(respond=lambda view, o: Accept((0,)))
    offer = Offer(give=(-1, 0), want=(V["chili"],), to=1)  # revealed Soy + hand Garden for a Chili
    m = table(scripted(propose=once(offer)), others=[accept, Bot(), Bot()])
    m.play_turn()
    assert kinds(m, "traded")[0][3:] == ((V["soy"], V["garden"]), (V["chili"],))
    assert m.table.hands[1] == cards("green", "chili", "soy")


def test_the_giver_chooses_which_copy():
    # Seat 1 holds Chili at positions 0 and 2; giving the back one keeps its front card.
    accept = scripted(respond=lambda view, o: Accept((2,)))
    m = table(
        scripted(propose=once(Offer(give=(-1,), want=(V["chili"],), to=1))),
        others=[accept, Bot(), Bot()],
    )
    m.play_turn()
    assert m.table.hands[1] == cards("chili", "green", "soy")


def test_gift_needs_the_recipients_agreement():
    gift = Offer(give=(-1,), to=2)
    declined = table(scripted(propose=once(gift)))
    declined.play_turn()
    assert kinds(declined, "declined") == [("declined", 2, 0)] and not kinds(declined, "traded")
    accepted = table(
        scripted(propose=once(gift)), others=[Bot(), scripted(respond=lambda v, o: Accept()), Bot()]
    )
    accepted.play_turn()
    assert kinds(accepted, "traded") == [("traded", 0, 2, (V["soy"],), ())]


def test_offer_to_everyone_goes_clockwise_and_the_first_acceptance_trades():
    asked = []

    def respond(view, o):
        asked.append(view.seat)
        return Accept((0,)) if view.seat == 2 else None

    others = [scripted(respond=respond) for _ in range(3)]
    m = table(scripted(propose=once(Offer(give=(-1,), want=(V["red"],)))), others=others)
    m.play_turn()
    assert asked == [1, 2]  # seat 3 is not asked once seat 2 accepted
    assert kinds(m, "traded")[0][2] == 2


def test_others_offer_to_the_active_player_who_accepts_or_declines():
    seen = []

    def respond(view, o):
        seen.append(o)
        return Accept((-1,))  # gives the revealed Soy

    active = scripted(respond=respond)
    offer = scripted(
        offer=lambda view: (
            Offer(give=(1,), want=(V["soy"],)) if not view.my_trade_area and view.revealed else None
        )
    )
    m = table(active, others=[offer, Bot(), Bot()])
    m.play_turn()
    assert seen[0].by == 1 and seen[0].cards == (V["green"],) and seen[0].want == (V["soy"],)
    assert kinds(m, "traded")[0] == ("traded", 0, 1, (V["soy"],), (V["green"],))


def test_only_the_active_player_trades_other_players_cannot_address_each_other():
    asked = []
    watcher = scripted(respond=lambda view, o: asked.append(view.seat))
    offer = scripted(offer=lambda view: Offer(give=(0,), want=(), to=3))  # tries seat 3
    m = table(Bot(), others=[offer, Bot(), watcher], max_trade_rounds=1)
    m.play_turn()
    assert asked == []  # seat 3 was never asked: the offer went to the active player
    assert [r[2] for r in kinds(m, "offered")] == [0]


@pytest.mark.parametrize(
    "bad,reason",
    [
        (Offer(give=(-1, -1), to=1), "repeat"),
        (Offer(give=(5,), to=1), "not in the hand"),
        (Offer(give=(-3,), to=1), "not in the hand"),
        (Offer(give=(), want=()), "give or want"),
        (Offer(give=(0,), want=(V["coffee"],)), "not in this match"),
        (Offer(give=(0,), to=0), "addressee"),
        ("trade!", "must be a Offer"),
    ],
)
def test_malformed_offers_are_faults(bad, reason):
    m = table(scripted(propose=once(bad)))
    m.play_turn()
    fault = kinds(m, "fault")[0]
    assert fault[2] == "propose" and reason in fault[3]
    assert not kinds(m, "traded")


def test_non_active_players_cannot_give_revealed_cards():
    offer = scripted(offer=lambda view: Offer(give=(-1,)))
    m = table(Bot(), others=[offer, Bot(), Bot()], max_trade_rounds=1)
    m.play_turn()
    assert "not in the hand" in kinds(m, "fault")[0][3]


def test_accepting_must_give_exactly_the_wanted_varieties():
    wrong = scripted(respond=lambda view, o: Accept((1,)))  # Green, not the wanted Chili
    m = table(
        scripted(propose=once(Offer(give=(-1,), want=(V["chili"],), to=1))),
        others=[wrong, Bot(), Bot()],
    )
    m.play_turn()
    assert "exactly the wanted" in kinds(m, "fault")[0][3]
    assert kinds(m, "declined")  # the default answer declines
    assert m.table.hands[1] == cards("chili", "green", "chili", "soy")


def test_received_cards_and_field_cards_cannot_be_traded():
    # After receiving, the card lies in the trade area; references reach only
    # hand positions and revealed cards, so it cannot be offered on.
    offers = iter([Offer(give=(-1,), want=(V["chili"],), to=1), Offer(give=(1,), to=2), None])
    accept = scripted(respond=lambda view, o: Accept((0,)) if o.want else None)
    m = table(
        scripted(propose=lambda view: next(offers)),
        others=[accept, Bot(), Bot()],
        fields={0: [(V["green"], 2), (0, 0)]},
    )
    m.play_turn()
    second = kinds(m, "fault")[0]
    assert "not in the hand of 1" in second[3]  # the hand is one Garden; the Chili is not in it
    assert all(V["green"] not in r[3] for r in kinds(m, "traded"))  # the field's Greens stay


def test_every_offer_and_trade_is_visible_to_all():
    accept = scripted(respond=lambda view, o: Accept((3,)))
    m = table(
        scripted(propose=once(Offer(give=(-2,), want=(V["soy"],), to=1))),
        others=[accept, Bot(), Bot()],
    )
    m.play_turn()
    seen = {r[0] for r in public_history(m.records, 3)}
    assert {"offered", "traded"} <= seen


def test_negotiation_is_bounded_by_rounds_and_offers():
    count = []

    def propose(view):
        count.append(1)
        return Offer(give=(), want=(V["red"],))  # asks for a gift, always declined

    m = table(scripted(propose=propose), max_trade_rounds=2, max_offers=3)
    m.play_turn()
    assert len(kinds(m, "offered")) == 6 and len(count) == 6


def test_trading_ends_after_a_round_without_offers():
    calls = []
    m = table(scripted(propose=lambda view: calls.append(1)), max_trade_rounds=5)
    m.play_turn()
    assert len(calls) == 1
