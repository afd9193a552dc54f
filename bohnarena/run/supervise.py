"""A batch played in a fresh interpreter and watched from outside, and the
diagnostic play that finds whose call killed or hung a worker.

In-process bots run in the worker: one that dies (``os._exit``, a
segfault) or hangs (a silenced watchdog, a C call that never returns)
takes the worker with it, and so may a ``process`` bot that signals it.
The runner then plays that batch again carefully
(:func:`bohnarena.run.worker.play_carefully`): in a fresh process
(:func:`watched`) whose every bot call is noted in its pulse before it is
made (:class:`Probed`), and which sends each match's result as it ends. A
match that dies again tells whose call it was; the rest of the batch is
played in a fresh process, that match first, with that seat's verdict: the
call is not made, the seat is charged its ``crash`` (or ``timeout``) fault
and forfeits, and the match ends with a proper result, the same on every
rerun. A death that no seat's call surely explains errors that match alone.
"""

from __future__ import annotations

import io
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any

from ..core.botapi import Budget, Clock, PairAnswers, Seat
from ..core.errors import BohnarenaError
from ..core.faults import CRASH, TIMEOUT
from ..core.game import MatchResult
from ..external.sandbox.zygote import describe_exit
from ..referee.limits import Limits
from ..referee.pulse import Listener, Pulse, quiet_seconds

#: How often the parent looks at a watched process's pulse.
LOOK_SECONDS = 0.5
#: How long the output of a process that ended may be held open by a
#: process a bot started in a session of its own (it inherited it).
STRAY_SECONDS = 2.0

#: (match id, seat, call, fault): when that match is played again, that
#: seat's call number ``call`` is not made; the fault is charged instead,
#: and the seat forfeits.
Verdict = tuple[int, int, int, str]


class BatchLost(BohnarenaError):
    """A watched batch's process died (``how`` = ``crash``) or was stopped
    for going silent (``timeout``: fault types, faults.py) while playing ``match``; ``in_call`` is
    whose call was in progress, (seat, call), when a diagnostic play noted
    it. ``signalled``: another process may have done it (it died of a
    signal, or went silent because a signal stopped it). ``silence``: how
    it was silent (the listener's words), when it was stopped."""

    def __init__(
        self,
        how: str,
        ended: str,
        in_call: tuple[int, int] | None,
        match: int | None,
        said: str,
        signalled: bool,
        silence: str = "",
    ) -> None:
        super().__init__(how, ended, in_call, match, said, signalled, silence)
        self.how, self.ended, self.in_call, self.match = how, ended, in_call, match
        self.said, self.signalled, self.silence = said, signalled, silence

    def __str__(self) -> str:
        where = "" if self.match is None else f" playing match {self.match}"
        said = f": {self.said}" if self.said else ""
        return f"the worker process {self.ended}{where}{said}"[:500]

    def verdict(self, limits: Limits, signallers: Collection[int] = ()) -> Verdict | None:
        """The verdict for the seat whose call it was; None when it was in
        no seat's call, or when it may have come from a bot of another seat
        (``signallers``: seats whose bot is a process of the organiser's
        user, which may signal the worker whenever it likes)."""
        if self.in_call is None or self.match is None:
            return None
        seat, call = self.in_call
        if self.signalled and any(s != seat for s in signallers):
            return None
        if self.how == TIMEOUT:
            silence = self.silence or f"for {quiet_seconds(limits):g} s"
            fault = (
                f"{TIMEOUT}: its worker went silent {silence} in this call; given up for this match"
            )
        else:
            fault = f"{CRASH}: its worker process {self.ended} in this call"
        return self.match, seat, call, fault


def supervised(task: Any) -> Any:
    """``task`` played by a fresh interpreter (not multiprocessing: a Dask
    worker's process may be a daemon, which may not have children), and its
    result; raises :class:`BatchLost` when that process dies, or goes
    silent for longer than the task's limits allow and is stopped."""
    results, lost = watched(task)
    if lost is not None:
        raise lost
    return results[0]


def watched(task: Any) -> tuple[list[Any], BatchLost | None]:
    """What a fresh interpreter playing ``task`` sent back (a diagnostic
    play sends each match's result as it ends) before it ended, and how it
    was lost if it was: it died, or its pulse went silent (on this
    process's clock) for longer than the task's limits allow and it was
    stopped."""
    with tempfile.TemporaryFile() as shared:
        fd = shared.fileno()
        listener = Listener(Pulse.in_file(fd))
        # (-c, not -m: the result's classes must pickle as bohnarena.run.worker's, not __main__'s)
        proc = subprocess.Popen(
            [sys.executable, "-c", f"from bohnarena.run.worker import serve_one; serve_one({fd})"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(fd,),
            start_new_session=True,  # what its bots start is stopped with it
        )
        hung = stopped = False
        data: bytes | None = pickle.dumps(task)
        ended: float | None = None
        try:
            while True:
                try:
                    out, err = proc.communicate(data, timeout=LOOK_SECONDS)
                    break
                except subprocess.TimeoutExpired as wait:
                    data = None  # (sent: communicate() goes on with the rest)
                    if proc.poll() is not None:  # ended, its output held open by a stray
                        _stop_group(proc.pid)
                        ended = ended or time.monotonic()
                        if time.monotonic() - ended > STRAY_SECONDS:  # one that escaped the group
                            out, err = wait.output or b"", wait.stderr or b""
                            break
                    elif listener.stalled():
                        hung, stopped = True, _stopped(proc.pid)
                        proc.kill()
        finally:
            if proc.poll() is None:  # e.g. Ctrl-C in the parent
                proc.kill()
                proc.wait()
            _stop_group(proc.pid)
            for pipe in (proc.stdin, proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
        results = _unpickled(out)
        whole = len(results) == (1 if task.verdicts is None else len(task.matches))
        if not hung and proc.returncode == 0 and whole:
            return results, None
        pulse = listener.pulse
        tail = err.decode(errors="replace").strip().splitlines()[-1:]
        lost = BatchLost(
            TIMEOUT if hung else CRASH,
            f"went silent {listener.silence} and was stopped"
            if hung
            else describe_exit(proc.returncode),
            pulse.in_call(),
            pulse.match,
            "" if hung or not tail else tail[0],
            stopped if hung else proc.returncode < 0,
            listener.silence if hung else "",
        )
        return results, lost


def _stopped(pid: int) -> bool:
    """Is process ``pid`` stopped (SIGSTOP, or traced) rather than running?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] in ("T", "t")


def _unpickled(out: bytes) -> list[Any]:
    """The whole pickles in ``out``, one after the other."""
    stream, results = io.BytesIO(out), []
    while stream.tell() < len(out):
        try:
            results.append(pickle.load(stream))
        except (EOFError, pickle.UnpicklingError):  # the last, cut short by a death
            break
    return results


def _stop_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Probed:
    """A seat in a diagnostic play: each call it makes is noted in the
    process's pulse first (seat, call number), so that the parent knows
    whose call a death or a hang came in; the call its verdict names is not
    made (the process died in it before): the verdict's fault is charged
    instead, and the seat forfeits. Anything else goes to the seat itself."""

    def __init__(
        self, seat: Seat, index: int, pulse: Pulse, verdict: tuple[int, str] | None
    ) -> None:
        self.inner, self.index, self.pulse = seat, index, pulse
        self.verdict = verdict
        self.calls = 0
        self.dead = False
        self.asks: frozenset[str] = frozenset()

    # What the seat itself declares, as it says it.
    @property
    def limits(self) -> Budget | None:
        return self.inner.limits

    @property
    def spent(self) -> float:
        return self.inner.spent

    @property
    def match_id(self) -> int | None:
        return self.inner.match_id

    @property
    def notes(self) -> list[Any] | None:
        return self.inner.notes

    @property
    def times(self) -> list[float] | None:
        return self.inner.times

    @property
    def clock(self) -> Clock | None:
        return self.inner.clock

    @property
    def pairs(self) -> bool:
        return self.inner.pairs

    def close(self) -> None:
        self.inner.close()

    def _enter(self) -> str | None:
        """Before a call: the verdict's fault if it is the fatal one, else None
        (the call is noted)."""
        self.calls += 1
        verdict = self.verdict
        if verdict is not None and verdict[0] == self.calls:
            self.dead = True
            self.inner.close()  # a bot process: ended unasked
            return verdict[1]
        self.pulse.enter(self.index, self.calls)
        return None

    def start(self, seat: int, rules: Any, seed: int) -> str | None:
        fault = self._enter()
        if fault is None:
            try:
                fault = self.inner.start(seat, rules, seed)
            finally:
                self.pulse.leave()
            self.asks = self.inner.asks
        return fault

    def decide(self, kind: str, view: Any, args: tuple[Any, ...]) -> tuple[Any, str | None]:
        fault = self._enter()
        if fault is not None:
            return None, fault
        try:
            return self.inner.decide(kind, view, args)
        finally:
            self.pulse.leave()

    def decide_pair(self, first: str, then: str, view: Any, args: tuple[Any, ...]) -> PairAnswers:
        fault = self._enter()
        if fault is not None:
            return (None, fault), None
        try:
            return self.inner.decide_pair(first, then, view, args)
        finally:
            self.pulse.leave()

    def forfeits(self, faults: int) -> bool:
        return self.dead or self.inner.forfeits(faults)

    def end(self, result: MatchResult) -> str | None:
        if self.dead:
            return None
        fault = self._enter()
        if fault is not None:
            return fault
        try:
            return self.inner.end(result)
        finally:
            self.pulse.leave()


def probed(
    seats: list[Seat], pulse: Pulse, match_id: int, verdicts: tuple[Verdict, ...]
) -> list[Seat]:
    """``seats`` of match ``match_id`` for a diagnostic play, each with its
    verdict if it has one."""
    given = {v[1]: (v[2], v[3]) for v in verdicts if v[0] == match_id}
    return [Probed(s, i, pulse, given.get(i)) for i, s in enumerate(seats)]
