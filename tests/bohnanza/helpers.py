"""Rigging tables for rule tests: chosen hands, fields and draw pile order."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from bohnarena.bohnanza import Bot, Match, ruleset, varieties
from bohnarena.bohnanza.table import EMPTY, Table

V = {v.key: v.id for v in varieties()}


def cards(*names: str) -> list[int]:
    return [V[n] for n in names]


def scripted(**answers: Callable[..., Any]) -> Bot:
    """A bot answering the given decisions with ``fn(view, *args)``; all else default."""
    attrs = {name: (lambda self, view, *a, _f=fn: _f(view, *a)) for name, fn in answers.items()}
    return type("Scripted", (Bot,), attrs)()


def rig(
    edition: str = "classic",
    players: int = 4,
    bots: Sequence[Bot] | None = None,
    hands: dict[int, list[int]] | None = None,
    fields: dict[int, list[tuple[int, int]]] | None = None,
    top: Sequence[int] = (),
    coins: dict[int, list[int]] | None = None,
    active: int = 0,
    seed: int = 0,
    **options: Any,
) -> Match:
    """A match about to play ``active``'s turn, with the given zones.

    ``top`` is the draw pile from the top down; every other card stays in the
    draw pile below it, so the census always holds.
    """
    rules = ruleset(edition, players, **options)
    m = Match(rules, seed, list(bots or [Bot() for _ in range(players)]))
    m.seat_all()
    t = m.table
    used: Counter[int] = Counter()
    for s, h in (hands or {}).items():
        t.hands[s] = list(h)
        used.update(h)
    for s, fs in (fields or {}).items():
        t.fields[s] = [[v, c] if c else [EMPTY, 0] for v, c in fs]
        for v, c in fs:
            used[v] += c
    for s, pile in (coins or {}).items():
        t.coins[s] = list(pile)
        used.update(pile)
    used.update(top)
    rest = Counter({v: n for v, n in enumerate(rules.deck) if n}) - used
    assert not (used - Counter(dict(enumerate(rules.deck)))), "more cards than the deck has"
    t.deck = sorted(rest.elements()) + list(reversed(top))
    t.active = active
    t.turn = 1
    return m


def census_ok(t: Table) -> bool:
    return t.census() == list(t.rules.deck)


def kinds(m: Match, *wanted: str) -> list[tuple]:
    return [r for r in m.records if r[0] in wanted]
