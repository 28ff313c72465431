"""Intervals of proportions (Wilson), the 95% normal quantile, p-values as people read them.

Cluster-robust means and sandwich variances are :mod:`reports.models.clustered`'s.
"""

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


def p_text(p: float) -> str:
    """A p-value as people read it (``p < 1e-16`` rather than 0; none when not testable)."""
    if p != p:
        return "not testable (too few games or no variation)"
    return "p < 1e-16" if p < 1e-16 else f"p = {p:.2g}"
