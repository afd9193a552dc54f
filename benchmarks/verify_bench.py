"""What `bohnarena verify` (without --bots) costs on a 100,000-match season.

Playing 100,000 matches takes about an hour on two shared cores (26 games/s
with random bots on one core at load 12), and replaying their logs about as
long, so the season is measured in two halves:

1. Every check but the replay of the move logs, on a synthesized directory:
   100,020 match rows (6 bots, 4-player tables, 1,667 deals; made up as
   benchmarks/report_bench.py makes them) committed in parts of 50 as a run
   commits them (each a link of the chain), then compacted as a run's end
   does, with a seed commitment and its reveal: the commitment, the chain
   (the rows digest of every link over 100,020 rows, the side files), the
   manifest (every file hashed), the audit of every row against the
   schedule of the revealed seed, and the missing matches.
2. The replay of the move logs, per match: a small secret-seed league
   (random bots, 400 matches: two chunks of verify_all's 200, so two
   workers) played for real, then `verify_all` (what `verify` runs on
   every match) timed on it; its matches a second, times 100,020.

    python benchmarks/verify_bench.py [--deals 1667] [--played 400] [--repeat 3] [-j 0]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from report_bench import synthesize

from bohnarena.core.game import get_game
from bohnarena.core.seeding import commitment
from bohnarena.run.dispatch import run_league
from bohnarena.run.replay import Run, verify_all
from bohnarena.store import chain, chained, layout
from bohnarena.store.directory import RunDir
from bohnarena.store.reading import RunReader

SEED, SALT = 1, "00" * 16


def season(out: Path, deals: int) -> int:
    """The synthesized season: committed, chained, compacted, revealed."""
    count = synthesize(out, deals, seed=SEED, batch=50, moves=True)
    committed = commitment(SEED, SALT)
    meta = json.loads((out / layout.RUN_JSON).read_text())
    meta |= {"seed_commitment": committed, "rules_version": get_game("bohnanza").version}
    (out / layout.RUN_JSON).write_text(json.dumps(meta))
    # the chain begun before the commitment was in run.json: linked from it
    prev, lines = chain.genesis(committed), []
    for line in chain.lines(out):
        body = {**json.loads(line), "prev": prev}
        lines.append(json.dumps(body, sort_keys=True, separators=(",", ":")))
        prev = chain.link(lines[-1])
    (out / chain.NAME).write_text("".join(f"{x}\n" for x in lines))
    store = RunDir(out)
    store.compact(0, count - 1)
    store.publish_head()
    revealed = {"seed": SEED, "seed_salt": SALT, "seed_commitment": committed}
    (out / layout.REVEAL).write_text(json.dumps(revealed))
    return count


def checks_but_replay(out: Path) -> list[str]:
    """What `verify` checks besides replaying each log (run/verify.py)."""
    meta = RunReader(out).meta()
    failures = [] if commitment(SEED, SALT) == meta["seed_commitment"] else ["commitment"]
    found, _ = chained.check(RunReader(out), meta.get("chain_head"), None)
    failures += found
    run = Run.open(out, "full", refuse=False, seed=SEED)
    failures += run.listing.problems
    failures += [p for _, p in run.auditor.problems(run.store.iter_matches(listing=run.listing))]
    standing = run.auditor.schedule.standing_ids()
    present = run.store.done_ids(run.listing)
    failures += [f"match {i} missing" for i in sorted(standing - present)]
    return failures


def replay_rate(work: Path, played: int, workers: int) -> float:
    """Matches a second `verify_all` replays, on a league played for real."""
    bots = "".join(f'r{i} = "random"\n' for i in range(4))
    deals = max(1, played // 4)
    league = work / "real.toml"
    league.write_text(
        f'name = "real"\nedition = "classic"\nplayers = 4\ndeals = {deals}\n'
        f'seed = "secret"\n[bots]\n{bots}'
    )
    out = work / "real"
    run_league(league, out, workers=workers or None, progress=False)
    start = time.perf_counter()
    checked, problems, failures = verify_all(out, workers, progress=False)
    seconds = time.perf_counter() - start
    assert not problems and not failures, (problems, failures)
    return checked / seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=1667, help="6 bots at 4: 60 matches a deal")
    ap.add_argument("--played", type=int, default=400, help="matches played for real (part 2)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("-j", "--workers", type=int, default=0, help="0: every core")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp())
    try:
        start = time.perf_counter()
        count = season(work / "season", args.deals)
        print(
            f"{count:,} matches synthesized, chained, compacted in "
            f"{time.perf_counter() - start:.1f} s"
        )
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            failures = checks_but_replay(work / "season")
            times.append(time.perf_counter() - start)
            assert not failures, failures[:5]
        chain_times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            chained.check(RunReader(work / "season"), None, None)
            chain_times.append(time.perf_counter() - start)
        fixed = statistics.median(times)
        print(
            f"every check but the log replay: {fixed:.2f} s median of {args.repeat} "
            f"(the chain alone: {statistics.median(chain_times):.2f} s)"
        )
        rate = replay_rate(work, args.played, args.workers)
        cores = f"{args.workers} worker(s)" if args.workers else "every core"
        print(f"log replay: {rate:.0f} matches/s on {cores} (load {os.getloadavg()[0]:.0f})")
        total = fixed + count / rate
        print(
            f"verify on {count:,} matches: about {total / 60:.0f} min "
            f"({count / rate:.0f} s of it replaying the logs)"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
