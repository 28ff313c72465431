"""The logs are real Parquet: polars, pandas, pyarrow and DuckDB read the same rows."""

from __future__ import annotations

import duckdb
import pandas as pd
import polars as pl
import pyarrow.dataset as ds


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
