"""The moves table built column by column (logbook.moves_table) is the
table a row at a time would give: every record in its row, in log order,
its kind's columns filled and every other column null."""

import random

import pyarrow as pa
import pytest

from bohnarena.core.game import get_game
from bohnarena.store.logbook import moves_schema, moves_table, records_of

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
