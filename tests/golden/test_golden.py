"""Golden playthroughs replay to the stored transcripts, and show what they
were chosen for."""

import pytest

from tests.wuerfel.rolls import impossible_rolls

from .playthroughs import GOLDEN, Golden


@pytest.mark.parametrize("golden", GOLDEN, ids=lambda g: g.name)
def test_playthrough_matches_its_golden_transcript(golden):
    records, lines = golden.play()
    expected = golden.path.read_text("utf-8").splitlines()
    assert "\n".join(lines).splitlines() == expected, (
        f"{golden.path.name} changed: run python -m tests.golden.playthroughs "
        "after a deliberate rules change"
    )
    kinds = {r[0] for r in records}
    assert set(golden.shows) <= kinds
    assert golden.game.verify(golden.rules(), golden.seed, records)[1] is None


def test_one_playthrough_ends_during_phase_2_after_one_revealed_card():
    golden = GOLDEN[0]
    records, _ = golden.play()
    last = max(i for i, r in enumerate(records) if r[0] == "exhausted")
    turn = max(i for i, r in enumerate(records[:last]) if r[0] == "turn")
    assert [r[0] for r in records[turn:last]].count("revealed") == 1
    assert not [r for r in records[last:] if r[0] in ("drew", "turn")]
    assert [r for r in records[last:] if r[0] == "planted"]  # phase 3 was still played


@pytest.mark.parametrize(
    "golden", [g for g in GOLDEN if g.game_name == "wuerfel"], ids=lambda g: g.name
)
def test_dice_playthroughs_roll_only_the_dice_in_hand(golden):
    records, _ = golden.play()
    turns, impossible = impossible_rolls(records, golden.rules())
    assert turns > 10 and impossible == 0


@pytest.mark.parametrize("golden", [g for g in GOLDEN if g.ends_in_draft], ids=lambda g: g.name)
def test_a_last_run_out_in_a_draft_ends_the_game_at_once(golden: Golden) -> None:
    # 000: "The game ends as soon as the draw pile becomes empty for the third
    # time"; only a run-out while revealing lets phases 2 and 3 play on.
    records, _ = golden.play()
    last = max(i for i, r in enumerate(records) if r[0] == "exhausted")
    assert records[last - 1][0] == "draft_card"
    assert records[last + 1][0] == "final_harvest"
