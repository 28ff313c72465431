"""Cluster-robust statistics.

The seats of one game are not independent observations, nor (with seat rotation) are the P
games of one deal: they form a *cluster*. Every variance in the reports is a *sandwich*: the
sum over clusters of the outer products of each cluster's score sums (the *meat*) between two
*breads* (the inverse information; for a mean, ``1 / N``), times the small-sample factor
``C / (C - 1)`` over the ``C`` clusters.

:class:`Cross` holds what the meat of several means needs (sums of per-cluster vectors and of
their outer products), :func:`means_covariance` turns it into means and their covariance;
:func:`moments_to_mean` is the same estimate for each group alone, from a few moments per
group (:data:`MOMENTS`), as the chunked analyses collect them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TypeVar

import numpy as np
import polars as pl
from numpy.typing import ArrayLike

from reports.stats import Z95

Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)


def small_sample(clusters: ArrayLike) -> np.ndarray:
    """The small-sample factor ``C / (C - 1)`` of a sandwich variance over ``C`` clusters
    (elementwise). With one cluster or none it is NaN: a single cluster's sum says nothing
    about how clusters vary, so the variance is unknown (a table shows it blank, an interval
    is not drawn), never the uncorrected value."""
    c = np.asarray(clusters, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(c > 1, c / np.where(c > 1, c - 1, 1.0), np.nan)


def sandwich(bread: np.ndarray, meat: np.ndarray, clusters: int | None) -> np.ndarray:
    """The cluster-robust covariance ``C / (C - 1) * bread @ meat @ bread`` (``bread``: the
    inverse information, symmetric; ``meat``: the sum over the ``C`` clusters of the outer
    products of their score sums). ``clusters=None`` leaves the factor out (the Table Battles
    team model's intervals have always been reported without it)."""
    if clusters is None:
        return bread @ meat @ bread
    return float(small_sample(clusters)) * bread @ meat @ bread


def gram(v: np.ndarray) -> np.ndarray:
    """``v.T @ v``, the sum over the rows of ``v`` (one per cluster) of their outer products.

    A numpy loop (``einsum``), not BLAS: chunks are mapped on several threads next to polars'
    own, and a threaded BLAS on top of those made one chunk's product take seconds instead of
    milliseconds on a busy machine (a 50,000 x 60 product: 1.3 s by BLAS, 0.18 s by the loop)."""
    return np.einsum("ck,cl->kl", v, v)


@dataclasses.dataclass(frozen=True)
class Cross:
    """Sums over clusters of vectors ``v_c`` and of ``v_c v_c^T``, and the count of clusters:
    with ``v_c = (S_c1 .. S_ck, n_c1 .. n_cb)`` (sums and counts per cluster) enough for means
    and their cluster-robust covariance; with ``v_c`` a model's score sums, its meat."""

    total: np.ndarray
    outer: np.ndarray
    clusters: int

    @classmethod
    def zeros(cls, width: int) -> Cross:
        return cls(np.zeros(width), np.zeros((width, width)), 0)

    def __add__(self, other: Cross) -> Cross:
        return Cross(
            self.total + other.total, self.outer + other.outer, self.clusters + other.clusters
        )


def means_covariance(
    cross: Cross, blocks: Sequence[int] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Means and their cluster-robust covariance from a :class:`Cross` of per-cluster vectors
    ``(S_1 .. S_k, n_1 .. n_b)``: mean ``f`` is ``S_f / n_{blocks[f]}`` (``blocks``: which
    count each sum is over; by default each sum its own count, ``b = k``). Returns the means,
    their counts and ``small_sample(C) * sum_c r_cf r_cg / (N_f N_g)`` with ``r_cf = S_cf -
    n_{c,b(f)} m_f``: with one observation per cluster the usual covariance of means."""
    k = len(blocks) if blocks is not None else cross.total.shape[0] // 2
    b = np.asarray(blocks) if blocks is not None else np.arange(k)
    t, o = cross.total, cross.outer
    n = t[k + b]
    with np.errstate(invalid="ignore", divide="ignore"):
        m = t[:k] / n
        ss = o[:k, :k]
        sn = o[:k, k + b]  # sum_c S_cf n_{c,b(g)}
        nn = o[np.ix_(k + b, k + b)]
        inner = ss - sn * m[None, :] - sn.T * m[:, None] + nn * np.outer(m, m)
        cov = small_sample(cross.clusters) * inner / np.outer(n, n)
    return m, n, cov


def difference(m: np.ndarray, cov: np.ndarray, i: int, j: int) -> tuple[float, float]:
    """``m[i] - m[j]`` and its standard error, from estimates ``m`` with covariance ``cov``."""
    var = cov[i, i] + cov[j, j] - 2 * cov[i, j]
    return float(m[i] - m[j]), float(np.sqrt(max(var, 0.0)))


MOMENTS = ("n", "s", "clusters", "s2", "sn", "n2")
"""Per group: observations, their sum, clusters, and the sums over clusters of S_c**2,
S_c * n_c and n_c**2 (S_c, n_c: the group's sum and count in cluster c)."""


def fold(per_cluster: Frame, by: Sequence[str]) -> Frame:
    """The :data:`MOMENTS` per group ``by`` from sums ``s`` and counts ``n`` per group and
    cluster (a DataFrame, or a LazyFrame to collect)."""
    return per_cluster.group_by(list(by)).agg(
        n=pl.col("n").sum(),
        s=pl.col("s").sum(),
        clusters=pl.len(),
        s2=(pl.col("s") ** 2).sum(),
        sn=(pl.col("s") * pl.col("n")).sum(),
        n2=(pl.col("n") ** 2).sum(),
    )


def moments_to_mean(moments: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """Mean per group with its cluster-robust standard error ``se`` and 95% interval ``lo``,
    ``hi`` (null where the group has one cluster: :func:`small_sample`).

    The variance is ``C/(C-1) * sum_c (S_c - n_c * mean)^2 / N^2`` over the group's clusters
    (the diagonal of :func:`means_covariance`); with one observation per cluster it is the
    usual standard error of a mean."""
    s, n = moments["s"].to_numpy(), moments["n"].to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s / n
        ss = moments["s2"].to_numpy() - 2 * mean * moments["sn"].to_numpy()
        ss = ss + mean**2 * moments["n2"].to_numpy()
        se = np.sqrt(np.clip(ss, 0, None) * small_sample(moments["clusters"].to_numpy())) / n
    columns = {"mean": mean, "lo": mean - Z95 * se, "hi": mean + Z95 * se, "se": se}
    return (
        moments.select(*by, pl.col("n").cast(pl.Int64), pl.col("clusters").cast(pl.Int64))
        .with_columns(pl.Series(k, v, dtype=pl.Float64).fill_nan(None) for k, v in columns.items())
        .sort(list(by))
    )


def clustered_mean(lf: pl.LazyFrame, by: list[str], value: str, cluster: pl.Expr) -> pl.DataFrame:
    """:func:`moments_to_mean` of ``value`` per group ``by`` over a whole LazyFrame, clusters
    given by the expression ``cluster`` (computed at once: for exploring a run in a notebook;
    the reports fold the same moments chunk by chunk)."""
    per_cluster = (
        lf.with_columns(_cluster=cluster)
        .group_by([*by, "_cluster"])
        .agg(s=pl.col(value).cast(pl.Float64).sum(), n=pl.len().cast(pl.Float64))
    )
    return moments_to_mean(fold(per_cluster, by).collect(engine="streaming"), by)
