"""A report section: a title, a paragraph, a table with formats, an optional figure."""

from __future__ import annotations

import dataclasses

import polars as pl


@dataclasses.dataclass
class Section:
    title: str
    text: str
    table: pl.DataFrame | None = None
    columns: dict[str, str] = dataclasses.field(default_factory=dict)
    """Columns to show: name -> format ('pct', 'pct_ci', 'int', 'float', 'str')."""
    figure: bytes | None = None
    key: str = ""
    """A short id for tests and links."""


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
