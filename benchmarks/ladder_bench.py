"""What a ladder of 200 entries costs to grow by one (issue 26, part 4):
the matches the new entry adds and the TrueSkill updates of re-rating them,
against what the whole history holds; then what retiring one costs.

    python benchmarks/ladder_bench.py              # 200 random bots, 4 seats, 5 deals
    python benchmarks/ladder_bench.py --deals 10 --entries 300

A league with ``full_tables = 100`` (what a ladder writes) of 200 file
bots (a random player each, run in process: playing is not what is
measured) at 4-player tables: the full round-robin of a newcomer would be
C(199, 3) = 1,293,699 tables a deal, so each plays its ``deals`` deals at
tables drawn for it (docs/ladder.md, "Matchmaking that scales"). Runs, with
the figures grow_bench.py prints for each: the 200 entries' first run; a
run with nothing new (it audits every row it holds); two entries added,
one a run (their matches only; TrueSkill goes on from the ratings the
last run kept); one entry retired (its tables leave the standings: the
field is re-rated over every standing match), and the pass a ladder adds
to each run (every match of the season rated, the retired entry's
included). Then the schedule of a ladder grown
one entry at a time (200 generations), built as each run and `rank` do.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from grow_bench import line, timed

from bohnarena.analysis.results import read_results
from bohnarena.ladder.ratings import season_ranking
from bohnarena.league.file import parse_league
from bohnarena.league.growth import Generation, schedule_of

BOT = "from bohnarena_bots.random_bot import RandomBot\n\n\nclass Entry(RandomBot):\n    pass\n"


def league_text(bots: list[str], deals: int, spec: str) -> str:
    lines = "\n".join(f'{b} = "{spec}"' for b in bots)
    return (
        f'name = "ladder"\nplayers = 4\ndeals = {deals}\nseed = 1\nfull_tables = 100\n'
        f"[run]\nmoves = false\n[bots]\n{lines}\n"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--entries", type=int, default=200)
    p.add_argument("--deals", type=int, default=5)
    p.add_argument("--workers", type=int, default=2)
    a = p.parse_args()
    bots = [f"e{i:03d}" for i in range(a.entries + 2)]
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "league.toml", Path(tmp) / "results"
        (Path(tmp) / "entry.py").write_text(BOT)
        spec = f"{tmp}/entry.py:Entry"  # a file bot, as a ladder's entries are
        path.write_text(league_text(bots[: a.entries], a.deals, spec))
        base = timed(path, out, a.workers)
        print(line(f"{a.entries} entries", base))
        print(line("nothing new", timed(path, out, a.workers)))  # (audits what base wrote)
        for n in (1, 2):  # the second: the first's part not audited yet
            path.write_text(league_text(bots[: a.entries + n], a.deals, spec))
            grown = timed(path, out, a.workers)
            print(line(f"entry {n} added", grown))
            assert grown[0].complete and grown[0].played == a.deals * 4, grown
        path.write_text(league_text(bots[1:], a.deals, spec))
        retired = timed(path, out, a.workers)
        print(line("one entry retired", retired))
        started = time.perf_counter()
        read_results(out)  # what rank does: every standing match audited, counted
        print(f"rank over all {retired[0].total:,} matches: {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        season = season_ranking(out, bots)  # what a ladder adds to each run
        print(
            f"a ladder's season pass over every match ({season.seat_matches:,}, the retired "
            f"entry's included): {time.perf_counter() - started:.1f} s"
        )
    data = {"name": "x", "players": 4, "deals": a.deals, "full_tables": 100}
    league = parse_league({**data, "bots": dict.fromkeys(bots, "random")})
    generations = [Generation(tuple(bots[:n]), a.deals) for n in range(1, len(bots) + 1)]
    started = time.perf_counter()
    plan = schedule_of(league, 1, generations)
    took = time.perf_counter() - started
    print(
        f"schedule of {len(bots)} entries added one at a time: {len(plan):,} matches, "
        f"{len(plan.spans[-1])} for the last, built in {took:.2f} s"
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
