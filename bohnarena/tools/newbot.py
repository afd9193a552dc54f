"""``bohnarena new-bot``: a bot plugin package from the templates."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from ..core.errors import UsageError
from ..core.plugins import registered

NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
FILES = {  # template -> path in the package ({module} is the Python package)
    "pyproject.toml.tmpl": "pyproject.toml",
    "bot.py.tmpl": "{module}/bot.py",
    "test_conformance.py.tmpl": "tests/test_conformance.py",
    "league.toml.tmpl": "league.toml",
    "README.md.tmpl": "README.md",
}
#: ``new-bot --http``: the same plan, served over HTTP on one command.
HTTP_FILES = {
    "bot.py.tmpl": "{module}/bot.py",
    "service.py.tmpl": "service.py",
    "league_http.toml.tmpl": "league.toml",
    "README_http.md.tmpl": "README.md",
}


def create(name: str, parent: str | Path = ".", http: bool = False) -> tuple[Path, str]:
    """Writes the package (``http``: a service instead, docs/http-bots.md);
    returns its directory and its Python package name."""
    if not NAME.match(name) or len(name) > 64:
        raise UsageError(
            f"bot name {name[:70]!r} must be at most 64 lowercase letters, digits, "
            "'-' or '_', starting with a letter"
        )
    taken = registered()
    if name in taken or name in taken.clashes:
        raise UsageError(
            f"a bot named {name!r} is installed already (bohnarena bots): "
            "two bots of one name clash; choose another"
        )
    target = Path(parent) / name
    if target.exists():
        raise UsageError(f"{target} already exists")
    module = "bohnarena_" + name.replace("-", "_")  # prefixed: never shadows another package
    fields = {
        "name": name,
        "module": module,
        "dir": str(target),
        "cls": "".join(p.capitalize() for p in re.split(r"[-_]", name)) + "Bot",
    }
    templates = resources.files(__package__).joinpath("templates", "newbot")
    try:
        for template, path in (HTTP_FILES if http else FILES).items():
            out = target / path.format(**fields)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(
                templates.joinpath(template).read_text("utf-8").format(**fields), "utf-8"
            )
        (target / module / "__init__.py").write_text(f'"""The {name} bot for bohnarena."""\n')
    except OSError as e:
        raise UsageError(f"cannot create {target}: {e.strerror or e}") from None
    return target, module
