"""Arrow tables for match results and move records (any game).

The moves table is one row per record: ``match_id``, ``seq`` (the record's
position in its match), ``kind``, ``seat``, then the game's value columns;
a column a record kind does not use is null. See docs/logs.md.
"""

from __future__ import annotations

import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import accumulate, chain
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..core.botapi import Tick

#: Bumped whenever the layout of the written tables changes.
LOG_FORMAT = 4
#: The formats this bohnarena reads: 3 is 4 without timing (docs/logs.md).
READS_FORMATS = (3, 4)

MATCHES_SCHEMA = pa.schema(
    [
        ("match_id", pa.int64()),
        ("table", pa.int32()),
        ("deal", pa.int32()),
        ("rotation", pa.int32()),
        ("seed", pa.uint64()),
        ("seats", pa.list_(pa.string())),  # bot name per seat, seat 0 starts
        ("coins", pa.list_(pa.int32())),
        ("ranks", pa.list_(pa.int32())),  # 1 is first
        ("winners", pa.list_(pa.int32())),  # seats
        ("turns", pa.int32()),
        ("faults", pa.list_(pa.int32())),
        ("duration_s", pa.float64()),
    ]
)

#: One row per answer a bot was asked for: its think time, apart from the
#: moves (which stay the same, byte for byte, run after run). ``seq`` is the
#: answer's record in the moves; ``micros`` what it cost the seat's time bank.
TIMING_SCHEMA = pa.schema(
    [
        ("match_id", pa.int64()),
        ("seq", pa.int32()),
        ("seat", pa.int32()),
        ("decision", pa.dictionary(pa.int8(), pa.string())),
        ("micros", pa.int32()),
    ]
)

_I32 = pa.int32()
_MOST = 2**31 - 1  # µs: a think time of more than 35 minutes is kept as that
_TYPES = {"int": _I32, "ints": pa.list_(_I32), "str": pa.string()}
_KEYS = [
    pa.field("match_id", pa.int64()),
    pa.field("seq", _I32),
    pa.field("kind", pa.string()),
    pa.field("seat", _I32),
]


def moves_schema(columns: Mapping[str, str]) -> pa.Schema:
    return pa.schema(_KEYS + [pa.field(name, _TYPES[kind]) for name, kind in columns.items()])


def matches_table(rows: Sequence[Mapping[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(list(rows), schema=MATCHES_SCHEMA)


def timing_table(matches: Iterable[tuple[int, Sequence[Sequence[Tick]]]]) -> pa.Table:
    """The think times of several matches, each given as its seats'
    clocks (a list of ``(seq, decision, micros)`` per seat), as one table
    in (match_id, seat, seq) order."""
    ids, seqs, seats = array.array("q"), array.array("i"), array.array("i")
    kinds: list[str] = []
    micros: list[int] = []
    for match_id, clocks in matches:
        for seat, clock in enumerate(clocks):
            if not clock:
                continue
            seq, kind, us = zip(*clock, strict=True)  # one transpose, not a step per value
            ids.extend(array.array("q", (match_id,)) * len(seq))
            seats.extend(array.array("i", (seat,)) * len(seq))
            seqs.extend(seq)
            kinds.extend(kind)
            micros.extend(us)
    # the decisions met, in order: the column's dictionary
    names = {kind: i for i, kind in enumerate(dict.fromkeys(kinds))}
    return pa.Table.from_arrays(
        [
            _buffer(ids, pa.int64()),
            _buffer(seqs, _I32),
            _buffer(seats, _I32),
            pa.DictionaryArray.from_arrays(
                _buffer(array.array("b", map(names.__getitem__, kinds)), pa.int8()),
                pa.array(list(names), pa.string()),
            ),
            _buffer(_int32s(micros), _I32),
        ],
        schema=TIMING_SCHEMA,
    )


def _int32s(values: list[int]) -> array.array[int]:
    try:
        return array.array("i", values)
    except OverflowError:  # (rare: a time over 35 minutes)
        return array.array("i", [min(v, _MOST) for v in values])


# Python ints to Arrow through array.array buffers: a C loop, no per-value objects.
def _buffer(values: array.array[int], kind: pa.DataType) -> pa.Array:
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])


def _ints(col: Sequence[int]) -> pa.Array:
    return _buffer(array.array("i", col), _I32)


def _lists(col: Sequence[Sequence[int]]) -> pa.Array:
    offsets = array.array("i", [0])
    offsets.extend(accumulate(map(len, col)))
    return pa.ListArray.from_arrays(
        _buffer(offsets, _I32), _buffer(array.array("i", chain.from_iterable(col)), _I32)
    )


_CONVERT: dict[str, Callable[[Sequence[Any]], pa.Array]] = {
    "int": _ints,
    "ints": _lists,
    "str": lambda col: pa.array(col, pa.string()),
}


def moves_table(
    matches: Iterable[tuple[int, Sequence[tuple[Any, ...]]]],
    layout: Mapping[str, Sequence[str]],
    columns: Mapping[str, str],
) -> pa.Table:
    """Records of several matches as one table, in (match_id, seq) order.

    One pass puts each record in its kind's list (and notes its kind's
    code), so that each kind's values become columns by one transpose (zip)
    and buffer copies, not a Python step per value; a stable sort of the
    codes then gives the permutation that puts the rows back in log order.
    """
    kinds = list(layout)
    code = {kind: i for i, kind in enumerate(kinds)}
    by_kind: dict[str, list[tuple[Any, ...]]] = {kind: [] for kind in kinds}
    codes: list[int] = []
    ids, seqs = array.array("q"), array.array("i")
    for match_id, recs in matches:
        n = len(recs)
        for rec in recs:
            by_kind[rec[0]].append(rec)
            codes.append(code[rec[0]])
        ids.extend(array.array("q", (match_id,)) * n)
        seqs.extend(_seq(n))
    if not codes:
        return moves_schema(columns).empty_table()
    parts = []
    for kind in kinds:
        rows = by_kind[kind]
        if not rows:
            continue
        cols = list(zip(*rows, strict=False))
        named = dict(zip(layout[kind], cols[2:], strict=False))
        arrays = [_ints(cols[1])]
        for name, kind_of in columns.items():
            values = named.get(name)
            arrays.append(
                pa.nulls(len(rows), _TYPES[kind_of])
                if values is None
                else _CONVERT[kind_of](values)
            )
        parts.append(arrays)
    merged = [pa.concat_arrays([p[j] for p in parts]) for j in range(len(parts[0]))]
    kind_codes = _buffer(array.array("b", codes), pa.int8())
    # grouped row j is log row order[j] (a stable sort: log order within a kind)
    order = pc.sort_indices(kind_codes)
    values = pa.table(merged, names=["seat", *columns]).take(pc.sort_indices(order))
    kind_col = pa.DictionaryArray.from_arrays(kind_codes, pa.array(kinds, pa.string()))
    head = [_buffer(ids, pa.int64()), _buffer(seqs, _I32), kind_col.cast(pa.string())]
    return pa.Table.from_arrays(head + values.columns, schema=moves_schema(columns))


_SEQ = array.array("i", range(4096))


def _seq(n: int) -> array.array[int]:
    global _SEQ
    if n > len(_SEQ):
        _SEQ = array.array("i", range(2 * n))
    return _SEQ[:n]


def warm_up() -> None:
    """Load the Arrow compute kernels once, before worker processes fork."""
    moves_table([(0, [("x", 0, 1)])], {"x": ("n",)}, {"n": "int"})
    timing_table([(0, [[(0, "x", 1)]])])


def records_of(table: pa.Table, layout: Mapping[str, Sequence[str]]) -> list[tuple[Any, ...]]:
    """The record tuples of a moves table, in its row order."""
    columns = {
        name: table.column(name).to_pylist()
        for name in table.column_names
        if name not in ("match_id", "seq")
    }
    kinds, seats = columns["kind"], columns["seat"]
    out = []
    for i, kind in enumerate(kinds):
        names = layout.get(kind)
        if names is None:
            raise ValueError(f"unknown record kind {kind!r}")
        values = (columns[n][i] for n in names)
        out.append((kind, seats[i], *(tuple(v) if isinstance(v, list) else v for v in values)))
    return out
