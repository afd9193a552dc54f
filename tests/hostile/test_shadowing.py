"""A submission's modules never run outside the sandbox's filter (issue 43,
hole 1): its ``json.py`` came before the standard library on the import
path, and the supervisor (no seccomp filter, no CPU limit) imported it.
Now the interpreter starts with bohnarena and the standard library alone on
its path; a confined child appends the bot's code after them. A league that
names such a directory of code is refused in one line; played anyway (the
refusal switched off), nothing it ships runs unfiltered."""

import platform

import pytest

from bohnarena.core.errors import BotLoadError
from bohnarena.external import endpoint as endpoints
from bohnarena.referee.limits import Limits
from tests.conftest import sandboxed

#: Each shipped module says where it ran, with bytes and builtins alone
#: (an ``encodings`` imported as the interpreter starts has no codecs yet).
SAYS = """\
import posix
_fd = posix.open("/proc/self/status", posix.O_RDONLY)
_status = posix.read(_fd, 1 << 16)
posix.close(_fd)
_seccomp = _status[_status.find(b"Seccomp:") + 8 :].split()[0]
posix.write(2, b"ran " + __name__.encode() + b" seccomp " + _seccomp + b"\\n")
"""
SHADOWS = {
    "json.py": SAYS,
    "os.py": SAYS,
    "typing.py": SAYS,
    "site.py": SAYS,
    "sitecustomize.py": SAYS,
    "encodings/__init__.py": SAYS,
    "bohnarena_bots/__init__.py": SAYS,
}
#: The bot imports every name it ships: the standard library's come from
#: the standard library, the others run (in its confined child).
BOT = """\
import encodings, json, os, site, sitecustomize, typing
import bohnarena_bots
from bohnarena.bohnanza import Bot

class Shadow(Bot):
    pass
"""


def shadowing_project(tmp_path):
    root = tmp_path / "submitted"
    for name, text in {**SHADOWS, "shadow/__init__.py": "", "shadow/bot.py": BOT}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return f"{root}/shadow.bot:Shadow"


def test_a_directory_of_code_that_ships_standard_or_allowed_names_does_not_load(tmp_path):
    with pytest.raises(BotLoadError, match="ships a top-level 'bohnarena_bots'"):
        endpoints.python_target(shadowing_project(tmp_path))


@sandboxed
def test_what_a_submission_ships_runs_only_under_the_filter(tmp_path, monkeypatch):
    monkeypatch.setattr(endpoints, "shadowing", lambda names, packages: None)
    log = tmp_path / "bot.log"
    seat = endpoints.endpoint(
        "bohnarena.bohnanza.wire", shadowing_project(tmp_path), None, "sandbox", Limits(), log
    )
    try:
        seat.open().close()  # its first match: the probe and a match child imported it
        seat.close()
    finally:
        endpoints.close_sandboxes()
    ran = [line.split() for line in log.read_text().splitlines() if line.startswith("ran ")]
    # The standard library's names were the standard library's; the others ran confined.
    assert {name for _, name, _, _ in ran} == {"sitecustomize", "bohnarena_bots"}, ran
    if platform.machine() in ("x86_64", "aarch64"):
        assert all(seccomp == "2" for *_, seccomp in ran), ran
