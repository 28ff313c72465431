"""Origin of Species' metrics (:mod:`reports.metrics`), claims and ranking."""

from __future__ import annotations

import numpy as np
import polars as pl

from reports.aggregate import Chunk
from reports.game import FirstMover
from reports.metrics import Claim, Feature, Metric, Ranking
from reports.origin_of_species.traits import trait_ranking


def first_seats(chunk: Chunk) -> pl.DataFrame:
    """Per game: ``first_seat``, the first player of round 1 (``games.first_seat``), for the
    shared ``first_share`` metric."""
    return chunk.table("games", ["game_id", "first_seat"])


FIRST_MOVER = FirstMover(first_seats, ("games",))


def carnivore_features(chunk: Chunk) -> pl.DataFrame:
    """Per game: ``carnivore_points``, the points of the surviving carnivores
    (``players.carnivore_points`` summed over the seats), and ``all_points``, every seat's
    final score summed."""
    players = chunk.table("players", ["game_id", "carnivore_points", "score"])
    n = chunk.stop - chunk.start
    at = players["game_id"].to_numpy() - chunk.start
    return pl.DataFrame(
        {
            "game_id": np.arange(chunk.start, chunk.stop, dtype=np.int64),
            "carnivore_points": np.bincount(
                at, weights=players["carnivore_points"].to_numpy(), minlength=n
            ),
            "all_points": np.bincount(at, weights=players["score"].to_numpy(), minlength=n),
        }
    )


METRICS: tuple[Metric, ...] = (
    Metric(
        "carnivore_points",
        "share of all points scored that surviving carnivores scored (the animal, its trait "
        "cards and extras; players.carnivore_points over players.score, summed over every "
        "seat-game, as the report's carnivore share of points)",
        "share of points",
        0.01,
        tables=("players",),
        features=lambda ctx, arg: (Feature(carnivore_features),),
        formula=lambda m, arg: m["carnivore_points"] / m["all_points"],
    ),
)
"""Origin of Species' own metrics (besides :data:`reports.metrics.SHARED`)."""

CLAIMS = (
    Claim(
        "carnivore_points",
        0.5,
        "surviving carnivores score more than half of all points",
        "surviving carnivores score less than half of all points",
        "surviving carnivores score about half of all points",
    ),
)
"""The report's carnivore conclusion, for its robustness check."""

RANKING = Ranking(
    "traits",
    "card value: win share that goes with one more card played as the trait",
    "pp",
    trait_ranking,
)
"""The report's card values of the traits (its robustness check reads them)."""
