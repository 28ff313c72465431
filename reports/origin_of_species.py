"""Evolution: The Origin of Species analyses: what traits are worth, how carnivores do, how
tight the food is, and each seat's score round by round.

Every analysis is map-reduce over the run's chunks (:mod:`reports.aggregate`): memory stays flat
in the number of games. Intervals are 95%, cluster-robust: the games of one deal form a cluster
when seats were rotated (else each game is its own), so the seats of one game, whose win shares
add up to 1, and the rotated replays of one deal are never counted as independent. A ratio
``sum(x) / sum(y)`` gets the linearised (delta-method) sandwich variance over clusters.

Definitions
-----------
*Win share* of a seat in a game: 1 for an outright win, ``1/k`` for a victory shared by ``k``
(as :mod:`reports.common`).

*Survivor-trait lift* (:func:`trait_lift`): over every seat-game, the mean win share (and final
score) of seats that end with trait ``t`` on at least one surviving animal
(``players.survivor_traits``) minus that of the seats that do not. It mixes the trait's own
effect with everything that comes with it (a seat that keeps a Carnivore alive also had the food
to feed it): a description of the games, not a controlled experiment.

*Value of a card* (:func:`card_value`): the least-squares fit over every seat-game of

    y = a + sum_t beta_t * (cards played as trait t) + gamma * (cards played as animals)

with ``y`` the win share (and, apart, the final score). ``beta_t`` is the win share that goes
with one more card played as trait ``t``, ``gamma`` with one more card played as an animal, for
the same number of other plays; ``beta_t - gamma`` compares the two uses of a card. A trait is
*worth a card as a trait* when the interval of ``beta_t - gamma`` lies above 0, *worth more as
an animal* when below, and *no clear difference* otherwise. The bots decide what to play, so
these are values as the bots play them (a card played late or only when it fits looks better
than it would when forced). Intervals: cluster-robust sandwich, a second pass over the chunks.

*Attack success* (:func:`attack_outcomes`, :func:`kills_by_defender_trait`): the share of
attacks (``attacks`` rows, one per attack on its final target) that ended with the prey eaten,
by the last defence used and by each trait the final target carried when attacked.

*Carnivore share of points* (:func:`carnivores`): the points of surviving carnivores (the
animal, its trait cards and extras, ``players.carnivore_points``) over all points scored.

*Aggression* (:func:`aggression`): win share, attacks, kills and carnivore share of points by
bot, with each bot's ``aggression`` parameter read from the run's configuration; with seats
rotated and two or more aggression levels in the lineup, the win-share gap between the most and
the least aggressive bot, with its interval (the covariance of the two shares included).

*Food pressure* (:func:`food_by_round`): per round number, over the games that reached it, the
mean food bank (red tokens rolled), the mean food the animals needed when it was rolled
(``turns.need`` summed over seats), the ratio ``sum(bank) / sum(need)``, and the *starvation
rate*: animals that died unfed over the animals alive at the start of extinction.

*Progress* (:func:`progress`): each seat's score after every round, the points it would have if
the game ended then (``turns.score``), for the shared decisiveness section.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import polars as pl
import polars.selectors as cs

from reports import common, plots
from reports.aggregate import (
    Chunk,
    Cross,
    Mapper,
    Partial,
    chunks,
    cluster_cross,
    cluster_moments,
    cluster_sums,
    combine_cross,
    combine_moments,
    combine_outer,
    concat_sum,
    mean_covariance,
    moments_to_mean,
    once_per_run,
    outer_part,
    run_all,
    run_one,
    second_pass,
)
from reports.metrics import Claim, Feature, Metric, Ranking
from reports.section import Section
from reports.source import RunData
from reports.stats import Z95
from rules.origin_of_species.constants import DEFENCES, N_TRAITS, OUTCOMES, TRAITS

N_X = N_TRAITS + 2
"""Regressors of the card-value fit: intercept, one per trait, cards played as animals."""
USES = tuple(f"used_{re.sub(r'[^a-z]+', '_', t.lower())}" for t in TRAITS)
"""``players`` columns of the use counters of each trait (``used_carnivore`` ...)."""


# ------------------------------------------------------------------ helpers


def _cluster_ids(chunk: Chunk, game_id: np.ndarray) -> np.ndarray:
    """The cluster of each row from its ``game_id``: the deal with rotation, else the game."""
    g = game_id.astype(np.int64)
    return g // chunk.n_players if chunk.rotate else g


def _diff(m: np.ndarray, cov: np.ndarray, i: int, j: int) -> tuple[float, float]:
    """``m[i] - m[j]`` and its standard error."""
    var = cov[i, i] + cov[j, j] - 2 * cov[i, j]
    return float(m[i] - m[j]), float(np.sqrt(max(var, 0.0)))


def _interval(mean: float, se: float) -> dict[str, float]:
    return {"mean": mean, "lo": mean - Z95 * se, "hi": mean + Z95 * se, "se": se}


def _seat_frame(chunk: Chunk) -> dict[str, np.ndarray]:
    """A chunk's players rows as numpy columns (game-major, seat order) with ``share`` and
    ``cluster``."""
    p = chunk.n_players
    games = chunk.table("games", ["game_id", "n_winners"])
    nw = np.repeat(games["n_winners"].to_numpy().astype(np.float64), p)
    gid = np.repeat(games["game_id"].to_numpy(), p)
    pl_ = chunk.table(
        "players", ["winner", "score", "animals", "survivor_traits", "animals_played"]
    )
    won = pl_["winner"].to_numpy().astype(np.float64)
    share = np.divide(won, nw, out=np.zeros_like(won), where=nw > 0)
    return {
        "cluster": _cluster_ids(chunk, gid),
        "game_id": gid,
        "share": share,
        "score": pl_["score"].to_numpy().astype(np.float64),
        "mask": pl_["survivor_traits"].to_numpy().astype(np.int64),
        "animals": pl_["animals"].to_numpy().astype(np.int64),
        "animals_played": pl_["animals_played"].to_numpy().astype(np.float64),
    }


def _metrics_map(chunk: Chunk, frame, by: tuple[str, ...], metrics: tuple) -> dict:
    """Clustered moments of several ratios ``sum(num) / sum(den)`` (``den`` ``None``: per row)
    by the groups ``by`` over the rows ``frame(chunk)`` makes."""
    df = chunk.derived(frame).with_columns(_cluster=chunk.cluster())
    out = {}
    for name, num, den in metrics:
        per = df.group_by([*by, "_cluster"]).agg(
            s=pl.col(num).cast(pl.Float64).sum(),
            n=(pl.col(den).cast(pl.Float64).sum() if den else pl.len().cast(pl.Float64)),
        )
        out[name] = cluster_moments(chunk, None, list(by), "s", per)
    return out


def _metrics_reduce(parts: list[dict], frame, by: tuple[str, ...], metrics: tuple) -> dict:
    return {
        name: moments_to_mean(combine_moments([p[name] for p in parts], list(by)), list(by), Z95)
        for name, _, _ in metrics
    }


# ------------------------------------------------------------------ trait value


STRATA = 4
"""Strata of the lift at equal survivors: 1, 2, 3, and 4 or more surviving animals."""


def _batched_part(chunk: Chunk, ids: np.ndarray, per_trait) -> tuple:
    """:func:`~reports.aggregate.outer_part` for ``T`` crosses (``per_trait``: each trait's
    clusters x W sums, made one trait at a time so that a chunk never holds clusters x T x W
    sums): the totals (T x W), outer products (T x W x W) and count of the whole clusters, and
    the raw sums of the clusters the chunk may share with a neighbour (S x T x W)."""
    split = np.isin(ids, np.array(chunk.split_clusters(), dtype=np.int64))
    totals, outers, edges = [], [], []
    for sums in per_trait:
        whole = sums[~split] if split.any() else sums
        totals.append(whole.sum(axis=0))
        outers.append(np.einsum("cw,cv->wv", whole, whole))
        edges.append(sums[split])
    clusters = int(len(ids) - split.sum())
    return (np.array(totals), np.array(outers), clusters), (ids[split], np.stack(edges, axis=1))


def _batched_combine(parts: Sequence[tuple]) -> list[Cross]:
    """The whole run's crosses from every chunk's :func:`_batched_part`, one per ``T``."""
    total = sum(p[0][0] for p in parts)
    outer = sum(p[0][1] for p in parts)
    clusters = sum(p[0][2] for p in parts)
    rest: dict[int, np.ndarray] = {}
    for _, (ids, sums) in parts:
        for i, row in zip(ids.tolist(), sums, strict=True):
            rest[i] = rest.get(i, 0) + row
    if rest:
        v = np.array(list(rest.values()))
        total = total + v.sum(axis=0)
        outer = outer + np.einsum("ctw,ctv->twv", v, v)
        clusters += len(v)
    return [Cross(total[t], outer[t], clusters) for t in range(total.shape[0])]


def _lift_map(chunk: Chunk):
    """Per cluster and trait: win share (and score) sums and counts of the seats without and
    with the trait on a survivor, overall (W = 4) and by survivors' stratum (W = 4 STRATA),
    one trait at a time."""
    f = _seat_frame(chunk)
    cl = f["cluster"]
    stratum = np.minimum(f["animals"], STRATA) - 1  # -1: no survivor (and so no trait)
    z = np.stack([(stratum == k).astype(np.float64) for k in range(STRATA)], axis=1)
    out = []
    for value in ("share", "score"):
        y = f[value]
        ids, tot = cluster_sums(cl, np.c_[y, np.ones_like(y)])
        _, totk = cluster_sums(cl, np.c_[y[:, None] * z, z])  # S per stratum, then n
        raw, by = [], []
        for t in range(N_TRAITS):
            b = ((f["mask"] >> t) & 1).astype(np.float64)
            _, sums = cluster_sums(cl, np.c_[b * y, b, (b * y)[:, None] * z, b[:, None] * z])
            s1, n1 = sums[:, 0], sums[:, 1]
            s1k, n1k = sums[:, 2 : 2 + STRATA], sums[:, 2 + STRATA :]
            raw.append(np.c_[tot[:, 0] - s1, s1, tot[:, 1] - n1, n1])
            by.append(np.c_[totk[:, :STRATA] - s1k, s1k, totk[:, STRATA:] - n1k, n1k])
        out.append((_batched_part(chunk, ids, raw), _batched_part(chunk, ids, by)))
    return out


def _lift_reduce(parts: list) -> dict:
    out = {}
    for k, value in enumerate(("share", "score")):
        raw = _batched_combine([p[k][0] for p in parts])
        by = _batched_combine([p[k][1] for p in parts])
        out[value] = [
            (mean_covariance(a), mean_covariance(b)) for a, b in zip(raw, by, strict=True)
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
        d, se = _diff(m, cov, 1, 0)
        ds, ses = _diff(ms, covs, 1, 0)
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
                **_interval(d, se),
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
    f = _seat_frame(chunk)
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


def _fit_map(chunk: Chunk):
    f, x = _design(chunk)
    y = np.c_[f["share"], f["score"]]
    uses = chunk.table("players", list(USES)).to_numpy().astype(np.float64)
    return x.T @ x, x.T @ y, len(y), x[:, 1:].sum(axis=0), uses.sum(axis=0)


def _fit_reduce(parts: list) -> dict:
    xtx = sum(p[0] for p in parts)
    xty = sum(p[1] for p in parts)
    rows = sum(p[2] for p in parts)
    beta = np.linalg.lstsq(xtx, xty, rcond=None)[0]
    return {
        "xtx": xtx,
        "beta": beta,
        "rows": rows,
        "played": sum(p[3] for p in parts) / max(rows, 1),
        "used": sum(p[4] for p in parts) / max(rows, 1),
    }


CARD_FIT = Partial("oos_card_fit", _fit_map, _fit_reduce)


def _meat_map(chunk: Chunk, beta: tuple[tuple[float, ...], ...]):
    f, x = _design(chunk)
    b = np.array(beta)  # N_X x 2
    out = []
    for k, value in enumerate(("share", "score")):
        e = f[value] - x @ b[:, k]
        ids, g = cluster_sums(f["cluster"], x * e[:, None])
        out.append(outer_part(chunk, ids, g))
    return out


def _meat_reduce(parts: list, beta) -> list[Cross]:
    return [combine_outer([p[k] for p in parts], N_X) for k in range(2)]


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


RANKING = Ranking(
    "traits",
    "card value: win share that goes with one more card played as the trait",
    "pp",
    trait_ranking,
)
"""The report's card values of the traits (its robustness check reads them)."""


def _card_value(run: RunData, mapper: Mapper | None) -> pl.DataFrame:
    fit = run_one(run, CARD_FIT, mapper)
    beta = fit["beta"]
    data, first_mapper = second_pass(run)  # the run itself, and the one pass's mapper
    step = Partial("oos_card_meat", _meat_map, _meat_reduce, (_frozen(beta),))
    meat = run_one(data, step, mapper or first_mapper)
    inv = np.linalg.pinv(fit["xtx"])
    covs = []
    for cross in meat:
        c = cross.clusters
        scale = c / (c - 1) if c > 1 else np.nan
        # the residuals' cluster sums have mean zero: their outer sum is the meat
        covs.append(scale * inv @ cross.outer @ inv)
    rows = []
    animal = N_X - 1
    for j in range(1, N_X):
        is_animal = j == animal
        se = float(np.sqrt(max(covs[0][j, j], 0.0)))
        se_pts = float(np.sqrt(max(covs[1][j, j], 0.0)))
        if is_animal:
            d, dse = 0.0, 0.0
        else:
            d, dse = _diff(beta[:, 0], covs[0], j, animal)
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
                "played": float(fit["played"][j - 1]),
                "used": None if is_animal else float(fit["used"][j - 1]),
                **_interval(float(beta[j, 0]), se),
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


def _frozen(beta: np.ndarray) -> tuple[tuple[float, ...], ...]:
    """Coefficients as nested tuples (hashable, so a :class:`Partial` can carry them)."""
    return tuple(tuple(float(v) for v in row) for row in beta)


# ------------------------------------------------------------------ carnivores


def _attack_frame(chunk: Chunk) -> pl.DataFrame:
    a = chunk.table(
        "attacks", ["game_id", "defender_traits", "defence_used", "outcome", "poisoned"]
    )
    return a.with_columns(
        pl.col("defence_used").cast(pl.String),
        killed=(pl.col("outcome").cast(pl.String) == "killed").cast(pl.Float64),
        all=pl.lit("every attack"),
    )


ATTACKS_BY_DEFENCE = Partial(
    "oos_attacks_by_defence",
    _metrics_map,
    _metrics_reduce,
    (_attack_frame, ("defence_used",), (("killed", "killed", None),)),
)
ATTACKS_ALL = Partial(
    "oos_attacks_all",
    _metrics_map,
    _metrics_reduce,
    (_attack_frame, ("all",), (("killed", "killed", None), ("poisoned", "poisoned", None))),
)


def _outcomes_map(chunk: Chunk) -> pl.DataFrame:
    """The chunk's attacks counted by last defence and outcome (a few rows, not one per
    attack)."""
    a = chunk.table("attacks", ["defence_used", "outcome"])
    return a.group_by(
        pl.col("defence_used").cast(pl.String), pl.col("outcome").cast(pl.String)
    ).agg(attacks=pl.len().cast(pl.Int64))


def _outcomes_reduce(parts: list[pl.DataFrame]) -> pl.DataFrame:
    df = concat_sum(parts, ["defence_used", "outcome"])
    return df if df.height else pl.DataFrame(schema=_OUT)


_OUT = {"defence_used": pl.String, "outcome": pl.String, "attacks": pl.Int64}
ATTACK_COUNTS = Partial("oos_attack_counts", _outcomes_map, _outcomes_reduce)


def attack_outcomes(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Attacks by the last defence used: how many, their share of all attacks, how they ended
    (killed, escaped, tail_lost) and the kill rate (``mean``/``lo``/``hi``, clustered)."""
    res = run_all(run, [ATTACKS_BY_DEFENCE, ATTACK_COUNTS, ATTACKS_ALL], mapper)
    rate = res[ATTACKS_BY_DEFENCE]["killed"]
    counts = res[ATTACK_COUNTS]
    total = int(counts["attacks"].sum()) if counts.height else 0
    wide = {d: dict.fromkeys(OUTCOMES, 0) for d in DEFENCES}
    for r in counts.iter_rows(named=True):
        wide[r["defence_used"]][r["outcome"]] = r["attacks"]
    rows = []
    every = res[ATTACKS_ALL]["killed"]
    for d in (*DEFENCES, "every attack"):
        src = (
            every.filter(pl.col("all") == d)
            if d == "every attack"
            else rate.filter(pl.col("defence_used") == d)
        )
        n = sum(wide[d].values()) if d in wide else total
        k = src.row(0, named=True) if src.height else {"mean": None, "lo": None, "hi": None}
        out = {"defence_used": d, "attacks": n, "share": n / total if total else None}
        for o in OUTCOMES:
            out[o] = sum(v[o] for v in wide.values()) if d == "every attack" else wide[d][o]
        rows.append({**out, "mean": k["mean"], "lo": k["lo"], "hi": k["hi"]})
    return pl.DataFrame(rows)


def _defender_trait_map(chunk: Chunk):
    a = chunk.table("attacks", ["game_id", "defender_traits", "outcome"])
    ids_rows = _cluster_ids(chunk, a["game_id"].to_numpy())
    mask = a["defender_traits"].to_numpy().astype(np.int64)
    killed = (a["outcome"].cast(pl.String) == "killed").to_numpy().astype(np.float64)
    ids, sums = np.unique(ids_rows), np.zeros((0, 2 * N_TRAITS))
    if len(ids):  # one trait at a time: never attacks x traits
        bits = (((mask >> t) & 1).astype(np.float64) for t in range(N_TRAITS))
        per = [cluster_sums(ids_rows, np.c_[b * killed, b])[1] for b in bits]
        sums = np.c_[tuple(p[:, 0] for p in per) + tuple(p[:, 1] for p in per)]
    return outer_part(chunk, ids, sums)


def _defender_trait_reduce(parts: list):
    return mean_covariance(combine_outer(parts, 2 * N_TRAITS))


KILLS_BY_TRAIT = Partial("oos_kills_by_trait", _defender_trait_map, _defender_trait_reduce)


def kills_by_defender_trait(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Per trait: attacks on animals that carried it (``attacks``) and the share that ended
    with the prey eaten (``mean``/``lo``/``hi``, clustered)."""
    m, n, cov = run_one(run, KILLS_BY_TRAIT, mapper)
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    return pl.DataFrame(
        {
            "trait": list(TRAITS),
            "attacks": n.astype(np.int64),
            "mean": m,
            "lo": m - Z95 * se,
            "hi": m + Z95 * se,
        }
    ).filter(pl.col("attacks") > 0)


def _player_frame(chunk: Chunk) -> pl.DataFrame:
    """A chunk's players rows with ``share``, ``has_carnivore`` and ``all``."""
    players = chunk.table(
        "players",
        [
            "game_id",
            "strategy",
            "winner",
            "score",
            "carnivores",
            "carnivore_points",
            "kills",
            "used_carnivore",
        ],
    )
    games = chunk.table("games", ["game_id", "n_winners"])
    return players.join(games, on="game_id", how="left").with_columns(
        pl.col("strategy").cast(pl.String),
        share=common.share_expr(),
        has_carnivore=(pl.col("carnivores") > 0).cast(pl.Float64),
        all=pl.lit("every seat"),
    )


_CARNIVORE_METRICS = (
    ("share", "share", None),
    ("points_share", "carnivore_points", "score"),
    ("has_carnivore", "has_carnivore", None),
    ("attacks", "used_carnivore", None),
    ("kills", "kills", None),
    ("kill_rate", "kills", "used_carnivore"),
    ("score", "score", None),
)
CARNIVORES_BY_STRATEGY = Partial(
    "oos_carnivores_by_strategy",
    _metrics_map,
    _metrics_reduce,
    (_player_frame, ("strategy",), _CARNIVORE_METRICS),
)
CARNIVORES_ALL = Partial(
    "oos_carnivores_all",
    _metrics_map,
    _metrics_reduce,
    (_player_frame, ("all",), _CARNIVORE_METRICS),
)


def _wide(res: dict, by: str) -> pl.DataFrame:
    """Several clustered metrics side by side: ``<metric>`` and ``<metric>_lo`` / ``_hi``."""
    out = None
    for name, df in res.items():
        part = df.select(
            by,
            pl.col("mean").alias(name),
            pl.col("lo").alias(f"{name}_lo"),
            pl.col("hi").alias(f"{name}_hi"),
            *([pl.col("n").alias("n")] if out is None else []),
        )
        out = part if out is None else out.join(part, on=by, how="left")
    return out.with_columns(cs.float().fill_nan(None))


def carnivores(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Over every seat-game: the carnivore share of points (``points_share``), the share of
    seats ending with a carnivore alive (``has_carnivore``), attacks and kills per seat-game
    and the kills per attack (``kill_rate``), each with ``_lo``/``_hi``."""
    return _wide(run_one(run, CARNIVORES_ALL, mapper), "all")


def lineup_specs(run: RunData) -> dict[str, str]:
    """Each bot label in the players table with its full spec from the run's configuration
    (every parameter spelled out), found through the first game's seats and rotation."""
    first = chunks(run)[0][0]
    players = run.read("players", first, ["seat", "strategy"]).head(run.n_players)
    rotation = int(run.read("games", first, ["rotation"])["rotation"][0])
    specs = run.config["strategies"]
    n = run.n_players
    return {str(label): specs[(int(seat) - rotation) % n] for seat, label in players.iter_rows()}


def aggression_of(spec: str) -> float | None:
    """The ``aggression`` parameter of a heuristic spec (``None`` for other bots)."""
    m = re.fullmatch(r"heuristic\[(.*)\]", spec) or re.fullmatch(r"heuristic", spec)
    if m is None:
        return None
    found = re.search(r"(?:^|,)aggression=([-+0-9.eE]+)", m.group(1) if m.groups() else "")
    return float(found.group(1)) if found else None


def _share_cross_map(chunk: Chunk, labels: tuple[str, ...]):
    return cluster_cross(chunk, chunk.derived(common.share_frame), "strategy", "share", labels)


def _share_cross_reduce(parts, labels: tuple[str, ...]):
    return mean_covariance(combine_cross(parts, "strategy", labels))


def _labels(run: RunData) -> tuple[str, ...]:
    return tuple(sorted(lineup_specs(run)))


def aggression(run: RunData, mapper: Mapper | None = None) -> tuple[pl.DataFrame, dict | None]:
    """Per bot: its ``aggression`` (heuristic bots), win share, carnivore share of points,
    attacks, kills and kills per attack per seat-game (each with ``_lo``/``_hi``); and, when the
    run can answer it (seats rotated, two or more aggression levels), the win-share gap between
    the most and the least aggressive bot (``mean``/``lo``/``hi``, with both labels), else
    ``None``."""
    specs = lineup_specs(run)
    labels = tuple(sorted(specs))
    res = run_all(
        run,
        [
            CARNIVORES_BY_STRATEGY,
            Partial("oos_share_cross", _share_cross_map, _share_cross_reduce, (labels,)),
        ],
        mapper,
    )
    table = _wide(res[CARNIVORES_BY_STRATEGY], "strategy").with_columns(
        aggression=pl.col("strategy").replace_strict(
            {k: aggression_of(v) for k, v in specs.items()}, default=None, return_dtype=pl.Float64
        )
    )
    levels = {k: aggression_of(v) for k, v in specs.items() if aggression_of(v) is not None}
    if not run.config.get("rotate") or len(set(levels.values())) < 2:
        return table.sort("strategy"), None
    m, _, cov = res[Partial("oos_share_cross", _share_cross_map, _share_cross_reduce, (labels,))]
    high = max(levels, key=lambda k: levels[k])
    low = min(levels, key=lambda k: levels[k])
    d, se = _diff(m, cov, labels.index(high), labels.index(low))
    gap = {"high": high, "low": low, "high_level": levels[high], "low_level": levels[low]}
    return table.sort("aggression", nulls_last=True), {**gap, **_interval(d, se)}


# ------------------------------------------------------------------ food pressure


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
    "oos_food_by_round", _metrics_map, _metrics_reduce, (_round_frame, ("round",), _FOOD_METRICS)
)


def _all_rounds(chunk: Chunk) -> pl.DataFrame:
    return chunk.derived(_round_frame).with_columns(all=pl.lit("every round"))


FOOD_ALL = Partial(
    "oos_food_all", _metrics_map, _metrics_reduce, (_all_rounds, ("all",), _FOOD_METRICS)
)


def food_by_round(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Per round number: the games that reached it (``n``), the mean food bank and need, the
    bank per token needed and the starvation rate (each with ``_lo``/``_hi``), and the kills
    per game-round."""
    return _wide(run_one(run, FOOD_BY_ROUND, mapper), "round").sort("round")


def food_overall(run: RunData, mapper: Mapper | None = None) -> dict:
    """The same over every round of every game: one row as a dict, with ``n_players``."""
    row = _wide(run_one(run, FOOD_ALL, mapper), "all").row(0, named=True)
    return {"n_players": run.n_players, **row}


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


# ------------------------------------------------------------------ progress


def progress(chunk: Chunk) -> pl.DataFrame:
    """Each seat's score after every round (``turns.score``: the points it would have if the
    game ended then), game by game, round by round, seat by seat, for the decisiveness
    section; the last round's score is the final one."""
    t = chunk.table("turns", ["game_id", "round", "seat", "score"])
    return t.with_columns(pl.col("score").cast(pl.Int64))


# ------------------------------------------------------------------ figures


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


def forest_plot(
    names: Sequence[str], mean, lo, hi, *, title: str, xlabel: str, scale: float = 100.0
) -> bytes:
    """One row per item, largest on top: its estimate and 95% interval (``scale``: 100 shows
    shares as percentage points)."""
    order = np.argsort(np.asarray(mean, dtype=float))
    x = np.asarray(mean, dtype=float)[order] * scale
    err = [
        x - np.asarray(lo, dtype=float)[order] * scale,
        np.asarray(hi, dtype=float)[order] * scale - x,
    ]
    labels = [names[i] for i in order]
    fig, ax = plt.subplots(figsize=(6.5, max(2.5, 0.27 * len(labels) + 1)))
    ax.errorbar(x, labels, xerr=err, fmt="o", color=plots.COLOR, ecolor="black", capsize=3)
    ax.axvline(0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(axis="x", alpha=0.3)
    return _png(fig)


def food_plot(df: pl.DataFrame) -> bytes:
    """Food bank and need by round (95% bands), and the starvation rate."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.4))
    x = df["round"].to_numpy()
    for name, color in (("bank", plots.COLOR), ("need", plots.ACCENT)):
        a.plot(x, df[name].to_numpy(), marker="o", ms=3, color=color, label=name)
        a.fill_between(
            x, df[f"{name}_lo"].to_numpy(), df[f"{name}_hi"].to_numpy(), color=color, alpha=0.2
        )
    a.set_xlabel("round")
    a.set_ylabel("tokens")
    a.set_title("Food bank and need (mean, 95% band)")
    a.legend(fontsize=8)
    a.grid(alpha=0.3)
    s = df["starvation"].to_numpy() * 100
    b.errorbar(
        x,
        s,
        yerr=[s - df["starvation_lo"].to_numpy() * 100, df["starvation_hi"].to_numpy() * 100 - s],
        fmt="o-",
        ms=3,
        color=plots.COLOR,
        ecolor="black",
        capsize=2,
    )
    b.set_xlabel("round")
    b.set_ylabel("% of animals")
    b.set_title("Starvation rate by round")
    b.grid(alpha=0.3)
    return _png(fig)


# ------------------------------------------------------------------ metrics (reports.metrics)


def first_mover(chunk: Chunk) -> pl.DataFrame:
    """Per game: ``first_seat``, the first player of round 1 (``games.first_seat``), for the
    shared ``first_share`` metric."""
    return chunk.table("games", ["game_id", "first_seat"])


FIRST_MOVER_TABLES = ("games",)
"""The tables :func:`first_mover` reads."""


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


# ------------------------------------------------------------------ the report


def partials(run: RunData) -> list[Partial]:
    """What the report's Origin of Species sections read in the report's one pass (the
    card-value fit's residual pass comes after it)."""
    labels = _labels(run)
    return [
        TRAIT_LIFT,
        CARD_FIT,
        ATTACKS_BY_DEFENCE,
        ATTACKS_ALL,
        ATTACK_COUNTS,
        KILLS_BY_TRAIT,
        CARNIVORES_ALL,
        CARNIVORES_BY_STRATEGY,
        Partial("oos_share_cross", _share_cross_map, _share_cross_reduce, (labels,)),
        FOOD_BY_ROUND,
        FOOD_ALL,
    ]


def _pp(row: dict, key: str = "mean", lo: str = "lo", hi: str = "hi") -> str:
    return f"{row[key] * 100:+.2f} pp [{row[lo] * 100:+.2f}, {row[hi] * 100:+.2f}]"


def sections(run: RunData) -> list[Section]:
    """The report's Origin of Species sections: traits, carnivores, food."""
    out = [*_trait_sections(run), *_carnivore_sections(run), _food_section(run)]
    return out


def _trait_sections(run: RunData) -> list[Section]:
    lift = trait_lift(run)
    shown = lift.filter((pl.col("n_with") > 0) & (pl.col("n_without") > 0)).filter(
        pl.col("adjusted").is_not_nan()
    )
    text = (
        "For each trait, the seats that ended the game with it on at least one surviving "
        "animal against those that did not, over every seat-game: their win shares, the "
        "difference (the lift), and the lift at equal survivors (the same difference among "
        "seats with as many surviving animals, 1, 2, 3, or 4 and more, averaged over the seats "
        "with the trait), each with a cluster-robust 95% interval; the last column is the lift "
        "at equal survivors in final points. The plain lift mostly says that seats with "
        "survivors win; the lift at equal survivors compares like with like, but still "
        "describes the games, not the trait alone (a seat that keeps a Carnivore alive also "
        "found the food for it)."
    )
    if shown.height:
        best = shown.sort("adjusted", descending=True).row(0, named=True)
        worst = shown.sort("adjusted").row(0, named=True)
        text += (
            f" Largest lift at equal survivors: {best['trait']} "
            f"({_pp(best, 'adjusted', 'adj_lo', 'adj_hi')}); smallest: {worst['trait']} "
            f"({_pp(worst, 'adjusted', 'adj_lo', 'adj_hi')})."
        )
    value = card_value(run)
    traits_only = value.filter(pl.col("trait") != "(as an animal)")
    animal = value.filter(pl.col("trait") == "(as an animal)").row(0, named=True)
    worth = traits_only.filter(pl.col("verdict") == "worth a card as a trait")["trait"].to_list()
    not_worth = traits_only.filter(pl.col("verdict") == "worth more as an animal")[
        "trait"
    ].to_list()
    text2 = (
        "Win share and final points that go with one more card played as each trait, against "
        "one more card played as an animal, for the same other plays (a least-squares fit over "
        "every seat-game of win share, and of score, on the cards played as each trait and as "
        "animals; cluster-robust 95% intervals). 'vs animal' is the trait's coefficient minus "
        f"the animal's ({_pp(animal)} win share per card played as an animal). "
        f"'played' and 'used' are per seat and game (uses as the engine counts them, see "
        f"traits.parquet). Worth a card as a trait (interval above the animal's): "
        f"{', '.join(worth) or 'none'}. Worth more as an animal: {', '.join(not_worth) or 'none'}."
        " The bots choose what to play and when, so these are values as the bots play them."
    )
    return [
        Section(
            "Traits: lift on the surviving animals",
            text,
            lift.with_columns(
                adj_ci=pl.format(
                    "{} [{}, {}]",
                    *((pl.col(c) * 100).round(2) for c in ("adjusted", "adj_lo", "adj_hi")),
                ),
                score_ci=pl.format(
                    "{} [{}, {}]",
                    *(
                        pl.col(c).round(2)
                        for c in ("score_adjusted", "score_adj_lo", "score_adj_hi")
                    ),
                ),
            ),
            {
                "trait": "str",
                "n_with": "int",
                "share_with": "pct",
                "share_without": "pct",
                "mean": "pct_ci",
                "adj_ci": "str",
                "score_ci": "str",
            },
            forest_plot(
                shown["trait"].to_list(),
                shown["adjusted"],
                shown["adj_lo"],
                shown["adj_hi"],
                title="Win-share lift of a trait on a survivor, at equal survivors (95%)",
                xlabel="with minus without, percentage points",
            ),
            key="oos-trait-lift",
        ),
        Section(
            "Traits: is a card worth more as a trait or as an animal?",
            text2,
            value.with_columns(
                vs_ci=pl.format(
                    "{} [{}, {}]",
                    *((pl.col(c) * 100).round(2) for c in ("vs_animal", "vs_lo", "vs_hi")),
                ),
                points_ci=pl.format(
                    "{} [{}, {}]",
                    *(pl.col(c).round(2) for c in ("points", "points_lo", "points_hi")),
                ),
            ),
            {
                "trait": "str",
                "played": "float",
                "used": "float",
                "mean": "pct_ci",
                "vs_ci": "str",
                "points_ci": "str",
                "verdict": "str",
            },
            forest_plot(
                traits_only["trait"].to_list(),
                traits_only["vs_animal"],
                traits_only["vs_lo"],
                traits_only["vs_hi"],
                title="A card as this trait minus as an animal (95%)",
                xlabel="win share per card, percentage points",
            ),
            key="oos-card-value",
        ),
    ]


def _carnivore_sections(run: RunData) -> list[Section]:
    outcomes = attack_outcomes(run)
    by_trait = kills_by_defender_trait(run)
    every = outcomes.filter(pl.col("defence_used") == "every attack").row(0, named=True)
    car = carnivores(run).row(0, named=True)
    table, gap = aggression(run)
    if every["attacks"]:
        kill = f"{every['mean']:.1%} [{every['lo']:.1%}, {every['hi']:.1%}]"
        text = (
            f"{every['attacks']:,} attacks; {kill} of them ended with the prey eaten. By the "
            "last defence the prey used (Running, Mimicry, Tail Loss or none), with the kill "
            "rate's cluster-robust 95% interval; the second table gives the kill rate of "
            "attacks on animals carrying each trait."
        )
        shown = outcomes.filter(pl.col("attacks") > 0)
        figure = plots.bars_with_ci(
            shown["defence_used"].to_list(),
            shown,
            title="Attacks ending in a kill, by defence",
            ylabel="kill rate, %",
        )
    else:
        text, figure = "No attack in this run (no carnivore ever attacked).", None
    points = (
        f"Surviving carnivores scored {car['points_share']:.1%} [{car['points_share_lo']:.1%}, "
        f"{car['points_share_hi']:.1%}] of all points; {car['has_carnivore']:.1%} of seats ended "
        f"the game with a carnivore alive; a seat made {car['attacks']:.2f} attacks and "
        f"{car['kills']:.2f} kills a game."
    )
    if gap is None:
        why = (
            "the seats were not rotated"
            if not run.config.get("rotate")
            else "every heuristic seat plays the same aggression"
            if table["aggression"].drop_nulls().n_unique() <= 1
            else "no heuristic bot in the lineup"
        )
        verdict = (
            f" Do carnivore strategies dominate? This run's lineup cannot answer that ({why}): "
            "play heuristic bots of high and low aggression against each other with --rotate, "
            'e.g. dinolab simulate oos --strategy "heuristic[aggression=2],heuristic[aggression=0]'
            ',heuristic[aggression=2],heuristic[aggression=0]" --rotate.'
        )
    else:
        better = "more" if gap["lo"] > 0 else "less" if gap["hi"] < 0 else "about as"
        verdict = (
            f" Do carnivore strategies dominate? The most aggressive bot ({gap['high']}, "
            f"aggression {gap['high_level']:g}) wins {_pp(gap)} against the least aggressive "
            f"({gap['low']}, aggression {gap['low_level']:g}), seats rotated over the same "
            f"deals: high aggression wins {better}"
            + (" often." if better != "about as" else " often as low aggression (no clear gap).")
        )
        top = table.sort("share", descending=True, nulls_last=True).row(0, named=True)
        if top["aggression"] is not None:
            verdict += (
                f" The strongest bot of the run is {top['strategy']} (aggression "
                f"{top['aggression']:g}, win share {top['share']:.1%} [{top['share_lo']:.1%}, "
                f"{top['share_hi']:.1%}])."
            )
    shown_table = table.with_columns(
        mean=pl.col("share"), lo=pl.col("share_lo"), hi=pl.col("share_hi")
    )
    return [
        Section(
            "Carnivores: attacks and defences",
            text,
            outcomes,
            {
                "defence_used": "str",
                "attacks": "int",
                "share": "pct",
                "killed": "int",
                "escaped": "int",
                "tail_lost": "int",
                "mean": "pct_ci",
            },
            figure,
            key="oos-attacks",
        ),
        Section(
            "Carnivores: kill rate by the prey's traits",
            "",
            by_trait,
            {"trait": "str", "attacks": "int", "mean": "pct_ci"},
            key="oos-attacks-by-trait",
        ),
        Section(
            "Carnivores: points and aggression",
            points + verdict + " By bot (seat-games; 'points share' is the carnivores' points "
            "over all the bot's points; 95% intervals):",
            shown_table,
            {
                "strategy": "str",
                "aggression": "float",
                "n": "int",
                "mean": "pct_ci",
                "points_share": "pct",
                "attacks": "float",
                "kills": "float",
                "kill_rate": "pct",
            },
            plots.bars_with_ci(
                shown_table["strategy"].to_list(),
                shown_table,
                title="Win share by bot",
                ylabel="win share, %",
                reference=1 / run.n_players,
            ),
            key="oos-carnivores",
        ),
    ]


def _food_section(run: RunData) -> Section:
    df = food_by_round(run)
    overall = food_overall(run)
    text = (
        f"Per round, over the games that reached it: the food bank rolled for the feeding "
        f"phase, the food the animals needed when it was rolled (1 per animal plus the extra food "
        f"of Carnivore, High Body Weight and Parasite, summed over seats), the bank per token "
        f"needed, and the share of animals alive at extinction that starved; 95% intervals. "
        f"Over every round: bank {overall['bank']:.2f} tokens, need {overall['need']:.2f}, "
        f"bank per token needed {overall['bank_per_need']:.2f} [{overall['bank_per_need_lo']:.2f}, "
        f"{overall['bank_per_need_hi']:.2f}], starvation rate {overall['starvation']:.1%} "
        f"[{overall['starvation_lo']:.1%}, {overall['starvation_hi']:.1%}] with "
        f"{run.n_players} players (compare runs at other player counts with food_by_players)."
    )
    return Section(
        "Food pressure",
        text,
        df.with_columns(
            mean=pl.col("starvation"), lo=pl.col("starvation_lo"), hi=pl.col("starvation_hi")
        ),
        {
            "round": "int",
            "n": "int",
            "bank": "float",
            "need": "float",
            "bank_per_need": "float",
            "mean": "pct_ci",
            "kills": "float",
        },
        food_plot(df),
        key="oos-food",
    )
