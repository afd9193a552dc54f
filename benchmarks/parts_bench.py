"""What checking a results directory's parts against its manifest costs:
`rank` of a big league kept in many parts (a run stopped before its final
compaction), with the check and without it; the check alone; the hash a
commit adds; and SHA-256 over move logs (what replay --verify-all adds to
its replay, which takes far longer).

The league is synthesized as in report_bench.py and committed part by part
as a run commits it. Default: 100,020 matches in 2,001 parts of 50 (the
local pool's largest batch), each with a moves file.

    python benchmarks/parts_bench.py [--deals 1667] [--batch 50] [--dir /tmp/parts]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from report_bench import synthesize

from bohnarena.analysis.results import read_results
from bohnarena.rating.stats import league_stats
from bohnarena.store import manifest
from bohnarena.store.directory import RunDir
from bohnarena.store.legacy import inferred_parts


def median_seconds(task: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        task()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def rank(out: Path, check: str) -> None:
    """What `bohnarena rank` computes (read, audit, TrueSkill, the deal
    bootstrap), with the parts checked as ``check`` says."""
    real = RunDir.listing
    RunDir.listing = lambda self, _=None: real(self, check)  # type: ignore[method-assign]
    try:
        league_stats(read_results(out).matches)
    finally:
        RunDir.listing = real  # type: ignore[method-assign]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=1667)
    ap.add_argument("--batch", type=int, default=50)
    ap.add_argument("--dir", type=Path, default=None, help="reuse (or keep) the league here")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each listing (median)")
    ap.add_argument(
        "--rank-repeat", type=int, default=1, help="runs of each rank (median; 0: no rank)"
    )
    ap.add_argument("--hash-mb", type=int, default=256, help="bytes hashed for SHA-256's rate")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp())
    out = args.dir or work / "big"
    if not out.exists():
        start = time.perf_counter()
        synthesize(out, args.deals, batch=args.batch, moves=True)
        print(f"synthesized in {time.perf_counter() - start:.1f} s: {out}")
    store = RunDir(out)
    parts = len(list(store.matches_dir.glob("part-*")))
    print(f"{len(store.done_ids()):,} matches in {parts:,} parts")
    files = [*store.matches_dir.glob("part-*"), *store.moves_dir.glob("part-*")]
    took = median_seconds(lambda: [manifest.describe(f) for f in files], args.repeat)
    print(f"commits' hashes: {took:.2f} s, {took / parts * 1e3:.2f} ms a part (two files)")
    listed = {}
    for check in ("off", "cheap", "full"):
        listed[check] = median_seconds(lambda check=check: store.listing(check), args.repeat)
        print(f"listing the parts, check {check}: {listed[check]:.3f} s")
    before = median_seconds(lambda: inferred_parts(store), args.repeat)
    print(
        f"listing the parts as before manifests (from their names): {before:.3f} s; "
        f"the manifest and its check add {listed['cheap'] - before:.2f} s to that"
    )
    data = os.urandom(args.hash_mb * 2**20)
    took = median_seconds(lambda: hashlib.sha256(data).digest(), args.repeat)
    print(f"SHA-256: {args.hash_mb / took:,.0f} MB/s (replay --verify-all hashes every moves file)")
    if args.rank_repeat < 1:
        shutil.rmtree(work, ignore_errors=True)
        return
    # rank's time swings with the machine's load far more than the check
    # costs: the check's share is its own time over rank's.
    off = median_seconds(lambda: rank(out, "off"), args.rank_repeat)
    cheap = median_seconds(lambda: rank(out, "cheap"), args.rank_repeat)
    check = listed["cheap"] - listed["off"]
    print(
        f"rank: {cheap:.1f} s with the check, {off:.1f} s without (median of "
        f"{args.rank_repeat}); the check itself {check:.2f} s, {100 * check / off:.1f}% of rank"
    )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
