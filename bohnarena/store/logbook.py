"""Arrow tables for match results and move records (any game).

The moves table is one row per record: ``match_id``, ``seq`` (the record's
position in its match), ``kind``, ``seat``, then the game's value columns;
a column a record kind does not use is null. See docs/logs.md.
"""

from __future__ import annotations

import array
import struct
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import accumulate, chain
from typing import Any, TypedDict, cast

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from ..core.botapi import Clock

#: Bumped whenever the layout of the written tables changes.
LOG_FORMAT = 5
#: The formats this bohnarena reads: 3 is 4 without timing, 4 is 5 without
#: the chain and the private seed file (docs/logs.md).
READS_FORMATS = (3, 4, 5)

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


class RankedRow(TypedDict):
    """What rating a match reads from its row: who sat where and how each
    seat did (``rating/skill.py``'s ``RANK_COLUMNS``)."""

    seats: list[str]
    coins: list[int]
    ranks: list[int]
    winners: list[int]
    faults: list[int]


class MatchRow(RankedRow):
    """A row of the matches table, as the worker writes it: its keys are
    :data:`MATCHES_SCHEMA`'s (tests/store/test_logbook.py)."""

    match_id: int
    table: int
    deal: int
    rotation: int
    seed: int
    turns: int
    duration_s: float


def ranked(rows: Iterable[Mapping[str, Any]]) -> Iterator[RankedRow]:
    """Rows read from the matches table with (at least) the ranked columns,
    as rating takes them: the columns are the schema's, so each is what
    :class:`RankedRow` says."""
    return (cast(RankedRow, row) for row in rows)


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

#: One row per decision of a seat that plays in words (a model's, a
#: person's; docs/text-seats.md): what it was shown, each reply, why each
#: refused one was, its tokens, its time and how many replies it took past
#: the first. ``seq`` is the decision's record in the moves. A league
#: without such seats writes no file of it.
EXCHANGES_SCHEMA = pa.schema(
    [
        ("match_id", pa.int64()),
        ("seq", pa.int32()),
        ("seat", pa.int32()),
        ("decision", pa.string()),
        ("prompt", pa.string()),
        ("replies", pa.list_(pa.string())),
        ("reasons", pa.list_(pa.string())),
        ("tokens_in", pa.int32()),
        ("tokens_out", pa.int32()),
        ("micros", pa.int32()),
        ("retries", pa.int32()),
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


def matches_table(rows: Sequence[MatchRow]) -> pa.Table:
    return pa.Table.from_pylist(list(rows), schema=MATCHES_SCHEMA)


def timing_table(matches: Iterable[tuple[int, Sequence[Clock]]]) -> pa.Table:
    """The think times of several matches, each given as its seats'
    clocks (see :data:`~bohnarena.core.botapi.Clock`), as one table in
    (match_id, seat, seq) order; a time in whole microseconds (rounded
    half to even, as ``round`` does), past int32 kept as its largest."""
    ids, seats = array.array("q"), array.array("i")
    seqs: list[Any] = []
    kinds: list[Any] = []
    seconds: list[Any] = []
    for match_id, clocks in matches:
        for seat, clock in enumerate(clocks):
            if clock:  # (a seat's rows at once, each column a strided slice: no step per tick)
                n = len(clock) // 3
                ids += array.array("q", (match_id,)) * n
                seats += array.array("i", (seat,)) * n
                seqs += clock[0::3]
                kinds += clock[1::3]
                seconds += clock[2::3]
    micros = np.minimum(np.rint(np.array(seconds, np.float64) * 1e6), _MOST).astype(np.int32)
    # the decisions met, in order: the column's dictionary
    names = {kind: i for i, kind in enumerate(dict.fromkeys(kinds))}
    return pa.Table.from_arrays(
        [
            _buffer(ids, pa.int64()),
            _int32s(seqs),
            _buffer(seats, _I32),
            pa.DictionaryArray.from_arrays(
                _buffer(array.array("b", list(map(names.__getitem__, kinds))), pa.int8()),
                pa.array(list(names), pa.string()),
            ),
            pa.array(micros),
        ],
        schema=TIMING_SCHEMA,
    )


def exchanges_table(rows: Iterable[Mapping[str, Any]]) -> pa.Table:
    """The exchanges of several matches: each row an ``Exchange``'s fields
    (``kind``, ``prompt``, ``replies``, ``reasons``, ``seconds``,
    ``tokens_in``, ``tokens_out``, ``before``) with its ``match_id`` and ``seat``."""
    return pa.Table.from_pylist(
        [
            {
                "match_id": r["match_id"],
                "seq": r["before"],
                "seat": r["seat"],
                "decision": r["kind"],
                "prompt": r["prompt"],
                "replies": list(r["replies"]),
                "reasons": list(r["reasons"]),
                "tokens_in": min(r["tokens_in"], _MOST),
                "tokens_out": min(r["tokens_out"], _MOST),
                "micros": min(round(r["seconds"] * 1e6), _MOST),
                "retries": max(len(r["replies"]) - 1, 0),
            }
            for r in rows
        ],
        schema=EXCHANGES_SCHEMA,
    )


# Python ints to Arrow through array.array buffers: a C loop, no per-value objects.
def _buffer(values: array.array[int], kind: pa.DataType) -> pa.Array:
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])


def _packed(values: Sequence[int]) -> bytes:
    """Python ints as int32s, in a C loop: ``struct.pack`` converts a value
    in a third of what ``array.array`` spends (its argument parser, a
    value at a time). A value out of range or not an int raises as
    ``array.array`` does."""
    try:
        return struct.pack(f"={len(values)}i", *values)
    except struct.error:
        array.array("i", values)  # (the error it raised before)
        raise


def _int32s(values: Sequence[int]) -> pa.Array:
    return pa.Array.from_buffers(_I32, len(values), [None, pa.py_buffer(_packed(values))])


def _lists(col: Sequence[Sequence[int]]) -> pa.Array:
    return pa.ListArray.from_arrays(
        _int32s([0, *accumulate(map(len, col))]), _int32s(list(chain.from_iterable(col)))
    )


def moves_table(
    matches: Iterable[tuple[int, Sequence[tuple[Any, ...]]]],
    layout: Mapping[str, Sequence[str]],
    columns: Mapping[str, str],
) -> pa.Table:
    """Records of several matches as one table, in (match_id, seq) order."""
    log = MovesLog(layout, columns)
    for match_id, records in matches:
        log.add(match_id, records)
    return log.table()


class MovesLog:
    """A batch's moves table, built as its matches end.

    :meth:`add` puts each record's values in its kind's list (one list of
    values a kind, record after record) right after its match, while the
    records are still in the cache, and keeps no record tuple; :meth:`table`
    reads each value column of a kind as a strided slice of that list (no
    transpose, no Python step per value) and puts each column's values in
    log order by the permutation a stable sort of the kind codes gives: an
    int column by a numpy scatter, a list or string column by one take of
    its kinds' values (no take of the whole table). A column no record
    fills is nulls at once.
    """

    def __init__(self, layout: Mapping[str, Sequence[str]], columns: Mapping[str, str]) -> None:
        self.layout, self.columns = layout, columns
        self.kinds = list(layout)
        self.code = {kind: i for i, kind in enumerate(self.kinds)}
        self.values: dict[str, list[Any]] = {kind: [] for kind in self.kinds}
        self.codes: list[int] = []
        self.ids, self.seqs = array.array("q"), array.array("i")

    def add(self, match_id: int, records: Sequence[tuple[Any, ...]]) -> None:
        values, codes, code = self.values, self.codes, self.code
        for rec in records:
            values[rec[0]].extend(rec)
            codes.append(code[rec[0]])
        n = len(records)
        self.ids.extend(array.array("q", (match_id,)) * n)
        self.seqs.extend(_seq(n))

    def table(self) -> pa.Table:
        n, columns = len(self.codes), self.columns
        if not n:
            return moves_schema(columns).empty_table()
        kind_codes = array.array("b", self.codes)
        codes = np.frombuffer(kind_codes, np.int8)
        counts = np.bincount(codes, minlength=len(self.kinds)).tolist()
        # the log rows of each kind, in log order (a stable sort)
        order = np.argsort(codes, kind="stable")
        kind_of = {"seat": "int", **columns}
        rows: dict[str, list[npt.NDArray[np.intp]]] = {name: [] for name in kind_of}
        parts: dict[str, list[Any]] = {name: [] for name in kind_of}
        lo = 0
        for kind, count in zip(self.kinds, counts, strict=True):
            if not count:
                continue
            at, lo = order[lo : lo + count], lo + count
            width = 2 + len(self.layout[kind])
            values = self.values[kind]
            if len(values) != count * width:
                raise ValueError(f"a {kind!r} record without the {width - 2} values of its layout")
            for i, name in enumerate(["seat", *self.layout[kind]], 1):
                rows[name].append(at)
                parts[name].append(_PARTS[kind_of[name]](values[i::width]))
        return pa.Table.from_arrays(
            [
                _buffer(self.ids, pa.int64()),
                _buffer(self.seqs, _I32),
                pa.DictionaryArray.from_arrays(
                    _buffer(kind_codes, pa.int8()), pa.array(self.kinds, pa.string())
                ).cast(pa.string()),
                *(_placed(n, kind_of[c], rows[c], parts[c]) for c in kind_of),
            ],
            schema=moves_schema(columns),
        )


#: A kind's values of a column as a part of it: a numpy array (an int
#: column, scattered into place) or an Arrow array (taken into place).
_PARTS: dict[str, Callable[[Sequence[Any]], Any]] = {
    "int": lambda col: np.frombuffer(_packed(col), np.int32),
    "ints": _lists,
    "str": lambda col: pa.array(col, pa.string()),
}


def _placed(n: int, kind: str, rows: list[npt.NDArray[np.intp]], parts: list[Any]) -> pa.Array:
    """A column of ``n`` rows in log order, from its kinds' parts and the log
    rows each part's values go to; every other row is null."""
    if not rows:
        return pa.nulls(n, _TYPES[kind])
    at = np.concatenate(rows) if len(rows) > 1 else rows[0]
    filled = len(at) == n
    if not filled:
        valid = np.zeros(n, np.bool_)
        valid[at] = True
    if kind == "int":  # scattered into place (no take)
        out = np.zeros(n, np.int32)
        out[at] = np.concatenate(parts) if len(parts) > 1 else parts[0]
        bitmap = None if filled else pa.py_buffer(np.packbits(valid, bitorder="little"))
        return pa.Array.from_buffers(_I32, n, [bitmap, pa.py_buffer(out)])
    # each log row's place in the parts (a null place: a null)
    place = np.zeros(n, np.int32)
    place[at] = np.arange(len(at), dtype=np.int32)
    return pa.concat_arrays(parts).take(pa.array(place, mask=None if filled else ~valid))


_SEQ = array.array("i", range(4096))


def _seq(n: int) -> array.array[int]:
    global _SEQ
    if n > len(_SEQ):
        _SEQ = array.array("i", range(2 * n))
    return _SEQ[:n]


def warm_up() -> None:
    """Load the Arrow compute kernels once, before worker processes fork."""
    moves_table([(0, [("x", 0, 1)])], {"x": ("n",)}, {"n": "int"})
    timing_table([(0, [[0, "x", 1e-6]])])


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
