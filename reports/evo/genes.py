"""EVO's genes: their values (:mod:`reports.evo.model`) against their prices
(:mod:`reports.evo.prices`).

*Relative price*: the gene's mean price minus the mean price of all genes sold that round. A
gene whose relative price lies above its relative value's interval is *overpriced*; below,
*underpriced*. *Surplus*: value minus price; the surpluses of all genes sold sum to zero.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from reports.aggregate import Mapper, once_per_run, prefetch
from reports.evo.model import (
    NAMES,
    POSITION_SUMS,
    estimable,
    relative_value,
    round_design,
    sold_weights,
)
from reports.evo.model import values as value_table
from reports.evo.prices import GENE_PRICES, gene_prices
from reports.models import least_squares
from reports.source import RunData
from reports.stats import Z95


def gene_values(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Per round and gene: value relative to the average gene sold that round, in points,
    with its standard error ``se`` and 95% interval (:mod:`reports.evo.model`).

    Two passes over the chunks: the sums X'X and X'y per round (:data:`POSITION_SUMS`, in the
    report's one pass), then the fitted model's scores per cluster for the cluster-robust
    sandwich variance."""
    model = least_squares.fit(run, round_design, used=estimable, mapper=mapper)
    if not model.fits:
        return pl.DataFrame()
    sold = gene_prices(run, mapper).select("gene", "round", "sold")
    return value_table(model, {r: r for r in model.fits}, sold)


def gene_price_curves(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Relative value against relative price per gene and round, with a verdict.

    ``price`` is the mean price paid for the gene minus the mean price of all genes sold that
    round; a gene is *overpriced* when its relative price lies above its relative value's
    interval, *underpriced* when below.
    """
    return price_curves(gene_values(run, mapper), gene_prices(run, mapper))


def price_curves(values: pl.DataFrame, prices: pl.DataFrame) -> pl.DataFrame:
    """:func:`gene_price_curves` from the gene values and prices."""
    if values.is_empty():
        return values
    average = prices.group_by("round").agg(
        average_paid=(pl.col("paid_mean") * pl.col("sold")).sum() / pl.col("sold").sum()
    )
    df = (
        values.join(prices, on=["gene", "round"], how="left")
        .join(average, on="round", how="left")
        .with_columns(
            pl.col("sold").fill_null(0), price=pl.col("paid_mean") - pl.col("average_paid")
        )
    )
    verdict = (
        pl.when(pl.col("sold") == 0)
        .then(pl.lit("not sold"))
        .when(pl.col("value").is_null())
        .then(pl.lit("not estimable"))
        .when(pl.col("price") > pl.col("hi"))
        .then(pl.lit("overpriced"))
        .when(pl.col("price") < pl.col("lo"))
        .then(pl.lit("underpriced"))
        .otherwise(pl.lit("fair"))
    )
    return df.with_columns(verdict=verdict)


def gene_summary(curves: pl.DataFrame) -> pl.DataFrame:
    """Per gene over the rounds where its value is estimable, weighted by genes sold: mean
    price paid, relative price, relative value, and the surplus (value minus price)."""
    sold = curves.filter((pl.col("sold") > 0) & pl.col("value").is_not_null())
    return (
        sold.group_by("gene")
        .agg(
            sold=pl.col("sold").sum(),
            paid=(pl.col("paid_mean") * pl.col("sold")).sum() / pl.col("sold").sum(),
            price=(pl.col("price") * pl.col("sold")).sum() / pl.col("sold").sum(),
            value=(pl.col("value") * pl.col("sold")).sum() / pl.col("sold").sum(),
            overpriced_rounds=(pl.col("verdict") == "overpriced").sum(),
            underpriced_rounds=(pl.col("verdict") == "underpriced").sum(),
        )
        .with_columns(surplus=pl.col("value") - pl.col("price"))
        .sort("surplus")
    )


SURPLUS_SCHEMA = {
    "gene": pl.String,
    "sold": pl.UInt32,
    **dict.fromkeys(("paid", "price", "value", "surplus", "se", "lo", "hi"), pl.Float64),
}


def _surplus_analysis(run: RunData, mapper: Mapper | None) -> tuple[pl.DataFrame, int]:
    """:func:`gene_surplus` computed: two passes over the chunks (the model's sums and the
    prices, then the scores of every round side by side)."""
    run = prefetch(run, [POSITION_SUMS, GENE_PRICES], mapper)
    model = least_squares.fit(run, round_design, used=estimable, mapper=mapper, joint=True)
    empty = pl.DataFrame(schema=SURPLUS_SCHEMA)
    if not model.fits:
        return empty, run.games_logged
    prices = gene_prices(run)
    sold = prices.select("gene", "round", "sold")
    curves = price_curves(value_table(model, {r: r for r in model.fits}, sold), prices)
    summary = gene_summary(curves)
    if summary.is_empty():
        return empty, run.games_logged
    cov = model.joint_covariance()
    block = {r: i for i, r in enumerate(model.fits)}
    k = len(NAMES)
    se = {}
    for gene in summary["gene"]:
        rows = curves.filter(
            (pl.col("gene") == gene) & (pl.col("sold") > 0) & pl.col("value").is_not_null()
        )
        grad = np.zeros(k * len(model.fits))
        n = rows["sold"].sum()
        for r, count in rows.select("round", "sold").iter_rows():
            weights, _ = sold_weights(sold, r)
            _, g = relative_value(model.fits[r].coef[:, 0], weights, gene)
            grad[block[r] * k : (block[r] + 1) * k] = g * count / n
        se[gene] = math.sqrt(max(grad @ cov @ grad, 0.0))
    out = summary.select("gene", "sold", "paid", "price", "value", "surplus").with_columns(
        se=pl.col("gene").replace_strict(se, return_dtype=pl.Float64)
    )
    out = out.with_columns(
        lo=pl.col("surplus") - Z95 * pl.col("se"), hi=pl.col("surplus") + Z95 * pl.col("se")
    )
    return out, run.games_logged


def gene_surplus(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Per gene: :func:`gene_summary`'s ``sold``, ``paid``, ``price``, ``value`` and
    ``surplus`` (value minus price, points relative to the average gene), with the surplus's
    standard error ``se`` and 95% interval ``lo``, ``hi``.

    The interval is the delta method's on the sold-weighted mean of the gene's per-round values
    with the cluster-robust covariance of every round's coefficients at once (the rounds of
    one game are not independent); prices and genes sold are taken as given, as the fit
    (``dinolab fit evo``) takes them. Two passes over the chunks, once per run object (cached
    while the run is alive)."""
    return surplus_with_games(run, mapper)[0]


def surplus_with_games(run: RunData, mapper: Mapper | None) -> tuple[pl.DataFrame, int]:
    """:func:`gene_surplus` and the games it is from, once per run object."""
    return once_per_run(run, "evo_gene_surplus", lambda: _surplus_analysis(run, mapper))
