"""Plots of studies (sweeps and searches) as PNG bytes, in the report's style."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from reports.plots import ACCENT, COLOR, png, subplots

MAX_LINES = 8
"""Most lines (one per setting of the other knobs) on one metric-against-knob plot."""


def _numeric(values: Sequence[str]) -> np.ndarray | None:
    try:
        return np.array([float(v) for v in values])
    except ValueError:
        return None


def _panel(ax, df: pl.DataFrame, knob: str, others: Sequence[str], reference) -> None:
    groups = list(df.group_by(list(others), maintain_order=True)) if others else [((), df)]
    lines = len(groups) <= MAX_LINES and all(g.height > 1 for _, g in groups)
    cats = list(dict.fromkeys(df[knob].to_list()))
    numeric = _numeric(cats)
    for key, g in groups if lines else [((), df)]:
        xs = (
            [float(v) for v in g[knob]] if numeric is not None else [cats.index(v) for v in g[knob]]
        )
        g = g.with_columns(_x=pl.Series(xs)).sort("_x")
        x = g["_x"].to_numpy()
        y, lo, hi = (g[c].to_numpy() for c in ("value", "lo", "hi"))
        if lines:
            label = ", ".join(f"{k}={v}" for k, v in zip(others, key, strict=True)) or None
            ax.plot(x, y, marker="o", ms=4, label=label)
            ax.fill_between(x, lo, hi, alpha=0.15)
        else:
            err = [y - lo, hi - y]
            ax.errorbar(x, y, yerr=err, fmt="o", color=COLOR, ecolor="black", capsize=3, ms=4)
    if reference is not None:
        ax.axhline(reference, color=ACCENT, linestyle="--", linewidth=1, label="target")
    if numeric is None:
        ax.set_xticks(range(len(cats)), cats, rotation=30 if len(cats) > 4 else 0)
    ax.set_xlabel(knob)
    if (lines and others and len(groups) > 1) or reference is not None:
        ax.legend(fontsize=6)
    ax.grid(alpha=0.3)


def metric_by_knobs(
    df: pl.DataFrame,
    knobs: Sequence[str],
    metric: str,
    *,
    reference: float | None = None,
    series: Sequence[str] = (),
) -> bytes:
    """One panel per knob: the metric's ``value`` with its ``lo``..``hi`` band against that
    knob (``df``: one row per point, knobs as text columns), one line per setting of the other
    knobs and of the ``series`` columns (a sweep's ``tier``; a Latin hypercube's points, which
    share no setting, as points with intervals)."""
    fig, axes = subplots(1, len(knobs), figsize=(4.6 * len(knobs), 3.3), squeeze=False)
    for ax, knob in zip(axes[0], knobs, strict=True):
        _panel(ax, df, knob, [*(k for k in knobs if k != knob), *series], reference)
    axes[0][0].set_ylabel(metric)
    fig.suptitle(f"{metric} against each knob (95% bands)", fontsize=10)
    return png(fig)


def heatmap(
    df: pl.DataFrame, x: str, y: str, metric: str, *, reference: float | None = None
) -> bytes:
    """The metric over two knobs (one cell per point), each cell labelled with its value; with
    a ``reference`` (a target value) the colours show the distance from it."""
    xs = list(dict.fromkeys(df[x].to_list()))
    ys = list(dict.fromkeys(df[y].to_list()))
    for axis in (xs, ys):
        nums = _numeric(axis)
        if nums is not None:
            axis[:] = [axis[i] for i in np.argsort(nums, kind="stable")]
    grid = np.full((len(ys), len(xs)), np.nan)
    for r in df.iter_rows(named=True):
        grid[ys.index(r[y]), xs.index(r[x])] = r["value"]
    fig, ax = subplots(figsize=(max(4.5, 0.7 * len(xs) + 2.5), max(3.2, 0.45 * len(ys) + 1.8)))
    shown = np.abs(grid - reference) if reference is not None else grid
    im = ax.imshow(
        shown,
        cmap="viridis_r" if reference is not None else "viridis",
        aspect="auto",
        origin="lower",
    )
    for i in range(len(ys)):
        for j in range(len(xs)):
            if grid[i, j] == grid[i, j]:
                r, g, b, _ = im.cmap(im.norm(shown[i, j]))
                ink = "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"
                ax.text(j, i, f"{grid[i, j]:.3g}", ha="center", va="center", fontsize=7, color=ink)
    ax.set_xticks(range(len(xs)), xs)
    ax.set_yticks(range(len(ys)), ys)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    label = f"|{metric} - {reference:g}|" if reference is not None else metric
    fig.colorbar(im, ax=ax, label=label)
    ax.set_title(f"{metric} over {x} and {y}", fontsize=10)
    return png(fig)


def best_so_far(df: pl.DataFrame) -> bytes:
    """A search's best distance so far (with its 95% band) against the games spent."""
    fig, ax = subplots(figsize=(6, 3.4))
    x = df["games"].to_numpy()
    ax.step(x, df["distance"].to_numpy(), where="post", color=COLOR, label="best so far")
    ax.fill_between(
        x, df["lo"].to_numpy(), df["hi"].to_numpy(), step="post", alpha=0.2, color=COLOR
    )
    if "trial_distance" in df.columns:
        ax.plot(
            x,
            df["trial_distance"].to_numpy(),
            "o",
            ms=3,
            color="grey",
            alpha=0.6,
            label="each trial",
        )
    ax.set_xlabel("games spent")
    ax.set_ylabel("distance from the target")
    ax.set_title("Search convergence (95% band of the best)", fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return png(fig)


def forest(labels: Sequence[str], value, lo, hi, *, xlabel: str, title: str) -> bytes:
    """Horizontal intervals, one per label (one-step deviations, minimal changes)."""
    value, lo, hi = (np.asarray(a, dtype=float) for a in (value, lo, hi))
    fig, ax = subplots(figsize=(6, max(2.4, 0.32 * len(labels) + 1.2)))
    pos = np.arange(len(labels))[::-1]
    ax.errorbar(
        value, pos, xerr=[value - lo, hi - value], fmt="o", color=COLOR, ecolor="black", capsize=3
    )
    ax.axvline(0, color=ACCENT, linestyle="--", linewidth=1)
    ax.set_yticks(pos, labels, fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return png(fig)
