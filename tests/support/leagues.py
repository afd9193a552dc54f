"""What many tests of a run share: a small league written to a temporary
directory (the `league` and `long_league` fixtures, registered by
tests/conftest.py), runs stopped or killed part-way, hostile bots, a
results directory resealed after an edit."""

import os
import signal
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

from bohnarena.store import manifest

HERE = Path(__file__).parent


@pytest.fixture
def league(tmp_path):
    """Write a league file; returns its path."""

    def make(name="t", edition="classic", players=3, deals=2, seed=5, bots=None, extra=""):
        bots = bots or {"trader": "trader", "planner": "planner", "random": "random"}
        lines = "\n".join(f'{k} = "{v}"' for k, v in bots.items())
        text = (
            textwrap.dedent(f"""\
            name = "{name}"
            edition = "{edition}"
            players = {players}
            deals = {deals}
            seed = {seed}
            """)
            + extra
            + f"\n[bots]\n{lines}\n"
        )
        path = tmp_path / f"{name}.toml"
        path.write_text(text)
        return path

    return make


#: A run long enough to stop, kill or fill a disk in the middle of: 300
#: matches in batches of 5 (about three seconds of play on two idle cores).
LONG_DEALS, LONG_MATCHES = 100, 300


def long_league(league):
    """The league of :data:`LONG_MATCHES` that stopping and resuming tests run."""
    return league(deals=LONG_DEALS, players=3, extra="[run]\nbatch_size = 5\n")


def run_until(path, out, matches: int, **kw):
    """Run a league until its follower has seen ``matches`` rows (one worker,
    no bar): (the run's summary, the rows followed, in id order)."""
    from bohnarena.run.dispatch import run_league

    seen: list = []
    summary = run_league(
        path,
        out,
        workers=kw.pop("workers", 1),
        progress=False,
        follow=seen.append,
        stop_when=lambda: len(seen) >= matches,
        **kw,
    )
    return summary, seen


def hostile(name: str) -> str:
    return f"{HERE / 'hostile_bots.py'}:{name}"


def reseal(out) -> None:
    """Record every part now in ``out`` in its manifest, as a run would have
    committed it: a test's way to make a state (a lost part, an errored
    match) that editing files alone would leave refused as edited, and a
    forger's way past the manifest (which replay --verify-all must catch)."""
    out = Path(out)
    entries = []
    names = {p.name for sub in manifest.TABLES for p in (out / sub).glob("part-*.parquet")}
    for name in sorted(names):  # (a moves file a compaction left has no matches file)
        half = {
            t: manifest.describe(out / t / name) if (out / t / name).exists() else None
            for t in manifest.TABLES
        }
        entries.append(manifest.Entry(name, half["matches"], half["moves"], timing=half["timing"]))
    path = out / manifest.NAME
    path.write_text(manifest.rewritten(manifest.parse(path.read_text()), entries).text())


def kill_9_when(cmd: list[str], out: Path, parts: int) -> None:
    """Start ``cmd`` (a run on ``out``) and SIGKILL it, workers and all,
    once ``out`` holds ``parts`` parts (or after a minute)."""
    proc = subprocess.Popen(
        cmd, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.time() + 60
    while time.time() < deadline and len(list((out / "matches").glob("part-*"))) < parts:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    # Its workers (forked: they share the results' lock) die a moment later
    # on a loaded machine; a run started before they are gone is refused.
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.02)


def bot_log(out, bot: str) -> str:
    """All ``bot``'s processes wrote to stderr in run ``out``: every worker's
    log of it (store/botlogs.py), the engine's line before each match too."""
    return "".join(p.read_text() for p in sorted((Path(out) / "bots" / bot).glob("*.log")))
