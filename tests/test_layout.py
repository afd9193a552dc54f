"""The layout stays what CONTRIBUTING.md says it is: every module of
bohnarena/ is on its map, none is over 600 lines, and the folders import
one another only as its table allows (so never in a circle)."""

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "bohnarena"
MAX_LINES = 600
#: Over MAX_LINES for now, with the reason (each one an open task, not a licence).
OVER: dict[str, str] = {}
#: Kept at old paths for bot authors: re-exports of what moved (nothing
#: imports them, so they are no edge of the folders' graph).
REEXPORTS = {"bohnanza/pettingzoo_env.py", "host.py", "sandbox/host.py", "web/serve.py"}


def modules():
    return sorted(p for p in PACKAGE.rglob("*.py") if "templates" not in p.parts)


def folder(path):
    """A module's folder (core, run, ...); a module of bohnarena/ itself is its own."""
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def runtime_imports(path, typing=False):
    """The bohnarena modules ``path`` imports when it runs (with ``typing``,
    also those under ``if TYPE_CHECKING:``, which name types only), as paths
    under bohnarena/."""
    tree = ast.parse(path.read_text())
    typing_only = (
        set()
        if typing
        else {
            id(n)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for n in ast.walk(node)
        }
    )
    here = path.relative_to(ROOT).with_suffix("").parts[:-1]
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names = [a.name.split(".") for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(here[: len(here) - node.level + 1]) if node.level else []
            module = base + (node.module.split(".") if node.module else [])
            names = [[*module, a.name] for a in node.names]
        else:
            continue
        for parts in names:
            if parts[0] != "bohnarena":
                continue
            for n in range(len(parts), 1, -1):  # the longest prefix that is a module
                candidate = ROOT.joinpath(*parts[:n])
                if candidate.with_suffix(".py").is_file():
                    yield candidate.with_suffix(".py")
                    break
                if (candidate / "__init__.py").is_file():
                    yield candidate / "__init__.py"
                    break
            else:
                yield PACKAGE / "__init__.py"


@functools.cache  # (the import tests read it: the package parsed once)
def folder_graph(typing=False):
    graph = {}
    for path in modules():
        if str(path.relative_to(PACKAGE)) in REEXPORTS:
            continue
        for target in runtime_imports(path, typing):
            if folder(target) != folder(path):
                graph.setdefault(folder(path), set()).add(folder(target))
    return graph


def layout_table():
    """CONTRIBUTING.md's map: folder -> (the row's text, the folders it may import)."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    rows = {}
    for line in text.splitlines():
        m = re.match(r"\| `([\w/.]+)` \|(.*)\|(.*)\|$", line)
        if m and m.group(1).endswith("/"):
            above = set(rows) if "all of the above" in m.group(3) else set()
            allowed = above | set(re.findall(r"`(\w+)/?`", m.group(3)))
            rows[m.group(1).rstrip("/")] = (m.group(2), allowed)
    return rows


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_is_over_600_lines(path):
    lines = len(path.read_text().splitlines())
    if str(path.relative_to(PACKAGE)) in OVER:
        pytest.xfail(OVER[str(path.relative_to(PACKAGE))])
    assert lines <= MAX_LINES


def test_every_module_is_on_the_map():
    rows = layout_table()
    missing = []
    for path in modules():
        rel = path.relative_to(PACKAGE)
        row = rows.get(rel.parts[0] if len(rel.parts) > 1 else "bohnarena")
        if row is None or (f"`{rel.name}`" not in row[0] and rel.name != "__init__.py"):
            missing.append(str(rel))
    assert not missing, f"CONTRIBUTING.md's layout does not name {missing}"


@pytest.mark.parametrize("typing", [False, True], ids=["at-run-time", "with-type-only"])
def test_folders_import_only_what_the_map_allows(typing):
    """Type-only imports too: a circle hidden under ``TYPE_CHECKING`` is a
    circle of meaning all the same (core's views once named the referee)."""
    rows = layout_table()
    for source, targets in sorted(folder_graph(typing).items()):
        allowed = rows[source if source in rows else "bohnarena"][1]
        for target in sorted(targets):
            assert target in allowed or target == "__init__", f"{source}/ imports {target}/"


@pytest.mark.parametrize("typing", [False, True], ids=["at-run-time", "with-type-only"])
def test_no_import_circle_between_folders(typing):
    graph = folder_graph(typing)
    done, path = set(), []

    def visit(node):
        if node in path:
            raise AssertionError("import circle: " + " -> ".join([*path[path.index(node) :], node]))
        if node in done:
            return
        path.append(node)
        for target in sorted(graph.get(node, ())):
            visit(target)
        path.pop()
        done.add(node)

    for node in sorted(graph):
        visit(node)


def test_bot_authors_old_paths_still_work():
    import subprocess
    import sys

    from bohnarena.bohnanza.state import State, random_policy  # noqa: F401

    for old in ("bohnarena.host", "bohnarena.sandbox.host"):  # (docs/writing-a-bot.md)
        r = subprocess.run([sys.executable, "-m", old], capture_output=True, text=True)
        assert r.returncode != 0 and "WIRE SPEC" in r.stderr, old
    r = subprocess.run(  # (docs/http-bots.md)
        [sys.executable, "-m", "bohnarena.web.serve", "--help"], capture_output=True, text=True
    )
    assert r.returncode == 0 and "--port" in r.stdout
    from bohnarena.external.http import serve
    from bohnarena.web import serve as old_serve

    assert old_serve.serve is serve.serve
    pytest.importorskip("pettingzoo")
    from bohnarena.bohnanza import pettingzoo_env as old
    from bohnarena.rl import pettingzoo_env as new

    assert old.env is new.env and old.BohnanzaEnv is new.BohnanzaEnv


def test_every_folder_is_installed():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = set(project["tool"]["setuptools"]["packages"])
    folders = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in PACKAGE.rglob("__init__.py")
        if "templates" not in p.parts
    }
    assert folders <= packages, f"pyproject.toml does not install {sorted(folders - packages)}"


def test_every_data_file_is_installed():
    """A file a module reads beside it (the viewer's script and style, an
    edition's table, a template) is in pyproject's package-data, so a
    non-editable install has it too."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = project["tool"]["setuptools"]["package-data"]
    packages = set(project["tool"]["setuptools"]["packages"])  # (data folders listed too)
    missing = []
    for path in PACKAGE.rglob("*"):
        if path.is_dir() or path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
            continue
        owner = path.parent
        while ".".join(owner.relative_to(ROOT).parts) not in packages:
            owner = owner.parent
        package = ".".join(owner.relative_to(ROOT).parts)
        rel = path.relative_to(owner)
        if not any(rel.match(g) for g in globs.get(package, [])):
            missing.append(str(path.relative_to(PACKAGE)))
    assert not missing, f"pyproject.toml's package-data leaves out {missing}"


#: Test folders that mirror no package folder, each for a reason CONTRIBUTING.md gives.
TEST_ONLY = {"hostile", "golden", "docs", "plugin_game", "support"}


def test_tests_mirror_the_package():
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    for path in (ROOT / "tests").rglob("test_*.py"):
        rel = path.relative_to(ROOT / "tests")
        if len(rel.parts) == 1:
            continue  # the package as a whole
        top = rel.parts[0]
        assert top in folders or top in TEST_ONLY, f"tests/{top}/ mirrors no folder of bohnarena/"
        if len(rel.parts) > 2 and top in folders:
            inner = PACKAGE.joinpath(*rel.parts[:-1])
            assert (inner / "__init__.py").is_file(), f"tests/{rel.parent}/ mirrors no folder"
