"""The draw pile's last run-out during a Jumping Bean draft (issue 13).

000, "End of the Game": "The game ends as soon as the draw pile becomes empty
for the third time. If this happens while revealing the cards in Phase 2
[...], Phases 2 and 3 are still played to the end." 003 grants it "during
phase ② (turning over and trading)": the rule set's ``end_grace``.
"""

from __future__ import annotations

from typing import Any

import pytest

from bohnarena.bohnanza import Anytime, Bot, Match, ending, play_match, ruleset
from bohnarena.bohnanza.decisions import DECISIONS
from bohnarena.bohnanza.replay import verify
from bohnarena.bohnanza.state import State
from bohnarena.bohnanza.table import GameOver
from bohnarena.core.errors import RulesError
from bohnarena.core.plugins import load_bot
from bohnarena.referee import replaylog

from .helpers import V, cards, census_ok, kinds, rig, scripted

JUMPING_FIELDS = {0: [(V["soy"], 2), (V["jumping"], 2)]}


def harvester(phase: int, after_reveal: bool = False) -> Bot:
    """Seat 0: harvests its two Jumping Beans at its first window in ``phase``."""

    def anytime(view: Any) -> Anytime | None:
        ready = view.phase == phase and view.my_fields[1][1] >= 2
        if ready and (view.revealed or not after_reveal):
            return Anytime(harvest=(1,))
        return None

    return scripted(anytime=anytime, propose=lambda view: None)


def last_pile(phase: int, pile: list[int], after_reveal: bool = False, **options: Any) -> Match:
    """Seat 0's turn with only ``pile`` left before the last run-out."""
    m = rig(
        "anniversary",
        4,
        bots=[harvester(phase, after_reveal), Bot(), Bot(), Bot()],
        extra_bean="jumping",
        fields=JUMPING_FIELDS,
        hands={0: cards("soy")},
        **options,
    )
    t = m.table
    rest = list(t.deck)
    for card in pile:
        rest.remove(card)
    t.discard, t.deck = rest, list(reversed(pile))
    t.exhaustions = t.rules.exhaustions - 1
    return m


def after_the_end(m: Match) -> list[str]:
    """What was played between the last run-out and the final harvest."""
    kinds = [r[0] for r in m.records]
    last = max(i for i, k in enumerate(kinds) if k == "exhausted")
    return kinds[last + 1 : kinds.index("final_harvest")]


def test_a_one_card_draft_at_the_last_run_out_ends_the_game_at_once() -> None:
    m = last_pile(1, cards("red"))
    with pytest.raises(GameOver):
        m.play_turn()
    assert [r[2] for r in kinds(m, "draft_card")] == cards("red")
    assert after_the_end(m) == []  # no draft coin, no phase-1 plant
    assert not kinds(m, "draft_coin", "planted")
    assert census_ok(m.table)


def test_a_draft_in_phase_3_that_empties_the_pile_ends_the_game_at_once() -> None:
    m = last_pile(3, cards("blue", "stink", "red", "soy"))  # two reveals, then the draft
    with pytest.raises(GameOver):
        m.play_turn()
    assert len(kinds(m, "draft_card")) == 2
    assert after_the_end(m) == []  # no picks, no coin, the kept cards are not planted
    assert not kinds(m, "picked", "draft_coin")
    assert [r for r in kinds(m, "planted") if r[4] != 0] == []  # only phase 1's plant


def test_a_draft_while_trading_that_empties_the_pile_ends_the_anniversary_game() -> None:
    m = last_pile(2, cards("blue", "stink", "red"), after_reveal=True)
    with pytest.raises(GameOver):
        m.play_turn()
    played = [r[0] for r in m.records[: [r[0] for r in m.records].index("final_harvest")]]
    assert played[-3:] == ["harvested", "draft_card", "exhausted"]
    assert kinds(m, "phase")[-1][2] == 2  # phase 3 was not reached


def test_end_grace_phase_2_plays_phases_2_and_3_out_after_a_draft_while_trading() -> None:
    # 003's wording as a rule option: a run-out anywhere in phase 2.
    pile = cards("blue", "stink", "red", "soy")
    m = last_pile(2, pile, after_reveal=True, end_grace="phase_2")
    with pytest.raises(GameOver):
        m.play_turn()
    assert kinds(m, "picked") and kinds(m, "draft_coin")  # the draft went on
    assert kinds(m, "phase")[-1][2] == 3  # phase 3 played
    assert [r[2] for r in kinds(m, "planted") if r[4] == 1]  # the kept cards were planted
    assert not kinds(m, "drew")  # but no phase 4


def test_a_run_out_while_revealing_still_plays_phases_2_and_3_in_every_edition() -> None:
    for edition in ("classic", "anniversary", "riogrande"):
        m = rig(edition, 4, hands={0: cards("soy")})
        t = m.table
        t.discard, t.deck = t.deck[:-1], t.deck[-1:]
        t.exhaustions = t.rules.exhaustions - 1
        with pytest.raises(GameOver):
            m.play_turn()
        assert len(kinds(m, "revealed")) == 1 and [r for r in kinds(m, "planted") if r[4] == 1]


def test_end_grace_is_edition_data_and_checked() -> None:
    assert ruleset("classic", 4).end_grace == "phase_2"
    assert ruleset("anniversary", 4).end_grace == "reveal"
    assert ruleset("riogrande", 4).end_grace == "reveal"
    with pytest.raises(RulesError, match="end_grace"):
        ruleset("anniversary", 4, end_grace="phase_3")


# -- the old behaviour, and verify's independent check of it -------------------
class OldState(State):
    """The engine before issue 13: phases 2 and 3 always played out, and a
    draft that ran the pile out went on until its next question."""

    def _draw(self, zone: list[int], kind: str, seat: int) -> bool:
        t = self.table
        if not t.draw(zone, kind, seat):
            return False
        if t.ended and not t.playing_out:
            if t.phase in (2, 3):
                t.playing_out = True
            elif kind != "draft_card":
                raise GameOver
        return True

    def _decide(self, seat: int, kind: str, args: tuple[Any, ...], then: tuple[Any, ...]) -> Any:
        if self.table.ended and not self.table.playing_out:
            raise GameOver
        return super()._decide(seat, kind, args, then)


REPRODUCTIONS = [
    (4949426990230361776, ("planner", "random", "random")),
    (11534118754833929857, ("random", "random", "trader-0.2")),  # (as found)
    (16534747258774421329, ("random", "planner", "random")),
    (13797736980442333622, ("trader-0.2", "planner", "random")),
]


@pytest.mark.parametrize("seed,bots", REPRODUCTIONS)
def test_verify_rejects_the_old_end_even_from_an_engine_that_shares_it(
    seed: int, bots: tuple[str, ...]
) -> None:
    rules = ruleset("anniversary", 3, extra_bean="jumping")
    old = Match(rules, seed, [load_bot(b, Bot)() for b in bots], new_state=OldState)
    old.play()
    log = old.records
    # The old engine replays its own log without complaint ...
    replaylog.apply_log(OldState(rules, seed), log, DECISIONS)
    # ... the end-of-game check, which shares no code with it, does not.
    problem = ending.check(rules, log)
    assert problem is not None and "goes on" in problem
    assert verify(rules, seed, log)[1] == problem
    # and the engine now ends those matches where the rules say
    _, new = play_match(rules, seed, [load_bot(b, Bot)() for b in bots])
    assert ending.check(rules, new) is None and verify(rules, seed, new)[1] is None


def test_the_end_check_allows_only_phases_2_and_3_after_a_run_out_while_revealing() -> None:
    from tests.golden.playthroughs import GOLDEN

    golden = GOLDEN[0]  # classic, ends in phase 2 after one revealed card
    rules = ruleset(golden.edition, len(golden.bots))
    log, _ = golden.play()
    assert ending.check(rules, log) is None
    final = next(i for i, r in enumerate(log) if r[0] == "final_harvest")
    active = next(r[1] for r in reversed(log[:final]) if r[0] == "turn")
    for extra in [("phase", active, 4), ("drew", active, 0), ("turn", 1, 99)]:
        bad = [*log[:final], extra, *log[final:]]
        assert "after the end" in (ending.check(rules, bad) or "")
    assert "goes on" in (ending.check(rules, log[:final]) or "")  # no final harvest at all
