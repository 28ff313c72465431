"""Origin of Species: what traits are worth.

*Survivor-trait lift* (:func:`trait_lift`): over every seat-game, the mean win share (and final
score) of seats that end with trait ``t`` on at least one surviving animal
(``players.survivor_traits``) minus that of the seats that do not. It mixes the trait's own
effect with everything that comes with it (a seat that keeps a Carnivore alive also had the food
to feed it): a description of the games, not a controlled experiment.

*Value of a card* (:func:`card_value`): the least-squares fit (:mod:`reports.models.least_squares`)
over every seat-game of

    y = a + sum_t beta_t * (cards played as trait t) + gamma * (cards played as animals)

with ``y`` the win share (and, apart, the final score). ``beta_t`` is the win share that goes
with one more card played as trait ``t``, ``gamma`` with one more card played as an animal, for
the same number of other plays; ``beta_t - gamma`` compares the two uses of a card. A trait is
*worth a card as a trait* when the interval of ``beta_t - gamma`` lies above 0, *worth more as
an animal* when below, and *no clear difference* otherwise. The bots decide what to play, so
these are values as the bots play them (a card played late or only when it fits looks better
than it would when forced). Intervals: cluster-robust sandwich, a second pass over the chunks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import polars as pl

from reports.aggregate import (
    Chunk,
    Mapper,
    Partial,
    cluster_sums,
    combine_outer,
    once_per_run,
    outer_part,
    run_one,
)
from reports.models import least_squares
from reports.models.clustered import difference, means_covariance
from reports.origin_of_species.rows import interval, seat_frame
from reports.source import RunData
from reports.stats import Z95
from rules.origin_of_species.constants import N_TRAITS, TRAITS

N_X = N_TRAITS + 2
"""Regressors of the card-value fit: intercept, one per trait, cards played as animals."""

USES = tuple(f"used_{re.sub(r'[^a-z]+', '_', t.lower())}" for t in TRAITS)
"""``players`` columns of the use counters of each trait (``used_carnivore`` ...)."""


STRATA = 4
"""Strata of the lift at equal survivors: 1, 2, 3, and 4 or more surviving animals."""


def _lift_map(chunk: Chunk):
    """Per cluster and trait: win share (and score) sums and counts of the seats without and
    with the trait on a survivor, overall (W = 4) and by survivors' stratum (W = 4 STRATA),
    one trait at a time."""
    f = seat_frame(chunk)
    cl = f["cluster"]
    stratum = np.minimum(f["animals"], STRATA) - 1  # -1: no survivor (and so no trait)
    z = np.stack([(stratum == k).astype(np.float64) for k in range(STRATA)], axis=1)
    out = []
    for value in ("share", "score"):
        y = f[value]
        ids, tot = cluster_sums(cl, np.c_[y, np.ones_like(y)])
        _, totk = cluster_sums(cl, np.c_[y[:, None] * z, z])  # S per stratum, then n
        raw, by = [], []
        for t in range(N_TRAITS):  # one trait at a time: never clusters x traits x sums
            b = ((f["mask"] >> t) & 1).astype(np.float64)
            _, sums = cluster_sums(cl, np.c_[b * y, b, (b * y)[:, None] * z, b[:, None] * z])
            s1, n1 = sums[:, 0], sums[:, 1]
            s1k, n1k = sums[:, 2 : 2 + STRATA], sums[:, 2 + STRATA :]
            raw.append(outer_part(chunk, ids, np.c_[tot[:, 0] - s1, s1, tot[:, 1] - n1, n1]))
            by.append(
                outer_part(
                    chunk, ids, np.c_[totk[:, :STRATA] - s1k, s1k, totk[:, STRATA:] - n1k, n1k]
                )
            )
        out.append((raw, by))
    return out


def _lift_reduce(parts: list) -> dict:
    """Per outcome and trait: the means and covariance of the seats without and with it,
    overall and by stratum (:func:`~reports.models.clustered.means_covariance`)."""
    out = {}
    for k, value in enumerate(("share", "score")):
        out[value] = [
            (
                means_covariance(combine_outer([p[k][0][t] for p in parts], 4)),
                means_covariance(combine_outer([p[k][1][t] for p in parts], 4 * STRATA)),
            )
            for t in range(N_TRAITS)
        ]
    return out


TRAIT_LIFT = Partial("oos_trait_lift", _lift_map, _lift_reduce)


def _adjusted(m: np.ndarray, n: np.ndarray, cov: np.ndarray) -> tuple[float, float]:
    """The with-minus-without difference within each stratum, averaged with the weights of
    the seats with the trait, over the strata that have seats of both kinds."""
    k = STRATA
    ok = (n[:k] > 0) & (n[k:] > 0)
    if not ok.any():
        return float("nan"), float("nan")
    w = np.where(ok, n[k:], 0.0)
    w = w / w.sum()
    c = np.r_[-w, w]
    mm = np.where(np.r_[ok, ok], m, 0.0)
    cc = np.where(np.r_[ok, ok][:, None] & np.r_[ok, ok][None, :], cov, 0.0)
    return float(c @ mm), float(np.sqrt(max(c @ cc @ c, 0.0)))


def trait_lift(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Per trait: seat-games ending with it on a surviving animal (``n_with``) and without,
    the win shares of both and the *lift* (with minus without, ``mean``/``lo``/``hi``/``se``);
    the *lift at equal survivors* (``adjusted``, ``adj_lo``, ``adj_hi``): the same difference
    among seats with as many surviving animals (1, 2, 3, 4 or more), averaged over the seats
    with the trait; and the same two for the final score (``score_lift``, ``score_lo``,
    ``score_hi``; ``score_adjusted``, ``score_adj_lo``, ``score_adj_hi``)."""
    res = run_one(run, TRAIT_LIFT, mapper)
    rows = []
    for t in range(N_TRAITS):
        (m, n, cov), (mb, nb, covb) = res["share"][t]
        (ms, _, covs), (msb, nsb, covsb) = res["score"][t]
        d, se = difference(m, cov, 1, 0)
        ds, ses = difference(ms, covs, 1, 0)
        a, ase = _adjusted(mb, nb, covb)
        b, bse = _adjusted(msb, nsb, covsb)
        rows.append(
            {
                "trait_id": t,
                "trait": TRAITS[t],
                "n_with": int(n[1]),
                "n_without": int(n[0]),
                "share_with": float(m[1]),
                "share_without": float(m[0]),
                **interval(d, se),
                "adjusted": a,
                "adj_lo": a - Z95 * ase,
                "adj_hi": a + Z95 * ase,
                "score_with": float(ms[1]),
                "score_lift": ds,
                "score_lo": ds - Z95 * ses,
                "score_hi": ds + Z95 * ses,
                "score_adjusted": b,
                "score_adj_lo": b - Z95 * bse,
                "score_adj_hi": b + Z95 * bse,
            }
        )
    return pl.DataFrame(rows)


def _codes(column: pl.Series, labels: Sequence[str]) -> np.ndarray:
    """Each value's position in ``labels``, through the categorical's codes (a string per
    row would cost more than the rest of the map)."""
    if column.dtype != pl.Categorical:
        return column.cast(pl.String).replace_strict(list(labels), range(len(labels))).to_numpy()
    values = column.unique()
    physical = values.to_physical().to_numpy().astype(np.int64)
    lookup = np.full(int(physical.max()) + 1, -1)
    lookup[physical] = [labels.index(v) for v in values.cast(pl.String)]
    return lookup[column.to_physical().to_numpy()]


def _design(chunk: Chunk) -> tuple[dict, np.ndarray]:
    """The seat rows and their regressors: 1, cards played as each trait, as animals."""
    f = seat_frame(chunk)
    p = chunk.n_players
    rows = len(f["share"])
    x = np.zeros((rows, N_X))
    x[:, 0] = 1.0
    x[:, N_X - 1] = f["animals_played"]
    t = chunk.table("traits", ["game_id", "seat", "trait"])
    if t.height:  # cards played per seat-game and trait: counts of (row, trait) pairs
        row = (t["game_id"].to_numpy() - chunk.start) * p + t["seat"].to_numpy()
        code = _codes(t["trait"], TRAITS)
        counts = np.bincount(row * N_TRAITS + code, minlength=rows * N_TRAITS)
        x[:, 1 : 1 + N_TRAITS] = counts.reshape(rows, N_TRAITS)
    return f, x


def card_design(chunk: Chunk) -> least_squares.Design:
    """The card-value fit's rows: every seat-game (one group), its regressors (1, cards
    played as each trait, cards played as animals) and outcomes (win share, final score)."""
    f, x = _design(chunk)
    return least_squares.Design(
        x, np.c_[f["share"], f["score"]], f["cluster"], {"all": slice(None)}
    )


CARD_SUMS = least_squares.sums_partial(card_design)
"""The card-value fit's first pass (in the report's one pass)."""


def _uses_map(chunk: Chunk) -> tuple[int, np.ndarray]:
    uses = chunk.table("players", list(USES)).to_numpy().astype(np.float64)
    return len(uses), uses.sum(axis=0)


def _uses_reduce(parts: list) -> tuple[int, np.ndarray]:
    return sum(p[0] for p in parts), sum(p[1] for p in parts)


TRAIT_USES = Partial("oos_trait_uses", _uses_map, _uses_reduce)
"""Seat-games, and the uses of each trait summed over them (the engine's counters)."""


def card_value(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Per trait and for cards played as animals: how often a seat plays it and uses it per
    game, and the card-value fit's coefficients with cluster-robust intervals: ``mean``/``lo``
    /``hi`` (win share per card), ``vs_animal`` (``beta_t - gamma``, with ``vs_lo``,
    ``vs_hi``), ``points`` (final points per card, ``points_lo``, ``points_hi``) and a
    ``verdict``. Two passes over the chunks: the fit, then its residuals (once per run
    object: the report's sections and its robustness check read the same fit)."""
    return once_per_run(run, "oos_card_value", lambda: _card_value(run, mapper))


def trait_ranking(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """:func:`card_value` of the traits played, as a :class:`~reports.metrics.Ranking` table
    (``value``: win share per card played as the trait; the animal's yardstick left out)."""
    value = card_value(run, mapper).filter(pl.col("trait") != "(as an animal)")
    value = value.filter(pl.col("played") > 0, pl.col("mean").is_not_nan())
    return value.select(name="trait", value="mean", lo="lo", hi="hi")


def _card_value(run: RunData, mapper: Mapper | None) -> pl.DataFrame:
    model = least_squares.fit(run, card_design, mapper=mapper)
    fit = model.fits["all"]
    beta = fit.coef
    covs = [model.covariance("all", k) for k in range(2)]  # win share, score
    seat_games, uses = run_one(run, TRAIT_USES, mapper)
    played = fit.sums.xtx[0, 1:] / max(fit.sums.rows, 1)  # x's column sums: X'X's first row
    used = uses / max(seat_games, 1)
    rows = []
    animal = N_X - 1
    for j in range(1, N_X):
        is_animal = j == animal
        se = float(np.sqrt(max(covs[0][j, j], 0.0)))
        se_pts = float(np.sqrt(max(covs[1][j, j], 0.0)))
        if is_animal:
            d, dse = 0.0, 0.0
        else:
            d, dse = difference(beta[:, 0], covs[0], j, animal)
        lo, hi = d - Z95 * dse, d + Z95 * dse
        verdict = (
            "(the yardstick)"
            if is_animal
            else "worth a card as a trait"
            if lo > 0
            else "worth more as an animal"
            if hi < 0
            else "no clear difference"
        )
        rows.append(
            {
                "trait": "(as an animal)" if is_animal else TRAITS[j - 1],
                "played": float(played[j - 1]),
                "used": None if is_animal else float(used[j - 1]),
                **interval(float(beta[j, 0]), se),
                "vs_animal": d,
                "vs_lo": lo,
                "vs_hi": hi,
                "points": float(beta[j, 1]),
                "points_lo": float(beta[j, 1]) - Z95 * se_pts,
                "points_hi": float(beta[j, 1]) + Z95 * se_pts,
                "verdict": verdict,
            }
        )
    return pl.DataFrame(rows)
