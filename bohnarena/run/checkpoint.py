"""The run's TrueSkill state, kept beside its ranking (``rating.json``), so
that a run on a league that grew rates only the matches it adds.

TrueSkill rates the standings in id order, and a grown league's new ids all
follow the old ones: the state after the last run is the state after the
matches it rated, which are the first ones of the grown standings when (a)
every table that stood then stands now, with no fewer deals, and (b) the
matches now stored that stand, up to the last id rated, are as many as it
rated, with the same ids (count, sum and sum of squares: none was added
in between, a match played again, say), and (c) none of the matches this
run plays comes before the last id rated (one that errored). Otherwise the
run rates every match again, as it did before: the ranking is the same
either way (tests/league/test_growing.py)."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from ..league.file import League
from ..league.growth import Generation
from ..league.schedule import Schedule, format_tables
from ..rating.skill import Rater
from ..store.directory import RunDir
from ..store.parts import write_text

NAME = "rating.json"


def _tables(league: League, g: Generation) -> set[tuple[str, ...]]:
    return set(
        format_tables(list(g.bots), league.players, league.format, league.hero, league.challenger)
    )


class Rated:
    """The ids a rater was given: the last, and a fingerprint of them all."""

    def __init__(self, through: int = -1, fingerprint: tuple[int, int, int] = (0, 0, 0)) -> None:
        self.through = through
        self.count, self.total, self.squares = fingerprint

    def add(self, match_id: int, stands: bool) -> None:
        self.through = max(self.through, match_id)
        if stands:
            self.count += 1
            self.total += match_id
            self.squares += match_id * match_id

    @property
    def fingerprint(self) -> tuple[int, int, int]:
        return self.count, self.total, self.squares


def save(store: RunDir, rater: Rater, rated: Rated, generation: Generation) -> None:
    """Keep the rater's state: every match of the standings of ``generation``
    stored, up to id ``rated.through``, rated."""
    state = {
        "through": rated.through,
        "fingerprint": list(rated.fingerprint),
        "generation": {"bots": list(generation.bots), "deals": generation.deals},
        **rater.state(),
    }
    write_text(store.path / NAME, json.dumps(state))


def restore(
    store: RunDir,
    league: League,
    plan: Schedule,
    generations: Sequence[Generation],
    done: Collection[int],
    ids: Iterable[int],
) -> tuple[Rater, Rated] | None:
    """The rater as the last run left it and what it rated, or None where
    that is not the start of this league's rating (see above)."""
    try:
        state: dict[str, Any] = json.loads((store.path / NAME).read_text("utf-8"))
        then = Generation(tuple(state["generation"]["bots"]), int(state["generation"]["deals"]))
        through = int(state["through"])
        fingerprint = tuple(int(x) for x in state["fingerprint"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    now = generations[-1]
    if then.deals > now.deals or not _tables(league, then) <= _tables(league, now):
        return None
    if any(i <= through and i not in done for i in ids):  # it would come out of id order
        return None
    stored = Rated()
    for i in sorted(done):
        if i <= through:
            stored.add(i, plan.stands(*plan.locate(i)))
    if len(fingerprint) != 3 or stored.fingerprint != fingerprint:
        return None
    try:
        return Rater.restored(list(league.bots), state), Rated(through, stored.fingerprint)
    except (KeyError, TypeError, ValueError):
        return None
