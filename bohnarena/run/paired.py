"""A comparison played: A and B on the same deals in the same seats
against the same opponents (run/compare.py's league), its pairs
followed as the matches finish (``compare`` and ``tune``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..rating.paired import Sprt
from .compare import Pairing, compare_league, compare_results, deal_major
from .dispatch import RunSummary, run_league


@dataclass(frozen=True)
class Played:
    pairing: Pairing
    summary: RunSummary


def play_pairs(
    a: tuple[str, str],
    b: tuple[str, str],
    opponents: list[tuple[str, str]],
    settings: Mapping[str, Any],
    rules: Mapping[str, Any],
    out: Path,
    workers: int | None,
    progress: bool | None = None,
    test: Sprt | None = None,
    metric: str = "coins",
    moves: bool = False,
) -> Played:
    """Play (or resume) A (name, spec) against B in ``out`` until the
    deals are done or ``test`` decides; the pairing of every finished deal."""
    league = compare_league(a, b, opponents, settings, rules, moves)
    pairing = Pairing(a[0], b[0], test, metric)
    summary = run_league(
        league,
        out,
        workers,
        progress=progress,
        follow=pairing.add,
        stop_when=lambda: pairing.decision is not None,
    )
    pairing.close()
    if not summary.interrupted and not deal_major(summary.out):
        # grown by opponents: a deal's matches, paired whole
        pairing = compare_results(str(summary.out), a[0], b[0], test, metric)
    return Played(pairing, summary)
