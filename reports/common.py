"""Analyses every game shares: seats, strategies, balance, shared wins, length, convergence.

Definitions
-----------
*Win share*: in each game a seat scores 1 for an outright win and ``1/k`` for a victory shared
by ``k`` players, 0 otherwise; a seat's (or strategy's) win share is the mean over its games. A
perfectly balanced seat has win share ``1/P``. Intervals are cluster-robust 95% intervals:
with ``--rotate`` the P games of one deal form a cluster (:func:`reports.stats.clustered_mean`).
"""

from __future__ import annotations

import polars as pl

from reports.load import Run
from reports.stats import clustered_mean, wilson


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


def distribution(lf: pl.LazyFrame, column: str) -> pl.DataFrame:
    """Games per value of ``column``, with each value's share and its Wilson interval."""
    df = lf.group_by(column).agg(games=pl.len()).collect(engine="streaming").sort(column)
    total = int(df["games"].sum())
    ci = [wilson(g, total) for g in df["games"]]
    return df.with_columns(
        share=pl.col("games") / total,
        lo=pl.Series([c[0] for c in ci], dtype=pl.Float64),
        hi=pl.Series([c[1] for c in ci], dtype=pl.Float64),
    )


def shared_wins(run: Run) -> pl.DataFrame:
    """How many games ended in a shared victory, by number of winners, with Wilson intervals."""
    return distribution(run.scan("games"), "n_winners")


def game_length(run: Run) -> pl.DataFrame:
    """Distribution of game length in rounds."""
    return distribution(run.scan("games"), "rounds")


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
