"""A run directory opened for reading: manifest, configuration and lazy tables.

What ``reports/`` analyses and the notebooks read (``reports`` never imports ``simulate``: the
CLI or a notebook opens a :class:`Run` and hands it over). The run may be a local folder or an
fsspec URL (``s3://...``); local parts are scanned by polars directly, remote ones through a
pyarrow dataset on the run's filesystem.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import polars as pl

from rules.core.errors import DinolabError
from simulate.manifest import read_manifest
from simulate.parquet import part_name
from simulate.storage import RunStore, open_store


class Run:
    """An open run directory."""

    def __init__(self, where: str | Path | RunStore):
        self.store = open_store(where)
        self.manifest: dict[str, Any] = read_manifest(self.store)

    @property
    def path(self) -> str | Path:
        """The local folder, or the URL of a remote run."""
        return self.store.local or self.store.url

    @property
    def config(self) -> dict[str, Any]:
        return self.manifest["config"]

    @property
    def game(self) -> str:
        return self.config["game"]

    @property
    def n_players(self) -> int:
        return int(self.config["n_players"])

    @property
    def complete(self) -> bool:
        return self.manifest.get("status") == "complete"

    @cached_property
    def games_logged(self) -> int:
        return sum(c["stop"] - c["start"] for c in self.manifest["chunks"].values())

    def scan(self, table: str) -> pl.LazyFrame:
        """The table's finished parts (chunks listed in the manifest) as one LazyFrame."""
        if table not in self.manifest["tables"]:
            raise DinolabError(f"{self.store} has no table '{table}'")
        parts = [f"{table}/{part_name(int(i))}" for i in sorted(self.manifest["chunks"], key=int)]
        if not parts:
            raise DinolabError(f"{self.store} has no finished chunks yet")
        if self.store.local is not None:
            return pl.scan_parquet([str(self.store.local / p) for p in parts])
        import pyarrow.dataset as ds

        root = self.store.root
        dataset = ds.dataset(
            [f"{root}/{p}" for p in parts],
            format="parquet",
            filesystem=self.store.pyarrow_filesystem(),
        )
        return pl.scan_pyarrow_dataset(dataset)

    def read(self, table: str, chunk: int, columns: Sequence[str] | None = None) -> pl.DataFrame:
        """One chunk's part of a table, eagerly (only ``columns`` if given)."""
        name = f"{table}/{part_name(int(chunk))}"
        cols = list(columns) if columns else None
        if self.store.local is not None:
            return pl.read_parquet(self.store.local / name, columns=cols)
        return pl.read_parquet(io.BytesIO(self.store.read_bytes(name)), columns=cols)

    def data(self, name: str) -> pl.DataFrame:
        """A data file stored beside the logs (e.g. ``dinos.parquet``)."""
        if not self.store.exists(name):
            raise DinolabError(f"{self.store} lacks its data file {name}")
        return pl.read_parquet(io.BytesIO(self.store.read_bytes(name)))

    @property
    def title(self) -> str:
        return self.manifest.get("game_title", self.game)

    def write_text(self, name: str, text: str) -> str:
        """Write a file into the run directory (a report); return where it went."""
        self.store.write_bytes(name, text.encode())
        return f"{str(self.path).rstrip('/')}/{name}"
