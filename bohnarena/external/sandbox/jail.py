"""What a sandboxed bot sees: the bubblewrap command line around it.

Read-only: /usr (with the usual /bin, /lib symlinks), the Python
interpreter's own prefix with every site-packages directory hidden, the
bohnarena package (alone on the import path the interpreter starts with)
and the bot's own code (on no import path until a confined child appends
it, after the standard library: :mod:`.zygote`). Writable: a private /tmp of
``Limits.disk_mb``. Its own user, PID, network, IPC, UTS and cgroup
namespaces (no network at all, no process outside is visible), a scrubbed
environment, no capabilities, a new terminal session, and it dies with the
worker that started it.
"""

from __future__ import annotations

import os
import shutil
import site
import sys
import sysconfig
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath

from ...core.errors import UsageError

#: Where bohnarena appears inside the sandbox: the one directory on the
#: interpreter's import path besides the standard library.
ENGINE = "/arena/engine"
#: Where the bot's code and the league's packages appear: on the import path
#: of a confined child only, after the standard library and bohnarena (a
#: module shipped as ``json.py`` never shadows the supervisor's ``json``).
LIB = "/arena/lib"
#: Where a file bot's file appears.
BOT_DIR = "/arena/bot"
#: Where the files a command bot's command names appear (each in a directory of its own).
CMD = "/arena/cmd"
#: Where the directory a command bot declares as its own appears.
OWN_DIR = f"{CMD}/own"
PACKAGE = Path(__file__).resolve().parents[2]  # bohnarena
_SYSTEM = ("bin", "sbin", "lib", "lib32", "lib64")
PROC_READ_ONLY = ("/proc/sys", "/proc/irq", "/proc/bus", "/proc/fs", "/proc/acpi", "/proc/scsi")
PROC_HIDDEN = (
    "/proc/sysrq-trigger",
    "/proc/kcore",
    "/proc/keys",
    "/proc/key-users",
    "/proc/timer_list",
    "/proc/sched_debug",
    "/proc/kallsyms",
    "/proc/kmsg",
)
ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "PYTHONPATH": ENGINE,
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
}


def bwrap() -> str:
    """The bubblewrap binary, or a one-line error that names the package."""
    found = shutil.which("bwrap")
    if found is None:
        raise UsageError(
            'isolation "sandbox" needs bubblewrap: install the Debian package '
            "bubblewrap (apt-get install bubblewrap), or use isolation "
            '"process" for trusted bots'
        )
    return found


def python() -> str:
    """The interpreter binary itself (not a venv's link to it)."""
    return os.path.realpath(sys.executable)


def hidden_site_dirs() -> list[str]:
    """Every directory of installed packages: other bots live there."""
    dirs = set(site.getsitepackages()) | {site.getusersitepackages()}
    dirs |= {sysconfig.get_paths()[k] for k in ("purelib", "platlib")}
    return sorted(d for d in dirs if os.path.isdir(d))


def command_files(
    command: Sequence[str], own: str | None = None
) -> tuple[list[str], dict[Path, str]]:
    """What a command bot's sandbox shows of the host: each argument that is
    an existing file, that file alone (its directory may hold the league
    file, results, other bots), or ``own``, the directory the bot declares
    as its own, whole (an argument inside it, a file or a directory, is
    shown there). Returns (the arguments inside, host path -> where it
    appears); the runner checks that what is shown exposes nothing of the
    organiser's (:mod:`.botfiles`)."""
    shown: dict[Path, str] = {}
    home = None if own is None else Path(own).resolve()
    if home is not None:
        shown[home] = OWN_DIR
    argv = []
    for arg in command:
        path = Path(arg)
        if os.sep in arg and path.exists():
            path = path.resolve()
            if home is not None and path.is_relative_to(home):  # a file or a directory
                arg = str(PurePosixPath(OWN_DIR) / path.relative_to(home))
            elif path.is_file():
                arg = shown.setdefault(path, f"{CMD}/{len(shown)}/{path.name}")
        argv.append(arg)
    return argv, shown


def command(
    inner: Sequence[str],
    code: Mapping[str, Path],
    dirs: Mapping[Path, str] = {},
    bot_file: Path | None = None,
    disk_mb: int = 64,
) -> list[str]:
    """``inner`` run in the sandbox, with ``code`` (import name -> path) bound
    under :data:`LIB`, ``bot_file`` (a file bot) in :data:`BOT_DIR` and ``dirs`` (a command
    bot's files and own directory) where :func:`command_files` put them, all read-only."""
    argv = [
        bwrap(),
        "--unshare-all",
        "--unshare-user",
        "--uid",
        "65534",
        "--gid",
        "65534",
        "--disable-userns",
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        # No init of bubblewrap's own as pid 1: it had no filter, no limits,
        # and a bot's process could trace it and run code in it for the whole
        # league. The supervisor is pid 1, not dumpable, and reaps orphans.
        "--as-pid-1",
        "--new-session",
        "--hostname",
        "sandbox",
        "--clearenv",
    ]
    for key, value in ENV.items():
        argv += ["--setenv", key, value]
    argv += ["--ro-bind", "/usr", "/usr"]
    for name in _SYSTEM:
        host = Path("/") / name
        if host.is_symlink():
            argv += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            argv += ["--ro-bind", str(host), str(host)]
    if Path("/etc/ld.so.cache").exists():
        argv += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    prefix = os.path.realpath(sys.base_prefix)
    if not prefix.startswith("/usr/"):
        argv += ["--ro-bind", prefix, prefix]
    exe = python()
    if not exe.startswith(("/usr/", prefix + "/")):
        argv += ["--ro-bind", exe, exe]
    for hidden in hidden_site_dirs():
        if hidden.startswith(("/usr/", prefix + "/")):
            argv += ["--tmpfs", hidden, "--remount-ro", hidden]
    argv += ["--ro-bind", str(PACKAGE), f"{ENGINE}/bohnarena"]
    for name, path in code.items():
        # A package by its import name; a module file (six.py, _x.cpython-311.so) by its file name.
        argv += ["--ro-bind", str(path), f"{LIB}/{path.name if path.is_file() else name}"]
    if bot_file is not None:  # the file alone: its directory may hold the league file
        argv += ["--ro-bind", str(bot_file), f"{BOT_DIR}/{bot_file.name}"]
    for host, inside in dirs.items():
        argv += ["--ro-bind", str(host), inside]
    argv += ["--proc", "/proc"]
    # What a process of the host's root user (bubblewrap run as root maps the
    # sandbox user to it) could still write or read in a fresh /proc.
    for proc in PROC_READ_ONLY:
        if Path(proc).exists():
            argv += ["--ro-bind", proc, proc]
    for proc in PROC_HIDDEN:
        if Path(proc).exists():
            argv += ["--ro-bind", "/dev/null", proc]
    argv += [
        "--dev",
        "/dev",
        "--remount-ro",
        "/dev",
        "--size",
        str(disk_mb * 1024 * 1024),
        "--perms",
        "0700",
        "--tmpfs",
        "/tmp",
        "--remount-ro",
        "/",
        "--chdir",
        "/tmp",
        "--",
    ]
    return argv + list(inner)
