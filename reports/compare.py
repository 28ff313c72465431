"""Paired comparison of a run with one of its rule variants (see ``simulate.variants``).

Both runs played game ``i`` from the same deal and dice streams, so for every game and seat the
*difference* in win share is the rule's effect plus far less noise than two independent runs
would have. Intervals are cluster-robust 95% intervals of the mean paired difference.
"""

from __future__ import annotations

import polars as pl

from reports.common import win_share_by, with_win_share
from reports.source import RunData


def changed_rules(base: RunData, variant: RunData) -> dict[str, tuple]:
    """Rule keys whose values differ: key -> (run's value, variant's value)."""
    a, b = base.config["params"], variant.config["params"]
    return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


def paired(base: RunData, variant: RunData) -> pl.LazyFrame:
    """Per game and seat of the variant: win share in the run, in the variant, and the change."""
    games = variant.games_logged
    a = (
        with_win_share(base)
        .filter(pl.col("game_id") < games)
        .select("game_id", "seat", pl.col("strategy").cast(pl.String), base_share="share")
    )
    b = with_win_share(variant).select("game_id", "seat", variant_share="share")
    return a.join(b, on=["game_id", "seat"], how="inner").with_columns(
        change=pl.col("variant_share") - pl.col("base_share")
    )


def paired_by(base: RunData, variant: RunData, by: str) -> pl.DataFrame:
    """Mean win share in both runs and the paired change, by ``seat`` or ``strategy``."""
    lf = paired(base, variant)
    change = win_share_by(base, [by], lf, value="change")
    shares = (
        lf.group_by(by)
        .agg(base=pl.col("base_share").mean(), variant=pl.col("variant_share").mean())
        .collect(engine="streaming")
    )
    return shares.join(change, on=by).sort(by)


def share_moved(table: pl.DataFrame) -> float:
    """Win share moved between seats (or strategies) by the rule: half the sum of |change|."""
    return float(table["mean"].abs().sum()) / 2
