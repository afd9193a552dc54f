"""Rule sets of the card game, built from the data files in ``data/``.

A :class:`RuleSet` is everything the engine needs for one match: the card
table, the deck, and every parameter in which the editions differ.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from ..core.errors import RulesError

#: Bumped whenever a rule change alters how a seeded match plays out, so
#: results from different engine behaviour are never mixed.
RULES_VERSION = 2

PROTECTIONS = ("none", "no_single_while_multi", "single_only_if_all_single")
TIE_BREAKS = ("seat", "hand")
#: Where the last run-out of the draw pile still lets phases 2 and 3 of the
#: turn be played to the end (anywhere else the game ends at once):
#: "reveal" only while the active player reveals (000), "phase_2" anywhere in
#: phase 2, revealing or trading (003).
END_GRACES = ("reveal", "phase_2")


@dataclass(frozen=True)
class Variety:
    id: int
    key: str
    name: str
    german: str
    cards: int
    beanometer: tuple[int, int, int, int]
    draft_at: int  # 0: no Jumping Bean draft
    payout: tuple[int, ...]  # payout[n]: coins for a field of n cards

    def coins(self, count: int) -> int:
        return self.payout[min(count, len(self.payout) - 1)]


def _payout(beanometer: tuple[int, ...], cards: int) -> tuple[int, ...]:
    table = []
    for n in range(cards + 1):
        paid = 0
        for coins, least in enumerate(beanometer, start=1):
            if least and n >= least:
                paid = coins
        table.append(paid)
    return tuple(table)


@cache
def varieties() -> tuple[Variety, ...]:
    """Every variety of every edition, indexed by its id."""
    raw = tomllib.loads(_data("varieties.toml"))["variety"]
    out = []
    for i, v in enumerate(raw):
        meter = tuple(v["beanometer"])
        out.append(
            Variety(
                i,
                v["key"],
                v["name"],
                v["german"],
                v["cards"],
                meter,
                v.get("draft_at", 0),
                _payout(meter, v["cards"]),
            )
        )
    return tuple(out)


@cache
def variety_ids() -> dict[str, int]:
    return {v.key: v.id for v in varieties()}


def _data(name: str) -> str:
    return resources.files(__package__).joinpath("data", name).read_text("utf-8")


@cache
def editions() -> dict[str, dict[str, Any]]:
    return tomllib.loads(_data("editions.toml"))


@dataclass(frozen=True)
class RuleSet:
    """The complete rules of one match of the card game."""

    edition: str
    players: int
    deck: tuple[int, ...]  # cards of each variety id in play (0 = not in play)
    fields: int
    third_field_cost: int  # 0: no third field can be bought
    deal: tuple[int, ...]  # cards dealt to each seat
    reveal: int
    draw: int
    exhaustions: int
    protection: str
    tie_break: tuple[str, ...]
    end_grace: str = "reveal"
    extra_bean: str | None = None
    # Negotiation bounds (phase 2), so that every game ends.
    max_trade_rounds: int = 3
    max_offers: int = 3
    version: int = RULES_VERSION

    game = "bohnanza"

    @property
    def varieties(self) -> tuple[Variety, ...]:
        return varieties()

    @property
    def in_play(self) -> tuple[int, ...]:
        """Ids of the varieties in this match's deck."""
        return tuple(i for i, n in enumerate(self.deck) if n)

    @property
    def total_cards(self) -> int:
        return sum(self.deck)

    def options(self) -> dict[str, Any]:
        """The parameters as plain data (for logs and frozen league copies)."""
        d = dataclasses.asdict(self)
        d["deck"] = list(self.deck)
        d["deal"] = list(self.deal)
        d["tie_break"] = list(self.tie_break)
        return d


#: Parameters a league or ``--option`` may override, and their types.
OVERRIDABLE: dict[str, str] = {
    "fields": "int",
    "third_field_cost": "int",
    "reveal": "int",
    "draw": "int",
    "exhaustions": "int",
    "protection": "str",
    "tie_break": "list of str",
    "end_grace": "str",
    "extra_bean": "str",
    "max_trade_rounds": "int",
    "max_offers": "int",
}


def _typed(name: str, value: Any) -> bool:
    kind = OVERRIDABLE[name]
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def edition_names() -> list[str]:
    return list(editions())


def player_counts(edition: str) -> list[int]:
    return list(_edition(edition)["players"])


def _edition(name: str) -> dict[str, Any]:
    try:
        return editions()[name]
    except KeyError:
        raise RulesError(f"unknown edition {name!r} (known: {', '.join(editions())})") from None


def ruleset(edition: str, players: int, **options: Any) -> RuleSet:
    """The rule set of ``edition`` for ``players`` players, with overrides."""
    ed = _edition(edition)
    if players not in ed["players"]:
        allowed = ", ".join(map(str, ed["players"]))
        raise RulesError(f"edition {edition!r} is for {allowed} players, not {players}")
    unknown = sorted(set(options) - set(OVERRIDABLE))
    if unknown:
        raise RulesError(
            f"unknown rule option(s) {', '.join(unknown)} (known: {', '.join(OVERRIDABLE)})"
        )
    p: dict[str, Any] = {k: v for k, v in ed.items() if k != "by_players"}
    p.update(ed.get("by_players", {}).get(str(players), {}))
    for name, value in options.items():
        if not _typed(name, value):
            raise RulesError(f"rule option {name} must be {OVERRIDABLE[name]}, not {value!r}")
    p.update(options)

    ids = variety_ids()
    names = list(p["varieties"])
    choices = p.get("extra_bean_choices", [])
    extra = p.get("extra_bean")
    if choices:
        if extra not in choices:
            raise RulesError(f"extra_bean must be one of {', '.join(choices)}, not {extra!r}")
        names.append(extra)
    elif "extra_bean" in options:
        raise RulesError(f"edition {edition!r} has no extra_bean choice")
    for key in p.get("remove", []):
        names.remove(key)
    deck = [0] * len(varieties())
    for key in names:
        deck[ids[key]] = varieties()[ids[key]].cards

    deal = list(p["deal"])
    deal += [deal[-1]] * (players - len(deal))
    rules = RuleSet(
        edition=edition,
        players=players,
        deck=tuple(deck),
        fields=int(p["fields"]),
        third_field_cost=int(p.get("third_field_cost", 0)),
        deal=tuple(deal[:players]),
        reveal=int(p["reveal"]),
        draw=int(p["draw"]),
        exhaustions=int(p["exhaustions"]),
        protection=p["protection"],
        tie_break=tuple(p["tie_break"]),
        end_grace=p["end_grace"],
        extra_bean=extra if choices else None,
        max_trade_rounds=int(p.get("max_trade_rounds", RuleSet.max_trade_rounds)),
        max_offers=int(p.get("max_offers", RuleSet.max_offers)),
    )
    _check(rules)
    return rules


def _check(r: RuleSet) -> None:
    if r.protection not in PROTECTIONS:
        raise RulesError(
            f"protection must be one of {', '.join(PROTECTIONS)}, not {r.protection!r}"
        )
    if r.end_grace not in END_GRACES:
        raise RulesError(f"end_grace must be one of {', '.join(END_GRACES)}, not {r.end_grace!r}")
    bad = [t for t in r.tie_break if t not in TIE_BREAKS]
    if bad:
        raise RulesError(f"tie_break entries must be among {', '.join(TIE_BREAKS)}, not {bad[0]!r}")
    for name in ("fields", "reveal", "draw", "exhaustions"):
        if getattr(r, name) < 1:
            raise RulesError(f"rule option {name} must be at least 1")
    for name in ("max_trade_rounds", "max_offers", "third_field_cost"):
        if getattr(r, name) < 0:
            raise RulesError(f"rule option {name} must not be negative")
    if sum(r.deal) + r.reveal > r.total_cards:
        raise RulesError("the deck is too small for this deal")
