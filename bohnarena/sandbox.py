"""A bot in its own OS process, spoken to in JSON lines (any game).

Limits: address space (``setrlimit(RLIMIT_AS)``), the size of files it
writes (``RLIMIT_FSIZE``, which caps its stderr log), the size of one
message on stdout, and a timeout per request. The process runs in its own
session so that killing it kills whatever it started.
"""

from __future__ import annotations

import json
import os
import resource
import selectors
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from .limits import Limits

LOG_CAP_FACTOR = 16


class BotFault(Exception):
    """A typed failure of a bot process: crash, timeout, broken_pipe,
    oversized or malformed. ``str()`` is ``"kind: detail"``."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(kind, detail)
        self.kind, self.detail = kind, detail

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"[:300]


class BotProcess:
    def __init__(self, command: Sequence[str], limits: Limits, log: Path | None = None,
                 cwd: str | None = None) -> None:
        self.command, self.limits, self.log, self.cwd = list(command), limits, log, cwd
        self.popen: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self._stderr: IO[bytes] | None = None

    def start(self) -> None:
        limits = self.limits
        memory = limits.memory_mb * 1024 * 1024
        output = limits.output_kb * 1024

        def confine() -> None:  # runs in the child, before exec
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            resource.setrlimit(resource.RLIMIT_FSIZE, (output, output))

        if self.log is not None:
            # This match's stderr; appended to the bot's log when the process ends.
            self.log.parent.mkdir(parents=True, exist_ok=True)
            self._stderr = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed in close())
                dir=self.log.parent, prefix=f".{self.log.name}.", suffix=".tmp")
        try:
            self.popen = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=self._stderr if self._stderr is not None else subprocess.DEVNULL,
                preexec_fn=confine, start_new_session=True, cwd=self.cwd)
        except OSError as e:
            self.close()
            raise BotFault("crash", f"cannot start {self.command[0]}: {e.strerror or e}") from None

    def send(self, msg: dict[str, Any]) -> None:
        assert self.popen is not None and self.popen.stdin is not None
        try:
            self.popen.stdin.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
            self.popen.stdin.flush()
        except (BrokenPipeError, OSError):
            raise BotFault("broken_pipe", self._exit_detail()) from None

    def request(self, msg: dict[str, Any], timeout: float) -> tuple[dict[str, Any], float]:
        """Send ``msg``, read one reply line; returns (reply, seconds waited)."""
        start = time.perf_counter()
        self.send(msg)
        line = self._read_line(start + timeout)
        took = time.perf_counter() - start
        try:
            reply = json.loads(line)
        except ValueError:
            raise BotFault("malformed", f"not JSON: {line[:80]!r}") from None
        if not isinstance(reply, dict):
            raise BotFault("malformed", f"not a JSON object: {line[:80]!r}")
        return reply, took

    def _read_line(self, deadline: float) -> bytes:
        assert self.popen is not None and self.popen.stdout is not None
        out = self.popen.stdout
        cap = self.limits.output_kb * 1024
        with selectors.DefaultSelector() as sel:
            sel.register(out, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                if len(self._buffer) > cap:
                    raise BotFault("oversized", f"a message over {self.limits.output_kb} KB")
                left = deadline - time.perf_counter()
                if left <= 0 or not sel.select(left):
                    raise BotFault("timeout", "no answer in time")
                chunk = os.read(out.fileno(), 65536)
                if not chunk:
                    raise BotFault("crash", self._exit_detail())
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        if len(line) > cap:
            raise BotFault("oversized", f"a message over {self.limits.output_kb} KB")
        return line

    def _exit_detail(self) -> str:
        assert self.popen is not None
        try:
            code = self.popen.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "the bot closed its output"
        if code < 0:
            return f"the bot process died of signal {signal.Signals(-code).name}"
        return f"the bot process exited with code {code}"

    def close(self) -> None:
        p, self.popen = self.popen, None
        if p is not None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
            for stream in (p.stdin, p.stdout):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:
                        pass
        if self._stderr is not None:
            self._keep_stderr(self._stderr)
            self._stderr.close()  # deletes the temporary file
            self._stderr = None

    def _keep_stderr(self, tmp: IO[bytes]) -> None:
        """Append this process's stderr to the bot's log, which stops growing
        at LOG_CAP_FACTOR times the output limit."""
        assert self.log is not None
        tmp.seek(0)
        text = tmp.read()
        cap = LOG_CAP_FACTOR * self.limits.output_kb * 1024
        size = self.log.stat().st_size if self.log.exists() else 0
        if text and size < cap:
            with open(self.log, "ab") as log:  # one write: whole chunks from each process
                log.write(f"--- {' '.join(self.command)} (pid {os.getpid()})\n".encode()
                          + text[:cap - size] + b"\n")
