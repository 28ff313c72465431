"""What an analysis reads: a run's manifest and its tables as polars LazyFrames.

Analyses take any object with this shape; :class:`simulate.rundir.Run` is the one the CLI and the
notebooks open. ``reports`` itself never imports ``simulate``: it reads logs, it does not play.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import polars as pl


class RunData(Protocol):
    """A run directory opened for reading."""

    manifest: dict[str, Any]

    @property
    def config(self) -> dict[str, Any]: ...

    @property
    def game(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def n_players(self) -> int: ...

    @property
    def complete(self) -> bool: ...

    @property
    def games_logged(self) -> int: ...

    def scan(self, table: str) -> pl.LazyFrame:
        """The table's finished parts as one LazyFrame."""
        ...

    def read(self, table: str, chunk: int, columns: Sequence[str] | None = None) -> pl.DataFrame:
        """One chunk's part of a table (only ``columns`` if given)."""
        ...

    def data(self, name: str) -> pl.DataFrame:
        """A data file stored beside the logs (``dinos.parquet`` ...)."""
        ...
