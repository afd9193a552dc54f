"""Finished matches in match-id order while a run is still playing.

Batches finish in any order; a rating (and a sequential test) must see the
matches in id order to give what a serial pass over the finished directory
gives. :class:`InOrder` is told each batch as it is handed out (in id
order), buffers batches that finish before an earlier one, and queues rows
in order as soon as the gap before them fills. Matches a resumed run
finished before are merged in from the directory at their place in the
order. The runner passes queued rows on (:meth:`InOrder.pump`) a slice at a
time while it has nothing else to do: a finished batch is collected and the
next one handed out at once, however long the rating takes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pyarrow as pa

#: What the followers of a run read of each match (its ranking and the
#: report's arrays: results.COLUMNS, and the schedule coordinates that
#: compare pairs matches by).
COLUMNS = [
    *("match_id", "table", "deal", "rotation", "seats", "coins", "ranks", "winners", "faults"),
    *("turns", "duration_s"),
]

Row = Mapping[str, Any]


class InOrder:
    def __init__(self, follow: Callable[[Row], None], stored: Iterator[Row] | None = None) -> None:
        """``follow`` gets every row once, in id order; ``stored``: the rows
        the directory held before the run, in id order."""
        self.follow = follow
        self.stored = stored if stored is not None else iter(())
        self.next_stored: Row | None = next(self.stored, None)
        self.expected: deque[int] = deque()  # first ids of batches handed out, ascending
        self.arrived: dict[int, pa.Table | None] = {}  # kept as Arrow: compact while buffered
        self.ready: deque[Row] = deque()  # in id order, not yet followed

    def expect(self, first: int) -> None:
        """A batch starting at ``first`` was handed out (batches come in id order)."""
        assert not self.expected or first > self.expected[-1], "batches are handed out in order"
        if not self.expected:  # nothing played is pending before it: stored rows go on now
            self._stored_before(first)
        self.expected.append(first)

    def arrive(self, first: int, matches: pa.Table | None) -> None:
        """The batch starting at ``first`` finished (``None``: it could not be
        played): its rows, and those it held up, are queued."""
        self.arrived[first] = matches
        while self.expected and self.expected[0] in self.arrived:
            head = self.expected.popleft()
            self._stored_before(head)
            table = self.arrived.pop(head)
            if table is not None:
                self.ready.extend(table.select(COLUMNS).to_pylist())

    def pump(self, limit: int | None = None) -> None:
        """Pass on queued rows, at most ``limit`` of them."""
        for _ in range(len(self.ready) if limit is None else min(limit, len(self.ready))):
            self.follow(self.ready.popleft())

    def finish(self) -> None:
        """Every batch is in: pass on every row, the stored ones after the last batch too."""
        assert not self.expected, "finish() after every batch arrived"
        self._stored_before(None)
        self.pump()

    @property
    def waiting(self) -> int:
        """Batches finished but held back by an earlier one still playing."""
        return len(self.arrived)

    @property
    def backlog(self) -> int:
        """Rows queued, not yet passed on."""
        return len(self.ready)

    def _stored_before(self, stop: int | None) -> None:
        while self.next_stored is not None and (
            stop is None or self.next_stored["match_id"] < stop
        ):
            self.ready.append(self.next_stored)
            self.next_stored = next(self.stored, None)
