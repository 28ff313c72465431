"""A run directory opened for reading: manifest, configuration and lazy tables.

What ``reports/`` analyses, ``dinolab replay`` and the notebooks read (``reports`` never imports
``simulate``: the CLI or a notebook opens a :class:`Run` and hands it over). The run may be a
local folder or an fsspec URL (``s3://...``); local parts are scanned by polars directly,
remote ones through a pyarrow dataset on the run's filesystem.

Columns the manifest marks ``derived`` are not in the Parquet parts (a copy of another table's
fact, see :class:`simulate.kit.tables.Derived`); :meth:`Run.read` and :meth:`Run.scan` derive
them, so every reader sees every declared column in its declared order.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from rules.core.errors import DinolabError
from simulate.kit.tables import Derived
from simulate.manifest import read_manifest
from simulate.parquet import part_name
from simulate.storage import RunStore, open_store


class Run:
    """An open run directory."""

    def __init__(self, where: str | Path | RunStore):
        self.store = open_store(where)
        self.manifest: dict[str, Any] = read_manifest(self.store)
        self._data: dict[str, pl.DataFrame] = {}

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

    def columns(self, table: str) -> list[str]:
        """The table's declared columns, in order (derived ones included)."""
        if table not in self.manifest["tables"]:
            raise DinolabError(f"{self.store} has no table '{table}'")
        return [c["name"] for c in self.manifest["tables"][table]["columns"]]

    def derived(self, table: str) -> dict[str, Derived]:
        """The table's columns left out of its parts, and how each is derived."""
        self.columns(table)
        return {
            c["name"]: Derived.from_dict(c["derived"])
            for c in self.manifest["tables"][table]["columns"]
            if "derived" in c
        }

    def _stored_scan(self, table: str) -> pl.LazyFrame:
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

    def scan(self, table: str) -> pl.LazyFrame:
        """The table's finished parts (chunks listed in the manifest) as one LazyFrame, its
        derived columns joined from their sources."""
        names, derived = self.columns(table), self.derived(table)
        frame = self._stored_scan(table)
        for name in _in_order(derived, set(names) - set(derived)):
            d = derived[name]
            source = self.data(d.source).lazy() if d.from_file else self.scan(d.source)
            source = source.select(*d.on, pl.col(d.column).alias(_VALUE))
            frame = frame.join(source, on=list(d.on), how="left", maintain_order="left")
            value = pl.col(_VALUE) == pl.col(d.equals) if d.equals else pl.col(_VALUE)
            frame = frame.with_columns(value.alias(name)).drop(_VALUE)
        return frame.select(names)

    def _read_stored(self, name: str, columns: list[str] | None) -> pl.DataFrame:
        if self.store.local is not None:
            return pl.read_parquet(self.store.local / name, columns=columns)
        return pl.read_parquet(io.BytesIO(self.store.read_bytes(name)), columns=columns)

    def read(self, table: str, chunk: int, columns: Sequence[str] | None = None) -> pl.DataFrame:
        """One chunk's part of a table, eagerly (only ``columns`` if given), its derived
        columns computed from the same chunk's source part (or the data file)."""
        name = f"{table}/{part_name(int(chunk))}"
        names, derived = self.columns(table), self.derived(table)
        wanted = list(columns) if columns else names
        if not derived.keys() & set(wanted):
            return self._read_stored(name, list(columns) if columns else None)
        needed = set(wanted)
        for key in reversed(_in_order(derived, set(names) - set(derived))):
            if key in needed:
                needed |= {
                    *derived[key].on,
                    *([derived[key].equals] if derived[key].equals else []),
                }
        frame = self._read_stored(name, [c for c in names if c in needed and c not in derived])
        todo = {k: d for k, d in derived.items() if k in needed}
        for key in _in_order(todo, set(frame.columns)):
            d = derived[key]
            source = (
                self.data(d.source)
                if d.from_file
                else self.read(d.source, chunk, [*d.on, d.column])
            )
            frame = frame.with_columns(pl.Series(key, derive(d, frame, source)))
        return frame.select(wanted)

    def data(self, name: str) -> pl.DataFrame:
        """A data file stored beside the logs (e.g. ``dinos.parquet``)."""
        if name not in self._data:
            if not self.store.exists(name):
                raise DinolabError(f"{self.store} lacks its data file {name}")
            self._data[name] = pl.read_parquet(io.BytesIO(self.store.read_bytes(name)))
        return self._data[name]

    @property
    def title(self) -> str:
        return self.manifest.get("game_title", self.game)

    def write_text(self, name: str, text: str) -> str:
        """Write a file into the run directory (a report); return where it went."""
        self.store.write_bytes(name, text.encode())
        return f"{str(self.path).rstrip('/')}/{name}"


_VALUE = "__derived_value"


def _in_order(derived: dict[str, Derived], known: set[str]) -> list[str]:
    """The derived columns in an order that derives each after the columns it needs."""
    order, known = [], set(known)
    while len(order) < len(derived):
        ready = [
            k for k, d in derived.items() if k not in order and {*d.on, d.equals} - {""} <= known
        ]
        if not ready:
            raise DinolabError(
                f"derived columns {sorted(set(derived) - set(order))} need each other"
            )
        order += ready
        known |= set(ready)
    return order


def _keys(frames: list[list[np.ndarray]]) -> list[np.ndarray]:
    """Several key columns as one int64 key per row, in the same way for every frame."""
    out = [np.zeros(len(f[0]) if f else 0, np.int64) for f in frames]
    scale = 1
    for i in range(len(frames[0])):
        cols = [f[i].astype(np.int64) for f in frames]
        lo = min((int(c.min()) for c in cols if len(c)), default=0)
        span = max((int(c.max()) for c in cols if len(c)), default=0) - lo + 1
        scale *= span
        if scale >= 1 << 62:
            raise DinolabError("derived column keys span too many values")
        out = [o * span + (c - lo) for o, c in zip(out, cols, strict=True)]
    return out


def derive(d: Derived, rows: pl.DataFrame, source: pl.DataFrame) -> np.ndarray:
    """Derived column ``d`` for ``rows``: its source's value in the row with the same keys
    (equal to this row's ``d.equals``, if set). Every row must have exactly one match."""
    here, there = _keys([[rows[c].to_numpy() for c in d.on], [source[c].to_numpy() for c in d.on]])
    values = source[d.column].to_numpy()
    if len(there) > 1 and not bool(np.all(there[1:] > there[:-1])):
        order = np.argsort(there, kind="stable")
        there, values = there[order], values[order]
        if not bool(np.all(there[1:] > there[:-1])):
            raise DinolabError(f"{d.source} has two rows with the same {', '.join(d.on)}")
    at = np.minimum(np.searchsorted(there, here), max(len(there) - 1, 0))
    if len(here) and (not len(there) or not bool(np.all(there[at] == here))):
        raise DinolabError(f"rows without a match in {d.source} for {', '.join(d.on)}")
    out = values[at] if len(here) else values[:0]
    return out == rows[d.equals].to_numpy() if d.equals else out
