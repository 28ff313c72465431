"""EVO's auction prices: what buyers paid for each gene, round by round.

*Price*: what the buyer paid (the winning bid minus mutations, never below 0). Medians and
quartiles of bids and prices come from counts of each integer value per chunk, so memory does
not grow with the run.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from reports.aggregate import Chunk, Mapper, Partial, concat_sum, run_one
from reports.source import RunData


def _prices_map(chunk: Chunk) -> pl.DataFrame:
    """Bids counted per gene, round, bid and price paid. The four are packed into one integer
    key (grouping by it is several times faster than by the categorical gene and three
    columns); each group's gene is its rows' first."""
    bids = chunk.table("bids", ["gene", "round", "bid", "paid"])
    if bids.height and bids["gene"].to_physical().max() >= 2**21:  # codes too large to pack
        counts = bids.group_by("gene", "round", "bid", "paid").agg(n=pl.len().cast(pl.Int64))
        return counts.with_columns(pl.col("gene").cast(pl.String))

    def small(name: str, offset: int) -> pl.Expr:
        return pl.col(name).cast(pl.Int64) + offset

    key = (
        ((pl.col("gene").to_physical().cast(pl.Int64) * 256 + small("round", 128)) * 2**17)
        + small("bid", 2**15)
    ) * 2**17 + small("paid", 2**15)
    counts = bids.group_by(key=key).agg(n=pl.len().cast(pl.Int64), gene=pl.col("gene").first())
    k = pl.col("key")
    return counts.select(
        pl.col("gene").cast(pl.String),
        round=(k // 2**34 % 256 - 128).cast(pl.Int8),
        bid=(k // 2**17 % 2**17 - 2**15).cast(pl.Int16),
        paid=(k % 2**17 - 2**15).cast(pl.Int16),
        n="n",
    )


def quantiles(values: np.ndarray, counts: np.ndarray) -> tuple[float, float, float]:
    """Median, first and third quartile of integer ``values`` (ascending, distinct) seen
    ``counts`` times, as polars computes them on the raw values: the median halfway between
    the middle two, the quartiles the nearest value (index ``round((n - 1) q)``)."""
    cum = np.cumsum(counts)
    n = int(cum[-1])

    def at(i: int) -> float:  # the i-th smallest value, from 0
        return float(values[np.searchsorted(cum, i + 1)])

    median = at((n - 1) // 2) if n % 2 else (at(n // 2 - 1) + at(n // 2)) / 2
    return (median, *(at(math.floor((n - 1) * q + 0.5)) for q in (0.25, 0.75)))


def _prices_reduce(parts: list[pl.DataFrame]) -> pl.DataFrame:
    df = concat_sum(parts, ["gene", "round", "bid", "paid"])
    rows = []
    if df.height:
        for (gene, rnd), g in df.group_by("gene", "round"):
            bid = g.group_by("bid").agg(pl.col("n").sum()).sort("bid")
            paid = g.group_by("paid").agg(pl.col("n").sum()).sort("paid")
            counts = paid["n"].to_numpy()
            values = paid["paid"].to_numpy()
            median, q1, q3 = quantiles(values, counts)
            rows.append(
                {
                    "gene": gene,
                    "round": rnd,
                    "sold": int(counts.sum()),
                    "bid_median": quantiles(bid["bid"].to_numpy(), bid["n"].to_numpy())[0],
                    "paid_median": median,
                    "paid_q1": q1,
                    "paid_q3": q3,
                    "paid_mean": float((values.astype(np.int64) * counts).sum() / counts.sum()),
                }
            )
    schema = {
        "gene": pl.String,
        "round": pl.Int8,
        "sold": pl.UInt32,
        **dict.fromkeys(
            ("bid_median", "paid_median", "paid_q1", "paid_q3", "paid_mean"), pl.Float64
        ),
    }
    return pl.DataFrame(rows, schema=schema).sort("gene", "round")


GENE_PRICES = Partial("evo_gene_prices", _prices_map, _prices_reduce)


def gene_prices(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Per gene and round: genes sold, and the median and quartiles of the bid and price paid
    (from counts of each bid and price per chunk)."""
    return run_one(run, GENE_PRICES, mapper)
