"""Analyses every game shares: seats, strategies, balance, shared wins, length, convergence.

Definitions
-----------
*Win share*: in each game a seat scores 1 for an outright win and ``1/k`` for a victory shared
by ``k`` players, 0 otherwise; a seat's (or strategy's) win share is the mean over its games. A
perfectly balanced seat has win share ``1/P``. Intervals are cluster-robust 95% intervals:
with ``--rotate`` the P games of one deal form a cluster (:func:`reports.stats.clustered_mean`).
"""

from __future__ import annotations

import math

import polars as pl

from reports.load import Run
from reports.stats import Z95, clustered_mean, wilson


def with_win_share(run: Run) -> pl.LazyFrame:
    """The players table with ``share``: 1 for an outright win, 1/k for a k-way shared win."""
    games = run.scan("games").select("game_id", "n_winners")
    return (
        run.scan("players")
        .join(games, on="game_id", how="left")
        .with_columns(share=pl.col("winner").cast(pl.Float64) / pl.col("n_winners"))
    )


def seat_win_share(run: Run) -> pl.DataFrame:
    """Win share by seat, with its interval and its difference from the fair ``1/P``."""
    df = clustered_mean(with_win_share(run), ["seat"], "share", run.cluster())
    fair = 1 / run.n_players
    return df.with_columns(fair=pl.lit(fair), diff=pl.col("mean") - fair)


def strategy_win_share(run: Run) -> pl.DataFrame:
    """Win share by strategy over every seat it played (rotate seats for a fair comparison)."""
    lf = with_win_share(run).with_columns(pl.col("strategy").cast(pl.String))
    df = clustered_mean(lf, ["strategy"], "share", run.cluster())
    return df.with_columns(relative=pl.col("mean") * run.n_players).sort("mean", descending=True)


def balance(seats: pl.DataFrame) -> float:
    """Ludii-style balance: 1 minus the largest gap between two seats' win shares."""
    return 1.0 - float(seats["mean"].max() - seats["mean"].min())


def shared_wins(run: Run) -> pl.DataFrame:
    """How many games ended in a shared victory, by number of winners, with Wilson intervals."""
    df = (
        run.scan("games")
        .group_by("n_winners")
        .agg(games=pl.len())
        .collect(engine="streaming")
        .sort("n_winners")
    )
    total = int(df["games"].sum())
    rows = []
    for k, g in df.iter_rows():
        lo, hi = wilson(g, total)
        rows.append({"n_winners": k, "games": g, "share": g / total, "lo": lo, "hi": hi})
    return pl.DataFrame(rows)


def game_length(run: Run) -> pl.DataFrame:
    """Distribution of game length in rounds."""
    df = (
        run.scan("games")
        .group_by("rounds")
        .agg(games=pl.len())
        .collect(engine="streaming")
        .sort("rounds")
    )
    return df.with_columns(share=pl.col("games") / pl.col("games").sum())


def convergence(run: Run, points: int = 8) -> pl.DataFrame:
    """Seat win shares estimated from the first n games, for n on a geometric grid.

    The interval half-width shrinks as ``1/sqrt(n)``: this shows how many games a question of a
    given precision needs, and whether estimates have settled.
    """
    total = run.games_logged
    lo = min(total, max(100, total // 1000))
    grid = sorted({round(x) for x in _geometric(lo, total, points)})
    lf = with_win_share(run)
    frames = []
    for n in grid:
        df = clustered_mean(lf.filter(pl.col("game_id") < n), ["seat"], "share", run.cluster())
        frames.append(df.with_columns(games=pl.lit(n)))
    return pl.concat(frames).with_columns(half_width=(pl.col("hi") - pl.col("lo")) / 2)


def _geometric(a: int, b: int, k: int) -> list[float]:
    if k < 2 or a >= b:
        return [b]
    r = (b / a) ** (1 / (k - 1))
    return [a * r**i for i in range(k)]


def games_for_precision(se_per_game: float, half_width: float) -> int:
    """Games needed for a 95% interval of ``half_width`` given one game's standard deviation."""
    return math.ceil((Z95 * se_per_game / half_width) ** 2)
