"""The logs are real Parquet: polars, pandas, pyarrow and DuckDB read the same rows."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from rules.core.errors import DinolabError
from simulate.kit.play import play
from simulate.manifest import read_manifest, run_config
from simulate.rundir import Run


def test_every_reader_sees_the_same_rows(dkd_run):
    for name, rows in (("games", 4000), ("players", 16000), ("rounds", 44000), ("turns", 176000)):
        glob = str(dkd_run / name / "*.parquet")
        assert pl.scan_parquet(glob).select(pl.len()).collect().item() == rows
        assert len(pd.read_parquet(dkd_run / name)) == rows
        assert ds.dataset(dkd_run / name).count_rows() == rows
        assert duckdb.sql(f"select count(*) from read_parquet('{glob}')").fetchall()[0][0] == rows
    glob = str(dkd_run / "players" / "*.parquet")
    by_duck = dict(
        duckdb.sql(
            f"select strategy, sum(winner::int) from read_parquet('{glob}') group by 1"
        ).fetchall()
    )
    by_polars = dict(
        pl.scan_parquet(glob)
        .group_by("strategy")
        .agg(pl.col("winner").sum())
        .collect()
        .with_columns(pl.col("strategy").cast(pl.String))
        .iter_rows()
    )
    assert by_duck == by_polars
    assert pd.read_parquet(dkd_run / "players")["strategy"].dtype == "category"


def test_cards_join_the_logs(dkd_run):
    turns = pl.scan_parquet(str(dkd_run / "turns" / "*.parquet"))
    dinos = pl.read_parquet(dkd_run / "dinos.parquet").lazy()
    joined = turns.join(dinos, on="card_id").select(pl.len()).collect().item()
    assert joined == 176000


def _kernel_tables(run: Path) -> dict[str, pa.Table]:
    """Every logged table of the run as the kernel fills it, played again in one piece."""
    config = run_config(read_manifest(run))
    setup = config.setup()
    return play(setup, config.seed, config.rotate, 0, config.games)


def _as_text(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.col(pl.Categorical).cast(pl.String))


def test_every_reader_sees_the_kernels_values(dkd_run):
    """What the writer stores, each reader reads as the kernel wrote it; the columns left
    out of the parts are derived by Run.read and Run.scan to the kernel's values too."""
    kernel = _kernel_tables(dkd_run)
    run = Run(dkd_run)
    for name, table in kernel.items():
        want = _as_text(pl.from_arrow(table))
        stored = [c for c in table.column_names if c not in run.derived(name)]
        glob = str(dkd_run / name / "*.parquet")
        by_arrow = ds.dataset(dkd_run / name).to_table()
        assert by_arrow.column_names == stored
        assert _as_text(pl.from_arrow(by_arrow)).equals(want.select(stored)), name
        assert _as_text(pl.read_parquet(glob)).equals(want.select(stored)), name
        by_pandas = pd.read_parquet(dkd_run / name)
        assert _as_text(pl.from_pandas(by_pandas)).equals(want.select(stored)), name
        by_duck = duckdb.sql(
            f"select * exclude (file_row_number) from read_parquet('{glob}', "
            "file_row_number = true) order by filename, file_row_number"
        ).pl()
        assert _as_text(by_duck).equals(want.select(stored)), name
        assert _as_text(run.scan(name).collect()).equals(want), name
        parts = [run.read(name, c) for c in sorted(run.manifest["chunks"], key=int)]
        assert _as_text(pl.concat(parts)).equals(want), name
    assert set(run.derived("turns")) == {"event_id", "strength", "holder", "won"}


def test_a_derived_column_needs_its_source_row(dkd_run, tmp_path):
    """A turns row whose round is missing from rounds is an error, not a made-up value."""
    shutil.copytree(dkd_run, tmp_path / "run")
    part = tmp_path / "run" / "rounds" / "part-00000.parquet"
    rounds = pq.read_table(part)
    pq.write_table(rounds.slice(1), part)
    with pytest.raises(DinolabError, match="without a match in rounds"):
        Run(tmp_path / "run").read("turns", 0, ["won"])
