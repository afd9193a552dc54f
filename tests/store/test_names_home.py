"""Every name in a results directory is spelled in store/layout.py alone:
outside store/, no module spells one of its file names, nor joins, lists
or compares one of its folders by a literal."""

import ast
from pathlib import Path

from bohnarena.store import layout

PACKAGE = Path(__file__).resolve().parents[2] / "bohnarena"
FILES = {
    layout.RUN_JSON,
    layout.SECRET,
    layout.CHAIN,
    layout.REVEAL,
    layout.LEAGUE,
    layout.MANIFEST,
    layout.RATINGS,
    layout.NAMES,
    layout.REPORT,
    layout.ERRORS,
    layout.RUN_LOG,
    layout.RANKING_CSV,
    layout.RANKING_JSON,
    layout.RANKING_MD,
}
FOLDERS = set(layout.TABLES)
#: The same words meaning something else, with the reason.
ELSEWHERE = {
    ("tools/newbot.py", layout.LEAGUE): "a new bot's own league file",
    ("cli/bots.py", layout.LEAGUE): "a new bot's own league file",
    ("ladder/settings.py", layout.LEAGUE): "a ladder's league file, beside its results",
    ("report/html.py", layout.REPORT): "the report's template",
}


def spelled(tree):
    """The results directory's names a module spells as literals."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in FILES:
            yield node.value
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            if isinstance(node.right, ast.Constant) and node.right.value in FOLDERS:
                yield node.right.value  # a folder joined: path / "moves"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("files", "table_dir", "_where") and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and first.value in FOLDERS:
                    yield first.value  # a folder listed: listing.files("moves")
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(s, ast.Name) and s.id == "table" for s in sides):
                for s in sides:
                    if isinstance(s, ast.Constant) and s.value in FOLDERS:
                        yield s.value  # a folder compared: table == "matches"


def test_no_results_name_is_spelled_outside_store():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("store/"):
            continue
        for name in spelled(ast.parse(path.read_text("utf-8"))):
            if (rel, name) not in ELSEWHERE:
                found.append(f"{rel}: {name!r}")
    assert not found, "spell these from bohnarena.store.layout: " + ", ".join(found)


def test_the_check_sees_each_way_of_spelling_one():
    code = 'p / "run.json"; q / "moves"; listing.files("timing"); table == "matches"'
    assert sorted(spelled(ast.parse(code))) == ["matches", "moves", "run.json", "timing"]
