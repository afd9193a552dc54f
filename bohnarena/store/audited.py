"""A results directory opened for reading and audited against its league:
the one way `rank`, `report`, `compare`, replay, the ranking files and a
resumed run read one.

A resumed run (a league that grew, a ladder's every run) audits only the
parts it has not audited before: ``audited.json`` keeps, for each part
whose rows passed, the SHA-256 of its matches file (the manifest's, which
every reader checks the file against) and the key of the schedule its ids
were audited against (the league's schedule facts, its master seed and
its generations up to that part's: later growth appends ids and changes
no earlier one). A part edited since, even with its manifest line, has
another hash and is audited again; one whose run.json was edited has
another key. The audit then costs what the directory gained."""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..league.file import League, load_league
from .audit import COLUMNS, Auditor
from .directory import RunDir
from .parts import Listing, ResultsError, ids_of, write_text

AUDITED = "audited.json"


@dataclass(frozen=True)
class AuditedRun:
    """A run's directory, its league, run.json and the auditor of its rows."""

    store: RunDir
    league: League
    meta: dict[str, Any]
    auditor: Auditor

    @classmethod
    def of(cls, store: RunDir, league: League) -> AuditedRun:
        """An open directory of ``league``'s run (its run.json must agree)."""
        meta = store.meta()  # refuses other log formats
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
        every part's rows audited but those of parts audited before as they
        are now (:data:`AUDITED`); ResultsError at the first bad row, or an
        id in two parts."""
        listing = self.store.listing().require()
        m = self.store._manifest()  # (as listed: the run holds the directory)
        hashes: dict[str, str] = {}
        if m is not None and m.generation == listing.generation:
            hashes = {n: e.matches.sha256 for n, e in m.live.items() if e.matches is not None}
        keys, starts = self._keys(), [span.start for span in self.auditor.schedule.spans]
        audited = {  # (its generation's: the last to begin at or before its last id)
            p.name: [hashes[p.name], keys[max(bisect_right(starts, p.span[1]) - 1, 0)]]
            for p in listing.parts
            if p.name in hashes
        }
        kept = _read_audited(self.store.path)
        fresh = [
            p for p in listing.parts if p.name not in kept or kept[p.name] != audited.get(p.name)
        ]
        for _ in self.matches(listing=replace(listing, parts=fresh)):
            pass
        done: set[int] = set()
        for part in listing.parts:  # (ids: each part's were audited in order)
            ids = ids_of(part.matches)
            if not done.isdisjoint(ids):
                raise ResultsError(f"match {min(done & ids)} is there twice, in two parts")
            done |= ids
        if audited != kept:
            write_text(self.store.path / AUDITED, json.dumps(audited, indent=1, sort_keys=True))
        return done, listing

    def _keys(self) -> list[str]:
        """For each generation, the key of what sets its matches' specs: the
        schedule's facts and seed, then each generation up to it (chained)."""
        league = self.league
        facts = {k: getattr(league, k) for k in ("players", "full_tables", "game", "edition")}
        facts |= {**league.format_facts(), "seed": self.auditor.seed}
        key = hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()
        keys = []
        for g in self.auditor.generations:
            step = json.dumps([key, list(g.bots), g.deals])
            key = hashlib.sha256(step.encode()).hexdigest()
            keys.append(key)
        return keys


def _read_audited(path: Path) -> dict[str, Any]:
    """What :data:`AUDITED` says (nothing, if it is missing or unreadable:
    every part is audited again)."""
    try:
        kept = json.loads((path / AUDITED).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def open_run(path: str | Path) -> AuditedRun:
    """The results directory at ``path``, or ResultsError when it is none."""
    store = RunDir(path)
    if not store.is_run() or not (store.path / "league.toml").is_file():
        raise ResultsError(f"{path} is not a bohnarena results directory")
    return AuditedRun.of(store, load_league(store.path / "league.toml"))
