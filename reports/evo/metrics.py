"""EVO's metrics (:mod:`reports.metrics`), claims and ranking: the gene surplus, and who
moved first."""

from __future__ import annotations

import polars as pl

from reports.aggregate import Chunk, Mapper
from reports.evo.genes import gene_surplus, surplus_with_games
from reports.evo.model import GENES
from reports.game import FirstMover
from reports.metrics import Claim, Context, Estimate, Metric, MetricError, Ranking
from reports.source import RunData


def _estimate(df: pl.DataFrame, gene: str, games: int) -> Estimate:
    row = df.filter(pl.col("gene") == gene)
    if row.is_empty():
        nan = float("nan")
        return Estimate(nan, nan, nan, nan, games)
    r = row.row(0, named=True)
    return Estimate(r["surplus"], r["se"], r["lo"], r["hi"], games)


def measure_surplus(run: RunData, arg: str | None, mapper: Mapper | None = None) -> Estimate:
    """``surplus[GENE]``: :func:`gene_surplus`'s row of the gene (NaN when its value is not
    estimable in any round it was sold)."""
    if arg not in GENES:
        raise MetricError(f"metric 'surplus' needs GENE in {', '.join(GENES)}, got '{arg}'")
    df, games = surplus_with_games(run, mapper)
    return _estimate(df, arg, games)


def measure_max_surplus(
    run: RunData, arg: str | None = None, mapper: Mapper | None = None
) -> Estimate:
    """``max_surplus``: the largest gene surplus, with that gene's interval (NaN when no
    gene's is measurable)."""
    df, games = surplus_with_games(run, mapper)
    df = df.filter(pl.col("surplus").is_not_nan())
    top = df.sort("surplus").row(-1, named=True)["gene"] if df.height else ""
    return _estimate(df, top, games)


def gene_ranking(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """:func:`gene_surplus` of the genes whose surplus is estimable, as a
    :class:`~reports.metrics.Ranking` table (``name``: the gene, ``value``: its surplus)."""
    df = gene_surplus(run, mapper).filter(pl.col("surplus").is_not_nan())
    return df.select(name="gene", value="surplus", lo="lo", hi="hi")


RANKING = Ranking(
    "genes",
    "surplus: value minus price, points against the average gene",
    "points",
    gene_ranking,
    tolerance=0.5,  # surplus's own tolerance (its scale)
)
"""The report's gene surplus, most underpriced to most overpriced (for robustness)."""


def first_seats(chunk: Chunk) -> pl.DataFrame:
    """Per game: ``first_seat``, the first player of round 1 (the ``turns`` row of round 1 with
    ``initiative`` 0: first in player order from phase 1; ``rounds.first_seat`` is the order
    at the end of the round, after Én jövök előbb!), for the shared ``first_share`` metric."""
    if "turns" not in chunk.run.manifest["tables"]:
        raise MetricError("EVO's first player is read from the turns table: log it (--tables)")
    t = chunk.table("turns", ["game_id", "round", "seat", "initiative"])
    first = (t["round"].to_numpy() == 1) & (t["initiative"].to_numpy() == 0)
    return pl.DataFrame(
        {
            "game_id": t["game_id"].to_numpy()[first],
            "first_seat": t["seat"].to_numpy()[first],
        }
    )


FIRST_MOVER = FirstMover(first_seats, ("turns",))


SURPLUS_TABLES = ("games", "players", "turns", "bids")
"""The tables the gene surplus reads (positions, final win shares, prices)."""


def _genes(ctx: Context) -> tuple[str, ...]:
    return GENES


METRICS: tuple[Metric, ...] = (
    Metric(
        "surplus",
        "gene GENE's value minus its price, in points relative to the average gene sold, "
        "sold-weighted over the rounds its value is estimable (the report's gene summary; > 0: "
        "underpriced); interval from the values' cluster-robust covariance over all rounds "
        "jointly, prices taken as given",
        "points",
        0.5,
        tables=SURPLUS_TABLES,
        arg="GENE",
        args=_genes,
        measure=measure_surplus,
        bounds=(None, None),
    ),
    Metric(
        "max_surplus",
        "the largest gene surplus (the most underpriced gene's value minus price, points), "
        "with that (argmax) gene's interval; like balance, biased high by sampling noise on "
        "few games",
        "points",
        0.5,
        tables=SURPLUS_TABLES,
        measure=measure_max_surplus,
        bounds=(None, None),
    ),
)
"""EVO's own metrics (besides :data:`reports.metrics.SHARED`)."""

CLAIMS = (
    Claim(
        "surplus",
        0.0,
        "{arg} is underpriced (worth more than buyers pay)",
        "{arg} is overpriced (worth less than buyers pay)",
        "{arg} is priced at its worth (within noise)",
    ),
    Claim(
        "max_surplus",
        0.0,
        "the most underpriced gene is worth more than its price",
        "every gene is worth less than its price",
        "no gene is clearly underpriced",
    ),
)
"""The report's gene-price conclusions, for its robustness check."""
