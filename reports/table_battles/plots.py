"""Dinosaur Table Battles' figures: the printed ratings against the simulated values."""

from __future__ import annotations

import numpy as np
import polars as pl

from reports.plots import png, subplots

VERDICT_COLORS = {
    "under-rated": "#2b6f77",
    "over-rated": "#c8553d",
    "fits": "#8e9aaf",
    "too few games": "#d0d0d0",
}


def calibration_plot(values: pl.DataFrame) -> bytes:
    """Simulated value (95% interval) against the printed rating, one point per dino, with
    the line of values the printed ratings stand for (mean and spread matched)."""
    fig, ax = subplots(figsize=(7.5, 5))
    # dinos of one printed rating spread sideways (by value) so their labels stay apart
    values = values.with_columns(
        _k=pl.col("value").rank("ordinal").over("draft_rating"),
        _x=pl.col("draft_rating").cast(pl.Float64)
        + 0.18
        * (
            pl.col("value").rank("ordinal").over("draft_rating")
            - (pl.len().over("draft_rating") + 1) / 2
        ),
    )
    for verdict, color in VERDICT_COLORS.items():
        d = values.filter(pl.col("verdict") == verdict)
        if not d.height:
            continue
        x = d["_x"].to_numpy()
        y = d["value"].to_numpy() * 100
        err = [y - d["lo"].to_numpy() * 100, d["hi"].to_numpy() * 100 - y]
        ax.errorbar(
            x, y, yerr=err, fmt="o", color=color, ecolor=color, capsize=3, ms=6, label=verdict
        )
        for name, xi, yi, k in zip(d["name"], x, y, d["_k"], strict=True):
            dy = 3 if k % 2 else -10  # neighbours of one rating label above and below
            ax.annotate(name, (xi, yi), xytext=(4, dy), textcoords="offset points", fontsize=7)
    line = values.filter(pl.col("implied").is_not_null()).sort("draft_rating")
    if line.height:
        ax.plot(
            line["draft_rating"],
            line["implied"] * 100,
            "--",
            color="grey",
            label="value the printed rating stands for",
        )
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xlabel("printed draft rating")
    ax.set_ylabel("simulated value, win-share points")
    ax.set_title("Draft ratings: printed against simulated")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    return png(fig)


def value_plot(values: pl.DataFrame) -> bytes:
    """Every dino's simulated value with its interval, best on top, coloured by verdict."""
    d = values.sort("value")
    y = np.arange(d.height)
    v = d["value"].to_numpy() * 100
    err = [v - d["lo"].to_numpy() * 100, d["hi"].to_numpy() * 100 - v]
    colors = [VERDICT_COLORS[x] for x in d["verdict"]]
    fig, ax = subplots(figsize=(6.5, max(3, 0.28 * d.height + 1)))
    ax.barh(y, v, xerr=err, color=colors, ecolor="black", capsize=2)
    ax.set_yticks(y, [f"{n} ({r})" for n, r in zip(d["name"], d["draft_rating"], strict=True)])
    ax.tick_params(axis="y", labelsize=7)
    ax.axvline(0, color="black", linewidth=0.6)
    ax.set_xlabel("simulated value, win-share points (printed rating in brackets)")
    ax.set_title("Dinos by simulated value")
    ax.grid(axis="x", alpha=0.3)
    return png(fig)
