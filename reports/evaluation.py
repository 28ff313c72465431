"""The ``strong`` bots' evaluations, fitted on logged games.

A ``strong`` bot cuts its playouts off after a few turns or rounds and scores the position by
a logistic model of the eventual win share, fitted here on the turns table of a logged run
(the heuristic's games, since the playouts are played by the heuristic; Table Battles' on
``strong``'s own games, whose weights play stronger there):

* Origin of Species, Dino Kontra Dino: ``logit(win share) = bias + slope * margin``,
  the margin being the seat's score after a round (Origin of Species' ``score`` if the game
  ended then, Dino Kontra Dino's events won so far) less the best opponent's, over every round
  but a game's last (:func:`fit_margin`); the bots ship ``lead = bias + log(P - 1)``, the
  log-odds above a fair seat's, which carries over to other player counts;
* EVO: the same with two leads whose weights change with the round, its points after the
  auction (the gene just bought counted at the value table's worth) and its dinos on the board
  (:func:`fit_evo`);
* Table Battles: ``logit(seat 0 wins) = w_markers * (hit markers ahead) + w_cards * (face-up
  action cards ahead) + w_dice * (dice on them ahead) + w_turn * (+1 moving next, else -1) +
  bias`` after each turn of the decided games (:func:`fit_battle`).

The coefficients are shipped as the bots' declared parameters (``strategies/<game>/params.py``)
with the run that made them; ``tests/test_strong.py`` refits them on fresh games. Standard
errors are cluster-robust by game (a game's rows are not independent); the fit reads the run
into memory, so fit on a run of a few thousand games.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl

from reports.models.logistic import frame_sums, newton
from reports.source import RunData
from rules.evo.constants import GENES

GENE_INDEX = {g: i for i, g in enumerate(GENES)}


@dataclasses.dataclass(frozen=True)
class EvaluationFit:
    """Fitted coefficients by name, their standard errors, and the rows fitted."""

    coef: dict[str, float]
    se: dict[str, float]
    rows: int


def _fit(names: tuple[str, ...], x: np.ndarray, y: np.ndarray, games: np.ndarray) -> EvaluationFit:
    def evaluate(models, betas):
        return [frame_sums(x, y, games, b) for b in betas]

    (fit,) = newton(evaluate, [np.zeros(len(names))])
    se = np.sqrt(np.diag(fit.covariance()))
    return EvaluationFit(
        dict(zip(names, map(float, fit.coef), strict=True)),
        dict(zip(names, map(float, se), strict=True)),
        len(y),
    )


def _margin(col: str) -> pl.Expr:
    """The row's ``col`` less the best other row's of its game and round."""
    top = pl.col(col).sort(descending=True).head(2).implode().over("game_id", "round")
    return (
        pl.when(pl.col(col) == top.list.get(0))
        .then(pl.col(col) - top.list.get(1, null_on_oob=True))
        .otherwise(pl.col(col) - top.list.get(0))
    )


def _win_shares(run: RunData) -> pl.LazyFrame:
    """``game_id``, ``seat`` and ``y``, the seat's win share in the game."""
    games = run.scan("games").select("game_id", "n_winners")
    return (
        run.scan("players")
        .select("game_id", "seat", "winner")
        .join(games, on="game_id")
        .select(
            "game_id",
            "seat",
            (pl.col("winner").cast(pl.Float64) / pl.col("n_winners").clip(1)).alias("y"),
        )
    )


def _before_last(t: pl.LazyFrame, run: RunData) -> pl.LazyFrame:
    """The rows of ``t`` of every round but their game's last, with the seat's ``y``."""
    last = pl.col("round").max().over("game_id")
    return t.filter(pl.col("round") < last).join(_win_shares(run), on=["game_id", "seat"])


def margin_rows(run: RunData, score: str, cumulative: bool = False) -> pl.DataFrame:
    """One row per game, round (but the last) and seat: ``margin`` (the seat's ``score``
    after the round less the best opponent's) and ``y`` (its win share in the game).
    ``cumulative``: the column is a per-round 0/1 (Dino Kontra Dino's ``won``), summed."""
    t = run.scan("turns").select("game_id", "round", "seat", pl.col(score).cast(pl.Float64))
    if cumulative:
        t = t.sort("game_id", "seat", "round").with_columns(
            pl.col(score).cum_sum().over("game_id", "seat")
        )
    t = t.with_columns(_margin(score).alias("margin"))
    return _before_last(t, run).select("game_id", "margin", "y").collect()


def fit_margin(run: RunData, score: str, cumulative: bool = False) -> EvaluationFit:
    """``slope`` and ``bias`` of the score-margin evaluation (:func:`margin_rows`), and the
    ``lead`` the bots ship (``bias + log(P - 1)``, the same standard error)."""
    rows = margin_rows(run, score, cumulative)
    x = np.column_stack([rows["margin"].to_numpy(), np.ones(len(rows))])
    fit = _fit(("slope", "bias"), x, rows["y"].to_numpy(), rows["game_id"].to_numpy())
    lead = fit.coef["bias"] + float(np.log(run.n_players - 1))
    return EvaluationFit({**fit.coef, "lead": lead}, {**fit.se, "lead": fit.se["bias"]}, fit.rows)


def fit_evo(run: RunData, worth: np.ndarray) -> EvaluationFit:
    """EVO's evaluation at the end of a round (every round but a game's last): ``lead``,
    ``slope`` and ``slope_round`` (the weight of the seat's points lead, ``slope + slope_round
    * round``) and ``dinos`` and ``dinos_round`` (the same for its lead in dinos on the board).
    The points are those after the round's auction, the gene just bought counted at
    ``worth[round - 1, gene]`` (the value table's worth, points); a lead is over the best
    opponent."""
    turns = run.scan("turns").select(
        "game_id", "round", "seat", "dinos", (pl.col("points") - pl.col("paid")).alias("after")
    )
    bids = run.scan("bids").select(
        "game_id",
        "round",
        "seat",
        pl.col("gene").cast(pl.String).replace_strict(GENE_INDEX, return_dtype=pl.Int64),
    )
    t = turns.join(bids, on=["game_id", "round", "seat"], how="left").collect()
    row = np.minimum(t["round"].to_numpy() - 1, len(worth) - 1)
    gene = t["gene"].fill_null(-1).to_numpy()
    bought = gene >= 0
    value = t["after"].to_numpy().astype(float)
    value[bought] += worth[row[bought], gene[bought]]
    t = t.with_columns(pl.Series("value", value), pl.col("dinos").cast(pl.Float64)).with_columns(
        _margin("value").alias("points"), _margin("dinos").alias("ahead")
    )
    rows = _before_last(t.lazy(), run).collect()
    rnd = rows["round"].to_numpy().astype(float)
    points, ahead = rows["points"].to_numpy(), rows["ahead"].to_numpy()
    x = np.column_stack([np.ones(len(rows)), points, points * rnd, ahead, ahead * rnd])
    names = ("bias", "slope", "slope_round", "dinos", "dinos_round")
    fit = _fit(names, x, rows["y"].to_numpy(), rows["game_id"].to_numpy())
    lead = fit.coef["bias"] + float(np.log(run.n_players - 1))
    return EvaluationFit({**fit.coef, "lead": lead}, {**fit.se, "lead": fit.se["bias"]}, fit.rows)


def fit_battle(run: RunData) -> EvaluationFit:
    """Table Battles' evaluation after each turn of the decided games: ``w_markers``,
    ``w_cards`` and ``w_dice`` (hit markers, face-up action cards and dice on those cards
    ahead), ``w_turn`` (the log-odds of moving next) and a ``bias`` the bot leaves out (it is
    zero within noise in a two-seat game whose seats alternate)."""

    def ahead(column: str) -> pl.Expr:
        return pl.col(f"{column}_seat0").cast(pl.Float64) - pl.col(f"{column}_seat1")

    t = (
        run.scan("turns")
        .join(run.scan("games").select("game_id", "winner_seat"), on="game_id")
        .filter(pl.col("winner_seat") >= 0)
        .select(
            "game_id",
            ahead("markers_left").alias("markers"),
            ahead("cards_face_up").alias("cards"),
            ahead("dice_on_cards").alias("dice"),
            pl.when(pl.col("seat") == 1).then(1.0).otherwise(-1.0).alias("turn"),
            (pl.col("winner_seat") == 0).cast(pl.Float64).alias("y"),
        )
        .collect()
    )
    names = ("markers", "cards", "dice", "turn")
    x = np.column_stack([*(t[c].to_numpy() for c in names), np.ones(len(t))])
    return _fit((*(f"w_{c}" for c in names), "bias"), x, t["y"].to_numpy(), t["game_id"].to_numpy())
