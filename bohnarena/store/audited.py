"""A results directory opened for reading and audited against its league:
the one way `rank`, `report`, `compare`, replay, the ranking files and a
resumed run read one.

A resumed run (a league that grew, a ladder's every run) audits every row
it holds before it plays: what it goes on from is what `rank` and
`verify` would accept. (It once skipped the parts an ``audited.json``
said it had audited, by their hashes; anyone who rewrites a part and its
manifest line can rewrite that file too, so it proved nothing: issue 43.)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..league.file import League, load_league
from . import layout
from .audit import COLUMNS, Auditor
from .directory import RunDir
from .parts import Listing, ResultsError


@dataclass(frozen=True)
class AuditedRun:
    """A run's directory, its league, run.json and the auditor of its rows."""

    store: RunDir
    league: League
    meta: dict[str, Any]
    auditor: Auditor

    @classmethod
    def of(cls, store: RunDir, league: League, seed: int | None = None) -> AuditedRun:
        """An open directory of ``league``'s run (its run.json must agree);
        ``seed``: the master seed to audit with, not run.json's (`verify`)."""
        meta = store.meta()  # refuses other log formats
        if seed is not None:
            meta = {**meta, "seed": seed}
        return cls(store, league, meta, Auditor.for_run(league, meta))

    def matches(
        self, columns: Iterable[str] = (), listing: Listing | None = None
    ) -> Iterator[Mapping[str, Any]]:
        """Its finished matches in id order with ``columns`` (and those
        audited on), each the schedule's: ResultsError at the first that is
        not. ``listing``: the parts to read (default: those listed now)."""
        wanted = list(dict.fromkeys([*columns, *COLUMNS]))
        return self.auditor.audited(self.store.iter_matches(wanted, listing=listing))

    def standings(
        self, columns: Iterable[str] = (), listing: Listing | None = None
    ) -> Iterator[Mapping[str, Any]]:
        """:meth:`matches` of the league as it is now: every row audited, a
        removed bot's matches (and those of deals it no longer has) left out."""
        wanted = list(dict.fromkeys([*columns, *COLUMNS]))
        rows = self.store.iter_matches(wanted, listing=listing)
        return self.auditor.standings(rows)

    def resume(self) -> tuple[set[int], Listing]:
        """The ids of its finished matches and the listing of their parts,
        every row audited; ResultsError at the first bad row, or an id in
        two parts."""
        listing = self.store.listing().require()
        done: set[int] = set()
        for row in self.matches(listing=listing):  # (in id order: one id twice is caught)
            done.add(row["match_id"])
        return done, listing


def open_run(path: str | Path, seed: int | None = None) -> AuditedRun:
    """The results directory at ``path``, or ResultsError when it is none
    (``seed``: as :meth:`AuditedRun.of`)."""
    store = RunDir(path)
    if not store.is_run() or not (store.path / layout.LEAGUE).is_file():
        raise ResultsError(f"{path} is not a bohnarena results directory")
    return AuditedRun.of(store, load_league(store.path / layout.LEAGUE, frozen=True), seed)
