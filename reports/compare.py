"""Paired comparison of a run with one of its rule variants (see ``simulate.variants``).

Both runs played game ``i`` from the same deal and dice streams, so for every game and seat the
*difference* in win share is the rule's effect plus far less noise than two independent runs
would have. Intervals are cluster-robust 95% intervals of the mean paired difference.
"""

from __future__ import annotations

import polars as pl

from reports.aggregate import (
    Chunk,
    Mapper,
    Partial,
    cluster_moments,
    combine_moments,
    concat_sum,
    moments_to_mean,
    read_range,
    run_all,
)
from reports.common import share_expr, share_frame
from reports.source import RunData
from reports.stats import Z95


def changed_rules(base: RunData, variant: RunData) -> dict[str, tuple]:
    """Rule keys whose values differ: key -> (run's value, variant's value)."""
    a, b = base.config["params"], variant.config["params"]
    return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


def paired_rows(chunk: Chunk, base: RunData) -> pl.DataFrame:
    """Per game and seat of one chunk of the variant: win share in the run, in the variant,
    and the change (the base's rows for the same games, whatever its chunking)."""
    variant = share_frame(chunk).select("game_id", "seat", "strategy", variant_share="share")
    players = read_range(base, "players", chunk.start, chunk.stop, ["game_id", "seat", "winner"])
    games = read_range(base, "games", chunk.start, chunk.stop, ["game_id", "n_winners"])
    base_share = players.join(games, on="game_id").select(
        "game_id", "seat", base_share=share_expr()
    )
    return variant.join(base_share, on=["game_id", "seat"], how="inner").with_columns(
        change=pl.col("variant_share") - pl.col("base_share")
    )


def _shares_map(chunk: Chunk, base: RunData, by: str) -> pl.DataFrame:
    return (
        paired_rows(chunk, base)
        .group_by(by)
        .agg(rows=pl.len(), base=pl.col("base_share").sum(), variant=pl.col("variant_share").sum())
    )


def _shares_reduce(parts: list[pl.DataFrame], base: RunData, by: str) -> pl.DataFrame:
    df = concat_sum(parts, [by])
    return df.select(
        by, base=pl.col("base") / pl.col("rows"), variant=pl.col("variant") / pl.col("rows")
    )


def _change_map(chunk: Chunk, base: RunData, by: str):
    return cluster_moments(chunk, paired_rows(chunk, base), [by], "change")


def _change_reduce(parts, base: RunData, by: str) -> pl.DataFrame:
    return moments_to_mean(combine_moments(parts, [by]), [by], Z95)


def paired_by(
    base: RunData, variant: RunData, by: str, mapper: Mapper | None = None
) -> pl.DataFrame:
    """Mean win share in both runs and the paired change, by ``seat`` or ``strategy``, over
    the games the variant played (its chunks, paired with the same games of the run)."""
    shares = Partial("shares", _shares_map, _shares_reduce, (base, by))
    change = Partial("change", _change_map, _change_reduce, (base, by))
    results = run_all(variant, [shares, change], mapper)
    return results[shares].join(results[change], on=by).sort(by)


def share_moved(table: pl.DataFrame) -> float:
    """Win share moved between seats (or strategies) by the rule: half the sum of |change|."""
    return float(table["mean"].abs().sum()) / 2
