"""How long the statistics and the HTML report take on a big league, how big
the report is, and how long headless Chromium takes to open it.

The league is synthesized, not played: its matches table is written directly
(the schedule's rows, with made-up coins and places drawn from fixed bot
strengths), which is all `rank` and `report` read. Default: 6 bots at
4-player tables, 1,667 deals = 100,020 matches.

    python benchmarks/report_bench.py [--deals 1667] [--dir /tmp/bigleague]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from bohnarena.analysis.results import read_results
from bohnarena.league.schedule import schedule
from bohnarena.rating.stats import league_stats
from bohnarena.report.html import write_report
from bohnarena.store import manifest
from bohnarena.store.directory import RunDir
from bohnarena.store.logbook import LOG_FORMAT, MatchRow, matches_table

BOTS = {f"bot{i}": "random" for i in range(6)}


def synthesize(
    out: Path, deals: int, players: int = 4, seed: int = 1, batch: int = 0, moves: bool = False
) -> int:
    """The league's directory, committed in parts of ``batch`` matches (0:
    one part) as a run commits them; ``moves``: each part with a moves file
    (one record per match: what is read of it is its size)."""
    out.mkdir(parents=True)
    (out / "moves").mkdir()
    (out / "matches").mkdir()
    league = (
        f'name = "big"\nedition = "classic"\nplayers = {players}\ndeals = {deals}\n'
        f"seed = {seed}\n[bots]\n" + "".join(f'{k} = "{v}"\n' for k, v in BOTS.items())
    )
    (out / "league.toml").write_text(league)
    meta = {
        "log_format": LOG_FORMAT,
        "game": "bohnanza",
        "edition": "classic",
        "bohnarena": "x",
        "manifest": manifest.VERSION,
    }
    (out / "run.json").write_text(json.dumps(meta))
    (out / "manifest.jsonl").write_text(manifest.Manifest().text())  # (a run begins with one)
    rng = np.random.default_rng(seed)
    strength = {b: 1.0 + 0.1 * i for i, b in enumerate(BOTS)}
    rows: list[MatchRow] = []
    for m in schedule(list(BOTS), players, deals, seed):
        coins = [int(c) for c in rng.poisson([4 * strength[b] for b in m.seats])]
        order = sorted(range(players), key=lambda s: (-coins[s], s))
        ranks = [0] * players
        for place, s in enumerate(order, 1):
            ranks[s] = place
        rows.append(
            {
                "match_id": m.id,
                "table": m.table,
                "deal": m.deal,
                "rotation": m.rotation,
                "seed": m.seed,
                "seats": list(m.seats),
                "coins": coins,
                "ranks": ranks,
                "winners": [order[0]],
                "turns": int(rng.integers(30, 45)),
                "faults": [0] * players,
                "duration_s": float(rng.gamma(4, 0.004)),
            }
        )
    store = RunDir(out)
    batch = batch or len(rows)
    for i in range(0, len(rows), batch):
        part = rows[i : i + batch]
        ids = [r["match_id"] for r in part]
        records = pa.table({"match_id": pa.array(ids, pa.int64())}) if moves else None
        store.commit(ids[0], ids[-1], matches_table(part), records)
    return len(rows)


def chromium_seconds(page: Path, repeat: int = 3) -> float:
    """Median wall time of headless Chromium loading ``page`` and dumping its DOM."""
    times = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as profile:
            start = time.perf_counter()
            subprocess.run(
                [
                    "chromium",
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--disable-quic",
                    f"--user-data-dir={profile}",
                    "--dump-dom",
                    page.as_uri(),
                ],
                capture_output=True,
                check=True,
                timeout=120,
            )
            times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=1667)
    ap.add_argument("--dir", type=Path, default=None)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp())
    out = args.dir or work / "big"
    if not out.exists():
        start = time.perf_counter()
        n = synthesize(out, args.deals)
        print(f"synthesized {n:,} matches in {time.perf_counter() - start:.1f} s: {out}")
    t = time.perf_counter()
    r = read_results(out)
    print(f"read and audit: {time.perf_counter() - t:.1f} s ({r.matches.n:,} matches)")
    t = time.perf_counter()
    league_stats(r.matches)
    print(f"deal bootstrap, 1000 resamples: {time.perf_counter() - t:.2f} s")
    t = time.perf_counter()
    page = write_report(out, work / "report.html", results=r)
    took = time.perf_counter() - t
    print(
        f"report from the read results: {took:.1f} s (TrueSkill replayed once, the "
        f"bootstrap, the HTML), {page.stat().st_size / 1024:.0f} kB"
    )
    if shutil.which("chromium"):
        blank = work / "blank.html"
        blank.write_text("<!DOCTYPE html><title>x</title>")
        print(
            f"chromium --dump-dom: report {chromium_seconds(page):.2f} s, "
            f"an empty page {chromium_seconds(blank):.2f} s (median of 3)"
        )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
