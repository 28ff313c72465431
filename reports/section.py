"""A report section: a title, a paragraph, a table with formats, an optional figure."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from reports.aggregate import Mapper


@dataclasses.dataclass(frozen=True)
class Plot:
    """A figure still to draw: ``fn(*args, **kwargs)`` returns its PNG bytes. ``fn`` is a
    module-level function, so a worker process can draw it (:func:`draw_figures`)."""

    fn: Callable[..., bytes]
    args: tuple = ()
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)


def _draw(plot: Plot) -> bytes:
    return plot.fn(*plot.args, **plot.kwargs)


@dataclasses.dataclass
class Section:
    title: str
    text: str
    table: pl.DataFrame | None = None
    columns: dict[str, str] = dataclasses.field(default_factory=dict)
    """Columns to show: name -> format ('pct', 'pct_ci', 'int', 'float', 'str')."""
    figure: bytes | Plot | None = None
    """PNG bytes, or a :class:`Plot` that :func:`draw_figures` draws."""
    key: str = ""
    """A short id for tests and links."""


def draw_figures(sections: Sequence[Section], draw: Mapper = map) -> list[Section]:
    """``sections`` with every :class:`Plot` drawn through ``draw`` (in this process by default;
    a warm worker pool's map draws them side by side, the same bytes either way)."""
    todo = [s for s in sections if isinstance(s.figure, Plot)]
    drawn = list(draw(_draw, [s.figure for s in todo]))
    for section, png in zip(todo, drawn, strict=True):
        section.figure = png
    return list(sections)


def fmt(value, kind: str) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value != value:
        return "n/a"
    if kind == "pct":
        return f"{value:.2%}"
    if kind == "pp":
        return f"{value * 100:+.2f} pp"
    if kind == "int":
        return f"{int(value):,}"
    if kind == "float":
        return f"{value:.3f}"
    return str(value)


def ci_text(row: dict, kind: str = "pct") -> str:
    """``mean [lo, hi]`` of a row, formatted."""
    return f"{fmt(row['mean'], kind)} [{fmt(row['lo'], kind)}, {fmt(row['hi'], kind)}]"


def rows_of(section: Section) -> tuple[list[str], list[list[str]]]:
    """Header and formatted rows of a section's table."""
    if section.table is None:
        return [], []
    header = list(section.columns)
    out = []
    for r in section.table.iter_rows(named=True):
        cells = []
        for name, kind in section.columns.items():
            if kind == "pct_ci":
                cells.append(
                    f"{fmt(r[name], 'pct')} [{fmt(r['lo'], 'pct')}, {fmt(r['hi'], 'pct')}]"
                )
            else:
                cells.append(fmt(r[name], kind))
        out.append(cells)
    return header, out
