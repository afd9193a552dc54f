"""Rules of the dice game (004_c585761ad839bb9f.txt), with dice and deck as data."""

from __future__ import annotations

import itertools
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import RulesError
from .orders import Order, first_roll_chance, most_met_in_a_row, parse

RULES_VERSION = 1
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


@cache
def _dice(path: str | None = None) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    data = _read("dice.toml", path)
    names = tuple(data["varieties"])
    ids = {n: i for i, n in enumerate(names)}
    faces = []
    try:
        for die in data["die"]:
            faces += [tuple(ids[f] for f in die["faces"])] * die["count"]
    except KeyError as e:
        raise RulesError(f"dice file: unknown variety or key {e}") from None
    if len(faces) != 7:
        raise RulesError(f"dice file: {len(faces)} dice, the game has 7")
    return names, tuple(faces)


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
    early_stop: bool = True  # the text is silent: may the active player stop rolling early?
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
