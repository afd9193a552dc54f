"""Rules of the dice game (004_c585761ad839bb9f.txt), with dice and deck as data."""

from __future__ import annotations

import itertools
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..core.errors import RulesError
from .orders import Order, first_roll_chance, most_met_in_a_row, parse

RULES_VERSION = 2  # 2: dice keep their identity, faces fit the text, 61 cards
EDITIONS = ["standard"]
PLAYERS = [2, 3, 4, 5]
PAYOUT = {3: 1, 4: 2, 5: 3, 6: 4}  # coins for a card redeemed after its 3rd..6th order
OPTIONS = ("early_stop", "target", "dice_file", "deck_file")


def _read(name: str, path: str | None) -> dict[str, Any]:
    try:
        text = (
            Path(path).read_text("utf-8")
            if path
            else resources.files(__package__).joinpath("data", name).read_text("utf-8")
        )
        return tomllib.loads(text)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise RulesError(f"cannot read {path or name}: {e}") from None


#: The dice of the text: "The three beige dice are identical to one another,
#: and the four white dice are identical to one another." White dice come
#: first: dice 0-3 are white, 4-6 beige.
DICE = {"white": 4, "beige": 3}
VARIETIES = 7  # "Seven different bean varieties are pictured on the faces of the dice."


@cache
def _dice(path: str | None = None) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    data = _read("dice.toml", path)
    try:
        names = tuple(data["varieties"])
        ids = {n: i for i, n in enumerate(names)}
        kinds = {die["colour"]: die for die in data["die"]}
        problems = _dice_problems(names, data["die"], kinds)
        if problems:
            raise RulesError(f"dice file: {'; '.join(problems)}")
        faces = [
            tuple(ids[f] for f in kinds[c]["faces"]) for c, n in DICE.items() for _ in range(n)
        ]
    except (KeyError, TypeError) as e:
        raise RulesError(f"dice file: unknown variety or key {e}") from None
    return names, tuple(faces)


def _dice_problems(
    names: tuple[str, ...], dice: list[dict[str, Any]], kinds: dict[str, dict[str, Any]]
) -> list[str]:
    """What keeps a dice file from being the text's dice (empty: nothing)."""
    problems = []
    if len(set(names)) != VARIETIES or len(names) != VARIETIES:
        problems.append(f"{len(names)} varieties, the game has {VARIETIES} different ones")
    if len(dice) != len(DICE) or set(kinds) != set(DICE):
        return [*problems, "give one [[die]] of colour white and one of colour beige"]
    for colour, count in DICE.items():
        die = kinds[colour]
        if die["count"] != count:
            problems.append(f"{count} {colour} dice, not {die['count']}")
        if len(die["faces"]) != 6:
            problems.append(f"a {colour} die has 6 faces, not {len(die['faces'])}")
        unknown = sorted(set(die["faces"]) - set(names))
        if unknown:
            problems.append(f"unknown variety {', '.join(unknown)} on the {colour} die")
    missing = sorted(set(names) - {f for die in dice for f in die["faces"]})
    if missing:
        problems.append(f"{', '.join(missing)} on no die")
    return problems


def variety_ids(path: str | None = None) -> dict[str, int]:
    return {n: i for i, n in enumerate(_dice(path)[0])}


def dice_faces(path: str | None = None) -> tuple[tuple[int, ...], ...]:
    return _dice(path)[1]


@cache
def _deck(path: str | None, dice_path: str | None) -> tuple[tuple[Order, ...], ...]:
    data = _read("harvest_cards.toml", path)
    ids = variety_ids(dice_path)
    deck = []
    for i, card in enumerate(data.get("card", [])):
        try:
            orders = tuple(parse(t, ids) for t in card["orders"])
        except (KeyError, ValueError) as e:
            raise RulesError(f"harvest card {i}: {e}") from None
        if len(orders) != 6:
            raise RulesError(f"harvest card {i} has {len(orders)} orders, not 6")
        deck.append(orders)
    if len(deck) < 2 * max(PLAYERS) + 1:
        raise RulesError("the harvest deck is too small")
    return tuple(deck)


def check_deck(
    deck: tuple[tuple[Order, ...], ...],
    faces: tuple[tuple[int, ...], ...],
    printed: list[list[float]] | None = None,
) -> list[str]:
    """Problems with a deck: the design rule (at most three orders of a card
    met in a row by one set of dice, and three at least once), difficulty
    rising up the card, and printed chances that disagree with the dice."""
    problems = []
    for i, card in enumerate(deck):
        run = most_met_in_a_row(card, faces)
        if run != 3:
            problems.append(f"card {i}: one set of dice meets {run} orders in a row, not 3")
        chances = [first_roll_chance(o, faces) for o in card]
        if any(a < b for a, b in itertools.pairwise(chances)):
            problems.append(f"card {i}: orders do not get harder up the card")
        if printed is not None and [round(100 * c) for c in chances] != [
            round(p) for p in printed[i]
        ]:
            problems.append(f"card {i}: printed chances {printed[i]} differ from the dice")
    return problems


@dataclass(frozen=True)
class RuleSet:
    edition: str
    players: int
    # "...or no longer wants to place another die there": the text lets the
    # active player stop rolling early; false forbids it (a variant).
    early_stop: bool = True
    target: int = 13
    dice_file: str | None = None
    deck_file: str | None = None
    version: int = RULES_VERSION

    game = "wuerfel"

    @property
    def faces(self) -> tuple[tuple[int, ...], ...]:
        return dice_faces(self.dice_file)

    @property
    def varieties(self) -> tuple[str, ...]:
        return _dice(self.dice_file)[0]

    @property
    def deck(self) -> tuple[tuple[Order, ...], ...]:
        return _deck(self.deck_file, self.dice_file)

    def options(self) -> dict[str, Any]:
        return {
            "edition": self.edition,
            "players": self.players,
            "early_stop": self.early_stop,
            "target": self.target,
            "dice_file": self.dice_file,
            "deck_file": self.deck_file,
            "version": self.version,
        }


def ruleset(edition: str, players: int, **options: Any) -> RuleSet:
    if edition not in EDITIONS:
        raise RulesError(f"unknown edition {edition!r} (known: {', '.join(EDITIONS)})")
    if players not in PLAYERS:
        raise RulesError(f"the dice game is for 2, 3, 4, 5 players, not {players}")
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise RulesError(
            f"unknown rule option(s) {', '.join(unknown)} (known: {', '.join(OPTIONS)})"
        )
    if not isinstance(options.get("early_stop", True), bool):
        raise RulesError("early_stop must be true or false")
    target = options.get("target", 13)
    if isinstance(target, bool) or not isinstance(target, int) or target < 1:
        raise RulesError("target must be a positive whole number")
    rules = RuleSet(edition, players, **options)
    rules.deck  # noqa: B018 (loads and checks the files now, as a usage error)
    return rules
