"""Origin of Species' figures: estimates with intervals, and the food by round."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from reports import plots
from reports.plots import png, subplots


def forest_plot(
    names: Sequence[str], mean, lo, hi, *, title: str, xlabel: str, scale: float = 100.0
) -> bytes:
    """One row per item, largest on top: its estimate and 95% interval (``scale``: 100 shows
    shares as percentage points)."""
    order = np.argsort(np.asarray(mean, dtype=float))
    x = np.asarray(mean, dtype=float)[order] * scale
    err = [
        x - np.asarray(lo, dtype=float)[order] * scale,
        np.asarray(hi, dtype=float)[order] * scale - x,
    ]
    labels = [names[i] for i in order]
    fig, ax = subplots(figsize=(6.5, max(2.5, 0.27 * len(labels) + 1)))
    ax.errorbar(x, labels, xerr=err, fmt="o", color=plots.COLOR, ecolor="black", capsize=3)
    ax.axvline(0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(axis="x", alpha=0.3)
    return png(fig)


def food_plot(df: pl.DataFrame) -> bytes:
    """Food bank and need by round (95% bands), and the starvation rate."""
    fig, (a, b) = subplots(1, 2, figsize=(9, 3.4))
    x = df["round"].to_numpy()
    for name, color in (("bank", plots.COLOR), ("need", plots.ACCENT)):
        a.plot(x, df[name].to_numpy(), marker="o", ms=3, color=color, label=name)
        a.fill_between(
            x, df[f"{name}_lo"].to_numpy(), df[f"{name}_hi"].to_numpy(), color=color, alpha=0.2
        )
    a.set_xlabel("round")
    a.set_ylabel("tokens")
    a.set_title("Food bank and need (mean, 95% band)")
    a.legend(fontsize=8)
    a.grid(alpha=0.3)
    s = df["starvation"].to_numpy() * 100
    b.errorbar(
        x,
        s,
        yerr=[s - df["starvation_lo"].to_numpy() * 100, df["starvation_hi"].to_numpy() * 100 - s],
        fmt="o-",
        ms=3,
        color=plots.COLOR,
        ecolor="black",
        capsize=2,
    )
    b.set_xlabel("round")
    b.set_ylabel("% of animals")
    b.set_title("Starvation rate by round")
    b.grid(alpha=0.3)
    return png(fig)
