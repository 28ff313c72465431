"""Parquet parts: one file per chunk and table, encoded in memory and stored in one piece.

The store makes the write atomic (a local rename, or one object-store put), so a killed writer
never leaves a half file under a final name. The bytes come from :mod:`simulate.pqformat`
(compiled-free array encoders straight from the kernel's buffers: value-range dictionaries
bit-packed without hashing, delta-encoded ``game_id``, zstd level 1 where it pays); a table
it does not handle (nulls, lists of anything but strings) is written by pyarrow with the
settings below. Both
are deterministic: the same rows give the same bytes.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from simulate.pqformat import encode_table

KEY_COLUMNS = ("game_id", "round", "seat")


def part_name(index: int) -> str:
    """File name of chunk ``index``'s part in every table folder."""
    return f"part-{index:05d}.parquet"


def encode(table: pa.Table) -> bytes:
    """A table as the bytes of one Parquet file: :func:`simulate.pqformat.encode_table`, or
    pyarrow (zstd level 1, dictionaries, delta-encoded keys with statistics) for a table it
    does not handle."""
    data = encode_table(table)
    if data is not None:
        return data
    sink = pa.BufferOutputStream()
    keys = [c for c in KEY_COLUMNS if c in table.column_names]
    pq.write_table(
        table,
        sink,
        compression="zstd",
        compression_level=1,
        use_dictionary=[c for c in table.column_names if c not in keys],
        column_encoding=dict.fromkeys(keys, "DELTA_BINARY_PACKED") or None,
        write_statistics=keys,
        row_group_size=max(table.num_rows, 1),
    )
    return sink.getvalue().to_pybytes()
