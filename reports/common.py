"""Analyses every game shares: seats, strategies, balance, shared wins, length, convergence.

Definitions
-----------
*Win share*: in each game a seat scores 1 for an outright win and ``1/k`` for a victory shared
by ``k`` players, 0 otherwise (also in a game nobody won, such as one stopped by a turn cap:
``n_winners`` 0); a seat's (or strategy's) win share is the mean over its games. A
perfectly balanced seat has win share ``1/P``. Intervals are cluster-robust 95% intervals: with
``--rotate`` the P games of one deal form a cluster. Every analysis runs chunk by chunk
(:mod:`reports.aggregate`), so its memory does not grow with the run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import polars as pl
from scipy.special import chdtrc  # the chi-square survival function (scipy.stats.chi2.sf)

from reports.aggregate import (
    Chunk,
    Mapper,
    Partial,
    cluster_cross,
    cluster_moments,
    combine_cross,
    combine_moments,
    concat_sum,
    per_cluster,
    run_one,
)
from reports.models.clustered import clustered_mean, difference, means_covariance, moments_to_mean
from reports.source import RunData
from reports.stats import Z95, with_wilson

Frame = Callable[[Chunk], pl.DataFrame]

RANGE_OF_NORMALS = {2: 1.128, 3: 1.693, 4: 2.059, 5: 2.326, 6: 2.534, 7: 2.704, 8: 2.847}
"""Expected range of k independent standard normals (the quality-control constant d2)."""


def cluster(run: RunData) -> pl.Expr:
    """Games that share a deal (seat rotation) are one cluster for confidence intervals."""
    if run.config.get("rotate"):
        return pl.col("game_id") // run.n_players
    return pl.col("game_id")


def share_expr() -> pl.Expr:
    """A seat's win share from ``winner`` and ``n_winners``: 0 when nobody won (not 0/0)."""
    n = pl.col("n_winners")
    return pl.when(n > 0).then(pl.col("winner").cast(pl.Float64) / n).otherwise(0.0)


def with_win_share(run: RunData) -> pl.LazyFrame:
    """The whole run's players table with ``share`` as one LazyFrame (for exploring a run in a
    notebook; the report's analyses use :func:`share_frame` chunk by chunk instead)."""
    games = run.scan("games").select("game_id", "n_winners")
    return (
        run.scan("players").join(games, on="game_id", how="left").with_columns(share=share_expr())
    )


def own_strings(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` with its string columns copied into buffers of their own, for the small frame a
    partial's map returns. A polars string longer than 12 bytes is a view into a data buffer
    that a column made from another (a group-by's keys, a filter, an exploded list) shares
    with its source, so a few result rows keyed by such strings would keep a whole chunk's
    strings alive until the reduce: memory growing with the number of chunks."""
    strings = [c for c, t in df.schema.items() if t == pl.String]
    if not strings:
        return df
    return df.with_columns(pl.Series(c, df[c].to_list(), dtype=pl.String) for c in strings)


def share_frame(chunk: Chunk) -> pl.DataFrame:
    """A chunk's players rows with ``share``: 1 for an outright win, 1/k for a k-way shared
    win (and the strategy as a plain string, so chunks combine)."""
    players = chunk.table("players", ["game_id", "seat", "strategy", "winner"])
    games = chunk.table("games", ["game_id", "n_winners"])
    return players.join(games, on="game_id", how="left").with_columns(
        pl.col("strategy").cast(pl.String),
        share=share_expr(),
    )


def seat_clusters(chunk: Chunk) -> pl.DataFrame:
    """Win share summed per seat and cluster: what the seat analyses share."""
    return per_cluster(chunk, chunk.derived(share_frame), ["seat"], "share")


def _moments_map(chunk: Chunk, frame: Frame, by: Sequence[str], value: str):
    if frame is share_frame and tuple(by) == ("seat",) and value == "share":
        return cluster_moments(chunk, None, ["seat"], value, chunk.derived(seat_clusters))
    return cluster_moments(chunk, chunk.derived(frame), list(by), value)


def _moments_reduce(parts, frame: Frame, by: Sequence[str], value: str) -> pl.DataFrame:
    return moments_to_mean(combine_moments(parts, list(by)), list(by))


def clustered(name: str, frame: Frame, by: Sequence[str], value: str = "share") -> Partial:
    """The clustered mean of ``value`` by ``by`` over the rows ``frame`` makes of each chunk."""
    return Partial(name, _moments_map, _moments_reduce, (frame, tuple(by), value))


def win_share_by(
    run: RunData,
    by: Sequence[str],
    rows: Frame | pl.LazyFrame | None = None,
    value: str = "share",
    mapper: Mapper | None = None,
) -> pl.DataFrame:
    """Mean of ``value`` (the win share) per group ``by`` with its cluster-robust 95% interval.

    ``rows(chunk)`` makes the rows of one chunk (default: :func:`share_frame`, one row per seat
    and game); any frame with ``game_id``, the ``by`` columns and ``value`` works. A LazyFrame
    over the whole run is accepted too (computed at once, so its memory grows with the run).
    """
    if isinstance(rows, pl.LazyFrame):
        return clustered_mean(rows, list(by), value, cluster(run))
    return run_one(run, clustered("win_share", rows or share_frame, by, value), mapper)


SEATS = clustered("win_share", share_frame, ("seat",))
STRATEGIES = clustered("win_share", share_frame, ("strategy",))


def seat_win_share(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Win share by seat, with its interval and its difference from the fair ``1/P``."""
    fair = 1 / run.n_players
    df = run_one(run, SEATS, mapper)
    return df.with_columns(fair=pl.lit(fair), diff=pl.col("mean") - fair)


def strategy_win_share(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Win share by strategy over every seat it played (rotate seats for a fair comparison)."""
    df = run_one(run, STRATEGIES, mapper)
    return df.with_columns(relative=pl.col("mean") * run.n_players).sort("mean", descending=True)


# ------------------------------------------------------------------ balance


def _seat_cross_map(chunk: Chunk, seats: tuple[int, ...]):
    return cluster_cross(chunk, None, "seat", "share", seats, chunk.derived(seat_clusters))


def _seat_cross_reduce(parts, seats: tuple[int, ...]):
    return means_covariance(combine_cross(parts, "seat", seats))


def balance_partial(run: RunData) -> Partial:
    return Partial("balance", _seat_cross_map, _seat_cross_reduce, (tuple(range(run.n_players)),))


def seat_balance(run: RunData, mapper: Mapper | None = None) -> dict[str, float]:
    """The balance score, its interval and a test of equal seats.

    *Balance* is 1 minus the largest gap between two seats' win shares (Ludii's measure). Its
    interval is the delta method's, with the seats of the largest and smallest share held
    fixed and their cluster-robust covariance. Noise alone makes the observed gap positive even
    when every seat is equal: ``noise_gap`` is the gap expected from sampling error alone (the
    expected range of P independent estimates with the seats' standard error), the estimate's
    small-sample bias. The *Wald test* of equal seats uses the covariance of the P-1 contrasts
    ``share_s - share_0`` (chi-square, P-1 degrees of freedom).
    """
    seats = tuple(range(run.n_players))
    m, _, cov = run_one(run, balance_partial(run), mapper)
    hi, lo = int(np.argmax(m)), int(np.argmin(m))
    gap, se = difference(m, cov, hi, lo)
    contrast = np.zeros((len(seats) - 1, len(seats)))
    contrast[:, 0] = -1
    contrast[np.arange(len(seats) - 1), np.arange(1, len(seats))] = 1
    d = contrast @ m
    v = contrast @ cov @ contrast.T
    try:
        chi2 = float(d @ np.linalg.solve(v, d))
    except np.linalg.LinAlgError:
        chi2 = float("nan")
    df = len(seats) - 1
    mean_se = float(np.sqrt(np.nanmean(np.diag(cov))))
    return {
        "balance": 1 - gap,
        "lo": 1 - (gap + Z95 * se),
        "hi": 1 - max(gap - Z95 * se, 0.0),
        "gap": gap,
        "best_seat": hi,
        "worst_seat": lo,
        "noise_gap": RANGE_OF_NORMALS.get(len(seats), float("nan")) * mean_se,
        "chi2": chi2,
        "df": df,
        "p_value": float(chdtrc(df, chi2)) if chi2 == chi2 else float("nan"),
    }


def balance(seats: pl.DataFrame) -> float:
    """Ludii-style balance: 1 minus the largest gap between two seats' win shares."""
    return 1.0 - float(seats["mean"].max() - seats["mean"].min())


# ------------------------------------------------------------------ distributions


def _count_map(chunk: Chunk, table: str, column: str) -> pl.DataFrame:
    return chunk.table(table, [column]).group_by(column).agg(games=pl.len())


def _count_reduce(parts, table: str, column: str) -> pl.DataFrame:
    df = concat_sum(parts, [column])
    return with_wilson(df.with_columns(total=pl.col("games").sum()), "games", "total", "share")


def counts_partial(table: str, column: str) -> Partial:
    return Partial(f"{table}.{column}", _count_map, _count_reduce, (table, column))


def distribution(
    run: RunData, table: str, column: str, mapper: Mapper | None = None
) -> pl.DataFrame:
    """Rows per value of ``table.column``, with each value's share and its Wilson interval."""
    return run_one(run, counts_partial(table, column), mapper)


def shared_wins(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """How many games ended in a shared victory, by number of winners, with Wilson intervals."""
    return distribution(run, "games", "n_winners", mapper)


def game_length(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Distribution of game length in rounds."""
    return distribution(run, "games", "rounds", mapper)


# ------------------------------------------------------------------ convergence


def _prefix_map(chunk: Chunk, grid: tuple[int, ...]):
    """The chunk's moments by seat, whole and cut at every grid point inside it."""
    df = chunk.derived(share_frame)
    cuts = {
        n: cluster_moments(chunk, df.filter(pl.col("game_id") < n), ["seat"], "share")
        for n in grid
        if chunk.start < n < chunk.stop
    }
    whole = cluster_moments(chunk, None, ["seat"], "share", chunk.derived(seat_clusters))
    return chunk.stop, whole, cuts


def _prefix_reduce(parts, grid: tuple[int, ...]) -> pl.DataFrame:
    frames = []
    for n in grid:
        use = [whole for stop, whole, _ in parts if stop <= n]
        use += [cuts[n] for _, _, cuts in parts if n in cuts]
        if use:
            df = moments_to_mean(combine_moments(use, ["seat"]), ["seat"])
            frames.append(df.with_columns(games=pl.lit(n)))
    return pl.concat(frames).with_columns(half_width=(pl.col("hi") - pl.col("lo")) / 2)


def convergence_partial(run: RunData, points: int = 8) -> Partial:
    total = run.games_logged
    step = run.n_players if run.config.get("rotate") else 1
    lo = min(total, max(100, total // 1000))
    grid = sorted({max(step, round(x / step) * step) for x in _geometric(lo, total, points)})
    grid = tuple(min(total, n) for n in grid)
    return Partial("convergence", _prefix_map, _prefix_reduce, (grid,))


def convergence(run: RunData, points: int = 8, mapper: Mapper | None = None) -> pl.DataFrame:
    """Seat win shares estimated from the first n games, for n on a geometric grid.

    The interval half-width shrinks as ``1/sqrt(n)``: this shows how many games a question of a
    given precision needs, and whether estimates have settled. With seat rotation the grid
    points are whole deals.
    """
    return run_one(run, convergence_partial(run, points), mapper)


def games_needed(half_width_now: float, games_now: int, precision: float) -> int:
    """Games for a 95% half-width of ``precision``, from the half-width with ``games_now``
    games (half-widths shrink as 1/sqrt(games))."""
    if precision <= 0 or not half_width_now > 0:
        return games_now
    return math.ceil(games_now * (half_width_now / precision) ** 2 - 1e-9)


def _geometric(a: int, b: int, k: int) -> list[float]:
    if k < 2 or a >= b:
        return [b]
    r = (b / a) ** (1 / (k - 1))
    return [a * r**i for i in range(k)]


def partials(run: RunData) -> list[Partial]:
    """What the report's common sections read (computed together in one pass)."""
    return [
        SEATS,
        STRATEGIES,
        balance_partial(run),
        counts_partial("games", "n_winners"),
        counts_partial("games", "rounds"),
        convergence_partial(run),
        CAPPED,
    ]


# ------------------------------------------------------------------ capped games


def _capped_map(chunk: Chunk) -> pl.DataFrame:
    games = chunk.table("games")
    if "capped" in games.columns:
        capped = games["capped"].cast(pl.Int64).sum()
    elif "end_reason" in games.columns:
        capped = (games["end_reason"].cast(pl.String) == "turn cap").sum()
    else:
        return pl.DataFrame({"games": [games.height], "capped": [None]}, schema=_CAPPED)
    return pl.DataFrame({"games": [games.height], "capped": [int(capped)]}, schema=_CAPPED)


_CAPPED = {"games": pl.Int64, "capped": pl.Int64}


def _capped_reduce(parts: list[pl.DataFrame]) -> dict | None:
    df = pl.concat(parts)
    if df["capped"].null_count():
        return None
    return with_wilson(df.sum(), "capped", "games", "share").row(0, named=True)


CAPPED = Partial("capped", _capped_map, _capped_reduce)


def capped_games(run: RunData, mapper: Mapper | None = None) -> dict | None:
    """Games stopped by a turn cap (never scored as a normal end): count, share and Wilson
    interval; ``None`` for a game that cannot be capped (no ``capped`` or ``end_reason`` column
    with a ``turn cap`` value in its games table)."""
    return run_one(run, CAPPED, mapper)


# ------------------------------------------------------------------ decisiveness


def _lead_map(chunk: Chunk, progress: Frame) -> pl.DataFrame:
    """Per game won outright: its rounds and the round from which the winner led to the end.

    ``progress`` rows come game by game, round by round, one per seat in seat order (as the
    turns tables are written), so every step is an array operation over those blocks.
    """
    rows = chunk.derived(progress)  # game_id, round, seat, score (after that round)
    p = chunk.n_players
    if rows.height % p:
        raise ValueError("progress rows must be one per seat and round")
    score = rows["score"].to_numpy().reshape(-1, p)
    game = rows["game_id"].to_numpy()[::p]
    rnd = rows["round"].to_numpy()[::p].astype(np.int64)
    players = chunk.table("players", ["winner"])["winner"].to_numpy().reshape(-1, p)
    games = chunk.table("games", ["game_id", "n_winners", "rounds"])
    first = np.flatnonzero(np.r_[True, game[1:] != game[:-1]])
    if not np.array_equal(game[first], games["game_id"].to_numpy()):
        raise ValueError("progress rows must cover every game of the chunk, in order")
    keep = games["n_winners"].to_numpy() == 1
    winner = np.repeat(players.argmax(axis=1), np.diff(np.r_[first, len(game)]))  # per row
    mine = score.ravel()[np.arange(0, score.size, p) + winner]
    top = score[:, 0].copy()  # column by column: numpy's axis-1 reductions of short rows
    for j in range(1, p):  # are several times slower
        np.maximum(top, score[:, j], out=top)
    at_top = np.zeros(len(top), np.int8)
    for j in range(p):
        at_top += score[:, j] == top
    leads = (mine == top) & (at_top == 1)
    behind_round = np.where(leads, -1, rnd)
    last_behind = np.maximum.reduceat(behind_round, first)
    led_from = np.where(last_behind < 0, rnd[first], last_behind + 1)
    total = games["rounds"].to_numpy()
    df = pl.DataFrame({"rounds": total[keep], "led_from": led_from[keep]})
    return df.group_by("rounds", "led_from").agg(games=pl.len())


def _lead_reduce(parts: list[pl.DataFrame], progress: Frame) -> pl.DataFrame:
    return concat_sum(parts, ["rounds", "led_from"])


def decisiveness_partial(progress: Frame) -> Partial:
    return Partial("decisiveness", _lead_map, _lead_reduce, (progress,))


def decisiveness(run: RunData, progress: Frame, mapper: Mapper | None = None) -> pl.DataFrame:
    """For games won outright: from which round the final winner led to the end.

    ``progress(chunk)`` gives each seat's score after every round (``game_id, round, seat,
    score``); the winner *leads* a round when its score is strictly above every other seat's.
    ``led_from`` is the first round of the final lead (a game led from its first round was
    decided early; one led only from its last round was decided at the end); it equals the
    game's ``rounds`` when the winner never led outright and won on a tie-break. Returned per game
    length: games by ``led_from``, and ``decided_at``, the share of the game played when the
    final lead began.
    """
    df = run_one(run, decisiveness_partial(progress), mapper)
    return df.with_columns(decided_at=pl.col("led_from") / pl.col("rounds")).sort(
        "rounds", "led_from"
    )
