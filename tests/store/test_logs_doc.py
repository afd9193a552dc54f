"""docs/logs.md and the files a real league writes agree: every documented
kind and column is written, every written one is documented, and the
documented queries run."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from bohnarena.bohnanza import ruleset
from bohnarena.bohnanza.rules import RuleSet
from bohnarena.run.dispatch import run_league
from bohnarena.run.replay import verify_all
from bohnarena.store.logbook import LOG_FORMAT
from tests.support.leagues import hostile

ROOT = Path(__file__).parents[2]
DOC = ROOT / "docs" / "logs.md"
KEYS = ("match_id", "seq", "kind", "seat")

TALKER = f"{ROOT / 'tests' / 'bohnanza' / 'talking_bots.py'}:Talker"
LEAGUES: dict[str, dict[str, Any]] = {
    # faults and a forfeit: a bot that raises, with few faults allowed
    "classic": {
        "edition": "classic",
        "players": 3,
        "deals": 1,
        "bots": {
            "trader": "trader",
            "planner": "planner",
            "random": "random",
            "raiser": hostile("RaiseAlways"),
            "noter": hostile("Noter"),  # writes the note kind and column
        },
        "extra": "[limits]\nmax_faults = 3\n",
    },
    "jumping": {
        "edition": "anniversary",
        "players": 3,
        "deals": 4,
        # table talk: the said kind
        "bots": {"trader": "trader", "planner": "planner", "talker": TALKER},
        "extra": '[rules]\nextra_bean = "jumping"\n[run]\nbatch_size = 3\n',
    },
    "third_field": {
        "edition": "riogrande",
        "players": 4,
        "deals": 2,
        "bots": {
            "planner": "planner",
            "trader": "trader",
            "random": "random",
            "planner2": "planner",
        },
    },
}


def doc_tables() -> dict[str, list[list[str]]]:
    """Each heading of docs/logs.md with the rows of its table (header left out)."""
    out: dict[str, list[list[str]]] = defaultdict(list)
    heading, header = "", True
    for line in DOC.read_text("utf-8").splitlines():
        if line.startswith("#"):
            heading, header = line.lstrip("#").strip(), True
        elif line.startswith("|") and not line.startswith("|---"):
            if header:
                header = False
                continue
            out[heading].append([c.strip().strip("`") for c in line.strip("|").split("|")])
    return out


def documented_kinds(tables: dict[str, list[list[str]]]) -> dict[str, set[str]]:
    return {
        row[0]: {c.strip() for c in row[1].split(",") if c.strip()}
        for section in ("Events", "Decisions")
        for row in tables[section]
    }


def type_name(t: pa.DataType) -> str:
    return re.sub(r"<\w+: ", "<", str(t))  # list<element: int32> -> list<int32>


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("logs")
    out = {}
    for name, spec in LEAGUES.items():
        bots = spec.get("bots") or {"trader": "trader", "planner": "planner", "random": "random"}
        lines = "\n".join(f'{k} = "{v}"' for k, v in bots.items())
        path = base / f"{name}.toml"
        path.write_text(
            f'name = "{name}"\nedition = "{spec["edition"]}"\nplayers = {spec["players"]}\n'
            f"deals = {spec['deals']}\nseed = 13\n" + spec.get("extra", "") + f"\n[bots]\n{lines}\n"
        )
        run_league(path, base / name, workers=1, progress=False)
        out[name] = base / name
    return out


def moves(runs: dict[str, Path]) -> pa.Table:
    return pa.concat_tables(pq.read_table(d / "moves") for d in runs.values())


@pytest.mark.slow
def test_every_written_kind_and_column_is_documented_and_every_documented_one_written(
    runs: dict[str, Path],
) -> None:
    tables = doc_tables()
    kinds = documented_kinds(tables)
    columns = {row[0]: row[1] for row in tables["moves: one row per record"]}
    table = moves(runs)
    assert {f.name: type_name(f.type) for f in table.schema} == columns
    written = set(table.column("kind").unique().to_pylist())
    assert written - set(kinds) == set(), "written but not documented"
    assert set(kinds) - written == set(), "documented but never written"
    values = [c for c in columns if c not in KEYS]
    for kind, cols in kinds.items():
        rows = table.filter(pc.equal(table["kind"], kind))
        for c in values:
            nulls = rows.column(c).null_count
            if c in cols:
                assert nulls == 0, f"{kind}.{c} is documented but not written"
            else:
                assert nulls == len(rows), f"{kind}.{c} is written but not documented"


@pytest.mark.slow
def test_how_tells_chosen_default_and_forced_answers_apart(runs: dict[str, Path]) -> None:
    table = moves(runs)
    assert set(table.column("how").drop_null().unique().to_pylist()) == {
        "bot",
        "default",
        "forced",
    }
    records = table.to_pylist()
    # a fault's decision follows it (after a forfeit it may set off), played as the default
    for i, r in enumerate(records):
        if r["kind"] == "fault" and r["decision"] not in ("start", "end"):
            nxt = records[i + 1 + (records[i + 1]["kind"] == "forfeit")]
            assert (nxt["kind"], nxt["how"]) == (r["decision"], "default")


@pytest.mark.slow
def test_matches_table_is_as_documented(runs: dict[str, Path]) -> None:
    documented = {row[0]: row[1] for row in doc_tables()["matches: one row per finished match"]}
    for d in runs.values():
        schema = pq.read_table(d / "matches").schema
        assert {f.name: type_name(f.type) for f in schema} == documented


@pytest.mark.slow
def test_run_json_holds_the_documented_keys_and_the_whole_rule_set(runs: dict[str, Path]) -> None:
    documented = {row[0] for row in doc_tables()["run.json: what the run was played under"]}
    expanded = {k.strip() for key in documented for k in key.split(",")}
    for name, d in runs.items():
        meta = json.loads((d / "run.json").read_text())
        assert meta["log_format"] == LOG_FORMAT
        # (only for secret-seed leagues: the seed of an older run, its commitment)
        assert set(meta) == expanded - {"seed", "seed_commitment"}
        spec = LEAGUES[name]
        options = {"extra_bean": "jumping"} if name == "jumping" else {}
        rules = ruleset(spec["edition"], spec["players"], **options)
        assert meta["rules"] == json.loads(json.dumps(rules.options()))
        assert set(meta["rules"]) == {f.name for f in fields(RuleSet)}
    rules_row = next(
        r for r in doc_tables()["run.json: what the run was played under"] if r[0] == "rules"
    )
    assert {f.name for f in fields(RuleSet)} <= set(re.findall(r"`(\w+)`", rules_row[1]))


def sql_blocks(text: str) -> list[str]:
    return re.findall(r"```sql\n(.*?)```", text, re.S)


@pytest.mark.slow
def test_the_documented_queries_give_each_bot_its_own_coins(runs: dict[str, Path]) -> None:
    d = runs["third_field"]
    here: Callable[[str], str] = lambda sql: sql.replace("results/quickstart", str(d))  # noqa: E731
    expected: dict[str, int] = defaultdict(int)
    seats = {r["match_id"]: r["seats"] for r in pq.read_table(d / "matches").to_pylist()}
    for r in pq.read_table(d / "moves").to_pylist():
        if r["kind"] == "harvested":
            expected[seats[r["match_id"]][r["seat"]]] += r["coins"]
    readme = sql_blocks((ROOT / "README.md").read_text("utf-8"))
    (query,) = [q for q in readme if "sum(mv.coins)" in q]
    con = duckdb.connect()
    assert dict(con.sql(here(query)).fetchall()) == expected
    view, per_bot = sql_blocks(DOC.read_text("utf-8"))[1].split(";", 1)
    con.sql(here(view))
    assert dict(con.sql(per_bot).fetchall()) == expected


@pytest.mark.slow
def test_the_merged_matches_fill_whole_row_groups_in_order_and_each_batchs_moves_a_file(
    runs: dict[str, Path],
) -> None:
    d = runs["jumping"]  # 12 matches in batches of 3
    (part,) = (d / "matches").glob("*.parquet")
    file = pq.ParquetFile(part)
    assert file.metadata.num_row_groups == 1  # (not a group a batch)
    assert file.read_row_group(0, columns=["match_id"]).column(0).to_pylist() == list(range(12))
    moves = sorted((d / "moves").glob("*.parquet"))
    assert len(moves) == 4
    for f in moves:
        ids = pq.read_table(f, columns=["match_id"]).column(0).unique().to_pylist()
        first, last = map(int, f.stem.split("-")[1:])
        assert sorted(ids) == list(range(first, last + 1))


@pytest.mark.slow
def test_the_logged_runs_verify(runs: dict[str, Path]) -> None:
    for d in runs.values():
        checked, parts, failures = verify_all(d, workers=1, progress=False)
        assert checked and parts == failures == []
