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

from reports.source import RunData
from reports.stats import clustered_mean, with_wilson


def cluster(run: RunData) -> pl.Expr:
    """Games that share a deal (seat rotation) are one cluster for confidence intervals."""
    if run.config.get("rotate"):
        return pl.col("game_id") // run.n_players
    return pl.col("game_id")


def with_win_share(run: RunData) -> pl.LazyFrame:
    """The players table with ``share``: 1 for an outright win, 1/k for a k-way shared win."""
    games = run.scan("games").select("game_id", "n_winners")
    return (
        run.scan("players")
        .join(games, on="game_id", how="left")
        .with_columns(share=pl.col("winner").cast(pl.Float64) / pl.col("n_winners"))
    )


def win_share_by(
    run: RunData, by: list[str], lf: pl.LazyFrame | None = None, value: str = "share"
) -> pl.DataFrame:
    """Mean of ``value`` (the win share) per group ``by`` with its cluster-robust 95% interval.

    ``lf`` defaults to :func:`with_win_share`; any frame with ``game_id``, the ``by`` columns and
    ``value`` works (one row per seat-game, seat-round ...), clustered by deal.
    """
    lf = with_win_share(run) if lf is None else lf
    return clustered_mean(lf, by, value, cluster(run))


def seat_win_share(run: RunData) -> pl.DataFrame:
    """Win share by seat, with its interval and its difference from the fair ``1/P``."""
    fair = 1 / run.n_players
    df = win_share_by(run, ["seat"])
    return df.with_columns(fair=pl.lit(fair), diff=pl.col("mean") - fair)


def strategy_win_share(run: RunData) -> pl.DataFrame:
    """Win share by strategy over every seat it played (rotate seats for a fair comparison)."""
    lf = with_win_share(run).with_columns(pl.col("strategy").cast(pl.String))
    df = win_share_by(run, ["strategy"], lf)
    return df.with_columns(relative=pl.col("mean") * run.n_players).sort("mean", descending=True)


def balance(seats: pl.DataFrame) -> float:
    """Ludii-style balance: 1 minus the largest gap between two seats' win shares."""
    return 1.0 - float(seats["mean"].max() - seats["mean"].min())


def distribution(lf: pl.LazyFrame, column: str) -> pl.DataFrame:
    """Games per value of ``column``, with each value's share and its Wilson interval."""
    df = lf.group_by(column).agg(games=pl.len()).collect(engine="streaming").sort(column)
    return with_wilson(df.with_columns(total=pl.col("games").sum()), "games", "total", "share")


def shared_wins(run: RunData) -> pl.DataFrame:
    """How many games ended in a shared victory, by number of winners, with Wilson intervals."""
    return distribution(run.scan("games"), "n_winners")


def game_length(run: RunData) -> pl.DataFrame:
    """Distribution of game length in rounds."""
    return distribution(run.scan("games"), "rounds")


def convergence(run: RunData, points: int = 8) -> pl.DataFrame:
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
        df = win_share_by(run, ["seat"], lf.filter(pl.col("game_id") < n))
        frames.append(df.with_columns(games=pl.lit(n)))
    return pl.concat(frames).with_columns(half_width=(pl.col("hi") - pl.col("lo")) / 2)


def _geometric(a: int, b: int, k: int) -> list[float]:
    if k < 2 or a >= b:
        return [b]
    r = (b / a) ** (1 / (k - 1))
    return [a * r**i for i in range(k)]
