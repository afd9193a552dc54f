"""Finished matches in match-id order while a run is still playing.

Batches finish in any order; a rating (and a sequential test) must see the
matches in id order to give what a serial pass over the finished directory
gives. :class:`InOrder` is told each batch as it is handed out (in id
order), buffers batches that finish before an earlier one, and passes rows
on as soon as the gap before them fills. Matches a resumed run finished
before are merged in from the directory at their place in the order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pyarrow as pa

#: What the followers of a run read of each match (rating.RANK_COLUMNS and
#: the schedule coordinates that compare pairs matches by).
COLUMNS = ["match_id", "table", "deal", "rotation", "seats", "coins", "ranks", "winners", "faults"]

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

    def expect(self, first: int) -> None:
        """A batch starting at ``first`` was handed out (batches come in id order)."""
        assert not self.expected or first > self.expected[-1], "batches are handed out in order"
        if not self.expected:  # nothing played is pending before it: stored rows go on now
            self._stored_before(first)
        self.expected.append(first)

    def arrive(self, first: int, matches: pa.Table | None) -> None:
        """The batch starting at ``first`` finished (``None``: it could not be
        played): its rows, and those it held up, are passed on."""
        self.arrived[first] = matches
        while self.expected and self.expected[0] in self.arrived:
            head = self.expected.popleft()
            self._stored_before(head)
            table = self.arrived.pop(head)
            if table is not None:
                for row in table.select(COLUMNS).to_pylist():
                    self.follow(row)

    def finish(self) -> None:
        """Every batch is in: pass on the stored rows after the last one."""
        assert not self.expected, "finish() after every batch arrived"
        self._stored_before(None)

    @property
    def waiting(self) -> int:
        """Batches finished but held back by an earlier one still playing."""
        return len(self.arrived)

    def _stored_before(self, stop: int | None) -> None:
        while self.next_stored is not None and (
            stop is None or self.next_stored["match_id"] < stop
        ):
            self.follow(self.next_stored)
            self.next_stored = next(self.stored, None)
