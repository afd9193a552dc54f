"""The ``process`` column of the threat table in docs/writing-a-bot.md (issue
22, part 7): what a bot run as a process of the organiser's user cannot do,
each claim tested here (or in test_hostile.py, named in the table)."""

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from bohnarena.run.dispatch import run_league
from bohnarena.run.execution import DaskBackend
from tests.hostile.test_sandbox import still_running
from tests.run.test_worker_death import charged
from tests.support.leagues import bot_log

HERE = Path(__file__).parent
BOTS = HERE / "process_bots.py"
SLOW = pytest.mark.slow


def a_league(tmp_path, bot, extra="", isolation="process", others=None):
    """Three seats, ``bot`` as ``isolation`` beside shipped bots."""
    others = others or {"planner": "planner", "random": "random"}
    path = tmp_path / "p.toml"
    path.write_text(
        'name = "p"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 5\n'
        f"{extra}[bots]\n"
        f'killer = {{ spec = "{BOTS}:{bot}", isolation = "{isolation}" }}\n'
        + "".join(f"{k} = {v if v.startswith('{') else repr(v)}\n" for k, v in others.items())
    )
    return path


def killer_log(out):
    return bot_log(out, "killer")


def killers_league(tmp_path, isolation):
    """The killer and three shipped bots (one table of three without it),
    batches of 4; the shipped bots as ``isolation``."""
    others = {k: f'{{ spec = "{k}", isolation = "{isolation}" }}' for k in ("planner", "random")}
    others["trader"] = f'{{ spec = "trader", isolation = "{isolation}" }}'
    return a_league(tmp_path, "KillsItsWorkerInSeatZero", "[run]\nbatch_size = 4\n", others=others)


@SLOW
def test_a_process_bot_that_kills_its_worker_costs_only_its_own_matches(tmp_path):
    """The worker dies as an in-process bot's would: its batch is played
    again carefully, and the bot whose call it was is charged (no other bot
    at its table could have sent the signal)."""
    out = tmp_path / "o"
    summary = run_league(killers_league(tmp_path, "inprocess"), out, workers=2, progress=False)
    assert summary.complete and not summary.errors and summary.played == 12
    rows = pq.read_table(out / "matches").to_pylist()
    guilty = {r["match_id"] for r in rows if r["seats"][0] == "killer"}
    assert len(guilty) == 3
    charged(out, guilty, "plant_second", "crash: its worker process died of signal SIGKILL")


@SLOW
def test_on_dask_a_process_bot_kills_the_batchs_process_and_beside_others_charges_nobody(tmp_path):
    """Every bot a process: on Dask the batch still plays in a process of its
    own (the killer kills that one, not the Dask worker: here the test's own
    process). The other bots at the table are processes that could have sent
    the signal too: those matches are errored, not charged; the rest played."""
    out = tmp_path / "o"
    backend = DaskBackend(workers=2, processes=False)
    summary = run_league(killers_league(tmp_path, "process"), out, progress=False, backend=backend)
    rows = pq.read_table(out / "matches").to_pylist()
    guilty = set(range(12)) - {r["match_id"] for r in rows}
    assert len(guilty) == 3 and all(r["seats"][0] != "killer" for r in rows)
    assert sorted(summary.errors) == [
        (
            i,
            f"the worker process died of signal SIGKILL playing match {i}, maybe by a process"
            " bot at the table",
        )
        for i in sorted(guilty)
    ]
    assert not [r for r in pq.read_table(out / "moves").to_pylist() if r["kind"] == "fault"]


@SLOW
def test_a_process_bot_that_stops_its_worker_is_charged_a_timeout(tmp_path):
    """SIGSTOP: the worker goes silent; heard, stopped, played again, and
    the bot whose call it was is charged (no other bot at the table could
    have sent the signal)."""
    limits = "[limits]\ndecision_seconds = 0.5\n"
    path = a_league(tmp_path, "StopsItsWorkerInSeatZero", "[run]\nbatch_size = 3\n" + limits)
    out = tmp_path / "o"
    summary = run_league(path, out, workers=2, progress=False)
    assert summary.complete and not summary.errors and summary.played == 3
    rows = pq.read_table(out / "matches").to_pylist()
    guilty = {r["match_id"] for r in rows if r["seats"][0] == "killer"}
    charged(out, guilty, "plant_second", "timeout: its worker went silent for 6.5 s")


def test_a_signal_a_process_bot_at_the_table_may_have_sent_charges_nobody_else():
    from bohnarena.referee.limits import Limits
    from bohnarena.run.supervise import BatchLost

    def lost(signalled, in_call=(1, 9)):
        return BatchLost("crash", "died of signal SIGKILL", in_call, 4, "", signalled)

    assert lost(True).verdict(Limits(), [2]) is None  # seat 2's process may have sent it
    assert lost(True).verdict(Limits(), [1])[:3] == (4, 1, 9)  # only seat 1's own could
    assert lost(False).verdict(Limits(), [2])[:3] == (4, 1, 9)  # an exit: the worker's own doing
    assert lost(True, None).verdict(Limits(), []) is None  # in no seat's call


def _peek(private):
    """Whether a process of the same (unprivileged) user reads the memory of
    a process that is ``private`` (not dumpable): "read", or the error."""
    from bohnarena.core.stopping import private_memory

    libc = ctypes.CDLL(None, use_errno=True)
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: an unprivileged user, a secret in its memory
        try:
            os.close(reader)
            if os.getuid() == 0:
                os.setgid(65534)
                os.setuid(65534)
                libc.prctl(4, 1, 0, 0, 0)  # dumpable, as an ordinary process (setuid cleared it)
            if private:
                private_memory()
            secret = ctypes.create_string_buffer(b"the draw pile, in order" * 100)
            peeker = os.fork()
            if peeker == 0:  # the bot: reads its parent's memory, traces it
                said = []
                try:
                    with open(f"/proc/{os.getppid()}/mem", "rb") as mem:
                        mem.seek(ctypes.addressof(secret))
                        got = mem.read(len(secret.raw))
                    said.append("read" if got == secret.raw else "garbled")
                except OSError as e:
                    said.append(e.strerror or str(e))
                # PTRACE_SEIZE: the permission PTRACE_ATTACH needs, without
                # stopping its parent (it is let go when this process ends)
                if libc.ptrace(0x4206, os.getppid(), 0, 0) == 0:
                    said.append("traced")
                else:
                    said.append(os.strerror(ctypes.get_errno()))
                os.write(writer, "|".join(said).encode())
                os._exit(0)
            os.waitpid(peeker, 0)
        finally:
            os._exit(0)
    os.close(writer)
    with os.fdopen(reader) as f:
        said = f.read()
    os.waitpid(pid, 0)
    return said.split("|")


def _yama():
    try:
        return int(Path("/proc/sys/kernel/yama/ptrace_scope").read_text())
    except OSError:
        return 0


def test_the_memory_of_a_private_process_is_closed_to_other_processes_of_its_user():
    """Without Yama's ptrace restrictions a process of the same user reads
    (and traces) a dumpable process; not one made private. (Root reads
    every process: the test drops to ``nobody`` for both.)"""
    if _yama() == 0:
        assert _peek(private=False) == ["read", "traced"]
    read, traced = _peek(private=True)
    assert read == "Permission denied" and traced == "Operation not permitted"


@SLOW
@pytest.mark.parametrize("has_process_bot", [True, False])
def test_the_workers_of_a_league_with_process_bots_are_private(tmp_path, has_process_bot):
    """Private where a bot runs as a process of the user; where none does,
    the workers stay open to the organiser's tools (py-spy, gdb)."""
    other = '{ spec = "planner", isolation = "process" }' if has_process_bot else '"planner"'
    path = tmp_path / "p.toml"
    path.write_text(
        'name = "p"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 5\n[bots]\n'
        f'noter = "{BOTS}:NotesWhetherDumpable"\nrandom = "random"\nother = {other}\n'
    )
    out = tmp_path / "o"
    # (a run of its own: a process that started a process bot stays private)
    command = [sys.executable, "-m", "bohnarena", "run", str(path), "--out", str(out), "-j", "2"]
    assert subprocess.run(command, capture_output=True).returncode == 0
    moves = pq.read_table(out / "moves").to_pylist()
    notes = {r["note"] for r in moves if r["kind"] == "note"}
    assert notes == {f"dumpable {0 if has_process_bot else 1}"}


@SLOW
def test_a_process_bot_keeps_no_module_state_from_one_match_to_the_next(tmp_path):
    out = tmp_path / "o"
    run_league(a_league(tmp_path, "RemembersInModule"), out, workers=1, progress=False)
    assert "GOT" not in killer_log(out)


@SLOW
def test_a_process_bots_children_in_its_session_end_with_its_match(tmp_path):
    out = tmp_path / "o"
    assert run_league(a_league(tmp_path, "SpawnsInItsSession"), out, workers=1, progress=False)
    assert not still_running("sleep 4246")


@SLOW
def test_a_process_bots_files_are_capped(tmp_path):
    out = tmp_path / "o"
    path = a_league(tmp_path, "WritesBigFile", "[limits]\noutput_kb = 64\n")
    run_league(path, out, workers=1, progress=False)
    log = killer_log(out)
    assert "GOT" not in log and f"capped at {16 * 64 * 1024} bytes: File too large" in log
