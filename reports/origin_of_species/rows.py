"""Origin of Species: the rows the analyses share, and ratios by group with their intervals.

Intervals are 95%, cluster-robust: the games of one deal form a cluster when seats were
rotated (else each game is its own), so the seats of one game, whose win shares add up to 1,
and the rotated replays of one deal are never counted as independent. A ratio ``sum(x) /
sum(y)`` gets the linearised (delta-method) sandwich variance over clusters.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import polars.selectors as cs

from reports.aggregate import Chunk, cluster_moments, combine_moments
from reports.models.clustered import moments_to_mean
from reports.stats import Z95


def interval(mean: float, se: float) -> dict[str, float]:
    """``mean`` with its standard error and 95% interval, as a table's row."""
    return {"mean": mean, "lo": mean - Z95 * se, "hi": mean + Z95 * se, "se": se}


def seat_frame(chunk: Chunk) -> dict[str, np.ndarray]:
    """A chunk's players rows as numpy columns (game-major, seat order) with ``share`` and
    ``cluster``."""
    p = chunk.n_players
    games = chunk.table("games", ["game_id", "n_winners"])
    nw = np.repeat(games["n_winners"].to_numpy().astype(np.float64), p)
    gid = np.repeat(games["game_id"].to_numpy(), p)
    pl_ = chunk.table(
        "players", ["winner", "score", "animals", "survivor_traits", "animals_played"]
    )
    won = pl_["winner"].to_numpy().astype(np.float64)
    share = np.divide(won, nw, out=np.zeros_like(won), where=nw > 0)
    return {
        "cluster": chunk.clusters_of(gid),
        "game_id": gid,
        "share": share,
        "score": pl_["score"].to_numpy().astype(np.float64),
        "mask": pl_["survivor_traits"].to_numpy().astype(np.int64),
        "animals": pl_["animals"].to_numpy().astype(np.int64),
        "animals_played": pl_["animals_played"].to_numpy().astype(np.float64),
    }


def ratios_map(chunk: Chunk, frame, by: tuple[str, ...], metrics: tuple) -> dict:
    """Clustered moments of several ratios ``sum(num) / sum(den)`` (``den`` ``None``: per row)
    by the groups ``by`` over the rows ``frame(chunk)`` makes."""
    df = chunk.derived(frame).with_columns(_cluster=chunk.cluster())
    out = {}
    for name, num, den in metrics:
        per = df.group_by([*by, "_cluster"]).agg(
            s=pl.col(num).cast(pl.Float64).sum(),
            n=(pl.col(den).cast(pl.Float64).sum() if den else pl.len().cast(pl.Float64)),
        )
        out[name] = cluster_moments(chunk, None, list(by), "s", per)
    return out


def ratios_reduce(parts: list[dict], frame, by: tuple[str, ...], metrics: tuple) -> dict:
    return {
        name: moments_to_mean(
            combine_moments([p[name] for p in parts], list(by)),
            list(by),
        )
        for name, _, _ in metrics
    }


def side_by_side(res: dict, by: str) -> pl.DataFrame:
    """Several clustered metrics side by side: ``<metric>`` and ``<metric>_lo`` / ``_hi``."""
    out = None
    for name, df in res.items():
        part = df.select(
            by,
            pl.col("mean").alias(name),
            pl.col("lo").alias(f"{name}_lo"),
            pl.col("hi").alias(f"{name}_hi"),
            *([pl.col("n").alias("n")] if out is None else []),
        )
        out = part if out is None else out.join(part, on=by, how="left")
    return out.with_columns(cs.float().fill_nan(None))


def progress(chunk: Chunk) -> pl.DataFrame:
    """Each seat's score after every round (``turns.score``: the points it would have if the
    game ended then), game by game, round by round, seat by seat, for the decisiveness
    section; the last round's score is the final one."""
    t = chunk.table("turns", ["game_id", "round", "seat", "score"])
    return t.with_columns(pl.col("score").cast(pl.Int64))
