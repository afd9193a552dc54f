"""The queries README.md and docs/logs.md give run on a real league's
results and answer what they say: each answer is checked against the same
figures computed from the records in Python. And ``names.parquet``, the
names of the ids in the logs, is written, read and kept up to date."""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import polars as pl
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bohnarena.bohnanza.rules import varieties
from bohnarena.cli import cli
from bohnarena.core.game import get_game, log_names
from bohnarena.run.dispatch import run_league
from bohnarena.store.names import NAME, read_names, write_names

ROOT = Path(__file__).parents[2]
README = ROOT / "README.md"
DOC = ROOT / "docs" / "logs.md"

#: Two traders and a random bot trade, gifts included; the planner never does.
BOTS = {"trader": "trader", "trader2": "trader", "random": "random", "planner": "planner"}


def section_sql(path: Path, heading: str) -> list[str]:
    """The ```sql blocks of the markdown section ``heading`` (to the next
    heading of its level or above)."""
    text = path.read_text("utf-8")
    level = re.search(rf"^(#+) {re.escape(heading)}$", text, re.M)
    assert level is not None, f"{path.name} has no section {heading!r}"
    rest = text[level.end() :]
    end = re.search(rf"^#{{1,{len(level[1])}}} ", rest, re.M)
    return re.findall(r"```sql\n(.*?)```", rest[: end.start() if end else None], re.S)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("queries")
    lines = "\n".join(f'{k} = "{v}"' for k, v in BOTS.items())
    path = base / "q.toml"
    path.write_text(
        f'name = "q"\nedition = "classic"\nplayers = 3\ndeals = 1\nseed = 11\n[bots]\n{lines}\n'
    )
    run_league(path, base / "q", workers=1, progress=False)
    return base / "q"


@pytest.fixture(scope="module")
def con() -> Any:
    return duckdb.connect()


def run(con: Any, sql: str, results: Path) -> list[tuple[Any, ...]]:
    return con.sql(sql.replace("results/quickstart", str(results))).fetchall()


def matches(results: Path) -> dict[int, list[str]]:
    return {r["match_id"]: r["seats"] for r in pq.read_table(results / "matches").to_pylist()}


def moves(results: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pq.read_table(results / "moves").to_pylist()
    return sorted(rows, key=lambda r: (r["match_id"], r["seq"]))


def traded(results: Path) -> list[dict[str, Any]]:
    return [r for r in moves(results) if r["kind"] == "traded"]


@pytest.mark.slow
def test_the_league_holds_trades_of_every_shape(results: Path) -> None:
    # (else the queries below would not be tested on gifts)
    shapes = {(bool(r["cards"]), bool(r["want"])) for r in traded(results)}
    assert shapes == {(True, True), (True, False), (False, True)}


def test_who_trades_most_counts_each_trade_for_both_its_seats(results: Path, con: Any) -> None:
    played: Counter[str] = Counter(b for seats in matches(results).values() for b in seats)
    trades: Counter[str] = Counter(dict.fromkeys(played, 0))
    seats = matches(results)
    for r in traded(results):
        trades[seats[r["match_id"]][r["seat"]]] += 1
        trades[seats[r["match_id"]][r["to"]]] += 1
    query = section_sql(README, "Querying the logs")[0]
    got = run(con, query, results)
    assert [(bot, n) for bot, n, _ in got] == sorted(trades.items(), key=lambda b: (-b[1], b[0]))
    for bot, n, per_match in got:
        assert per_match == pytest.approx(n / played[bot], abs=0.05 + 1e-9)
    assert got[-1][:2] == ("planner", 0)  # a bot that never traded is listed


def harvests_by_variety(results: Path, final: bool) -> dict[str, list[int]]:
    """The coins of each ``harvested`` record by variety name (``final``: the
    final harvest's too)."""
    names = [v.name for v in varieties()]  # the game's data, not names.parquet
    coins: dict[str, list[int]] = defaultdict(list)
    ended: set[int] = set()
    for r in moves(results):
        if r["kind"] == "final_harvest":
            ended.add(r["match_id"])
        elif r["kind"] == "harvested" and (final or r["match_id"] not in ended):
            coins[names[r["card"]]].append(r["coins"])
    return coins


@pytest.mark.slow
def test_coins_per_harvest_by_variety_leaves_the_final_harvest_out(results: Path, con: Any) -> None:
    played = harvests_by_variety(results, final=False)
    # (a query that counted the final harvest would give other figures)
    assert played != harvests_by_variety(results, final=True)
    query = section_sql(README, "Querying the logs")[1]
    got = run(con, query, results)
    assert {v: n for v, n, _ in got} == {v: len(c) for v, c in played.items()}
    for variety, _, mean in got:
        assert mean == pytest.approx(sum(played[variety]) / len(played[variety]), abs=0.005 + 1e-9)
    assert [m for _, _, m in got] == sorted((m for _, _, m in got), reverse=True)


def test_the_trades_view_gives_each_trade_one_row_per_side(results: Path, con: Any) -> None:
    seats = matches(results)
    expected = []
    for r in traded(results):
        who = seats[r["match_id"]]
        a, b = r["seat"], r["to"]
        expected += [
            (r["match_id"], r["seq"], a, who[a], True, b, who[b], r["cards"], r["want"]),
            (r["match_id"], r["seq"], b, who[b], False, a, who[a], r["want"], r["cards"]),
        ]
    view, per_bot = section_sql(DOC, "Trades from both sides")[0].split(";", 1)
    run(con, view, results)
    got = run(con, "select * from trades order by match_id, seq, active desc", results)
    assert [tuple(row) for row in got] == expected
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for _, _, _, bot, _, _, _, gave, got_ in expected:
        tally[bot][0] += 1
        tally[bot][1] += not got_  # gave something for nothing
        tally[bot][2] += not gave
    assert {b: list(rest) for b, *rest in run(con, per_bot, results)} == tally


def test_the_names_query_names_what_was_planted(results: Path, con: Any) -> None:
    names = [v.name for v in varieties()]
    planted = Counter(names[r["card"]] for r in moves(results) if r["kind"] == "planted")
    (query,) = section_sql(DOC, "names.parquet: what the ids are called")
    assert dict(run(con, query, results)) == planted


def test_names_are_the_games_and_read_in_pandas_polars_and_duckdb(results: Path) -> None:
    expected = [v.name for v in varieties()]
    assert expected[:4] == ["Coffee", "Wax", "Blue", "Chili"] and expected[-1] == "Jumping"
    assert read_names(results) == {"variety": tuple(expected)}
    path = results / NAME
    frame = pd.read_parquet(path)
    assert list(frame.columns) == ["what", "id", "name"]
    assert frame["name"].tolist() == expected and frame["id"].tolist() == list(range(12))
    assert pl.read_parquet(path)["name"].to_list() == expected
    assert duckdb.sql(f"select name from '{path}' where id = 7").fetchall() == [("Black-eyed",)]


@pytest.mark.slow
def test_a_missing_or_different_names_file_is_written_again_by_the_next_run(
    results: Path, tmp_path: Path
) -> None:
    league = results.parent / "q.toml"
    kept = (results / NAME).read_bytes()
    moves_before = {p.name: p.read_bytes() for p in (results / "moves").iterdir()}
    (results / NAME).unlink()  # as in a run made before names were kept
    run_league(league, results, workers=1, progress=False)
    assert (results / NAME).read_bytes() == kept
    assert write_names(results, {"variety": ("Wrong",)})
    run_league(league, results, workers=1, progress=False)
    assert (results / NAME).read_bytes() == kept
    assert not write_names(results, read_names(results))  # the same: left alone
    assert {p.name: p.read_bytes() for p in (results / "moves").iterdir()} == moves_before


def test_a_names_file_that_is_not_one_is_replaced_unread(tmp_path: Path) -> None:
    names = {"variety": ("Coffee", "Wax")}
    (tmp_path / NAME).write_bytes(b"not parquet")
    assert write_names(tmp_path, names) and read_names(tmp_path) == names
    (tmp_path / NAME).unlink()
    os.mkfifo(tmp_path / NAME)
    assert write_names(tmp_path, names) and read_names(tmp_path) == names


@pytest.mark.slow
def test_a_merge_writes_the_names(league: Any, tmp_path: Path) -> None:
    path = league(deals=1)
    shards = []
    for k in (1, 2):
        out = tmp_path / f"s{k}"
        r = CliRunner().invoke(
            cli, ["run", str(path), "--out", str(out), "--shard", f"{k}/2", "--no-progress"]
        )
        assert r.exit_code == 0, r.output
        (out / NAME).unlink()
        shards.append(str(out))
    r = CliRunner().invoke(cli, ["merge", str(tmp_path / "merged"), *shards])
    assert r.exit_code == 0, r.output
    assert read_names(tmp_path / "merged") == {"variety": tuple(v.name for v in varieties())}


def test_the_dice_game_names_its_varieties_and_a_game_without_names_writes_none(
    tmp_path: Path,
) -> None:
    game = get_game("wuerfel")
    rules = game.rules(game.editions()[0], 3, {})
    names = log_names(game, rules)
    assert names == {"variety": tuple(v.capitalize() for v in rules.varieties)}
    assert len(names["variety"]) == 7 and "Garden" in names["variety"]
    assert not write_names(tmp_path, {})
    assert not (tmp_path / NAME).exists()
