"""Origin of Species over several runs, one per player count: food and seat advantage."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from reports import common
from reports.aggregate import Mapper
from reports.origin_of_species.food import food_overall
from reports.source import RunData


def food_by_players(runs: Sequence[RunData], mapper: Mapper | None = None) -> pl.DataFrame:
    """:func:`food_overall` of several runs (one per player count, say), one row each."""
    return pl.DataFrame([food_overall(r, mapper) for r in runs]).drop("all").sort("n_players")


def seat_advantage_by_players(
    runs: Sequence[RunData], mapper: Mapper | None = None
) -> pl.DataFrame:
    """Every seat's win share in several runs (one per player count, say): ``n_players``,
    ``seat``, ``mean``/``lo``/``hi``, ``diff`` from the fair share ``1/P``, and each run's
    balance (1 minus the largest gap between seats)."""
    frames = []
    for r in runs:
        seats = common.seat_win_share(r, mapper)
        bal = common.seat_balance(r, mapper)
        frames.append(
            seats.select("seat", "n", "mean", "lo", "hi", "diff").with_columns(
                n_players=pl.lit(r.n_players), balance=pl.lit(bal["balance"])
            )
        )
    return pl.concat(frames).select("n_players", pl.exclude("n_players")).sort("n_players", "seat")
