"""How the command ends (``bohnarena.__main__.leave``): its exit code as
click gave it, Python's teardown run (atexit handlers, logs flushed), the C
runtime's skipped (Arrow's thread pools can abort it after a finished run:
exit code -6)."""

import subprocess
import sys

import pytest

DRIVER = """
import atexit, sys
atexit.register(lambda: print("atexit ran", flush=True))
from bohnarena.__main__ import main, leave
if sys.argv[1] == "leave":
    leave({"none": None, "list": [1, 2]}.get(sys.argv[2], sys.argv[2]))
sys.argv = ["bohnarena", *sys.argv[1:]]
main()
"""


def end(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", DRIVER, *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "code"),
    [(["--help"], 0), (["rank", "/nonexistent/results"], 2), (["no-such-command"], 2)],
)
def test_the_command_ends_with_its_exit_code_after_python_s_teardown(args, code):
    r = end(*args)
    assert r.returncode == code, r.stderr
    assert r.stdout.endswith("atexit ran\n")
    assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_leave_takes_what_sys_exit_takes():
    assert end("leave", "none").returncode == 0
    r = end("leave", "a message")
    assert (r.returncode, r.stderr, r.stdout) == (1, "a message\n", "atexit ran\n")


@pytest.mark.slow
def test_leave_prints_any_other_object_and_exits_1():
    r = end("leave", "list")  # sys.exit([1, 2]): no traceback, as Python's own exit
    assert (r.returncode, r.stderr, r.stdout) == (1, "[1, 2]\n", "atexit ran\n")
