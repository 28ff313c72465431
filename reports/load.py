"""A run directory as the analyses see it: manifest, configuration and lazy tables."""

from __future__ import annotations

import dataclasses
from functools import cached_property
from pathlib import Path
from typing import Any

import polars as pl

from rules.core.errors import DinolabError
from simulate.manifest import read_manifest


@dataclasses.dataclass
class Run:
    """An open run directory."""

    path: Path

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        self.manifest: dict[str, Any] = read_manifest(self.path)

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
        from simulate.parquet import part_name

        if table not in self.manifest["tables"]:
            raise DinolabError(f"{self.path} has no table '{table}'")
        parts = [
            str(self.path / table / part_name(int(i)))
            for i in sorted(self.manifest["chunks"], key=int)
        ]
        if not parts:
            raise DinolabError(f"{self.path} has no finished chunks yet")
        return pl.scan_parquet(parts)

    def data(self, name: str) -> pl.DataFrame:
        """A data file stored beside the logs (e.g. ``dinos.parquet``)."""
        path = self.path / name
        if not path.is_file():
            raise DinolabError(f"{self.path} lacks its data file {name}")
        return pl.read_parquet(path)

    def cluster(self) -> pl.Expr:
        """Games that share a deal (seat rotation) are one cluster for confidence intervals."""
        if self.config.get("rotate"):
            return pl.col("game_id") // self.n_players
        return pl.col("game_id")
