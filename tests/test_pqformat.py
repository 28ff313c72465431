"""The array encoder writes Parquet that pyarrow, polars and DuckDB read back value for value."""

from __future__ import annotations

import io

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from simulate.pqformat import encode_table


def _table(n: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    ids = np.sort(rng.integers(0, 3, n).cumsum() * rng.choice([1, 1000, 10**12]))
    labels = pa.array(["greedy", "random", "blind"])
    cards = [f"card {i}" for i in range(40)]
    seen = [[cards[c] for c in rng.integers(0, 40, k)] for k in rng.integers(0, 6, n)]
    return pa.table(
        {
            "game_id": pa.array(ids.astype(np.int64)),
            "small": pa.array(rng.integers(-128, 128, n).astype(np.int8)),
            "constant": pa.array(np.full(n, 7, np.int8)),
            "wide": pa.array(rng.integers(-(2**31), 2**31, n).astype(np.int32)),
            "unsorted": pa.array(rng.integers(-(2**40), 2**40, n).astype(np.int64)),
            "short": pa.array(rng.integers(0, 300, n).astype(np.int16)),
            "byte": pa.array(rng.integers(0, 256, n).astype(np.uint8)),
            "flag": pa.array(rng.random(n) < 0.3),
            "share": pa.array(rng.random(n).astype(np.float32)),
            "value": pa.array(rng.normal(size=n)),
            "strategy": pa.DictionaryArray.from_arrays(
                pa.array(rng.integers(0, 3, n).astype(np.int8)), labels
            ),
            "seen": pa.array(seen, pa.list_(pa.string())),  # empty lists among them
        }
    )


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 127, 129, 1000, 4099])
def test_every_reader_reads_what_was_encoded(n, tmp_path):
    table = _table(n, n)
    data = encode_table(table)
    assert data is not None
    back = pq.read_table(io.BytesIO(data))
    assert back.schema.equals(table.schema) and back.equals(table)
    assert pl.read_parquet(io.BytesIO(data)).equals(pl.from_arrow(table))
    (tmp_path / "t.parquet").write_bytes(data)
    duck = duckdb.sql(f"select * from read_parquet('{tmp_path / 't.parquet'}')").arrow()
    duck = duck.read_all() if hasattr(duck, "read_all") else duck
    plain = table.set_column(10, "strategy", table["strategy"].cast(pa.string()))
    assert duck.cast(plain.schema).equals(plain)
    assert encode_table(table) == data  # the same rows, the same bytes


def test_statistics_let_readers_skip_parts_by_game():
    meta = pq.ParquetFile(io.BytesIO(encode_table(_table(1000, 3)))).metadata.row_group(0)
    ids = meta.column(0).statistics
    assert ids.has_min_max and ids.min == _table(1000, 3)["game_id"][0].as_py()


def test_a_list_column_has_one_repetition_and_definition_level_per_string():
    table = pa.table({"team": pa.array([["a"], ["b", "c"], [], ["c", "a", "a"]])})
    meta = pq.ParquetFile(io.BytesIO(encode_table(table))).metadata
    assert meta.schema.column(0).path == "team.list.element"
    assert meta.schema.column(0).max_repetition_level == 1
    assert meta.schema.column(0).max_definition_level == 3
    assert meta.row_group(0).column(0).num_values == 7  # six strings and one empty list
    assert pq.read_table(io.BytesIO(encode_table(table))).equals(table)


def test_a_table_it_cannot_write_is_left_to_pyarrow():
    lists = pa.table({"team": pa.array([[1], [2, 3]], pa.list_(pa.int8()))})
    nulls = pa.table({"x": pa.array([1, None], pa.int8())})
    assert encode_table(lists) is None and encode_table(nulls) is None
