"""What ``dinolab fit evo`` (:mod:`simulate.games.evo.fit`) measures of each run it plays.

The gene value model (:mod:`reports.evo.model`) on every position of a round, and, for the
table's state shifts, on the positions of each *state*: a species smaller than the round's
median (a dino or more below the median of the round's positions), at it, or larger, and each
climate field. Every value comes with its standard error. Besides: the prices, each round's
median species size and most common meteor space (ties: the smaller space), the surplus of
every gene and round (value minus relative price, the value's standard error: the fit takes
prices as given) and the report's gene summary.

Memory stays flat: the medians, meteor spaces and prices in one pass, the model's sums in a
second, its scores in a third.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl

from reports.aggregate import Chunk, Mapper, Partial, concat_sum, prefetch, run_one
from reports.evo.genes import gene_summary, price_curves
from reports.evo.model import design, estimable, ordered_positions, turn_rows, values
from reports.evo.prices import GENE_PRICES, gene_prices, quantiles
from reports.metrics import Estimate
from reports.models import least_squares
from reports.source import RunData
from rules.evo.constants import MAX_CYCLE

Values = dict[tuple[int, str], Estimate]
"""``(round, gene)`` -> a relative value (points) with its standard error."""

SIZES = 3
"""Species sizes: smaller than the round's median, at it, larger."""


@dataclasses.dataclass(frozen=True)
class FitMeasurement:
    """One run measured for the fit."""

    values: Values
    """Every gene's value per round over every position."""
    by_size: tuple[Values, ...]
    """The same over the positions of each species size (smaller, median, larger); empty
    when measured without states."""
    by_field: tuple[Values, ...]
    """The same over the positions of each climate field; empty without states."""
    surplus: Values
    """Per round and gene sold: value minus relative price."""
    paid: dict[tuple[int, str], float]
    """Per round and gene sold: the mean price paid (points)."""
    sold: dict[tuple[int, str], int]
    price: dict[int, float]
    """Per round: the mean price paid for a gene (sold-weighted)."""
    median: dict[int, float]
    """Per round: the median number of dinos of the positions."""
    meteor: dict[int, int]
    """Per round: the most common meteor space."""
    summary: pl.DataFrame
    """The report's gene summary (:func:`reports.evo.genes.gene_summary`)."""


def _counts_map(chunk: Chunk) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Positions by round and dinos, rounds by round and meteor space."""
    dinos = chunk.derived(turn_rows).group_by("round", "dinos").agg(n=pl.len())
    rounds = chunk.table("rounds", ["round", "meteor_space"])
    meteor = rounds.group_by("round", "meteor_space").agg(n=pl.len())
    return dinos, meteor


def _mode_or_median(counts: pl.DataFrame, value: str, median: bool) -> dict[int, float]:
    out = {}
    for (r,), g in counts.group_by("round"):
        g = g.group_by(value).agg(pl.col("n").sum()).sort(value)
        v, n = g[value].to_numpy(), g["n"].to_numpy()
        out[int(r)] = quantiles(v, n)[0] if median else float(v[int(np.argmax(n))])
    return dict(sorted(out.items()))


def _counts_reduce(parts: list) -> tuple[dict[int, float], dict[int, int]]:
    dinos = concat_sum([d for d, _ in parts], ["round", "dinos"])
    meteor = concat_sum([m for _, m in parts], ["round", "meteor_space"])
    medians = _mode_or_median(dinos, "dinos", True) if dinos.height else {}
    spaces = _mode_or_median(meteor, "meteor_space", False) if meteor.height else {}
    return medians, {r: int(s) for r, s in spaces.items()}


COUNTS = Partial("evo_fit_counts", _counts_map, _counts_reduce)
"""Per round: the median dinos of the positions and the most common meteor space."""


def state_design(
    chunk: Chunk, medians: tuple[tuple[int, float], ...], states: bool
) -> least_squares.Design:
    """The positions grouped by state and round: ``("all", round)``, and with ``states``
    ``("size=i", round)`` (``medians``: each round's median dinos) and ``("field=f", round)``."""
    rows, order = ordered_positions(chunk)
    masks = {"all": np.ones(len(order), dtype=bool)}
    if states:
        rnd = rows["round"].to_numpy()[order].astype(np.int64)
        median = np.full(int(rnd.max(initial=0)) + 1, np.nan)
        for r, m in medians:
            if r < len(median):
                median[r] = m
        dinos = rows["dinos"].to_numpy()[order].astype(np.float64)
        size = np.where(dinos <= median[rnd] - 1, 0, np.where(dinos >= median[rnd] + 1, 2, 1))
        masks.update({f"size={i}": size == i for i in range(SIZES)})
        field = _fields(chunk, rows)[order]
        masks.update({f"field={f}": field == f for f in range(MAX_CYCLE)})
    return design(chunk, masks)


def _fields(chunk: Chunk, rows: pl.DataFrame) -> np.ndarray:
    """The climate field of each position's round (-1 where the rounds table has none)."""
    r = chunk.table("rounds", ["game_id", "round", "climate_field"])
    span = int(max(rows["round"].max() or 0, r["round"].max() or 0)) + 1
    lookup = np.full((chunk.stop - chunk.start) * span, -1, dtype=np.int64)
    at = (r["game_id"].to_numpy() - chunk.start) * span + r["round"].to_numpy()
    lookup[at] = r["climate_field"].to_numpy()
    return lookup[(rows["game_id"].to_numpy() - chunk.start) * span + rows["round"].to_numpy()]


def _estimates(df: pl.DataFrame, games: int) -> Values:
    return {
        (int(r["round"]), r["gene"]): Estimate(r["value"], r["se"], r["lo"], r["hi"], games)
        for r in df.iter_rows(named=True)
        if r["value"] is not None
    }


def measure(run: RunData, states: bool = True, mapper: Mapper | None = None) -> FitMeasurement:
    """The fit's measurement of a finished run (``states``: also by species size and
    climate field)."""
    run = prefetch(run, [GENE_PRICES, COUNTS], mapper)
    medians, meteor = run_one(run, COUNTS)
    prices = gene_prices(run)
    sold = prices.select("gene", "round", "sold")
    args = (tuple(medians.items()), states)
    model = least_squares.fit(run, state_design, args, used=estimable, mapper=mapper)
    games = run.games_logged

    def of(state: str) -> pl.DataFrame:
        groups = {g[1]: g for g in model.fits if g[0] == state}
        return values(model, groups, sold) if groups else pl.DataFrame()

    every = of("all")
    curves = price_curves(every, prices)
    surplus, paid = {}, {}
    for r in curves.iter_rows(named=True) if curves.height else ():
        if r["value"] is not None and r["price"] is not None and r["sold"]:
            key = (int(r["round"]), r["gene"])
            surplus[key] = Estimate.normal(r["value"] - r["price"], r["se"], games, (None, None))
            paid[key] = r["paid_mean"]
    average = prices.group_by("round").agg(
        price=(pl.col("paid_mean") * pl.col("sold")).sum() / pl.col("sold").sum()
    )
    return FitMeasurement(
        values=_estimates(every, games),
        by_size=tuple(_estimates(of(f"size={i}"), games) for i in range(SIZES if states else 0)),
        by_field=tuple(
            _estimates(of(f"field={f}"), games) for f in range(MAX_CYCLE if states else 0)
        ),
        surplus=surplus,
        paid=paid,
        sold={(int(r), g): int(c) for g, r, c in sold.iter_rows()},
        price={int(r): float(p) for r, p in average.iter_rows()},
        median=medians,
        meteor=meteor,
        summary=gene_summary(curves) if curves.height else pl.DataFrame(),
    )
