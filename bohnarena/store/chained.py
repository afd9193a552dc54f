"""The chain (store/chain.py) kept by a run and checked by `verify`: the
link of a commit, of the results a run began chaining from, of a repair,
and the check of the published files against it."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import chain, layout
from .manifest import SIDES, Manifest
from .parts import ResultsError

if TYPE_CHECKING:
    from .reading import RunReader


def commitment(directory: Path) -> str | None:
    """The seed commitment of run.json as published (the chain's genesis)."""
    try:
        meta = json.loads((directory / layout.RUN_JSON).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    found = meta.get("seed_commitment") if isinstance(meta, dict) else None
    return found if isinstance(found, str) else None


def sides_of(halves: Mapping[str, Any]) -> dict[str, str]:
    return {t: h.sha256 for t, h in halves.items() if t in SIDES and h is not None}


def commit(
    directory: Path, name: str, rows: list[dict[str, Any]], halves: Mapping[str, Any]
) -> str:
    """A commit's link appended (before its manifest line: a link whose part
    never came in leaves its matches to be played again, and says so)."""
    body = chain.commit_body(name, rows, sides_of(halves))
    return chain.append(directory, body, commitment(directory))


def _all_rows(store: RunReader) -> list[dict[str, Any]]:
    return list(store.iter_matches(None, listing=store.listing("off")))


def _side_hashes(m: Manifest) -> dict[str, dict[str, str]]:
    return {n: s for n, e in m.live.items() if (s := sides_of({t: e.half(t) for t in SIDES}))}


def start(store: RunReader) -> None:
    """A results directory without a chain gets one: empty, or (results
    written before chains) a first link adopting what it holds."""
    if (store.path / chain.NAME).exists():
        return
    m = store._manifest()
    if m.live:
        rows = _all_rows(store)
        body = {
            "adopted": True,
            "ids": chain.spans(r["match_id"] for r in rows),
            "rows": chain.digest(rows),
            "sides": _side_hashes(m),
        }
        chain.append(store.path, body, commitment(store.path))
    else:
        (store.path / chain.NAME).touch()


def repaired(store: RunReader) -> None:
    """After a repair (store/damage.py): the matches it dropped, the digests
    of the rows left of their links and the side files written again, in a
    link of their own."""
    expected = chain.replay(chain.lines(store.path), commitment(store.path))
    rows = _all_rows(store)
    present = {r["match_id"] for r in rows}
    dropped = [i for i in expected.owner if i not in present]
    touched = {expected.owner[i] for i in dropped}
    for i in dropped:
        expected.owner.pop(i)
    kept: dict[int, list[dict[str, Any]]] = {line: [] for line in touched}
    for r in rows:
        line = expected.owner.get(r["match_id"])
        if line in kept:
            kept[line].append(r)
    now = _side_hashes(store._manifest())
    sides = {
        part: changed
        for part, halves in now.items()
        if (
            changed := {
                t: s for t, s in halves.items() if expected.sides.get((part, t), (None,))[0] != s
            }
        )
    }
    if not dropped and not sides:
        return
    body = {
        "dropped": chain.spans(dropped),
        "rows": {str(line): chain.digest(r) for line, r in kept.items()},
        "sides": sides,
    }
    chain.append(store.path, body, commitment(store.path))


def check(
    store: RunReader, published: str | None, noted: str | None
) -> tuple[list[str], str | None]:
    """The failed checks of the chain against the results as they are now
    (one line each), and its head (None: no chain, written before them).
    ``published``: the head run.json gives; ``noted``: one a participant
    noted earlier, which must be a link of it (what was published then is
    still all there)."""
    path = store.path / chain.NAME
    if not path.exists():
        if published is None:
            return [], None
        return [f"no {chain.NAME}, yet run.json publishes the chain head {published}"], None
    found = chain.lines(store.path)
    expected = chain.replay(found, commitment(store.path))
    failures = list(expected.problems)
    head = expected.links[-1] if expected.links else chain.genesis(commitment(store.path))
    if published is not None and published != head:
        failures.append(f"the chain ends at {head}, run.json publishes {published}")
    if noted is not None and noted != head and noted not in expected.links:
        failures.append(
            f"the head {noted} noted earlier is not a link of the chain: "
            "what was published then was rewritten"
        )
    failures += [
        f"match {i}: committed again at chain line {again} (first at line {first})"
        for i, first, again in expected.twice
    ]
    failures += _rows(store, expected)
    failures += _sides(store._manifest(), expected)
    return failures, head


def _rows(store: RunReader, expected: chain.Expected) -> list[str]:
    failures: list[str] = []
    by_unit: dict[int, list[dict[str, Any]]] = {line: [] for line in expected.units}
    try:
        rows: Iterable[dict[str, Any]] = _all_rows(store)
    except ResultsError as e:  # (said by the manifest's check too)
        return [f"the rows do not read ({e}): the chain's rows are unchecked"]
    for r in rows:
        line = expected.owner.get(r["match_id"])
        if line is None:
            failures.append(f"match {r['match_id']}: in the results, committed by no link")
        else:
            by_unit[line].append(r)
    for line, unit in sorted(expected.units.items()):
        got = by_unit[line]
        if len(got) != len(unit.ids):
            have = {r["match_id"] for r in got}
            failures += [
                f"match {i}: committed at chain line {line} ({unit.part}), missing now"
                for i in unit.ids
                if i not in have
            ]
        elif chain.digest(got) != unit.rows:
            first, last = unit.ids[0], unit.ids[-1]
            failures.append(
                f"matches {first} to {last} ({unit.part}): their rows are not those "
                f"committed at chain line {line}"
            )
    return failures


def _sides(m: Manifest, expected: chain.Expected) -> list[str]:
    failures = []
    now = _side_hashes(m)
    for (part, table), (sha, line) in sorted(expected.sides.items()):
        if now.get(part, {}).get(table) != sha:
            failures.append(f"{table} file of {part}: not the one committed at chain line {line}")
    for part, halves in sorted(now.items()):
        for table in halves:
            if (part, table) not in expected.sides:
                failures.append(f"{table} file of {part}: committed by no link")
    return failures
