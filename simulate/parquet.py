"""Parquet parts: written whole under a temporary name, then renamed into place.

A killed writer therefore never leaves a half file under a final name. Settings: zstd level 1,
the kernels' small integer dtypes, dictionary encoding (categories and small ints), delta
encoding for the sorted ``game_id``, and min/max statistics on the key columns only
(``game_id``, ``round``, ``seat``) so readers can skip row groups by game. Measured on a
50,000-game Dino Kontra Dino chunk, these settings wrote the smallest files and were as fast as
any other zstd choice.
"""

from __future__ import annotations

import hashlib

import pyarrow as pa
import pyarrow.parquet as pq

from simulate.storage import RunStore

KEY_COLUMNS = ("game_id", "round", "seat")


def part_name(index: int) -> str:
    """File name of chunk ``index``'s part in every table folder."""
    return f"part-{index:05d}.parquet"


def encode(table: pa.Table) -> bytes:
    """A table as the bytes of one Parquet file, with the settings above."""
    sink = pa.BufferOutputStream()
    stats = [c for c in KEY_COLUMNS if c in table.column_names]
    delta = {"game_id": "DELTA_BINARY_PACKED"} if "game_id" in table.column_names else None
    pq.write_table(
        table,
        sink,
        compression="zstd",
        compression_level=1,
        use_dictionary=[c for c in table.column_names if c != "game_id"],
        column_encoding=delta,
        write_statistics=stats,
        row_group_size=max(table.num_rows, 1),
    )
    return sink.getvalue().to_pybytes()


def write_part(store: RunStore, folder: str, index: int, table: pa.Table) -> tuple[int, str]:
    """Write ``table`` as chunk ``index`` of ``folder``; return (rows, sha256 of the file)."""
    data = encode(table)
    store.write_bytes(f"{folder}/{part_name(index)}", data)
    return table.num_rows, hashlib.sha256(data).hexdigest()
