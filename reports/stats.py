"""Confidence intervals: Wilson for proportions, cluster-robust for means of game outcomes."""

from __future__ import annotations

import math

import polars as pl

Z95 = 1.959963984540054


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion."""
    if n <= 0:
        return (math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def wilson_exprs(k: str, n: str, prefix: str = "") -> list[pl.Expr]:
    """Polars expressions for the Wilson interval of columns ``k`` / ``n``."""
    p = pl.col(k) / pl.col(n)
    z2 = Z95 * Z95
    denom = 1 + z2 / pl.col(n)
    centre = (p + z2 / (2 * pl.col(n))) / denom
    half = Z95 * (p * (1 - p) / pl.col(n) + z2 / (4 * pl.col(n) ** 2)).sqrt() / denom
    return [(centre - half).alias(f"{prefix}lo"), (centre + half).alias(f"{prefix}hi")]


def clustered_mean(lf: pl.LazyFrame, by: list[str], value: str, cluster: pl.Expr) -> pl.DataFrame:
    """Mean of ``value`` per group ``by`` with a cluster-robust 95% interval.

    Observations in one cluster (games that share a deal) are not independent; the variance is
    the sandwich estimator ``C/(C-1) * sum_c (S_c - n_c * mean)^2 / N^2`` over clusters ``c``
    with sums ``S_c`` and sizes ``n_c``. With one observation per cluster it is the usual
    standard error of a mean.
    """
    per_cluster = (
        lf.with_columns(_cluster=cluster)
        .group_by([*by, "_cluster"])
        .agg(s=pl.col(value).cast(pl.Float64).sum(), n=pl.len().cast(pl.Float64))
    )
    df = (
        per_cluster.group_by(by)
        .agg(
            n=pl.col("n").sum(),
            s=pl.col("s").sum(),
            clusters=pl.len(),
            s2=(pl.col("s") ** 2).sum(),
            sn=(pl.col("s") * pl.col("n")).sum(),
            n2=(pl.col("n") ** 2).sum(),
        )
        .collect(engine="streaming")
    )
    mean = pl.col("s") / pl.col("n")
    ss = pl.col("s2") - 2 * mean * pl.col("sn") + mean**2 * pl.col("n2")
    c = pl.col("clusters")
    se = pl.when(c > 1).then((ss.clip(lower_bound=0) * c / (c - 1)).sqrt() / pl.col("n"))
    return (
        df.with_columns(mean=mean, se=se)
        .with_columns(
            lo=pl.col("mean") - Z95 * pl.col("se"), hi=pl.col("mean") + Z95 * pl.col("se")
        )
        .select([*by, pl.col("n").cast(pl.Int64), "clusters", "mean", "lo", "hi", "se"])
        .sort(by)
    )
