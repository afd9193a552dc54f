"""Commit and reveal, checked from the published files (docs/fairness.md).

`reveal` writes a secret seed and its salt into ``reveal.json`` beside
``run.json``; `verify` checks, from a copy of the published files alone,
that the revealed seed is the one committed to, that every match present
is the schedule's (its seed derived from the master seed), that none is
missing, and that every match replays to its logged result under the
rules (`replay --verify-all`'s check, audited with the revealed seed).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import UsageError
from ..core.seeding import commitment
from ..store import chained, layout, secret
from ..store.audited import open_run
from ..store.parts import ResultsError, write_text
from ..store.reading import RunReader
from .rematch import rematch
from .replay import verify_all

REVEAL = layout.REVEAL


def public_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """run.json as it may be shown before `reveal`: without the seed and its salt."""
    return {k: v for k, v in meta.items() if k not in secret.PRIVATE}


def _run_meta(path: Path) -> dict[str, Any]:
    if not (path / layout.RUN_JSON).is_file() or not (path / layout.LEAGUE).is_file():
        raise UsageError(f"{path} is not a bohnarena results directory")
    return RunReader(path).meta()


def reveal(path: str | Path) -> dict[str, Any]:
    """Write ``reveal.json`` (the seed, its salt, the commitment) and return it."""
    path = Path(path)
    meta = _run_meta(path)
    if "seed_commitment" not in meta:
        raise UsageError(
            f"{path}: this league never drew a secret seed (no commitment in run.json): "
            "nothing to reveal"
        )
    revealed = {k: meta[k] for k in ("seed", "seed_salt", "seed_commitment")}
    write_text(path / REVEAL, json.dumps(revealed, indent=2, sort_keys=True) + "\n")
    return revealed


@dataclass
class Verdict:
    """What `verify` found: one line per failed check, and what it checked."""

    failures: list[str] = field(default_factory=list)
    replayed: int = 0
    scheduled: int = 0
    head: str | None = None  # the chain's (None: results written before chains)
    #: Matches played again from the bots' files (None: not asked for), and
    #: those that cannot be (a seat served over HTTP).
    rematched: int | None = None
    unplayable: int = 0

    def summary(self) -> str:
        checks = f"{self.replayed} matches replayed of {self.scheduled} the schedule has standing"
        checks += "; no chain" if self.head is None else f"; chain head {self.head}"
        if self.rematched is not None:
            checks += f"; {self.rematched} played again from the bots' files"
            if self.unplayable:
                checks += f" ({self.unplayable} with a bot served over HTTP cannot be)"
        if not self.failures:
            return f"verified: the seed is the one committed to; {checks}; every check passed"
        return f"{len(self.failures)} checks failed; {checks}"


def verify(
    path: str | Path,
    seed: int | None = None,
    workers: int = 0,
    head: str | None = None,
    bots: Path | None = None,
    replay: int | None = 0,
) -> Verdict:
    """Check the published files of ``path`` against the revealed seed
    (``seed``: instead of reveal.json's) and its chain against the head
    run.json publishes (``head``: one noted earlier, which must be in it);
    with ``bots`` (the directory the league's bot paths resolve from),
    play ``replay`` matches (None: all) again from the bots' files."""
    path = Path(path)
    meta = _run_meta(path)
    committed = meta.get("seed_commitment")
    revealed = secret.read_object(path / REVEAL)
    if seed is None:
        seed = revealed.get("seed")
    if committed is None and seed is None:
        raise UsageError(f"{path}: this league never drew a secret seed: nothing to verify")
    if seed is None:
        raise UsageError(f"{path}: the seed is not revealed yet (no {REVEAL}): give --seed S")
    if not isinstance(seed, int):
        raise UsageError(f"{path / REVEAL}: its seed {seed!r} is not a whole number")
    verdict = Verdict()
    if committed is not None:
        salt = revealed.get("seed_salt")
        if not isinstance(salt, str):
            verdict.failures.append(f"no salt revealed in {REVEAL}: the commitment is unchecked")
        elif commitment(seed, salt) != committed:
            verdict.failures.append(
                f"seed {seed} with its salt does not match the commitment {committed}"
            )
    chain_failures, verdict.head = chained.check(RunReader(path), meta.get("chain_head"), head)
    verdict.failures += chain_failures
    # Every match present audited against the schedule of the revealed seed
    # (its seed column included) and replayed under the rules.
    plan = open_run(path, seed).auditor.schedule
    try:
        verdict.replayed, parts, failures = verify_all(path, workers, progress=False, seed=seed)
    except ResultsError as e:  # no finished match: every one is missing
        parts, failures = [str(e)], []
    verdict.failures += parts
    named = (p if p.startswith(f"match {i}") else f"match {i}: {p}" for i, p in failures)
    verdict.failures += named
    standing = plan.standing_ids()
    verdict.scheduled = len(standing)
    present = RunReader(path).done_ids(RunReader(path).listing("off"))
    verdict.failures += [
        f"match {i}: missing (the schedule has it, the published results do not)"
        for i in sorted(standing - present)
    ]
    if bots is not None and replay != 0:
        again = rematch(path, bots, replay, seed)
        verdict.failures += again.failures
        verdict.rematched, verdict.unplayable = again.played, again.unplayable
    return verdict
