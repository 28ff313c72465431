"""Dinosaur Table Battles' metrics (:mod:`reports.metrics`), claims and ranking."""

from __future__ import annotations

import polars as pl

from reports.aggregate import Chunk, Mapper
from reports.game import FirstMover
from reports.metrics import Claim, Estimate, Metric, MetricError, Ranking
from reports.source import RunData
from reports.table_battles.draft import MIN_GAMES, dino_ranking, rating_accuracy


def first_seats(chunk: Chunk) -> pl.DataFrame:
    """Per game: ``first_seat``, the first player (``games.first_seat``: fewest hit markers,
    else the alphabetical tie-break), for the shared ``first_share`` metric."""
    return chunk.table("games", ["game_id", "first_seat"])


FIRST_MOVER = FirstMover(first_seats, ("games",))


def measure_rating_spearman(
    run: RunData, arg: str | None = None, mapper: Mapper | None = None
) -> Estimate:
    """``rating_spearman``: :func:`~reports.table_battles.draft.rating_accuracy`'s rank
    correlation with its interval (the draws' quantiles) and standard error, from the decided
    games."""
    if run.config.get("params", {}).get("setup") == "first_game":
        raise MetricError(
            "metric 'rating_spearman' needs a drafting run (setup=draft): with setup=first_game "
            "nobody drafts, so the logs cannot tell the dinos' values apart"
        )
    model, _, rho = rating_accuracy(run, mapper=mapper)
    return Estimate(rho["rho"], rho["se"], rho["lo"], rho["hi"], model.games)


METRICS: tuple[Metric, ...] = (
    Metric(
        "rating_spearman",
        "Spearman's rank correlation between the printed draft ratings and the team model's "
        f"dino values over the dinos in play drafted in at least {MIN_GAMES} decided games "
        "(1 = the ratings order the dinos as play does); interval: quantiles over draws of the "
        "model's coefficients",
        "rank correlation",
        0.1,
        measure=measure_rating_spearman,
        bounds=(-1.0, 1.0),
    ),
)
"""Dinosaur Table Battles' own metrics (besides :data:`reports.metrics.SHARED`)."""

CLAIMS = (
    Claim(
        "rating_spearman",
        0.0,
        "the printed draft ratings order the dinos as play does (positive rank correlation)",
        "the printed draft ratings run against play (negative rank correlation)",
        "the printed draft ratings and play are not detectably related",
    ),
)
"""The report's draft-rating conclusion, for its robustness check."""

RANKING = Ranking(
    "dinos",
    "simulated value: win-share points drafting it adds against an average dino",
    "pp",
    dino_ranking,
)
"""The report's dino values, most to least valuable (its robustness check reads them)."""
