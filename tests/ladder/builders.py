"""Submissions built by hand for the ladder's tests: a file bot, a package,
a wheel whose .pth file and an sdist whose setup.py would each leave a
marker file if anything ran them, a command bot, and a bot that fails."""

import io
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRST_CHOICE = ROOT / "bots" / "first_choice.sh"

BOT = """\
from bohnarena_bots.random_bot import RandomBot


class {name}(RandomBot):
    pass
"""
FAILING = """\
import sys

from bohnarena_bots.random_bot import RandomBot


class Broken(RandomBot):
    def plant(self, view, card):
        print("broken bot says \\x1b[31mred\\x1b[0m", file=sys.stderr, flush=True)
        raise RuntimeError("it breaks on purpose")
"""
MARKING = "import pathlib; pathlib.Path({marker!r}).write_text('ran')\n"


def file_bot(tmp: Path, name: str = "Mine", extra: str = "") -> str:
    path = tmp / f"{name.lower()}.py"
    path.write_text(BOT.format(name=name) + extra)
    return f"{path}:{name}"


def failing_bot(tmp: Path) -> str:
    path = tmp / "broken.py"
    path.write_text(FAILING)
    return f"{path}:Broken"


def package_dir(tmp: Path) -> Path:
    pkg = tmp / "project" / "rando"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "bot.py").write_text(BOT.format(name="Rando"))
    return tmp / "project"


def wheel(
    tmp: Path,
    marker: Path,
    requires: str = "bohnarena-bots",
    extra: tuple[tuple[str, str], ...] = (),
) -> Path:
    """A wheel registering its bot under a shipped bot's name, with a .pth
    file that would write ``marker`` if an interpreter ever processed it
    (and ``extra``'s files: name, text)."""
    path = tmp / "wheelbot-1.0-py3-none-any.whl"
    info = "wheelbot-1.0.dist-info"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("wheelbot/__init__.py", "")
        z.writestr("wheelbot/bot.py", BOT.format(name="Wheeled"))
        z.writestr("wheelbot.pth", MARKING.format(marker=str(marker)))
        for name, text in extra:
            z.writestr(name, text)
        z.writestr(
            f"{info}/METADATA",
            f"Metadata-Version: 2.1\nName: wheelbot\nVersion: 1.0\nRequires-Dist: {requires}\n",
        )
        z.writestr(f"{info}/entry_points.txt", "[bohnarena.bots]\nplanner = wheelbot.bot:Wheeled\n")
        z.writestr(f"{info}/RECORD", "")
    return path


def sdist(tmp: Path, marker: Path) -> Path:
    """An sdist (src layout) whose setup.py would write ``marker`` if run."""
    path = tmp / "sbot-1.0.tar.gz"
    files = {
        "sbot-1.0/setup.py": MARKING.format(marker=str(marker)),
        "sbot-1.0/PKG-INFO": "Metadata-Version: 2.1\nName: sbot\nVersion: 1.0\n",
        "sbot-1.0/pyproject.toml": (
            '[project]\nname = "sbot"\nversion = "1.0"\ndependencies = ["bohnarena_bots"]\n'
            '[project.entry-points."bohnarena.bots"]\nsbot = "sbot.bot:Sourced"\n'
        ),
        "sbot-1.0/src/sbot/__init__.py": "",
        "sbot-1.0/src/sbot/bot.py": BOT.format(name="Sourced"),
    }
    with tarfile.open(path, "w:gz") as t:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    return path


def command_dir(tmp: Path) -> Path:
    home = tmp / "shellbot"
    home.mkdir()
    (home / "bot.sh").write_text(FIRST_CHOICE.read_text())
    return home
