"""An empty draw pile, the end of the game, and the tie-break."""

import pytest

from bohnarena.bohnanza import Bot, Match, play_match, ruleset

from .helpers import cards, census_ok, kinds, rig


def short_pile(m, keep):
    """Leave only the top ``keep`` cards in the draw pile; the rest go to the discard pile."""
    t = m.table
    t.discard = t.deck[:-keep]
    t.deck = t.deck[-keep:]


def test_drawing_the_last_card_reshuffles_the_discard_pile():
    m = rig(hands={0: cards("soy")}, top=cards("red", "blue", "stink", "stink", "stink"))
    short_pile(m, 4)
    m.play_turn()  # the 4th card drawn is the last: then the discard pile is shuffled in
    assert kinds(m, "exhausted") == [("exhausted", -1, 1)]
    ((_, _, shuffled),) = kinds(m, "reshuffled")
    assert shuffled >= 99  # the whole discard pile (plus what this turn harvested)
    assert len(m.table.deck) == shuffled - 1 and not m.table.discard  # one more draw from it
    assert not m.table.ended
    assert census_ok(m.table)


def test_reshuffle_uses_the_match_seed_only():
    def after(seed):
        m = rig(
            hands={0: cards("soy")}, top=cards("red", "blue", "stink", "stink", "stink"), seed=seed
        )
        short_pile(m, 4)
        m.play_turn()
        return list(m.table.deck)

    assert after(1) == after(1) and after(1) != after(2)


@pytest.mark.parametrize(
    "edition,players,limit",
    [
        ("classic", 4, 3),
        ("anniversary", 5, 3),
        ("riogrande", 4, 3),
        ("riogrande", 3, 2),
    ],
)
def test_game_ends_at_the_editions_exhaustion_count(edition, players, limit):
    _, records = play_match(ruleset(edition, players), 11, [Bot() for _ in range(players)])
    ex = [r[2] for r in records if r[0] == "exhausted"]
    assert ex == list(range(1, limit + 1))
    assert len([r for r in records if r[0] == "reshuffled"]) == limit - 1
    last = max(i for i, r in enumerate(records) if r[0] == "exhausted")
    # After the last exhaustion nobody draws again and no new turn starts.
    assert not [r for r in records[last:] if r[0] in ("drew", "revealed", "turn")]


def test_end_while_revealing_after_one_card_still_plays_phases_2_and_3():
    m = rig(hands={0: cards("soy")}, top=cards("red"))
    short_pile(m, 1)
    m.table.exhaustions = 2
    m.table.discard = []  # nothing to reshuffle anyway: this is the last exhaustion
    m.table.deck = cards("red")
    from bohnarena.bohnanza.table import GameOver

    with pytest.raises(GameOver):
        m.play_turn()
    assert [r[2] for r in kinds(m, "revealed")] == cards("red")  # only one card could be revealed
    assert [r[2] for r in kinds(m, "planted") if r[4] == 1] == cards("red")  # phase 3 played
    assert not kinds(m, "drew")  # no phase 4
    assert m.table.ended


def test_end_during_phase4_draw_ends_there():
    m = rig(hands={0: cards("soy")}, top=cards("red", "blue", "green"))
    short_pile(m, 3)
    m.table.exhaustions = 2
    from bohnarena.bohnanza.table import GameOver

    with pytest.raises(GameOver):
        m.play_turn()
    assert [r[2] for r in kinds(m, "drew")] == cards("green")  # the last card; no more draws


def test_full_game_end_final_harvest_and_census():
    rules = ruleset("classic", 4)
    m = Match(rules, 21, [Bot() for _ in range(4)])
    result = m.play()
    t = m.table
    assert all(c == 0 for fs in t.fields for _, c in fs)  # every field harvested
    assert result.coins == tuple(len(p) for p in t.coins)
    assert census_ok(t)


def test_tie_break_seat_furthest_clockwise_from_start_player_wins():
    m = rig("classic", 4, coins={1: cards("soy") * 3, 3: cards("red") * 3, 0: cards("blue") * 3})
    result = m.finish()
    assert result.winners == (3,) and result.ranks == (3, 2, 4, 1)


def test_riogrande_tie_break_most_cards_in_hand_else_shared():
    m = rig(
        "riogrande",
        4,
        coins={1: cards("soy") * 3, 2: cards("red") * 3},
        hands={1: cards("blue"), 2: cards("blue", "soy")},
    )
    result = m.finish()
    assert result.winners == (2,) and result.ranks[:3] == (3, 2, 1)
    tie = rig("riogrande", 4, coins={1: cards("soy") * 3, 2: cards("red") * 3})
    assert tie.finish().winners == (1, 2)


def test_tie_break_is_a_rule_option():
    m = rig(
        "classic",
        4,
        tie_break=["hand"],
        coins={1: cards("soy") * 3, 3: cards("red") * 3},
        hands={1: cards("blue")},
    )
    assert m.finish().winners == (1,)


def test_an_empty_discard_pile_makes_an_empty_draw_pile_that_runs_out_at_once():
    # docs/rules.md: the reshuffled pile is empty too and counts as the next exhaustion.
    m = rig(hands={0: cards("soy")}, top=cards("soy", "soy", "soy", "soy"))  # nothing is harvested
    short_pile(m, 4)
    m.table.discard = []
    from bohnarena.bohnanza.table import GameOver

    with pytest.raises(GameOver):
        m.play_turn()
    assert [r[2] for r in kinds(m, "exhausted")] == [1, 2, 3]
    assert [r[2] for r in kinds(m, "reshuffled")] == [0, 0]
    assert m.table.ended
