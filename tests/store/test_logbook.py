"""The moves table built column by column (logbook.moves_table) is the
table a row at a time would give: every record in its row, in log order,
its kind's columns filled and every other column null."""

import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bohnarena.core.game import get_game
from bohnarena.store.logbook import (
    TIMING_SCHEMA,
    MovesLog,
    moves_schema,
    moves_table,
    records_of,
    timing_table,
)
from bohnarena.store.parts import read_range, write_part

VALUES = {
    "int": lambda r: r.randint(-1, 40),
    "ints": lambda r: [r.randint(0, 11) for _ in range(r.randint(0, 4))],
    "str": lambda r: r.choice(["bot", "default", "forced", "", "é\nx"]),
}


def random_matches(layout, columns, seed):
    r = random.Random(seed)
    kinds = list(layout)
    matches = []
    for match_id in (7, 3, 12, 0):  # not in id order: rows stay in the order given
        recs = []
        for _ in range(r.randint(0, 60)):
            kind = r.choice(kinds)
            values = (VALUES[columns[name]](r) for name in layout[kind])
            recs.append(
                (kind, r.randint(-1, 4), *(tuple(v) if isinstance(v, list) else v for v in values))
            )
        matches.append((match_id, recs))
    return matches


def row_by_row(matches, layout, columns):
    rows = []
    for match_id, recs in matches:
        for seq, (kind, seat, *values) in enumerate(recs):
            row = dict.fromkeys(columns)
            row.update(
                zip(
                    layout[kind],
                    (list(v) if isinstance(v, tuple) else v for v in values),
                    strict=True,
                )
            )
            rows.append({"match_id": match_id, "seq": seq, "kind": kind, "seat": seat, **row})
    return pa.Table.from_pylist(rows, schema=moves_schema(columns))


@pytest.mark.parametrize("game", ["bohnanza", "wuerfel"])
@pytest.mark.parametrize("seed", range(5))
def test_columns_are_the_rows(game, seed):
    g = get_game(game)
    matches = random_matches(g.layout, g.columns, seed)
    table = moves_table(matches, g.layout, g.columns)
    assert table.schema == moves_schema(g.columns)
    assert table.equals(row_by_row(matches, g.layout, g.columns))
    assert records_of(table, g.layout) == [rec for _, recs in matches for rec in recs]


def test_no_records_is_an_empty_table():
    g = get_game("bohnanza")
    assert moves_table([(1, [])], g.layout, g.columns).equals(moves_schema(g.columns).empty_table())


@pytest.mark.parametrize("game", ["bohnanza", "wuerfel"])
def test_matches_added_one_by_one_are_one_table(game):
    """The worker adds each match's records as the match ends (MovesLog.add),
    then builds one table: the rows a row at a time would give."""
    g = get_game(game)
    matches = random_matches(g.layout, g.columns, 11)
    log = MovesLog(g.layout, g.columns)
    for match_id, recs in matches:
        log.add(match_id, list(recs))
        recs.clear()  # the records may go with their match
    assert log.table().equals(
        row_by_row(random_matches(g.layout, g.columns, 11), g.layout, g.columns)
    )


@pytest.mark.parametrize("values", [("x",), ("x", 3, 4)], ids=["short", "long"])
def test_a_record_off_its_layout_is_refused(values):
    """A record with more or fewer values than its kind's layout would shift
    every value after it into another column: it is refused instead."""
    layout = {"planted": ("card", "note"), "ended": ()}
    columns = {"card": "int", "note": "str"}
    records = [("planted", 0, 1, "a"), ("planted", 1, *values), ("ended", -1)]
    with pytest.raises(ValueError, match="planted"):
        moves_table([(0, records)], layout, columns)


@pytest.mark.parametrize(
    ("value", "error"), [(2**31, OverflowError), ("3", TypeError), (None, TypeError)]
)
def test_a_value_no_int32_holds_is_refused(value, error):
    """An int column's value that is not an int32 raises (the engine makes
    none): no value is cut to fit or read as another."""
    layout, columns = {"planted": ("card", "cards")}, {"card": "int", "cards": "ints"}
    with pytest.raises(error):
        moves_table([(0, [("planted", 0, value, (1,))])], layout, columns)
    with pytest.raises(error):
        moves_table([(0, [("planted", 0, 1, (value,))])], layout, columns)


@pytest.mark.slow  # (the first match of a process loads the bots: a second)
def test_a_batch_logs_the_records_its_matches_made():
    """play_batch's moves table holds every match's records, in log order:
    the records the same match gives when played again."""
    from bohnarena.core.entry import BotEntry
    from bohnarena.league.schedule import Schedule
    from bohnarena.run.seating import make_seat
    from bohnarena.run.worker import BatchTask, play_batch

    g = get_game("bohnanza")
    bots = {name: BotEntry(name, spec="random") for name in ("a", "b", "c")}
    specs = tuple(Schedule((("a", "b", "c"),), 3, 1, 9))[:3]
    task = BatchTask("bohnanza", "classic", 3, {}, bots, specs)
    result = play_batch(task)
    rules = g.rules("classic", 3, {})
    again = []
    for m in specs:
        seats = [make_seat(g, bots[name]) for name in m.seats]
        again += g.play(rules, m.seed, seats)[1]
    assert records_of(result.moves, g.layout) == again
    ids = result.moves.column("match_id").to_pylist()
    assert ids == sorted(ids) and set(ids) == {m.id for m in specs}


@pytest.mark.parametrize("game", ["bohnanza", "wuerfel"])
def test_a_moves_file_reads_back_its_table(game, tmp_path):
    """A moves part reads back as the table written (nulls, lists, strings
    and all), its seq delta-coded (a dictionary would be twelve times the
    size), every other column encoded as Parquet's defaults would."""
    g = get_game(game)
    table = moves_table(random_matches(g.layout, g.columns, 3), g.layout, g.columns)
    path = tmp_path / "moves" / "part-000000000-000000012.parquet"
    path.parent.mkdir()
    write_part(path, table)
    assert pq.read_table(path).equals(table)
    pq.write_table(table, tmp_path / "defaults.parquet")
    found, defaults = (encodings(p) for p in (path, tmp_path / "defaults.parquet"))
    assert found.pop("seq") == {"DELTA_BINARY_PACKED", "RLE"}
    assert found == {name: e for name, e in defaults.items() if name != "seq"}


def test_timing_rows_are_each_seats_clock_in_order():
    """A timing table is each match's seats' clocks, a row per answer, in
    (match, seat, seq) order; a seat without a clock has no row; a time is
    in microseconds rounded as ``round`` rounds (half to even), past int32
    kept as its largest value; the decisions are a dictionary in the order
    first met."""
    r = random.Random(4)
    kinds = ["plant", "offer", "respond", "draft"]
    matches = []
    for match_id in (9, 2, 5):  # not in id order: rows stay in the order given
        clocks = []
        for _ in range(r.randint(1, 4)):
            seqs = sorted(r.sample(range(200), r.randint(0, 30)))
            times = [0.0, 2.5e-6, 3.5e-6, 1.7e-5, r.random() / 10, r.random() * 5]
            clocks.append([(q, r.choice(kinds), r.choice(times)) for q in seqs])
        matches.append((match_id, clocks))
    matches[1][1][0].append((300, "plant", 3000.0))  # 50 minutes
    rows = [
        {
            "match_id": m,
            "seq": q,
            "seat": seat,
            "decision": k,
            "micros": min(round(s * 1e6), 2**31 - 1),
        }
        for m, clocks in matches
        for seat, clock in enumerate(clocks)
        for q, k, s in clock
    ]
    flat = [(m, [[v for tick in clock for v in tick] for clock in clocks]) for m, clocks in matches]
    table = timing_table(flat)
    assert table.schema == TIMING_SCHEMA
    assert table.to_pylist() == rows
    met = list(dict.fromkeys(row["decision"] for row in rows))
    assert table.column("decision").combine_chunks().dictionary.to_pylist() == met
    assert timing_table([(1, [[], []])]).equals(TIMING_SCHEMA.empty_table())


@pytest.mark.parametrize("table", ["moves", "timing"])
def test_a_part_keeps_statistics_on_match_id_alone(table, tmp_path):
    """A moves or timing part keeps the statistics a filter on match_id
    skips row groups by (read_range's, a reader's), and none on the other
    columns, whose ranges span every batch (computing them cost an eighth
    of a moves file's writing)."""
    g = get_game("bohnanza")
    matches = random_matches(g.layout, g.columns, 5)
    data = (
        moves_table(matches, g.layout, g.columns)
        if table == "moves"
        else timing_table([(m, [[i, "plant", 5e-6 * i] for i in range(3)]) for m, _ in matches])
    )
    path = tmp_path / table / "part-000000000-000000012.parquet"
    path.parent.mkdir()
    write_part(path, data)
    assert pq.read_table(path).equals(data)
    group = pq.ParquetFile(path).metadata.row_group(0)
    kept = {
        group.column(i).path_in_schema: (s.min, s.max)
        for i in range(group.num_columns)
        if (s := group.column(i).statistics) is not None and s.has_min_max
    }
    assert kept == {"match_id": (0, 12)}
    ids = read_range(path, 3, 7).column("match_id").to_pylist()
    assert ids and set(ids) == {3, 7}


def encodings(path):
    """Each column's encodings in a Parquet file's first row group."""
    chunk = pq.ParquetFile(path).metadata.row_group(0)
    columns = (chunk.column(i) for i in range(chunk.num_columns))
    return {c.path_in_schema.split(".")[0]: set(c.encodings) for c in columns}


def test_the_match_row_type_has_the_schema_keys_and_the_ranked_columns():
    from typing import get_type_hints

    from bohnarena.rating.skill import RANK_COLUMNS
    from bohnarena.store.logbook import MATCHES_SCHEMA, MatchRow, RankedRow

    assert set(MatchRow.__required_keys__) == set(MATCHES_SCHEMA.names)
    assert set(MatchRow.__optional_keys__) == set()
    assert set(RankedRow.__required_keys__) == set(RANK_COLUMNS)
    hints = get_type_hints(MatchRow)
    scalar = {"int": (pa.types.is_integer,), "float": (pa.types.is_floating,)}
    for f in MATCHES_SCHEMA:
        hint = hints[f.name]
        if pa.types.is_list(f.type):
            assert str(hint).startswith("list["), f.name
        else:
            assert any(test(f.type) for test in scalar[hint.__name__]), f.name
