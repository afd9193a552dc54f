"""Results against the league: every row of a matches table must be the
match the schedule gives its id (the bots at each seat, the table, deal,
seating and seed), each id at most once, in id order, inside the league
(a league that grew: its schedule's map, league/growth.py). An edited,
duplicated, swapped or foreign row is a one-line error; readers (rank,
replay --verify-all, a resumed run) refuse it instead of counting it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..league.file import League
from ..league.growth import Generation, grown, history, schedule_of
from ..league.schedule import Schedule
from .parts import ResultsError

#: The columns a row is audited on.
COLUMNS = ["match_id", "table", "deal", "rotation", "seed", "seats"]


def master_seed(league: League, meta: Mapping[str, Any]) -> int:
    """The league's master seed; a secret one is kept in the run's run.json."""
    if league.seed is not None:
        return league.seed
    seed = meta.get("seed")
    if not isinstance(seed, int):
        raise ResultsError('run.json has no master seed for this seed = "secret" league')
    return seed


#: The schedule's shape of a run.json written before formats existed.
OLD_FORMAT = {"format": "round-robin", "hero": None, "challenger": None, "seatings": "rotations"}


def check_format(league: League, meta: Mapping[str, Any]) -> None:
    """The run was scheduled as its league file says (an older run.json has
    no format: round-robin with rotations, as its league file then reads)."""
    kept = {key: meta.get(key, old) for key, old in OLD_FORMAT.items()}
    if kept != league.format_facts():
        raise ResultsError(
            f"run.json records format {kept['format']} with {kept['seatings']}, its "
            f"league file {league.format} with {league.seatings} (an edited run)"
        )


def run_schedule(league: League, meta: Mapping[str, Any]) -> Schedule:
    """The schedule of a run: its generations (run.json), the league file
    (its latest, ``league``) the newest."""
    return schedule_of(league, master_seed(league, meta), run_generations(league, meta))


def run_generations(league: League, meta: Mapping[str, Any]) -> list[Generation]:
    return grown(history(meta, league), league)


class Auditor:
    def __init__(
        self, league: League, seed: int, generations: list[Generation] | None = None
    ) -> None:
        self.league, self.seed = league, seed
        self.generations = generations or [Generation.of(league)]
        self.schedule = schedule_of(league, seed, self.generations)
        self.total = len(self.schedule)

    @classmethod
    def for_run(cls, league: League, meta: Mapping[str, Any]) -> Auditor:
        """The auditor of a run, from its league file and run.json."""
        check_format(league, meta)
        return cls(league, master_seed(league, meta), run_generations(league, meta))

    def standings(self, rows: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
        """The audited rows of the league as it is now (a removed bot's
        matches, and those of deals it no longer has, stay out)."""
        return (
            row for row in self.audited(rows) if self.schedule.stands(row["table"], row["deal"])
        )

    def problem(self, row: Mapping[str, Any]) -> str | None:
        """What is wrong with one row, or None."""
        i = row["match_id"]
        if not 0 <= i < self.total:
            return f"match {i} is not a match of this league (ids 0-{self.total - 1})"
        spec = self.schedule.spec(i)
        for name in ("table", "deal", "rotation", "seed"):
            if row[name] != getattr(spec, name):
                return (
                    f"match {i}: {name} {row[name]} is not the schedule's "
                    f"{getattr(spec, name)} (an edited or foreign row)"
                )
        if tuple(row["seats"]) != spec.seats:
            return (
                f"match {i}: seats {list(row['seats'])} are not the schedule's "
                f"{list(spec.seats)} (an edited or foreign row)"
            )
        return None

    def problems(self, rows: Iterable[Mapping[str, Any]]) -> Iterator[tuple[int, str]]:
        """(id, problem) for every bad row of ``rows`` (in id order)."""
        last = -1
        for row in rows:
            i = row["match_id"]
            if i <= last:
                yield i, f"match {i} is there twice, or out of id order"
                continue
            last = i
            problem = self.problem(row)
            if problem is not None:
                yield i, problem

    def audited(self, rows: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
        """``rows`` as they come, or ResultsError at the first that is not the league's."""
        last = -1
        for row in rows:
            i = row["match_id"]
            problem = (
                f"match {i} is there twice, or out of id order" if i <= last else self.problem(row)
            )
            if problem is not None:
                raise ResultsError(problem)
            last = i
            yield row
