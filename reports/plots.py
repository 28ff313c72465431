"""Plots as PNG bytes (matplotlib's ``Figure``, no pyplot), for embedding in the HTML report."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

if TYPE_CHECKING:
    from matplotlib.figure import Figure

COLOR = "#2b6f77"
ACCENT = "#c8553d"


def subplots(*args: Any, figsize: tuple[float, float], **kwargs: Any) -> tuple[Figure, Any]:
    """A new figure and its axes (``Figure.subplots``' arguments). Without pyplot: no backend
    is selected for the user (a notebook keeps its own), no figure is left open, and
    matplotlib (a quarter of a second) is imported only by a process that draws, not by a
    command's driver that only assembles what its workers drew."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    return fig, fig.subplots(*args, **kwargs)


def png(fig: Figure, *, crop: bool = False) -> bytes:
    """A figure as PNG bytes (110 dpi): laid out tight, or with ``crop`` cut to what it draws
    (a figure that places its legend outside its axes)."""
    buf = io.BytesIO()
    if crop:
        fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    else:
        fig.tight_layout()
        fig.set_layout_engine(None)  # else savefig lays the figure out again, for nothing
        fig.savefig(buf, format="png", dpi=110)
    return buf.getvalue()


def bars_with_ci(
    labels: list[str],
    df: pl.DataFrame,
    *,
    title: str,
    ylabel: str,
    reference: float | None = None,
    percent: bool = True,
) -> bytes:
    """Each ``mean`` as a point with its ``lo``..``hi`` interval, and an optional reference line.

    Points rather than bars: the axis is zoomed to the estimates, which bars from zero would hide.
    """
    scale = 100 if percent else 1
    mean = df["mean"].to_numpy() * scale
    err = [mean - df["lo"].to_numpy() * scale, df["hi"].to_numpy() * scale - mean]
    fig, ax = subplots(figsize=(max(4, 0.9 * len(labels) + 2), 3.4))
    ax.errorbar(labels, mean, yerr=err, fmt="o", color=COLOR, ecolor="black", capsize=5, ms=7)
    if reference is not None:
        ax.axhline(reference * scale, color=ACCENT, linestyle="--", label="fair share")
        ax.legend(loc="best")
    ax.margins(x=0.15, y=0.2)
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    return png(fig)


def convergence(df: pl.DataFrame, *, fair: float) -> bytes:
    """Each seat's win share estimate and 95% band against the number of games."""
    fig, ax = subplots(figsize=(6.5, 3.6))
    for seat in sorted(df["seat"].unique().to_list()):
        d = df.filter(pl.col("seat") == seat).sort("games")
        x = d["games"].to_numpy()
        ax.plot(x, d["mean"].to_numpy() * 100, marker="o", ms=3, label=f"seat {seat}")
        ax.fill_between(x, d["lo"].to_numpy() * 100, d["hi"].to_numpy() * 100, alpha=0.15)
    ax.axhline(fair * 100, color="grey", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.set_xlabel("games")
    ax.set_ylabel("win share, %")
    ax.set_title("Convergence of seat win shares (95% bands)")
    ax.legend(fontsize=8, ncol=3)
    ax.grid(alpha=0.3)
    return png(fig)


def ranked_cards(df: pl.DataFrame) -> bytes:
    """Horizontal bars of every card's win rate with its interval, strongest on top."""
    d = df.filter(pl.col("played") > 0).sort("win_rate")
    names = [f"{n} #{i}" for n, i in zip(d["name"], d["card_id"], strict=True)]
    rate = d["win_rate"].to_numpy() * 100
    err = [rate - d["lo"].to_numpy() * 100, d["hi"].to_numpy() * 100 - rate]
    err = np.maximum(err, 0.0)  # a Wilson bound at 0% or 100% can cross the rate by rounding
    fig, ax = subplots(figsize=(6.5, max(3, 0.19 * len(names) + 1)))
    ax.barh(names, rate, xerr=err, color=COLOR, ecolor="black", capsize=2)
    ax.set_xlabel("rounds won when played, %")
    ax.set_title("Card strength ranking")
    ax.tick_params(axis="y", labelsize=7)
    ax.grid(axis="x", alpha=0.3)
    return png(fig)


def stacked_shares(labels: list[str], shares: list[float], *, title: str) -> bytes:
    """One horizontal bar split into shares (they should sum to 1)."""
    fig, ax = subplots(figsize=(6.5, 2.4))
    left = 0.0
    colors = [COLOR, ACCENT, "#e0a458", "#8e9aaf"]
    for i, (label, share) in enumerate(zip(labels, shares, strict=True)):
        ax.barh([0], [share * 100], left=left, color=colors[i % 4], label=f"{label} ({share:.1%})")
        left += share * 100
    ax.set_xlim(0, 100)
    ax.set_yticks([])
    ax.set_xlabel("% of rounds")
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.45), ncol=2, frameon=False)
    fig.subplots_adjust(bottom=0.5)
    return png(fig, crop=True)


def histogram(values: list[int], counts: list[int], *, title: str, xlabel: str) -> bytes:
    fig, ax = subplots(figsize=(5, 3))
    ax.bar([str(v) for v in values], counts, color=COLOR)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("games")
    return png(fig)


def gene_curves(df: pl.DataFrame, genes: list[str]) -> bytes:
    """Small multiples: each gene's relative value (band: 95%) and relative price, by round."""
    cols = 4
    rows = (len(genes) + cols - 1) // cols
    fig, axes = subplots(rows, cols, figsize=(10, 2.4 * rows), sharex=True, squeeze=False)
    for ax, gene in zip(axes.flat, genes, strict=False):
        d = df.filter((pl.col("gene") == gene) & pl.col("value").is_not_null()).sort("round")
        if d.height:
            x = d["round"].to_numpy()
            ax.plot(x, d["value"].to_numpy(), color=COLOR, marker="o", ms=3, label="value")
            ax.fill_between(x, d["lo"].to_numpy(), d["hi"].to_numpy(), color=COLOR, alpha=0.2)
            ax.plot(x, d["price"].to_numpy(), color=ACCENT, marker="s", ms=3, label="price")
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_title(gene, fontsize=10)
        ax.grid(alpha=0.3)
    for ax in axes.flat[len(genes) :]:
        ax.set_visible(False)
    axes.flat[0].legend(fontsize=7)
    fig.supxlabel("round (auction)")
    fig.supylabel("points, relative to the average gene")
    return png(fig)


def forest(df: pl.DataFrame, *, title: str, xlabel: str, value: str, lo: str, hi: str) -> bytes:
    """One row per item (strongest on top): its estimate and 95% interval."""
    d = df.sort(value)
    names = d["strategy"].to_list()
    x = d[value].to_numpy()
    err = [x - d[lo].to_numpy(), d[hi].to_numpy() - x]
    fig, ax = subplots(figsize=(6.5, max(2.2, 0.45 * len(names) + 1)))
    ax.errorbar(x, names, xerr=err, fmt="o", color=COLOR, ecolor="black", capsize=4)
    ax.axvline(0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    return png(fig)


def lead_histogram(df: pl.DataFrame) -> bytes:
    """Games by the share of the game played when the final winner's lead began."""
    bins = np.linspace(0, 1, 11)
    fig, ax = subplots(figsize=(6, 3))
    ax.hist(df["decided_at"].to_numpy(), bins=bins, weights=df["games"].to_numpy(), color=COLOR)
    ax.set_xlabel("share of the game played when the final lead began")
    ax.set_ylabel("games")
    ax.set_title("When games were decided (outright wins)")
    ax.grid(axis="y", alpha=0.3)
    return png(fig)


def comparison(df: pl.DataFrame) -> bytes:
    """Each figure's difference from the base run, with its interval, one panel per figure."""
    d = df.filter(pl.col("diff").is_not_null())
    figures = list(dict.fromkeys(d["figure"].to_list()))
    fig, axes = subplots(
        1, max(1, len(figures)), figsize=(max(4, 2.2 * len(figures)), 3), squeeze=False
    )
    for ax, name in zip(axes[0], figures, strict=False):
        f = d.filter(pl.col("figure") == name)
        x = [f"run {r}" for r in f["run"]]
        y = f["diff"].to_numpy()
        err = [y - f["diff_lo"].to_numpy(), f["diff_hi"].to_numpy() - y]
        ax.errorbar(x, y, yerr=err, fmt="o", color=COLOR, ecolor="black", capsize=4)
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_title(name, fontsize=8)
        ax.tick_params(labelsize=7)
    fig.suptitle("Difference from run 0 (95% intervals)")
    return png(fig)
