"""The dice faces against every example of the rule text, the enumeration
of the face assignments that fit them, and the dice file's checks."""

from pathlib import Path

import pytest

from bohnarena.core.errors import RulesError
from bohnarena.wuerfel import reconstruct
from bohnarena.wuerfel.rules import ruleset


def shipped_kinds() -> list[reconstruct.DieKind]:
    rules = ruleset("standard", 3)
    names = rules.varieties
    return [(tuple(names[f] for f in rules.faces[i]), n) for i, n in ((0, 4), (4, 3))]


@pytest.mark.slow
def test_24_of_120_assignments_fit_every_example_and_all_put_snap_on_both_colours() -> None:
    results = reconstruct.assignments()
    fitting = [mapping for mapping, broken in results if not broken]
    assert len(results) == 120 and len(fitting) == 24
    assert all(mapping["P"] == "snap" for mapping in fitting)  # "five Snap Beans"


def test_the_shipped_dice_show_every_example_of_the_text() -> None:
    rules = ruleset("standard", 3)
    assert reconstruct.broken_examples(shipped_kinds(), rules.varieties) == []
    model = reconstruct.examples()["model"]
    chosen = {"X": "soy", "P": "snap", "Q": "garden", "Y": "broad", "Z": "china"}
    assert reconstruct.dice_of(chosen, model) == shipped_kinds()


def test_adams_turn_needs_dice_that_keep_their_identity() -> None:
    (white, _), (beige, _) = shipped_kinds()
    rolls = reconstruct.examples()["turn"][0]["roll"]
    assert reconstruct.turn_possible([(white, 4), (beige, 3)], rolls)
    assert not reconstruct.turn_possible([(white, 0), (beige, 7)], rolls)  # no Red die
    # Three rolls, never from dice on the bean field: 7, then 5, then 2 dice.
    assert not reconstruct.turn_possible([(white, 4), (beige, 3)], [rolls[0], rolls[2]])


def test_the_old_reconstruction_breaks_five_snap_beans() -> None:
    old = {"X": "snap", "P": "soy", "Q": "garden", "Y": "broad", "Z": "china"}
    kinds = reconstruct.dice_of(old, reconstruct.examples()["model"])
    broken = reconstruct.broken_examples(kinds, ruleset("standard", 3).varieties)
    assert [b.split(":")[0] for b in broken] == ["snap"]


DICE = """varieties = {varieties}
[[die]]
colour = "white"
count = {white}
faces = {white_faces}
[[die]]
colour = "{second}"
count = {beige}
faces = ["blue", "blue", "broad", "broad", "snap", "china"]
"""
GOOD = {
    "varieties": '["garden", "red", "china", "blue", "soy", "broad", "snap"]',
    "white": 4,
    "beige": 3,
    "second": "beige",
    "white_faces": '["soy", "soy", "blue", "snap", "garden", "red"]',
}


@pytest.mark.parametrize(
    "change,message",
    [
        ({"white": 3, "beige": 4}, "4 white dice, not 3"),
        ({"second": "white"}, "one [[die]] of colour white and one of colour beige"),
        ({"varieties": '["garden", "red", "china", "blue", "soy", "broad"]'}, "6 varieties"),
        ({"white_faces": '["soy", "soy", "blue", "snap", "garden"]'}, "6 faces, not 5"),
        ({"white_faces": '["soy", "soy", "blue", "snap", "coffee", "red"]'}, "unknown variety"),
        ({"white_faces": '["soy", "soy", "blue", "snap", "china", "red"]'}, "garden on no die"),
    ],
)
def test_a_dice_file_must_hold_four_identical_white_and_three_identical_beige_dice(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    good = tmp_path / "good.toml"
    good.write_text(DICE.format(**GOOD))
    assert ruleset("standard", 3, dice_file=str(good)).faces == ruleset("standard", 3).faces
    bad = tmp_path / "bad.toml"
    bad.write_text(DICE.format(**{**GOOD, **change}))
    with pytest.raises(RulesError, match="dice file: .*" + message.replace("[", r"\[")):
        ruleset("standard", 3, dice_file=str(bad))
