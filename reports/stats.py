"""Confidence intervals: Wilson for proportions, cluster-robust for means of game outcomes."""

from __future__ import annotations

import numpy as np
import polars as pl
from numpy.typing import ArrayLike
from scipy.special import ndtri  # scipy.special, not scipy.stats: a second less to start

Z95 = float(ndtri(0.975))
"""The two-sided 95% normal quantile."""


def wilson(successes: ArrayLike, n: ArrayLike, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score intervals of binomial proportions ``successes / n``, elementwise (NaN where
    ``n`` is 0)."""
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        lo = np.where(n > 0, np.maximum(0.0, centre - half), np.nan)
        hi = np.where(n > 0, np.minimum(1.0, centre + half), np.nan)
    return lo, hi


def with_wilson(df: pl.DataFrame, k: str, n: str, rate: str) -> pl.DataFrame:
    """``df`` with ``rate = k / n`` and its Wilson interval as ``lo`` and ``hi``."""
    lo, hi = wilson(df[k].to_numpy(), df[n].to_numpy())
    return df.with_columns(
        (pl.col(k) / pl.col(n)).alias(rate),
        lo=pl.Series(lo, dtype=pl.Float64),
        hi=pl.Series(hi, dtype=pl.Float64),
    )


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


def p_text(p: float) -> str:
    """A p-value as people read it (``p < 1e-16`` rather than 0; none when not testable)."""
    if p != p:
        return "not testable (too few games or no variation)"
    return "p < 1e-16" if p < 1e-16 else f"p = {p:.2g}"
