"""Replaying logged matches from a results directory (any game).

Reading a match, checking it against the rules (``verify``), playing it
again with its bots (``rerun``) and checking a whole run in parallel.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection, Iterator, Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass
from functools import cached_property
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from tqdm import tqdm

from ..analysis.results import curve_problem
from ..core.entry import BotEntry
from ..core.errors import BohnarenaError, UsageError
from ..core.game import Game, get_game
from ..league.file import League, load_league
from ..store import layout
from ..store.audit import COLUMNS as AUDIT_COLUMNS
from ..store.audit import Auditor
from ..store.audited import open_run
from ..store.directory import RunDir
from ..store.growing import kept_files
from ..store.logbook import (
    EXCHANGES_SCHEMA,
    MATCHES_SCHEMA,
    TIMING_SCHEMA,
    moves_schema,
    records_of,
)
from ..store.parts import Check, Listing, ResultsError, check_schema, read_range, write_text
from ..viewer.info import MatchInfo
from .execution import LocalPool
from .seating import make_seat


@dataclass
class Run:
    """A results directory opened for reading."""

    store: RunDir
    league: League
    game: Game
    rules: Any
    auditor: Auditor
    #: The parts read, checked against the manifest (its problems refused,
    #: unless opened with ``refuse=False``).
    listing: Listing

    @classmethod
    def open(
        cls, path: str | Path, check: Check = "cheap", refuse: bool = True, seed: int | None = None
    ) -> Run:
        """``seed``: the master seed to audit with, not run.json's (`verify`)."""
        run = open_run(path, seed)
        league, meta = run.league, run.meta
        game = get_game(league.game)
        if meta.get("rules_version") != game.version:
            raise ResultsError(
                f"{path} was played under {game.name} rules version "
                f"{meta.get('rules_version')}; this bohnarena has version "
                f"{game.version}, so its matches cannot be replayed here"
            )
        listing = run.store.listing(check)
        return cls(
            run.store,
            league,
            game,
            game.rules(league.edition, league.players, league.rules),
            run.auditor,
            listing.require() if refuse else listing,
        )

    @cached_property
    def bots(self) -> dict[str, BotEntry]:
        """Every bot the results were played by: a bot the league grew out
        of is in the league file it was removed from (league.N.toml)."""
        found: dict[str, BotEntry] = {}
        for path in kept_files(self.store.path):
            found.update(load_league(path, frozen=True).bots)
        return {**found, **self.league.bots}

    def _read(self, sub: Path, first: int, last: int) -> pa.Table:
        """Rows of ``sub``'s listed parts with ids in [first, last], read
        from the parts whose id range meets it (no moves part at all reads
        as no moves: each match then has no move log)."""
        table = sub.name
        files = self.listing.files(table)
        if not files and table == layout.MATCHES:
            raise ResultsError(f"{sub} holds no finished matches")
        schema = {
            layout.MATCHES: MATCHES_SCHEMA,
            layout.TIMING: TIMING_SCHEMA,
            layout.EXCHANGES: EXCHANGES_SCHEMA,
        }.get(table)
        schema = schema or moves_schema(self.game.columns)
        tables = [schema.empty_table()]
        for span, path in files:
            if span[0] <= last and first <= span[1]:
                check_schema(path, schema)
                tables.append(read_range(path, first, last).select(schema.names))
        return pa.concat_tables(tables)

    def rows(self, first: int, last: int) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = (
            self._read(self.store.matches_dir, first, last).sort_by("match_id").to_pylist()
        )
        return rows

    def rows_of(self, ids: Collection[int]) -> dict[int, dict[str, Any]]:
        """The rows of the matches ``ids`` by id, read in one pass."""
        if not ids:
            return {}
        table = self._read(self.store.matches_dir, min(ids), max(ids))
        table = table.filter(pc.is_in(table.column("match_id"), pa.array(sorted(ids), pa.int64())))
        return {row["match_id"]: row for row in table.to_pylist()}

    def logs(self, first: int, last: int) -> dict[int, list[tuple[Any, ...]]]:
        return self.logs_and_gaps(first, last)[0]

    def moves(self, first: int, last: int) -> pa.Table:
        """The records of the matches with ids in [first, last], in order."""
        moves = self._read(self.store.moves_dir, first, last)
        return moves.sort_by([("match_id", "ascending"), ("seq", "ascending")])

    def logs_and_gaps(
        self, first: int, last: int, moves: pa.Table | None = None
    ) -> tuple[dict[int, list[tuple[Any, ...]]], set[int]]:
        """The logs of the matches with ids in [first, last] (``moves``:
        their records, read already), and the ids whose records are not
        numbered 0, 1, 2... (a record logged twice, or one missing: a
        duplicated or cut moves part)."""
        moves = self.moves(first, last) if moves is None else moves
        try:
            recs = records_of(moves, self.game.layout)
        except ValueError as e:
            raise ResultsError(f"{self.store.moves_dir}: {e}") from None
        ids, seqs = moves.column("match_id").to_pylist(), moves.column("seq").to_pylist()
        logs: dict[int, list[tuple[Any, ...]]] = {}
        gaps: set[int] = set()
        for mid, group in groupby(zip(ids, seqs, recs, strict=True), key=itemgetter(0)):
            numbered = list(group)
            if [seq for _, seq, _ in numbered] != list(range(len(numbered))):
                gaps.add(mid)
            logs[mid] = [rec for _, _, rec in numbered]
        return logs, gaps

    def timing_problems(
        self, first: int, last: int, moves: pa.Table, logged: Collection[int]
    ) -> dict[int, str]:
        """The matches with ids in [first, last] whose think times are not
        each one record's of their own ``moves``: a decision of the row's
        seat and kind, timed once (a duplicated, moved or edited timing
        row). ``logged``: the matches with moves. (Arrow and numpy: a match
        has a thousand think times.)"""
        if not self.listing.files(layout.TIMING):
            return {}
        timing = self._read(self.store.timing_dir, first, last)
        ids = np.asarray(timing.column("match_id").to_numpy(), np.int64)
        seqs = np.asarray(timing.column("seq").to_numpy(), np.int64)
        order = np.lexsort((seqs, ids))
        twice = np.zeros(len(ids), np.bool_)
        twice[order[1:][(np.diff(ids[order]) == 0) & (np.diff(seqs[order]) == 0)]] = True
        rows = pa.table(
            {
                "match_id": timing.column("match_id"),
                "seq": timing.column("seq"),
                "seat": timing.column("seat"),
                "decision": timing.column("decision").cast(pa.string()),
                "row": pa.array(np.arange(len(ids), dtype=np.int64)),
            }
        )
        records = moves.select(["match_id", "seq", "kind", "seat"])
        records = records.rename_columns(["match_id", "seq", "kind", "at"])
        joined = rows.join(records, ["match_id", "seq"], join_type="left outer")
        fits = pc.and_(
            pc.equal(joined.column("kind"), joined.column("decision")),
            pc.equal(joined.column("at"), joined.column("seat")),
        )
        fits = np.asarray(pc.fill_null(fits, False).to_numpy(zero_copy_only=False), np.bool_)
        wrong = twice.copy()
        wrong[np.asarray(joined.column("row").to_numpy(), np.int64)[~fits]] = True
        problems: dict[int, str] = {}
        for i in np.flatnonzero(wrong):  # (few: the first of each match is told)
            mid, seq = int(ids[i]), int(seqs[i])
            if mid in problems:
                continue
            if mid not in logged:
                problems[mid] = NO_MOVES
            elif twice[i]:
                problems[mid] = f"record {seq} is timed twice (a duplicated timing part?)"
            else:
                kind, seat = timing.column("decision")[i].as_py(), timing.column("seat")[i].as_py()
                problems[mid] = (
                    f"its timing row for record {seq} ({kind}, seat {seat}) is not that record"
                )
        return problems

    def match(
        self, match_id: int, row: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
        """The match's row (``row``: read already) and its log."""
        if row is None:
            rows = self.rows(match_id, match_id)
            if not rows:
                raise ResultsError(f"no finished match {match_id} in {self.store.path}")
            row = rows[0]
        log = self.logs(match_id, match_id).get(match_id)
        if not log:
            raise ResultsError(f"match {match_id} has no move log (run with moves off?)")
        return row, log

    def replies(self, match_id: int) -> dict[int, list[str]]:
        """Each reply of the match's seats that play in words, by the record
        its decision became (none: no such seat, or no exchanges file)."""
        t = self._read(self.store.table_dir(layout.EXCHANGES), match_id, match_id)
        return dict(zip(t["seq"].to_pylist(), t["replies"].to_pylist(), strict=True))

    def check(self, row: dict[str, Any], log: Sequence[tuple[Any, ...]]) -> str | None:
        """None when the row is the league's match of its id and the log
        replays under the rules to the recorded result."""
        problem = self.auditor.problem(row)
        if problem is not None:
            return problem
        result, problem = self.game.verify(self.rules, row["seed"], log)
        if problem is not None:
            return problem
        assert result is not None
        recorded = {k: row[k] for k in ("coins", "ranks", "winners", "turns", "faults")}
        replayed = {
            "coins": list(result.coins),
            "ranks": list(result.ranks),
            "winners": list(result.winners),
            "turns": result.turns,
            "faults": list(result.faults),
        }
        for key, value in recorded.items():
            if value != replayed[key]:
                return f"the matches table has {key} {value}, the replay gives {replayed[key]}"
        return None

    def info(self, row: dict[str, Any], moves: int) -> MatchInfo:
        """What the match of ``row`` is and how it ended (a replay's header)."""
        return MatchInfo.of_row(self.game, self.league.edition, self.league.rules, row, moves)

    def rerun(self, row: dict[str, Any], log: Sequence[tuple[Any, ...]]) -> str | None:
        """Play the match again with its bots; None when every move is the same."""
        seats = [
            make_seat(self.game, self.bots[name], self.league.limits, match_id=row["match_id"])
            for name in row["seats"]
        ]
        _, again = self.game.play(self.rules, row["seed"], seats)
        return first_difference(log, again)


def first_difference(log: Sequence[Sequence[Any]], again: Sequence[Sequence[Any]]) -> str | None:
    """Where a match played again first leaves its log, in one line (None: nowhere)."""
    for i, (a, b) in enumerate(zip(log, again, strict=False)):
        if tuple(a) != tuple(b):
            return f"move {i}: the log has {tuple(a)!r}, the bots now play {tuple(b)!r}"
    if len(log) != len(again):
        return f"the log has {len(log)} moves, the bots now play {len(again)}"
    return None


TWICE = "its records are not numbered 0, 1, 2... (logged twice, or one missing)"
NO_ROW = "its moves are logged but the matches table has no row for it (a deleted row?)"
NO_MOVES = "its think times are logged but it has no moves (a deleted row or moves part?)"
#: What is said of a match that is not there to replay (not counted as checked).
UNPLAYED = (NO_ROW, NO_MOVES)


def check_range(
    path: str, first: int, last: int, seed: int | None = None
) -> list[tuple[int, str | None]]:
    """Verify every match with an id in [first, last] (a worker task): its
    row against its replayed log, and every log against a row."""
    run = Run.open(path, "off", refuse=False, seed=seed)  # the parent checked the parts
    moves = run.moves(first, last)
    logs, gaps = run.logs_and_gaps(first, last, moves)
    timing = run.timing_problems(first, last, moves, logs.keys())
    out: list[tuple[int, str | None]] = []
    rows = run.rows(first, last)
    for row in rows:
        mid = row["match_id"]
        log = logs.get(mid)
        problem = "no move log" if not log else TWICE if mid in gaps else run.check(row, log)
        out.append((mid, problem or timing.get(mid)))
    held = {row["match_id"] for row in rows}
    out += [(mid, NO_ROW) for mid in sorted(logs.keys() - held)]
    out += [(mid, p) for mid, p in sorted(timing.items()) if mid not in held and mid not in logs]
    return out


def verify_all(
    path: str | Path,
    workers: int = 0,
    chunk: int = 200,
    progress: bool | None = None,
    seed: int | None = None,
) -> tuple[int, list[str], list[tuple[int, str]]]:
    """Verify every finished match of a run in parallel: (matches checked,
    problems of parts against the manifest, failures by match id).
    ``seed``: the master seed to audit with, not run.json's (`verify`)."""
    run = Run.open(path, "full", refuse=False, seed=seed)
    ids = sorted(run.store.done_ids(run.listing))
    if not ids:
        raise ResultsError(f"{path} holds no finished matches")
    # Twice-held, swapped or foreign rows, before each match is replayed.
    failures = list(
        run.auditor.problems(run.store.iter_matches(AUDIT_COLUMNS, listing=run.listing))
    )
    ranges = list(_ranges(ids, chunk))
    pool = LocalPool(workers)
    checked = 0
    bar = tqdm(
        total=len(ids),
        unit="match",
        disable=None if progress is None else not progress,
        file=sys.stderr,
    )
    try:
        executor = pool.executor()
        futures = [executor.submit(check_range, str(run.store.path), a, b, seed) for a, b in ranges]
        for f in as_completed(futures):
            results = f.result()
            played = [i for i, p in results if p not in UNPLAYED]
            checked += len(played)
            failures += [(i, p) for i, p in results if p is not None]
            bar.update(len(played))
    finally:
        bar.close()
        pool.close()
    run.store.confirm(run.listing)  # a compaction meanwhile: read again
    derived = [p for p in [curve_problem(run.store.path)] if p is not None]
    # (a row off the schedule is found by the audit above and by its check: said once)
    return checked, run.listing.problems + untimed(run) + derived, sorted(set(failures))


def untimed(run: Run) -> list[str]:
    """Moves files without their timing file that run.json does not name
    as written before timing: a timing file deleted, its line rewritten."""
    meta, m = run.store.meta(), run.store._manifest()
    if not isinstance(meta.get("untimed"), list):
        return []  # (a run.json from before it was kept: the next run records it)
    older = set(meta["untimed"])
    return [
        f"{run.store.path / layout.TIMING / name} is missing: its moves file has no think "
        "times, and run.json does not say it was written before timing"
        for name, e in m.live.items()
        if e.moves is not None and e.timing is None and name not in older
    ]


def write_pages(path: str, pages: Sequence[tuple[int, str]]) -> list[tuple[int, str | None]]:
    """Write the viewer page of each match id of ``pages`` to its file (a
    worker task): each id with None, or why it has no page."""
    from ..viewer.match import viewer_page

    run = Run.open(path, "off", refuse=False)  # the parent checked the parts
    rows = run.rows_of([mid for mid, _ in pages])  # (one read of the matches for all)
    out: list[tuple[int, str | None]] = []
    for mid, target in pages:
        try:
            row, log = run.match(mid, rows.get(mid))
            info = run.info(row, len(log))
            page = viewer_page(run.game, run.rules, log, info, run.replies(mid))
        except BohnarenaError as e:
            out.append((mid, str(e)))
            continue
        write_text(Path(target), page)
        out.append((mid, None))
    return out


#: Pages written in the caller's process when no worker count is given: a
#: pool's processes cost more to start and to read the directory than a
#: report's few pages (some 0.3 s each) cost to write.
ALONE = 16


def write_pages_all(
    path: str | Path, pages: Sequence[tuple[int, str]], workers: int = 0
) -> dict[int, str | None]:
    """:func:`write_pages` spread over ``workers`` processes (0: every core,
    or none for up to :data:`ALONE` pages; a page costs about as much as
    replaying its match)."""
    n = min(workers or os.cpu_count() or 1, len(pages))
    if n <= 1 or (not workers and len(pages) <= ALONE):
        return dict(write_pages(str(path), pages))
    pool = LocalPool(n)
    try:
        executor = pool.executor()
        futures = [executor.submit(write_pages, str(path), pages[k::n]) for k in range(n)]
        return {mid: problem for f in futures for mid, problem in f.result()}
    finally:
        pool.close()


def _ranges(ids: Sequence[int], chunk: int) -> Iterator[tuple[int, int]]:
    """Ranges of ``chunk`` ids that cover every id there is between them
    and beyond both ends: a log whose row is gone falls in one of them."""
    starts = ids[::chunk]
    for k, start in enumerate(starts):
        yield (
            start if k else -(2**63),
            starts[k + 1] - 1 if k + 1 < len(starts) else 2**63 - 1,
        )


def parse_seat(seat: int | None, players: int) -> int | None:
    if seat is not None and not 0 <= seat < players:
        raise UsageError(f"--seat must be between 0 and {players - 1}")
    return seat


def turn_range(
    turn: int | None, turns: int | None, to_turn: int | None
) -> tuple[int | None, int | None]:
    """``--turn N`` with its stop, ``--turns K`` or ``--to-turn M``, as the
    first and last turn shown (None: the match's first or last)."""
    if turns is not None and to_turn is not None:
        raise UsageError("--turns K counts turns from --turn, --to-turn M names the last: give one")
    if turns is not None:
        return turn, (turn or 1) + turns - 1
    if to_turn is not None and turn is not None and to_turn < turn:
        raise UsageError(f"--to-turn {to_turn} comes before --turn {turn}")
    return turn, to_turn
