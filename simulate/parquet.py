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
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

KEY_COLUMNS = ("game_id", "round", "seat")
TMP_PREFIX = ".tmp-"


def part_name(index: int) -> str:
    """File name of chunk ``index``'s part in every table folder."""
    return f"part-{index:05d}.parquet"


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same folder and a rename."""
    tmp = path.with_name(f"{TMP_PREFIX}{path.name}.{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_part(folder: Path, index: int, table: pa.Table) -> tuple[int, str]:
    """Write ``table`` as chunk ``index`` of ``folder``; return (rows, sha256 of the file)."""
    folder.mkdir(parents=True, exist_ok=True)
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
    data = sink.getvalue().to_pybytes()
    write_atomic(folder / part_name(index), data)
    return table.num_rows, hashlib.sha256(data).hexdigest()


def remove_temporaries(root: Path) -> int:
    """Delete temporary files a killed run left behind; return how many."""
    count = 0
    for p in root.rglob(f"{TMP_PREFIX}*"):
        p.unlink(missing_ok=True)
        count += 1
    return count
