"""What the ladder's site serves (issue 46): requests a second and the
99th percentile of latency for the standings page, an entry page and a
viewer page, with 1, 10 and 50 clients at once on loopback, on a ladder of
200 entries, while idle and while a run is in progress.

    python benchmarks/site_bench.py                         # 200 entries, 1/10/50 clients
    python benchmarks/site_bench.py --repeat 3 --requests 400 --seconds 20
    python benchmarks/site_bench.py --entries 8 --clients 1,2 --requests 20   # a smoke run

The ladder is made as a season's would be, only faster: ``ladder init``, its
entries put in the catalog as active versions of one random bot (each its
own directory under bots/, as submitted ones are: no check is what is
measured), then one real ``ladder run`` (one deal),
whose rating history, results and move logs the pages read (its bots
played in process: the matches are not what is measured); the season's
seed is revealed so that the viewer pages are served. The server is a real
uvicorn in a process of its own (``make_app``, as ``ladder serve`` runs it
without its player). "During a run" a second process rewrites the
ladder's live.json ten times a second with 200 standings, as a run's
standings watcher does (at most once a second) but more often, and burns
one core, as a run's worker would: the site shares the machine with it.

Each client is a thread with its own keep-alive http.client connection,
sending GETs one after another; a level stops after --requests requests
in all or --seconds, whichever comes first. Printed: each page at each
number of clients, the median over --repeat of requests a second and of
p99 latency in ms.
"""

from __future__ import annotations

import argparse
import http.client
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bohnarena.cli import cli

BOT = "from bohnarena_bots.random_bot import RandomBot\n\n\nclass Entry(RandomBot):\n    pass\n"

SERVER = """import sys, uvicorn
from bohnarena.site.app import make_app
uvicorn.run(make_app(sys.argv[1]), host="127.0.0.1", port=int(sys.argv[2]),
            log_level="warning", access_log=False)
"""

#: A run in progress, as the site sees one: live.json rewritten, a core busy.
RUNNING = """import sys, time
from pathlib import Path
from bohnarena.ladder.live import Writer
from bohnarena.rating.skill import BotStanding
ladder, n, until = Path(sys.argv[1]), int(sys.argv[2]), time.monotonic() + float(sys.argv[3])
rows = [BotStanding(f"e{i:03d}.x", 25.0 - i / 10, 2.0) for i in range(n)]
w = Writer(ladder)
next_write = 0.0
while (now := time.monotonic()) < until:
    if now >= next_write:
        w.update(n, 2 * n, rows)
        next_write = now + 0.1
    sum(i * i for i in range(20000))  # a worker's share of the machine
w.close()
"""


def invoke(*args: object) -> None:
    from click.testing import CliRunner

    r = CliRunner().invoke(cli, [str(a) for a in args])
    if r.exit_code != 0:
        raise SystemExit(f"bohnarena {' '.join(map(str, args))} failed: {r.output}")


def build(ladder: Path, entries: int, workers: int) -> tuple[str, int]:
    """A played ladder of ``entries`` active versions, revealed: (an entry,
    a match) whose pages are measured."""
    from bohnarena.ladder.catalog import Catalog
    from bohnarena.ladder.submission import bot_dir
    from bohnarena.run.verify import reveal

    invoke("ladder", "init", ladder)
    text = (ladder / "ladder.toml").read_text().replace("deals = 10 ", "deals = 1 ")
    (ladder / "ladder.toml").write_text(
        text.replace('isolation = "sandbox"', 'isolation = "process"')
    )
    catalog = Catalog(ladder)
    try:
        for i in range(entries):
            digest = f"{i:032x}"
            home = bot_dir(ladder, digest)
            home.mkdir(parents=True)
            (home / "entry.py").write_text(BOT)
            entry = {"file": "entry.py", "attr": "Entry"}
            catalog.activate(catalog.add(f"e{i:03d}", digest, "file", entry, "entry.py", "bench"))
    finally:
        catalog.close()
    from bohnarena.ladder import season

    table = season.bot_table  # the bots played in process: their matches are not measured
    season.bot_table = lambda *a: {**table(*a), "isolation": "inprocess"}  # type: ignore[assignment]
    try:
        invoke("ladder", "run", ladder, "--no-progress", "-j", workers)
    finally:
        season.bot_table = table
    reveal(ladder / "results")
    return "e000", 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(ladder: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(ladder), str(port)])
    deadline = time.monotonic() + 30
    while True:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/static/site.css")
            if c.getresponse().status == 200:
                c.close()
                return server, port
        except OSError:
            pass
        if server.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the server did not start")
        time.sleep(0.1)


def level(port: int, path: str, clients: int, requests: int, seconds: float) -> tuple[float, float]:
    """``clients`` threads GETting ``path``: (requests a second, p99 in ms)."""
    latencies: list[float] = []
    lock, left = threading.Lock(), [requests]
    until = time.monotonic() + seconds
    failed: list[str] = []

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            while time.monotonic() < until:
                with lock:
                    if left[0] <= 0:
                        return
                    left[0] -= 1
                t = time.perf_counter()
                conn.request("GET", path)
                r = conn.getresponse()
                r.read()
                took = time.perf_counter() - t
                if r.status != 200:
                    failed.append(f"{path}: {r.status}")
                    return
                with lock:
                    latencies.append(took)
        finally:
            conn.close()

    warm = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    warm.request("GET", path)  # (a page's first request fills the site's caches)
    warm.getresponse().read()
    warm.close()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    if failed or not latencies:
        raise SystemExit(f"requests failed: {failed[:3]}")
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
    return len(latencies) / wall, p99 * 1000


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--entries", type=int, default=200)
    p.add_argument("--clients", default="1,10,50", help="numbers of clients at once")
    p.add_argument("--requests", type=int, default=300, help="most requests a level")
    p.add_argument("--seconds", type=float, default=15.0, help="most seconds a level")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("-j", "--workers", type=int, default=2, help="the ladder run's workers")
    a = p.parse_args()
    counts = [int(c) for c in a.clients.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        ladder = Path(tmp) / "ladder"
        started = time.perf_counter()
        entry, match = build(ladder, a.entries, a.workers)
        print(f"{a.entries} entries played in {time.perf_counter() - started:.0f} s")
        pages = {"standings": "/", "entry": f"/entries/{entry}", "viewer": f"/matches/{match}"}
        server, port = start(ladder)
        try:
            for busy in (False, True):
                bench(ladder, port, pages, counts, a, busy)
        finally:
            server.terminate()
            server.wait(10)


def bench(ladder: Path, port: int, pages: dict[str, str], counts: list[int], a, busy: bool) -> None:
    runner = None
    if busy:  # long enough for every level; ended below in any case
        most = a.repeat * len(pages) * len(counts) * a.seconds + 60
        runner = subprocess.Popen(
            [sys.executable, "-c", RUNNING, str(ladder), str(a.entries), str(most)]
        )
        while not (ladder / "live.json").exists():
            time.sleep(0.05)
    print(f"\n{'during a run' if busy else 'idle'}: requests/s, p99 ms (median of {a.repeat})")
    try:
        for name, path in pages.items():
            cells = []
            for n in counts:
                runs = [level(port, path, n, a.requests, a.seconds) for _ in range(a.repeat)]
                rate = statistics.median(r for r, _ in runs)
                p99 = statistics.median(q for _, q in runs)
                cells.append(f"{n:>3} clients {rate:7.1f}/s {p99:7.1f} ms")
            print(f"  {name:<9} " + " | ".join(cells))
    finally:
        if runner is not None:
            runner.terminate()
            runner.wait(10)
            (ladder / "live.json").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
