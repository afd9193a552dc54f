"""Reading a part's rows by match id (store.parts.read_range)."""

import pyarrow as pa
import pyarrow.parquet as pq

from bohnarena.store.parts import read_range


def test_a_range_reads_only_its_rows_whatever_columns_come_before_the_ids(tmp_path):
    # a struct column first: its two leaf columns shift match_id's statistics
    cards = [{"first": i, "second": i + 1} for i in range(12)]
    table = pa.table({"cards": pa.array(cards), "match_id": pa.array(range(100, 112), pa.int64())})
    path = tmp_path / "part.parquet"
    pq.write_table(table, path, row_group_size=3)
    got = read_range(path, 104, 108)
    assert got.column("match_id").to_pylist() == list(range(104, 109))
    assert got.column("cards").to_pylist() == cards[4:9]
    assert read_range(path, 0, 99).num_rows == 0
    assert read_range(path, 111, 500).column("match_id").to_pylist() == [111]
