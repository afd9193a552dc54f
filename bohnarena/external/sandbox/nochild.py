"""A seccomp filter that forbids a process to start new processes (threads
stay allowed). Installed in a sandboxed Python bot's process before the
bot's code runs: no fork bomb, nothing that outlives the match.

Only for the architectures listed; elsewhere :func:`forbid_new_processes`
returns False and the sandbox relies on its other walls.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct
from functools import cache
from typing import Any

# syscall numbers: fork, vfork, clone, clone3, sched_setaffinity (None: the
# architecture has no such call)
_CALLS = {
    "x86_64": (0xC000003E, 57, 58, 56, 435, 203),
    "aarch64": (0xC00000B7, None, None, 220, 435, 122),
}
_X32 = 0x40000000  # x86-64's x32 calls: another number for every call above
_CLONE_THREAD = 0x00010000
_ALLOW, _ERRNO, _KILL = 0x7FFF0000, 0x00050000, 0x00000000
_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2


def _program(
    arch: int, fork: int | None, vfork: int | None, clone: int, clone3: int, affinity: int
) -> list[tuple[Any, ...]]:
    deny = (_RET_K, 0, 0, _ERRNO | errno.EAGAIN)
    prog = [
        (_LD_W_ABS, 0, 0, 4),
        (_JEQ_K, 1, 0, arch),
        (_RET_K, 0, 0, _KILL),
        (_LD_W_ABS, 0, 0, 0),
        (_JGE_K, 0, 1, _X32),
        (_RET_K, 0, 0, _ERRNO | errno.ENOSYS),
        # its core is the worker's: leaving it would take time from the other seats
        (_JEQ_K, 0, 1, affinity),
        (_RET_K, 0, 0, _ERRNO | errno.EPERM),
    ]
    for nr in (fork, vfork):
        if nr is not None:
            prog += [(_JEQ_K, 0, 1, nr), deny]
    # clone3 says ENOSYS, so that libc falls back to clone, whose flags we can read.
    prog += [(_JEQ_K, 0, 1, clone3), (_RET_K, 0, 0, _ERRNO | errno.ENOSYS)]
    prog += [
        (_JEQ_K, 0, 3, clone),
        (_LD_W_ABS, 0, 0, 16),  # low word of clone's flags
        (_JSET_K, 1, 0, _CLONE_THREAD),
        deny,
    ]
    prog.append((_RET_K, 0, 0, _ALLOW))
    return prog


class _Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


@cache
def prepare() -> tuple[Any, Any, Any] | None:
    """The filter, built once (a zygote builds it before it forks)."""
    calls = _CALLS.get(platform.machine())
    if calls is None:
        return None
    prog = _program(*calls)
    buf = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *ins) for ins in prog))
    return (
        ctypes.CDLL(None, use_errno=True),
        _Prog(len(prog), ctypes.cast(buf, ctypes.c_void_p)),
        buf,
    )


def forbid_new_processes() -> bool:
    """Install the filter in this process (inherited by its threads and kept
    across exec). True when installed."""
    prepared = prepare()
    if prepared is None:
        return False
    libc, fprog, _ = prepared
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    done: int = libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0)
    return done == 0
