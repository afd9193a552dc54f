"""What a packaged submission declares, read as data (never by running its
build code): its requirements (a wheel's METADATA, an sdist's PKG-INFO,
pyproject.toml or egg-info) and its bots (entry points of the group
``bohnarena.bots``). The ladder registers none of them anywhere: they only
say where in the submission its bot is."""

from __future__ import annotations

import configparser
import tomllib
from dataclasses import dataclass, field
from email.parser import HeaderParser
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from ..core.plugins import GROUP
from ..external.packages import OWN_TOP, allowed_code
from .unpack import SubmissionError


@dataclass
class Declared:
    requirements: list[str] = field(default_factory=list)
    bots: dict[str, str] = field(default_factory=dict)  # entry point name -> module:Class


def normalized(name: str) -> str:
    return canonicalize_name(name)


def requirement_name(line: str) -> str | None:
    """A requirement's distribution name, as written (PEP 508, read by
    ``packaging`` as pip reads it); None when its marker does not hold here
    with no extra chosen (the ladder installs no extras, and pip would not
    install it)."""
    try:
        requirement = Requirement(line)
    except InvalidRequirement as e:
        why = str(e).splitlines()[0]  # (packaging's message goes on to draw where)
        raise SubmissionError(f"its requirement {line.strip()!r} is not valid: {why}") from None
    if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
        return None
    return requirement.name


def _requires(lines: list[str]) -> list[str]:
    names = (requirement_name(line) for line in lines if line.strip())
    return [n for n in names if n is not None]


def _entry_points(text: str) -> dict[str, str]:
    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        parser.read_string(text)
    except configparser.Error as e:
        raise SubmissionError(f"entry_points.txt is not readable: {e}") from None
    if GROUP not in parser:
        return {}
    return {k: v.strip() for k, v in parser[GROUP].items()}


def wheel(tree: Path) -> Declared:
    infos = list(tree.glob("*.dist-info"))
    if len(infos) != 1:
        raise SubmissionError("a wheel holds one .dist-info directory, this one does not")
    try:
        meta = HeaderParser().parsestr((infos[0] / "METADATA").read_text("utf-8", "replace"))
    except OSError:
        name = f"{infos[0].name}/METADATA"
        raise SubmissionError(f"a wheel holds {name}, this one does not") from None
    found = Declared(_requires(meta.get_all("Requires-Dist") or []))
    points = infos[0] / "entry_points.txt"
    if points.is_file():
        found.bots = _entry_points(points.read_text("utf-8", "replace"))
    return found


def project(root: Path) -> Declared:
    """A source tree's declarations (an sdist's, a package directory's):
    PKG-INFO, pyproject.toml's [project], an egg-info's files."""
    found = Declared()
    info = root / "PKG-INFO"
    if info.is_file():
        meta = HeaderParser().parsestr(info.read_text("utf-8", "replace"))
        found.requirements += _requires(meta.get_all("Requires-Dist") or [])
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text("utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise SubmissionError(f"pyproject.toml is not valid TOML: {e}") from None
        proj = data.get("project", {})
        if "dependencies" in proj.get("dynamic", []):
            raise SubmissionError(
                "its requirements are computed by its build code (dynamic dependencies), "
                "which the ladder does not run: declare them in pyproject.toml"
            )
        found.requirements += _requires([str(r) for r in proj.get("dependencies", [])])
        points = proj.get("entry-points", {}).get(GROUP, {})
        found.bots.update({str(k): str(v) for k, v in points.items()})
    for egg in sorted(root.glob("*.egg-info")) + sorted(root.glob("src/*.egg-info")):
        if (egg / "entry_points.txt").is_file():
            found.bots.update(_entry_points((egg / "entry_points.txt").read_text("utf-8")))
        if (egg / "requires.txt").is_file():
            text = (egg / "requires.txt").read_text("utf-8", "replace")
            found.requirements += _requires(text.partition("[")[0].splitlines())
    found.requirements = list(dict.fromkeys(found.requirements))
    return found


def check_requirements(requirements: list[str], packages: tuple[str, ...]) -> None:
    """Every requirement must be bohnarena or on the ladder's ``packages``
    (by distribution or import name, or brought by one of them): a
    submission cannot add what the sandbox shows."""
    allowed = {normalized(p) for p in packages} | {OWN_TOP}
    code = {normalized(top) for top in allowed_code(packages)}
    for name in requirements:
        if normalized(name) not in allowed and normalized(name) not in code:
            raise SubmissionError(
                f"it requires {name}, which the ladder does not allow: packages = "
                f"{list(packages)} in ladder.toml"
            )


def chosen_bot(declared: Declared, bot: str | None) -> str:
    """The ``module:Class`` of the submission's bot: ``bot`` (an entry
    point's name or module:Class), or its only entry point."""
    if bot is not None:
        if bot in declared.bots:
            return declared.bots[bot]
        if ":" in bot:
            return bot
        raise SubmissionError(
            f"it declares no bot {bot!r} (its bots: {', '.join(declared.bots) or 'none'})"
        )
    if len(declared.bots) == 1:
        return next(iter(declared.bots.values()))
    if not declared.bots:
        raise SubmissionError(
            f"it declares no entry point in {GROUP}: name its bot with --bot module:Class"
        )
    raise SubmissionError(
        f"it declares several bots ({', '.join(declared.bots)}): choose one with --bot NAME"
    )
