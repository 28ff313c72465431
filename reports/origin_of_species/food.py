"""Origin of Species: how tight the food is.

*Food pressure* (:func:`food_by_round`): per round number, over the games that reached it, the
mean food bank (red tokens rolled), the mean food the animals needed when it was rolled
(``turns.need`` summed over seats), the ratio ``sum(bank) / sum(need)``, and the *starvation
rate*: animals that died unfed over the animals alive at the start of extinction.
"""

from __future__ import annotations

import polars as pl

from reports.aggregate import Chunk, Mapper, Partial, run_one
from reports.origin_of_species.rows import ratios_map, ratios_reduce, side_by_side
from reports.source import RunData


def _round_frame(chunk: Chunk) -> pl.DataFrame:
    """A chunk's rounds rows with the turns summed over seats (need, animals, starved ...)."""
    r = chunk.table("rounds", ["game_id", "round", "food_bank"])
    t = chunk.table("turns", ["game_id", "round", "need", "animals", "starved", "kills"])
    sums = t.group_by("game_id", "round", maintain_order=True).agg(
        pl.col("need", "animals", "starved", "kills").cast(pl.Int64).sum()
    )
    return r.join(sums, on=["game_id", "round"], how="left").with_columns(
        pl.col("round").cast(pl.Int64)
    )


_FOOD_METRICS = (
    ("bank", "food_bank", None),
    ("need", "need", None),
    ("bank_per_need", "food_bank", "need"),
    ("starvation", "starved", "animals"),
    ("kills", "kills", None),
)

FOOD_BY_ROUND = Partial(
    "oos_food_by_round", ratios_map, ratios_reduce, (_round_frame, ("round",), _FOOD_METRICS)
)


def _all_rounds(chunk: Chunk) -> pl.DataFrame:
    return chunk.derived(_round_frame).with_columns(all=pl.lit("every round"))


FOOD_ALL = Partial(
    "oos_food_all", ratios_map, ratios_reduce, (_all_rounds, ("all",), _FOOD_METRICS)
)


def food_by_round(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Per round number: the games that reached it (``n``), the mean food bank and need, the
    bank per token needed and the starvation rate (each with ``_lo``/``_hi``), and the kills
    per game-round."""
    return side_by_side(run_one(run, FOOD_BY_ROUND, mapper), "round").sort("round")


def food_overall(run: RunData, mapper: Mapper | None = None) -> dict:
    """The same over every round of every game: one row as a dict, with ``n_players``."""
    row = side_by_side(run_one(run, FOOD_ALL, mapper), "all").row(0, named=True)
    return {"n_players": run.n_players, **row}
