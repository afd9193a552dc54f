"""An in-process bot that kills or hangs its worker costs its own matches
only (issue 22, part 5): the batch is played again match by match, every
bystander gets its normal result, and the match that killed the worker
charges the seat whose call it was (``crash`` or ``timeout``, a forfeit,
a proper result), the same on every rerun."""

import os
import signal
import subprocess
import sys

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from bohnarena.run.dispatch import run_league
from bohnarena.run.execution import DaskBackend
from tests.support.leagues import hostile

from .test_run import content

HONEST = {"planner": "planner", "random": "random", "trader": "trader"}


def rows_of(out):
    return {r["match_id"]: r for r in pq.read_table(out / "matches").to_pylist()}


def records(out, kind):
    moves = pq.read_table(out / "moves").to_pylist()
    return [r for r in moves if r["kind"] == kind]


def without(tables, ids):
    """The matches and moves tables of a run, less the matches ``ids``."""
    keep = [pc.invert(pc.is_in(t["match_id"], pa_ids(ids))) for t in tables]
    return [t.filter(k) for t, k in zip(tables, keep, strict=True)]


def pa_ids(ids):
    import pyarrow as pa

    return pa.array(sorted(ids), pa.int64())


def a_league(league, bot, extra=""):
    """Three seats, four bots (one table of three is honest only), batches of 4."""
    return league(
        bots={**HONEST, "killer": hostile(bot)}, deals=1, extra="[run]\nbatch_size = 4\n" + extra
    )


def one_table(league, bot, extra=""):
    """Three bots, one table of three seats: its three matches in one batch."""
    return league(
        bots={"planner": "planner", "killer": hostile(bot), "random": "random"},
        deals=1,
        extra="[run]\nbatch_size = 3\n" + extra,
    )


def charged(out, guilty, decision, text):
    """In each ``guilty`` match the killer alone has one fault, ``text``
    at ``decision``, and it forfeits (ranked last); no other seat anywhere
    has a fault."""
    rows = rows_of(out)
    faults = {(r["match_id"], r["seat"]): r for r in records(out, "fault")}
    forfeits = {(r["match_id"], r["seat"]) for r in records(out, "forfeit")}
    expected = {(i, rows[i]["seats"].index("killer")) for i in guilty}
    assert set(faults) == forfeits == expected
    for (i, seat), f in faults.items():
        assert f["decision"] == decision and f["text"].startswith(text), f
        assert rows[i]["faults"][seat] == 1 and rows[i]["ranks"][seat] == len(rows[i]["seats"])
        assert sum(rows[i]["faults"]) == 1


@pytest.mark.slow
def test_a_worker_killed_by_its_bot_costs_the_bot_its_match_and_nothing_more(league, tmp_path):
    """The quick one: three matches in one batch, the bot dies in one."""
    path = one_table(league, "ExitInSeatZero")
    out = tmp_path / "o"
    summary = run_league(path, out, workers=1, progress=False)
    assert summary.complete and not summary.errors and summary.played == 3
    guilty = {i for i, r in rows_of(out).items() if r["seats"][0] == "killer"}
    charged(out, guilty, "plant_second", "crash: its worker process exited with code 3")


@pytest.mark.slow
@pytest.mark.parametrize(
    "bot,seat,decision,text,calm",
    [
        (
            "ExitInSeatZero",
            0,
            "plant_second",
            "crash: its worker process exited with code 3",
            hostile("SameButNeverExits"),
        ),
        (
            "ExitZeroInSeatOne",
            1,
            "plant_second",
            "crash: its worker process exited with code 0",
            hostile("SameButNeverExits"),
        ),
        (
            "ExitAtStartInSeatOne",
            1,
            "start",
            "crash: its worker process exited with code 4",
            "bohnarena.bohnanza:Bot",
        ),
        (
            "ExitInConstructor",
            None,
            "start",
            "crash: its worker process exited with code 5",
            "bohnarena.bohnanza:Bot",
        ),
    ],
)
def test_a_bot_that_kills_its_worker_costs_only_its_own_matches(
    league, tmp_path, bot, seat, decision, text, calm
):
    path = a_league(league, bot)
    out = tmp_path / "a"
    summary = run_league(path, out, workers=2, progress=False)
    assert summary.complete and not summary.errors and summary.played == summary.total == 12
    rows = rows_of(out)
    guilty = {
        i
        for i, r in rows.items()
        if "killer" in r["seats"] and seat in (None, r["seats"].index("killer"))
    }
    assert guilty and len(guilty) < 12 and any("killer" not in r["seats"] for r in rows.values())
    charged(out, guilty, decision, text)
    # Every other match is the one a run without the deaths plays.
    calm = league(
        name="calm", bots={**HONEST, "killer": calm}, deals=1, extra="[run]\nbatch_size = 4\n"
    )
    run_league(calm, tmp_path / "calm", workers=2, progress=False)
    a, b = without(content(out), guilty), without(content(tmp_path / "calm"), guilty)
    assert a[0].equals(b[0]) and a[1].equals(b[1])
    # The same league again: the same results, byte for byte.
    again = run_league(path, tmp_path / "b", workers=2, progress=False)
    assert again.complete
    a, b = content(out), content(tmp_path / "b")
    assert a[0].equals(b[0]) and a[1].equals(b[1])
    assert (out / "ranking.csv").read_bytes() == (tmp_path / "b" / "ranking.csv").read_bytes()
    logged = (out / "run.log").read_text()
    assert (
        "played again carefully, match by match" in logged
        and "played again with that seat charged" in logged
    )


@pytest.mark.slow
def test_a_stray_that_keeps_the_workers_output_open_does_not_hold_up_the_league(league, tmp_path):
    """The bot starts a process in a session of its own (it inherits the
    worker's output), then kills its worker: the careful play does not wait
    for that process to end."""
    out = tmp_path / "o"
    try:
        summary = run_league(one_table(league, "StrayThenExitInSeatZero"), out, progress=False)
        assert summary.complete and not summary.errors and summary.played == 3
    finally:
        strays = subprocess.run(["pgrep", "-f", "sleep 4247"], capture_output=True, text=True)
        for pid in strays.stdout.split():
            os.kill(int(pid), signal.SIGKILL)
    guilty = {i for i, r in rows_of(out).items() if r["seats"][0] == "killer"}
    charged(out, guilty, "plant_second", "crash: its worker process exited with code 3")


@pytest.mark.slow
def test_a_death_in_no_bots_call_errors_only_that_match(league, tmp_path):
    """The bot dies as the engine drops it, after its match: no seat's call
    explains it, so that match is errored; its bystanders are played."""
    path = one_table(league, "ExitWhenDropped")
    out = tmp_path / "o"
    summary = run_league(path, out, workers=1, progress=False)
    rows = rows_of(out)
    ((dead, reason),) = summary.errors
    assert set(rows) == {0, 1, 2} - {dead} and all(r["seats"][0] != "killer" for r in rows.values())
    assert not records(out, "fault")
    assert "exited with code 6" in reason and "in no bot's call" in reason


def test_a_pulse_is_judged_on_the_listeners_clock():
    from bohnarena.referee.pulse import Listener, Pulse

    pulse = Pulse(bytearray(64))
    ear = Listener(pulse)
    assert not ear.stalled(now=0.0)  # between batches: nobody beats
    pulse.cells[4] = 2000  # QUIET: 2 s
    pulse.playing(7)
    assert not ear.stalled(now=100.0)  # first heard
    assert not ear.stalled(now=101.9)
    assert ear.stalled(now=102.1)
    pulse.cells[0] += 1  # a beat
    assert not ear.stalled(now=102.2) and not ear.stalled(now=104.1)
    assert ear.stalled(now=104.3)
    pulse.end()
    assert not ear.stalled(now=200.0)


def test_a_call_past_its_deadline_without_a_tick_is_heard_at_once():
    """A minute's silence is allowed, yet a call 1 s past its deadline with
    no tick since is stalled: the watchdog was silenced (or C code holds it
    off). One that still ticks (interrupting a bot that swallows it) is not."""
    from bohnarena.referee.pulse import BEAT, DUE, HEARD, QUIET, Listener, Pulse

    pulse = Pulse(bytearray(64))
    ear = Listener(pulse)
    pulse.cells[QUIET] = 60_000
    pulse.playing(0)
    pulse.times[DUE] = 100.0  # a call due at 100 s (of time.monotonic())
    assert not ear.stalled(now=99.0) and not ear.stalled(now=100.9)
    assert ear.stalled(now=101.1) and ear.silence == "for 1 s past the deadline"
    pulse.times[HEARD], pulse.cells[BEAT] = 100.8, pulse.cells[BEAT] + 1  # it ticks on
    assert not ear.stalled(now=101.7)
    assert ear.stalled(now=101.9)
    pulse.times[DUE] = 0.0  # the call ended: only the minute's silence counts
    assert not ear.stalled(now=150.0) and ear.stalled(now=161.8)
    assert ear.silence == "for 60 s"


@pytest.mark.slow
def test_a_bot_that_silences_the_watchdog_and_loops_costs_only_its_match(league, tmp_path):
    """It stops the watchdog's timer, ignores SIGALRM and loops: the parent
    hears its worker go silent, stops it, and the match records the bot's
    timeout; the league ends in bounded time."""
    path = one_table(league, "SilenceWatchdogInSeatZero", "[limits]\ndecision_seconds = 0.5\n")
    out = tmp_path / "o"
    proc = subprocess.Popen(
        [sys.executable, "-m", "bohnarena", "run", str(path), "--out", str(out), "-j", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        output, _ = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("the league did not end")
    assert proc.returncode == 0, output.decode()
    rows = rows_of(out)
    assert set(rows) == {0, 1, 2}
    guilty = {i for i, r in rows.items() if r["seats"][0] == "killer"}
    assert len(guilty) == 1
    charged(
        out,
        guilty,
        "plant_second",
        "timeout: its worker went silent for 1 s past the deadline in this call",
    )


@pytest.mark.slow
def test_on_dask_a_bot_that_kills_its_worker_costs_only_its_own_matches(league, tmp_path):
    path = a_league(league, "ExitInSeatZero")
    local = run_league(path, tmp_path / "local", workers=2, progress=False)
    backend = DaskBackend(workers=2, processes=False)
    out = tmp_path / "dask"
    summary = run_league(path, out, progress=False, backend=backend)
    assert summary.complete and not summary.errors and summary.played == local.played
    a, b = content(tmp_path / "local"), content(out)
    assert a[0].equals(b[0]) and a[1].equals(b[1])
