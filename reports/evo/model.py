"""EVO's gene value model: what each gene is worth at each auction, in points.

*Position at the auction of round r*: a seat's genes before that auction (``turns`` row of round
r), its points after the round's scoring, its dinos on the board and its event cards in hand.

*Gene value* (per round r): the linear probability model, fitted over every seat of every game
that reached round r,

    win share = a + sum_g beta_g * genes_g + pi * points + delta * dinos + kappa * cards

Buying gene g at the auction for p points changes the position by +1 gene and -p points, so the
win share moves by ``beta_g - pi * p``: the gene is worth ``beta_g / pi`` points. Card genes
draw an event card, so their coefficient is ``kappa``.

Every player buys exactly one gene per auction (the seed's mandatory bids), so everyone holds
the same *number* of genes in a round: the logs can tell how much more one gene is worth than
another, but not a gene's worth on its own (the model's gene columns sum to a constant). Values
are therefore *relative*: ``(beta_g - mean beta) / pi``, the mean weighted by the genes sold that
round, in points. With the harder variant (passing allowed) holdings differ in number too.

Mutation genes are the model's reference (their holding coefficient is fixed at 0); each
gene's coefficient is then measured against the sold-weighted mean of all genes'
coefficients, so the choice of reference does not matter. Features that nobody varies in a
round (round 1: everyone holds the portrait) are left out, and their genes get no value.

Intervals are 95%, from cluster-robust variances (by game, or by deal with seat rotation) and
the delta method. The model is observational: it measures what a gene was worth to these bots in
these positions, not a causal effect in every position.

Computation: :mod:`reports.models.least_squares`, one model per round (a *group*): the sums
X'X and X'y in the report's one pass (:data:`POSITION_SUMS`), then the scores per cluster at
the fitted coefficients for the sandwich. The fit (``dinolab fit evo``) groups the same rows by
round and by the seat's state (:mod:`reports.evo.fitting`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping

import numpy as np
import polars as pl

from reports.aggregate import Chunk
from reports.common import share_frame
from reports.models import least_squares
from reports.stats import Z95

GENES = ("tail", "leg", "horn", "egg", "fur", "parasol", "mutation", "card")
FEATURES = (
    "tails",
    "legs",
    "horns",
    "eggs",
    "furs",
    "parasols",
    "mutations",
    "cards_held",
    "points",
    "dinos",
)
COLUMN_OF_GENE = dict(zip(GENES, FEATURES[:8], strict=True))
MIN_ROWS = 200
"""Fewest positions a round's model is fitted on."""
NAMES = ("one", *FEATURES)
"""The gene value model's regressors, in the order of its matrices."""
POINTS = NAMES.index("points")


def turn_rows(chunk: Chunk) -> pl.DataFrame:
    """A chunk's positions: its ``turns`` rows (the position at each auction) with the final
    win ``share`` of the seat (made once per chunk: :meth:`~reports.aggregate.Chunk.derived`)."""
    turns = chunk.table("turns", ["game_id", "round", "seat", "initiative", *FEATURES])
    seats = chunk.derived(share_frame)
    p = chunk.n_players
    share = np.full((chunk.stop - chunk.start) * p, np.nan)
    share[(seats["game_id"].to_numpy() - chunk.start) * p + seats["seat"].to_numpy()] = seats[
        "share"
    ].to_numpy()
    row = (turns["game_id"].to_numpy() - chunk.start) * p + turns["seat"].to_numpy()
    return turns.with_columns(share=pl.Series(share[row]))


def _rounds(rnd: np.ndarray) -> dict[int, slice]:
    """Each round's rows of positions sorted by round."""
    starts = np.flatnonzero(np.r_[True, rnd[1:] != rnd[:-1]]).tolist() if len(rnd) else []
    stops = [*starts[1:], len(rnd)]
    return {int(rnd[a]): slice(a, b) for a, b in zip(starts, stops, strict=True)}


def ordered_positions(chunk: Chunk) -> tuple[pl.DataFrame, np.ndarray]:
    """The chunk's positions and the order that sorts them by round (game order kept within
    a round)."""
    rows = chunk.derived(turn_rows)
    return rows, np.argsort(rows["round"].to_numpy(), kind="stable")


def design(
    chunk: Chunk, states: Mapping[Hashable, np.ndarray] | None = None
) -> least_squares.Design:
    """The chunk's positions as the model's rows, sorted by round: one group per round (its
    number), or with ``states`` (a boolean mask per state over the sorted rows) one per state
    and round, ``(state, round)``."""
    rows, order = ordered_positions(chunk)
    rnd = rows["round"].to_numpy()[order]
    x = np.empty((len(order), len(NAMES)), order="F")  # columns contiguous
    x[:, 0] = 1.0
    for j, name in enumerate(FEATURES, 1):
        x[:, j] = rows[name].to_numpy()[order]
    clusters = chunk.clusters_of(rows["game_id"].to_numpy()[order])
    y = rows["share"].to_numpy()[order][:, None]
    rounds = _rounds(rnd)
    if states is None:
        return least_squares.Design(x, y, clusters, rounds)
    groups: dict[Hashable, np.ndarray] = {}
    for state, mask in states.items():
        for r, at in rounds.items():
            mine = np.flatnonzero(mask[at]) + at.start
            if len(mine):
                groups[(state, r)] = mine
    return least_squares.Design(x, y, clusters, groups)


def round_design(chunk: Chunk) -> least_squares.Design:
    """:func:`design` with one group per round: the report's model."""
    return design(chunk)


POSITION_SUMS = least_squares.sums_partial(round_design)
"""Per round: the positions, and the sums X'X and X'y of the gene value model."""


def estimable(sums: least_squares.Sums) -> tuple[int, ...] | None:
    """The regressors a round is fitted on: those that vary (and the intercept), but the
    mutations (the reference); ``None`` when the round is not estimable (too few rows, no
    variation in points, collinear)."""
    n, xtx = sums.rows, sums.xtx
    if n < MIN_ROWS:
        return None
    mean = xtx[0] / n
    varying = [i for i, a in enumerate(NAMES) if a == "one" or xtx[i, i] / n - mean[i] ** 2 > 1e-9]
    used = tuple(i for i in varying if NAMES[i] != "mutations")
    if POINTS not in used or np.linalg.matrix_rank(xtx[np.ix_(used, used)]) < len(used):
        return None
    return used


def sold_weights(sold: pl.DataFrame, r: int) -> tuple[np.ndarray, int]:
    """Round ``r``'s share of the genes sold (``sold``: ``gene``, ``round``, ``sold``), per
    regressor of :data:`NAMES` (the weights of the average gene sold), and the genes sold."""
    counts = {g: n for g, rr, n in sold.iter_rows() if rr == r}
    total = sum(counts.values())
    weights = np.zeros(len(NAMES))
    for g, n in counts.items():
        weights[NAMES.index(COLUMN_OF_GENE[g])] += n / total if total else 0.0
    return weights, total


def relative_value(beta: np.ndarray, weights: np.ndarray, gene: str) -> tuple[float, np.ndarray]:
    """A gene's value relative to the average gene sold (``weights``), in points, and its
    gradient in the coefficients ``beta``."""
    contrast = -weights.copy()
    contrast[NAMES.index(COLUMN_OF_GENE[gene])] += 1.0
    numerator = contrast @ beta
    pi = beta[POINTS]
    grad = contrast / pi
    grad[POINTS] -= numerator / pi**2
    return numerator / pi, grad


def values(
    model: least_squares.Model, groups: Mapping[int, Hashable], sold: pl.DataFrame
) -> pl.DataFrame:
    """Every gene's relative value per round, with its standard error and 95% interval, from
    a fitted model (``groups``: round -> the model's group of that round) and the genes sold
    per round. A gene gets no value in a round whose point value is not clearly above 0, where
    its feature is not fitted (mutations excepted: the reference) or where nothing sold."""
    rows = []
    for r, g in groups.items():
        fit = model.fits[g]
        beta = fit.coef[:, 0]
        cov = model.covariance(g)
        weights, total = sold_weights(sold, r)
        pi = beta[POINTS]
        pi_known = pi - 2 * math.sqrt(max(cov[POINTS, POINTS], 0.0)) > 0  # a point is worth >0
        for gene in GENES:
            row = {"gene": gene, "round": r, "value": None, "se": None, "lo": None, "hi": None}
            used = NAMES.index(COLUMN_OF_GENE[gene]) in fit.used or gene == "mutation"
            if pi_known and used and total > 0:
                value, grad = relative_value(beta, weights, gene)
                se = math.sqrt(max(grad @ cov @ grad, 0.0))
                row.update(value=value, se=se, lo=value - Z95 * se, hi=value + Z95 * se)
            rows.append({**row, "point_value": pi})
    floats = dict.fromkeys(("value", "se", "lo", "hi"), pl.Float64)
    return pl.DataFrame(rows, schema_overrides=floats).sort("gene", "round")
