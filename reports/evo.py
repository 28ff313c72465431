"""EVO analyses: what each gene is worth against what the auction charges, and what tails decide.

Definitions
-----------
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

*Price*: what the buyer paid (the winning bid minus mutations, never below 0). Relative price:
the gene's mean price minus the mean price of all genes sold that round. A gene whose relative
price lies above its relative value's interval is overpriced; below, underpriced.

Intervals are 95%, from cluster-robust variances (by game, or by deal with seat rotation) and
the delta method. The model is observational: it measures what a gene was worth to these bots in
these positions, not a causal effect in every position.

Computation: every analysis is a :class:`~reports.aggregate.Partial` over the run's chunks, in
the report's one pass (:func:`partials`), so memory does not grow with the run. The model is
fitted from per-round sums X'X and X'y; its cluster-robust variance takes a second pass, which
sums each cluster's scores (regressors times residual) with the fitted coefficients. Medians
and quartiles of bids and prices come from counts of each integer value.
:func:`positions` and :func:`relative_gene_values` are the same model on a LazyFrame, for
subsets of positions (``dinolab fit evo``).
"""

from __future__ import annotations

import contextlib
import math
import weakref

import numpy as np
import polars as pl

from reports import plots
from reports.aggregate import (
    Chunk,
    Cross,
    Mapper,
    Partial,
    cluster_moments,
    cluster_sums,
    combine_moments,
    combine_outer,
    concat_sum,
    moments_to_mean,
    outer_part,
    run_all,
    run_one,
    second_pass,
)
from reports.common import cluster, clustered, share_expr, share_frame, win_share_by, with_win_share
from reports.metrics import Claim, Context, Estimate, Metric, MetricError, Ranking
from reports.section import Section
from reports.source import RunData
from reports.stats import Z95, with_wilson
from rules.evo.cards import CARDS

GENES = ("tail", "leg", "horn", "egg", "fur", "parasol", "mutation", "card")
CARD_NAMES = tuple(c.hungarian for c in CARDS)
"""The 26 event cards by number (as the ``cards`` table labels them)."""
FEATURES = ("tails", "legs", "horns", "eggs", "furs", "parasols", "mutations", "cards_held",
            "points", "dinos")  # fmt: skip
COLUMN_OF_GENE = dict(zip(GENES, FEATURES[:8], strict=True))
MIN_ROWS = 200
NAMES = ("one", *FEATURES)
"""The gene value model's regressors, in the order of its matrices."""


# ------------------------------------------------------------------ positions


def positions(run: RunData) -> pl.LazyFrame:
    """One row per game, round and seat: the position at the round's auction and the final
    win share of that seat, as one LazyFrame over the whole run (for :func:`relative_gene_values`
    on subsets of positions, as ``dinolab fit evo`` does; the report reads chunk by chunk)."""
    share = with_win_share(run).select("game_id", "seat", "share")
    return (
        run.scan("turns")
        .select("game_id", "round", "seat", "initiative", "initiative_by", *FEATURES)
        .join(share, on=["game_id", "seat"], how="left")
        .with_columns(_cluster=cluster(run))
    )


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


def _design(chunk: Chunk) -> tuple[dict[int, slice], np.ndarray, np.ndarray, np.ndarray]:
    """The chunk's positions as the model's arrays, sorted by round (in game order within a
    round): each round's rows, and the rows' cluster, regressors and win share."""
    rows = chunk.derived(turn_rows)
    rnd = rows["round"].to_numpy()
    order = np.argsort(rnd, kind="stable")
    rnd = rnd[order]
    x = np.empty((len(order), len(NAMES)), order="F")  # columns contiguous
    x[:, 0] = 1.0
    for j, name in enumerate(FEATURES, 1):
        x[:, j] = rows[name].to_numpy()[order]
    gid = rows["game_id"].to_numpy()[order]
    clusters = gid // chunk.n_players if chunk.rotate else gid
    starts = np.flatnonzero(np.r_[True, rnd[1:] != rnd[:-1]]).tolist() if len(rnd) else []
    stops = [*starts[1:], len(rnd)]
    rounds = {int(rnd[a]): slice(a, b) for a, b in zip(starts, stops, strict=True)}
    return rounds, clusters, x, rows["share"].to_numpy()[order]


# ------------------------------------------------------------------ the gene value model


def _sums_map(chunk: Chunk) -> dict[int, tuple[int, np.ndarray, np.ndarray]]:
    """Per round: the positions, X'X and X'y of the chunk."""
    rounds, _, x, y = _design(chunk)
    return {r: (at.stop - at.start, x[at].T @ x[at], x[at].T @ y[at]) for r, at in rounds.items()}


def _sums_reduce(parts: list[dict]) -> dict[int, tuple[int, np.ndarray, np.ndarray]]:
    out: dict[int, tuple[int, np.ndarray, np.ndarray]] = {}
    for part in parts:
        for r, (n, xtx, xty) in part.items():
            if r in out:
                m, a, b = out[r]
                out[r] = (m + n, a + xtx, b + xty)
            else:
                out[r] = (n, xtx, xty)
    return dict(sorted(out.items()))


POSITION_SUMS = Partial("evo_position_sums", _sums_map, _sums_reduce)
"""Per round: the positions, and the sums X'X and X'y of the gene value model."""


def _fit(n: int, xtx: np.ndarray, xty: np.ndarray):
    """One round's least-squares fit from its sums: the regressors used, the coefficients (0
    for the others) and the inverse of the used X'X; ``None`` when the round is not
    estimable (too few rows, no variation in points, collinear)."""
    if n < MIN_ROWS:
        return None
    mean = xtx[0] / n
    varying = [i for i, a in enumerate(NAMES) if a == "one" or xtx[i, i] / n - mean[i] ** 2 > 1e-9]
    used = [i for i in varying if NAMES[i] != "mutations"]
    if NAMES.index("points") not in used:
        return None
    sub = xtx[np.ix_(used, used)]
    if np.linalg.matrix_rank(sub) < len(used):
        return None
    inv = np.linalg.inv(sub)
    beta = np.zeros(len(NAMES))
    beta[used] = inv @ xty[used]
    return used, beta, inv


def _fits(sums: dict[int, tuple[int, np.ndarray, np.ndarray]]) -> dict:
    """Round -> fit (see :func:`_fit`) of every estimable round."""
    fits = {}
    for r, (n, xtx, xty) in sums.items():
        fit = _fit(n, xtx, xty)
        if fit is not None:
            fits[r] = fit
    return fits


def _scores(design, betas: tuple[tuple[int, tuple[float, ...]], ...]) -> dict:
    """Per fitted round of a chunk's :func:`_design`: its scores ``x * residual`` summed per
    cluster, ``(clusters ascending, sums)``."""
    rounds, clusters, x, y = design
    out = {}
    for r, beta in betas:
        if r in rounds:
            at = rounds[r]
            e = y[at] - x[at] @ np.asarray(beta)
            out[r] = cluster_sums(clusters[at], x[at] * e[:, None])
    return out


def _meat_map(chunk: Chunk, betas: tuple[tuple[int, tuple[float, ...]], ...]):
    """Per fitted round: the chunk's scores ``x * residual`` summed per cluster, as
    :func:`~reports.aggregate.outer_part` (whole clusters folded, split ones raw)."""
    return {r: outer_part(chunk, *s) for r, s in _scores(_design(chunk), betas).items()}


def _meat_reduce(parts: list[dict], betas: tuple[tuple[int, tuple[float, ...]], ...]):
    """Round -> (clusters, the sandwich's meat: the sum over clusters of the scores' outer
    products)."""
    out = {}
    for r, _ in betas:
        cross = combine_outer([p[r] for p in parts if r in p], len(NAMES))
        out[r] = (cross.clusters, cross.outer)
    return out


def _sold_weights(sold: pl.DataFrame, r: int) -> tuple[np.ndarray, int]:
    """Round ``r``'s share of the genes sold, per regressor of :data:`NAMES` (the weights of
    the average gene sold), and the genes sold."""
    counts = {g: n for g, rr, n in sold.iter_rows() if rr == r}
    total = sum(counts.values())
    weights = np.zeros(len(NAMES))
    for g, n in counts.items():
        weights[NAMES.index(COLUMN_OF_GENE[g])] += n / total if total else 0.0
    return weights, total


def _relative_value(beta: np.ndarray, weights: np.ndarray, gene: str) -> tuple[float, np.ndarray]:
    """A gene's value relative to the average gene sold (``weights``), in points, and its
    gradient in the coefficients ``beta``."""
    p = NAMES.index("points")
    contrast = -weights.copy()
    contrast[NAMES.index(COLUMN_OF_GENE[gene])] += 1.0
    numerator = contrast @ beta
    pi = beta[p]
    grad = contrast / pi
    grad[p] -= numerator / pi**2
    return numerator / pi, grad


def _values(fits: dict, meats: dict, sold: pl.DataFrame) -> pl.DataFrame:
    """Relative gene values per round from the fits, their meats and the genes sold."""
    rows = []
    p = NAMES.index("points")
    for r, (used, beta, inv) in fits.items():
        c, full_meat = meats[r]
        meat = full_meat[np.ix_(used, used)]
        cov = np.zeros((len(NAMES), len(NAMES)))
        cov[np.ix_(used, used)] = inv @ meat @ inv * (c / max(c - 1, 1))
        weights, total = _sold_weights(sold, r)
        pi = beta[p]
        pi_known = pi - 2 * math.sqrt(max(cov[p, p], 0.0)) > 0  # a point is clearly worth >0
        for gene in GENES:
            g = NAMES.index(COLUMN_OF_GENE[gene])
            if not pi_known or (g not in used and gene != "mutation") or total == 0:
                rows.append(
                    {
                        "gene": gene,
                        "round": r,
                        "value": None,
                        "lo": None,
                        "hi": None,
                        "point_value": pi,
                    }
                )
                continue
            value, grad = _relative_value(beta, weights, gene)
            se = math.sqrt(max(grad @ cov @ grad, 0.0))
            rows.append(
                {
                    "gene": gene,
                    "round": r,
                    "value": value,
                    "lo": value - Z95 * se,
                    "hi": value + Z95 * se,
                    "point_value": pi,
                }
            )
    return pl.DataFrame(
        rows, schema_overrides={"value": pl.Float64, "lo": pl.Float64, "hi": pl.Float64}
    ).sort("gene", "round")


def gene_values(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Per round and gene: value relative to the average gene sold that round, in points.

    Mutation genes are the model's reference (their holding coefficient is fixed at 0); each
    gene's coefficient is then measured against the sold-weighted mean of all genes'
    coefficients, so the choice of reference does not matter. Features that nobody varies in a
    round (round 1: everyone holds the portrait) are left out, and their genes get no value.

    Two passes over the chunks: the sums X'X and X'y per round (:data:`POSITION_SUMS`, in the
    report's one pass), then the fitted model's scores per cluster for the cluster-robust
    sandwich variance.
    """
    fits = _fits(run_one(run, POSITION_SUMS, mapper))
    if not fits:
        return pl.DataFrame()
    betas = tuple((r, tuple(float(b) for b in beta)) for r, (_, beta, _) in fits.items())
    base, first_mapper = second_pass(run)
    meats = run_one(
        base, Partial("evo_gene_meat", _meat_map, _meat_reduce, (betas,)), mapper or first_mapper
    )
    return _values(fits, meats, gene_prices(run, mapper).select("gene", "round", "sold"))


def _lazy_sums(lf: pl.LazyFrame) -> pl.DataFrame:
    exprs = [pl.len().alias("rows")]
    for i, a in enumerate(NAMES):
        exprs.append((pl.col(a) * pl.col("share")).sum().alias(f"xy_{a}"))
        for b in NAMES[i:]:
            exprs.append((pl.col(a) * pl.col(b)).sum().alias(f"xx_{a}_{b}"))
    return lf.group_by("round").agg(exprs).collect(engine="streaming").sort("round")


def _matrix(row: dict, prefix: str) -> np.ndarray:
    k = len(NAMES)
    m = np.empty((k, k))
    for i, a in enumerate(NAMES):
        for j in range(i, k):
            m[i, j] = m[j, i] = row[f"{prefix}_{a}_{NAMES[j]}"]
    return m


def relative_gene_values(positions: pl.LazyFrame, sold: pl.DataFrame) -> pl.DataFrame:
    """:func:`gene_values` on any positions (``round``, ``_cluster``, ``share`` and
    :data:`FEATURES` columns, e.g. a subset of :func:`positions`) and genes sold per round
    (``gene``, ``round``, ``sold``), computed by polars' streaming engine."""
    lf = positions.with_columns(
        one=pl.lit(1.0), **{f: pl.col(f).cast(pl.Float64) for f in FEATURES}
    )
    sums = {
        row["round"]: (
            row["rows"],
            _matrix(row, "xx"),
            np.array([row[f"xy_{a}"] for a in NAMES]),
        )
        for row in _lazy_sums(lf).iter_rows(named=True)
    }
    fits = _fits(sums)
    if not fits:
        return pl.DataFrame()
    beta_frame = pl.DataFrame(
        {
            "round": list(fits),
            **{f"b_{a}": [f[1][i] for f in fits.values()] for i, a in enumerate(NAMES)},
        }
    ).with_columns(pl.col("round").cast(pl.Int8))
    residual = pl.col("share") - sum(pl.col(f"b_{a}") * pl.col(a) for a in NAMES)
    scores = (
        lf.join(beta_frame.lazy(), on="round", how="inner")
        .with_columns(_e=residual)
        .group_by("round", "_cluster")
        .agg([(pl.col(a) * pl.col("_e")).sum().alias(f"s_{a}") for a in NAMES])
    )
    meat_exprs = [pl.len().alias("clusters")]
    for i, a in enumerate(NAMES):
        for b in NAMES[i:]:
            meat_exprs.append((pl.col(f"s_{a}") * pl.col(f"s_{b}")).sum().alias(f"m_{a}_{b}"))
    meats = {
        m["round"]: (m["clusters"], _matrix(m, "m"))
        for m in scores.group_by("round")
        .agg(meat_exprs)
        .collect(engine="streaming")
        .iter_rows(named=True)
    }
    return _values(fits, meats, sold)


# ------------------------------------------------------------------ prices


def _prices_map(chunk: Chunk) -> pl.DataFrame:
    """Bids counted per gene, round, bid and price paid. The four are packed into one integer
    key (grouping by it is several times faster than by the categorical gene and three
    columns); each group's gene is its rows' first."""
    bids = chunk.table("bids", ["gene", "round", "bid", "paid"])
    if bids.height and bids["gene"].to_physical().max() >= 2**21:  # codes too large to pack
        counts = bids.group_by("gene", "round", "bid", "paid").agg(n=pl.len().cast(pl.Int64))
        return counts.with_columns(pl.col("gene").cast(pl.String))

    def small(name: str, offset: int) -> pl.Expr:
        return pl.col(name).cast(pl.Int64) + offset

    key = (
        ((pl.col("gene").to_physical().cast(pl.Int64) * 256 + small("round", 128)) * 2**17)
        + small("bid", 2**15)
    ) * 2**17 + small("paid", 2**15)
    counts = bids.group_by(key=key).agg(n=pl.len().cast(pl.Int64), gene=pl.col("gene").first())
    k = pl.col("key")
    return counts.select(
        pl.col("gene").cast(pl.String),
        round=(k // 2**34 % 256 - 128).cast(pl.Int8),
        bid=(k // 2**17 % 2**17 - 2**15).cast(pl.Int16),
        paid=(k % 2**17 - 2**15).cast(pl.Int16),
        n="n",
    )


def _quantiles(values: np.ndarray, counts: np.ndarray) -> tuple[float, float, float]:
    """Median, first and third quartile of integer ``values`` (ascending, distinct) seen
    ``counts`` times, as polars computes them on the raw values: the median halfway between
    the middle two, the quartiles the nearest value (index ``round((n - 1) q)``)."""
    cum = np.cumsum(counts)
    n = int(cum[-1])

    def at(i: int) -> float:  # the i-th smallest value, from 0
        return float(values[np.searchsorted(cum, i + 1)])

    median = at((n - 1) // 2) if n % 2 else (at(n // 2 - 1) + at(n // 2)) / 2
    return (median, *(at(math.floor((n - 1) * q + 0.5)) for q in (0.25, 0.75)))


def _prices_reduce(parts: list[pl.DataFrame]) -> pl.DataFrame:
    df = concat_sum(parts, ["gene", "round", "bid", "paid"])
    rows = []
    if df.height:
        for (gene, rnd), g in df.group_by("gene", "round"):
            bid = g.group_by("bid").agg(pl.col("n").sum()).sort("bid")
            paid = g.group_by("paid").agg(pl.col("n").sum()).sort("paid")
            counts = paid["n"].to_numpy()
            values = paid["paid"].to_numpy()
            median, q1, q3 = _quantiles(values, counts)
            rows.append(
                {
                    "gene": gene,
                    "round": rnd,
                    "sold": int(counts.sum()),
                    "bid_median": _quantiles(bid["bid"].to_numpy(), bid["n"].to_numpy())[0],
                    "paid_median": median,
                    "paid_q1": q1,
                    "paid_q3": q3,
                    "paid_mean": float((values.astype(np.int64) * counts).sum() / counts.sum()),
                }
            )
    schema = {"gene": pl.String, "round": pl.Int8, "sold": pl.UInt32,
              **dict.fromkeys(("bid_median", "paid_median", "paid_q1", "paid_q3", "paid_mean"),
                              pl.Float64)}  # fmt: skip
    return pl.DataFrame(rows, schema=schema).sort("gene", "round")


GENE_PRICES = Partial("evo_gene_prices", _prices_map, _prices_reduce)


def gene_prices(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Per gene and round: genes sold, and the median and quartiles of the bid and price paid
    (from counts of each bid and price per chunk)."""
    return run_one(run, GENE_PRICES, mapper)


def gene_price_curves(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Relative value against relative price per gene and round, with a verdict.

    ``price`` is the mean price paid for the gene minus the mean price of all genes sold that
    round; a gene is *overpriced* when its relative price lies above its relative value's
    interval, *underpriced* when below.
    """
    return _price_curves(gene_values(run, mapper), gene_prices(run, mapper))


def _price_curves(values: pl.DataFrame, prices: pl.DataFrame) -> pl.DataFrame:
    """:func:`gene_price_curves` from the gene values and prices."""
    if values.is_empty():
        return values
    average = prices.group_by("round").agg(
        average_paid=(pl.col("paid_mean") * pl.col("sold")).sum() / pl.col("sold").sum()
    )
    df = (
        values.join(prices, on=["gene", "round"], how="left")
        .join(average, on="round", how="left")
        .with_columns(
            pl.col("sold").fill_null(0), price=pl.col("paid_mean") - pl.col("average_paid")
        )
    )
    verdict = (
        pl.when(pl.col("sold") == 0)
        .then(pl.lit("not sold"))
        .when(pl.col("value").is_null())
        .then(pl.lit("not estimable"))
        .when(pl.col("price") > pl.col("hi"))
        .then(pl.lit("overpriced"))
        .when(pl.col("price") < pl.col("lo"))
        .then(pl.lit("underpriced"))
        .otherwise(pl.lit("fair"))
    )
    return df.with_columns(verdict=verdict)


def gene_summary(curves: pl.DataFrame) -> pl.DataFrame:
    """Per gene over the rounds where its value is estimable, weighted by genes sold: mean
    price paid, relative price, relative value, and the surplus (value minus price)."""
    sold = curves.filter((pl.col("sold") > 0) & pl.col("value").is_not_null())
    return (
        sold.group_by("gene")
        .agg(
            sold=pl.col("sold").sum(),
            paid=(pl.col("paid_mean") * pl.col("sold")).sum() / pl.col("sold").sum(),
            price=(pl.col("price") * pl.col("sold")).sum() / pl.col("sold").sum(),
            value=(pl.col("value") * pl.col("sold")).sum() / pl.col("sold").sum(),
            overpriced_rounds=(pl.col("verdict") == "overpriced").sum(),
            underpriced_rounds=(pl.col("verdict") == "underpriced").sum(),
        )
        .with_columns(surplus=pl.col("value") - pl.col("price"))
        .sort("surplus")
    )


# ------------------------------------------------------------------ gene surplus with intervals

_BATCH = 4096
"""Clusters whose joint score vectors :func:`_scores_map` holds at once."""


def _scores_map(chunk: Chunk, betas: tuple[tuple[int, tuple[float, ...]], ...]):
    """:func:`_meat_map`'s per-round parts and, over every fitted round at once, the chunk's
    per-cluster score vectors (round after round in ``betas`` order, :data:`NAMES` each) as
    one :func:`~reports.aggregate.outer_part`: the cross-round blocks of the sandwich."""
    scores = _scores(_design(chunk), betas)
    k, block = len(NAMES), {r: i for i, (r, _) in enumerate(betas)}
    width = k * len(betas)
    ids = np.unique(np.concatenate([np.zeros(0, np.int64), *(c for c, _ in scores.values())]))
    total = Cross(np.zeros(width), np.zeros((width, width)), 0)
    split_ids, split_sums = [np.zeros(0, np.int64)], [np.zeros((0, width))]
    for a in range(0, len(ids), _BATCH):
        part = ids[a : a + _BATCH]
        v = np.zeros((len(part), width))
        for r, (cid, sums) in scores.items():
            lo, hi = np.searchsorted(cid, [part[0], part[-1] + 1])
            at = block[r] * k
            v[np.searchsorted(part, cid[lo:hi]), at : at + k] = sums[lo:hi]
        cross, (sid, ssum) = outer_part(chunk, part, v)
        total = total + cross
        split_ids.append(sid)
        split_sums.append(ssum)
    meats = {r: outer_part(chunk, *s) for r, s in scores.items()}
    return meats, (total, (np.concatenate(split_ids), np.concatenate(split_sums)))


def _scores_reduce(parts: list, betas: tuple[tuple[int, tuple[float, ...]], ...]):
    """:func:`_meat_reduce`'s meats, and the joint meat over the fitted rounds with its
    clusters."""
    meats = _meat_reduce([m for m, _ in parts], betas)
    joint = combine_outer([j for _, j in parts], len(NAMES) * len(betas))
    return meats, (joint.clusters, joint.outer)


def _joint_covariance(fits: dict, joint: tuple[int, np.ndarray]) -> np.ndarray:
    """The cluster-robust covariance of every fitted round's coefficients at once (round
    after round in ``fits`` order, :data:`NAMES` each; 0 for the unused regressors)."""
    c, meat = joint
    k = len(NAMES)
    bread = np.zeros((k * len(fits), k * len(fits)))
    for i, (used, _, inv) in enumerate(fits.values()):
        at = [i * k + u for u in used]
        bread[np.ix_(at, at)] = inv
    return bread @ meat @ bread.T * (c / max(c - 1, 1))


def _surplus_analysis(run: RunData, mapper: Mapper | None) -> tuple[pl.DataFrame, int]:
    """:func:`gene_surplus` computed: two passes over the chunks."""
    first = run_all(run, [POSITION_SUMS, GENE_PRICES], mapper)
    prices = first[GENE_PRICES]
    fits = _fits(first[POSITION_SUMS])
    empty = pl.DataFrame(
        schema={"gene": pl.String, "sold": pl.UInt32,
                **dict.fromkeys(("paid", "price", "value", "surplus", "se", "lo", "hi"),
                                pl.Float64)}
    )  # fmt: skip
    if not fits:
        return empty, run.games_logged
    betas = tuple((r, tuple(float(b) for b in beta)) for r, (_, beta, _) in fits.items())
    base, first_mapper = second_pass(run)
    meats, joint = run_one(
        base, Partial("evo_gene_scores", _scores_map, _scores_reduce, (betas,)),
        mapper or first_mapper,
    )  # fmt: skip
    sold = prices.select("gene", "round", "sold")
    curves = _price_curves(_values(fits, meats, sold), prices)
    summary = gene_summary(curves)
    if summary.is_empty():
        return empty, run.games_logged
    cov = _joint_covariance(fits, joint)
    block = {r: i for i, r in enumerate(fits)}
    k = len(NAMES)
    se = {}
    for gene in summary["gene"]:
        rows = curves.filter(
            (pl.col("gene") == gene) & (pl.col("sold") > 0) & pl.col("value").is_not_null()
        )
        grad = np.zeros(k * len(fits))
        n = rows["sold"].sum()
        for r, count in rows.select("round", "sold").iter_rows():
            weights, _ = _sold_weights(sold, r)
            _, g = _relative_value(fits[r][1], weights, gene)
            grad[block[r] * k : (block[r] + 1) * k] = g * count / n
        se[gene] = math.sqrt(max(grad @ cov @ grad, 0.0))
    out = summary.select("gene", "sold", "paid", "price", "value", "surplus").with_columns(
        se=pl.col("gene").replace_strict(se, return_dtype=pl.Float64)
    )
    out = out.with_columns(
        lo=pl.col("surplus") - Z95 * pl.col("se"), hi=pl.col("surplus") + Z95 * pl.col("se")
    )
    return out, run.games_logged


_SURPLUS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""Run -> (its chunks, :func:`gene_surplus`, games): the analysis once per run, however many
metrics read it."""


def gene_surplus(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Per gene: :func:`gene_summary`'s ``sold``, ``paid``, ``price``, ``value`` and
    ``surplus`` (value minus price, points relative to the average gene), with the surplus's
    standard error ``se`` and 95% interval ``lo``, ``hi``.

    The interval is the delta method's on the sold-weighted mean of the gene's per-round values
    with the cluster-robust covariance of every round's coefficients at once (the rounds of
    one game are not independent); prices and genes sold are taken as given, as the fit
    (``dinolab fit evo``) takes them. Two passes over the chunks, once per run object (cached
    while the run is alive)."""
    return _surplus(run, mapper)[0]


def _surplus(run: RunData, mapper: Mapper | None) -> tuple[pl.DataFrame, int]:
    """:func:`gene_surplus` and the games it is from, cached per run object."""
    chunks_now = tuple(sorted(run.manifest["chunks"]))
    try:
        known = _SURPLUS.get(run)
    except TypeError:  # not weakly referable: no cache
        known = None
    if known is not None and known[0] == chunks_now:
        return known[1:]
    df, games = _surplus_analysis(run, mapper)
    with contextlib.suppress(TypeError):  # not weakly referable: no cache
        _SURPLUS[run] = (chunks_now, df, games)
    return df, games


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
    df, games = _surplus(run, mapper)
    return _estimate(df, arg, games)


def measure_max_surplus(
    run: RunData, arg: str | None = None, mapper: Mapper | None = None
) -> Estimate:
    """``max_surplus``: the largest gene surplus, with that gene's interval (NaN when no
    gene's is measurable)."""
    df, games = _surplus(run, mapper)
    df = df.filter(pl.col("surplus").is_not_nan())
    top = df.sort("surplus").row(-1, named=True)["gene"] if df.height else ""
    return _estimate(df, top, games)


def gene_ranking(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """:func:`gene_surplus` of the genes whose surplus is estimable, as a
    :class:`~reports.metrics.Ranking` table (``name``: the gene, ``value``: its surplus)."""
    df = gene_surplus(run, mapper).filter(pl.col("surplus").is_not_nan())
    return df.select(name="gene", value="surplus", lo="lo", hi="hi")


RANKING = Ranking(
    "genes", "surplus: value minus price, points against the average gene", "points", gene_ranking
)
"""The report's gene surplus, most underpriced to most overpriced (for robustness)."""


def first_mover(chunk: Chunk) -> pl.DataFrame:
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


FIRST_MOVER_TABLES = ("turns",)
"""The tables :func:`first_mover` reads."""

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


# ------------------------------------------------------------------ initiative


def _initiative_map(chunk: Chunk):
    """Win share summed per initiative position and cluster (a bincount over the chunk's
    seat-rounds), folded into :func:`~reports.aggregate.cluster_moments`."""
    rows = chunk.derived(turn_rows)
    gid = rows["game_id"].to_numpy()
    place = rows["initiative"].to_numpy().astype(np.int64)
    if len(gid) == 0:
        per = pl.DataFrame(
            schema={"initiative": pl.Int8, "_cluster": pl.Int64, "s": pl.Float64, "n": pl.Float64}
        )
        return cluster_moments(chunk, None, ["initiative"], "share", per)
    clusters = gid // chunk.n_players if chunk.rotate else gid
    low, width = int(clusters.min()), int(place.max()) + 1
    key = (clusters - low) * width + place
    s = np.bincount(key, weights=rows["share"].to_numpy())
    n = np.bincount(key)
    seen = np.flatnonzero(n)
    per = pl.DataFrame(
        {
            "initiative": (seen % width).astype(np.int8),
            "_cluster": seen // width + low,
            "s": s[seen],
            "n": n[seen].astype(np.float64),
        }
    )
    return cluster_moments(chunk, None, ["initiative"], "share", per)


def _initiative_reduce(parts: list) -> pl.DataFrame:
    return moments_to_mean(combine_moments(parts, ["initiative"]), ["initiative"], Z95)


INITIATIVE = Partial("evo_initiative", _initiative_map, _initiative_reduce)


def initiative_win_share(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Final win share by initiative position (0 = first player), over every seat-round."""
    return run_one(run, INITIATIVE, mapper)


def _ties_map(chunk: Chunk) -> pl.DataFrame:
    counts = chunk.table("turns", ["initiative_by"])["initiative_by"].value_counts()
    return counts.select(
        pl.col("initiative_by").cast(pl.String).alias("decided_by"),
        pl.col("count").alias("seat_rounds"),
    )


def _ties_reduce(parts: list[pl.DataFrame]) -> pl.DataFrame:
    df = concat_sum(parts, ["decided_by"])
    if df.is_empty():
        df = pl.DataFrame(schema={"decided_by": pl.String, "seat_rounds": pl.UInt32})
    df = df.with_columns(total=pl.col("seat_rounds").sum())
    out = with_wilson(df, "seat_rounds", "total", "share").drop("total")
    return out.sort("seat_rounds", descending=True)


INITIATIVE_TIES = Partial("evo_initiative_ties", _ties_map, _ties_reduce)


def initiative_ties(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """What decided each seat's initiative place: a unique tail count, dinos, or the die."""
    return run_one(run, INITIATIVE_TIES, mapper)


# ------------------------------------------------------------------ combat


def _combat_map(chunk: Chunk) -> pl.DataFrame:
    c = chunk.table("combats", ["attacker_horns", "defender_horns", "attacker_won"])
    return c.group_by(diff=(pl.col("attacker_horns") - pl.col("defender_horns")).clip(-2, 2)).agg(
        attacks=pl.len(), won=pl.col("attacker_won").sum()
    )


def _combat_reduce(parts: list[pl.DataFrame]) -> pl.DataFrame:
    df = concat_sum(parts, ["diff"])
    if df.is_empty():
        df = pl.DataFrame(schema={"diff": pl.Int8, "attacks": pl.UInt32, "won": pl.UInt32})
    return with_wilson(df, "won", "attacks", "win_rate")


COMBATS = Partial("evo_combats", _combat_map, _combat_reduce)


def combat_table(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Attacks by horn difference: how often the attacker won (Wilson intervals)."""
    return run_one(run, COMBATS, mapper)


# ------------------------------------------------------------------ cards


def _hands_map(chunk: Chunk) -> pl.DataFrame:
    """Hands each card reached, by card number: the result holds no strings, so it keeps no
    view into the chunk's string buffers alive until the reduce."""
    seen = chunk.table("players", ["cards_seen"])["cards_seen"].explode().drop_nulls()
    number = seen.cast(pl.Enum(CARD_NAMES)).to_physical().cast(pl.Int8) + 1
    return number.value_counts().select(pl.col("cards_seen").alias("card"), hands="count")


def _hands_reduce(parts: list[pl.DataFrame]) -> pl.DataFrame:
    df = concat_sum(parts, ["card"])
    return df if df.width else pl.DataFrame(schema={"card": pl.Int8, "hands": pl.UInt32})


CARD_HANDS = Partial("evo_card_hands", _hands_map, _hands_reduce)

_PHASES = tuple(f"phase_{k}" for k in range(1, 7))


def _plays_map(chunk: Chunk) -> pl.DataFrame:
    cards = chunk.table("cards", ["card", "phase", "reaction"])
    return cards.group_by("card").agg(
        played=pl.len(),
        reactions=pl.col("reaction").sum(),
        **{name: (pl.col("phase") == k).sum() for k, name in enumerate(_PHASES, 1)},
    )


def _plays_reduce(parts: list[pl.DataFrame]) -> pl.DataFrame:
    df = concat_sum(parts, ["card"])
    if df.width:
        return df
    return pl.DataFrame(
        schema={"card": pl.Int8, **dict.fromkeys(("played", "reactions", *_PHASES), pl.UInt32)}
    )


CARD_PLAYS = Partial("evo_card_plays", _plays_map, _plays_reduce)


def card_plays(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Per event card: the hands it reached (seat-games whose ``cards_seen`` list it), how
    often it was played, how many of those were Osztódás reactions, the plays per reached hand,
    and the plays in each rulebook phase (1-6)."""
    results = run_all(run, [CARD_PLAYS, CARD_HANDS], mapper)
    names = pl.DataFrame(
        {"card": list(range(1, 27)), "card_name": list(CARD_NAMES)},
        schema={"card": pl.Int8, "card_name": pl.String},
    )
    df = (
        names.join(results[CARD_PLAYS], on="card", how="left")
        .join(results[CARD_HANDS], on="card", how="left")
        .fill_null(0)
        .with_columns(
            per_hand=pl.when(pl.col("hands") > 0)
            .then(pl.col("played") / pl.col("hands"))
            .otherwise(None)
        )
    )
    return df.sort("card")


# ------------------------------------------------------------------ start regions


def _region_rows(chunk: Chunk) -> pl.DataFrame:
    players = chunk.table("players", ["game_id", "seat", "winner", "start_region"])
    games = chunk.table("games", ["game_id", "n_winners"])
    return players.join(games, on="game_id", how="left").with_columns(share=share_expr())


START_REGIONS = clustered("win_share", _region_rows, ("start_region",))


def start_region_win_share(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Final win share by start region (the star a seat was dealt), with 95% intervals."""
    return win_share_by(run, ["start_region"], _region_rows, mapper=mapper).sort("start_region")


# ------------------------------------------------------------------ the report's one pass


def progress(chunk: Chunk) -> pl.DataFrame:
    """Each seat's points after every round (``turns.points``), game by game, round by round,
    seat by seat, for the report's decisiveness section; in a game's last round the final
    score (points plus the Váratlan gén bonus), which decides the winner."""
    turns = chunk.table("turns", ["game_id", "round", "seat", "points"])
    games = chunk.table("games", ["game_id", "rounds"])
    players = chunk.table("players", ["game_id", "seat", "bonus"])
    p, n = chunk.n_players, chunk.stop - chunk.start
    last = np.zeros(n, np.int64)
    last[games["game_id"].to_numpy() - chunk.start] = games["rounds"].to_numpy()
    bonus = np.zeros(n * p, np.int64)
    bonus[(players["game_id"].to_numpy() - chunk.start) * p + players["seat"].to_numpy()] = players[
        "bonus"
    ].to_numpy()
    game = turns["game_id"].to_numpy() - chunk.start
    at_end = turns["round"].to_numpy() == last[game]
    extra = np.where(at_end, bonus[game * p + turns["seat"].to_numpy()], 0)
    score = turns["points"].to_numpy().astype(np.int64) + extra
    return turns.select("game_id", "round", "seat").with_columns(score=pl.Series(score))


def partials(run: RunData) -> list[Partial]:
    """What the report's EVO sections read, computed in the report's one pass (the gene value
    model's second pass, its residuals for the sandwich variance, comes after it)."""
    return [
        POSITION_SUMS,
        GENE_PRICES,
        INITIATIVE,
        INITIATIVE_TIES,
        COMBATS,
        CARD_PLAYS,
        CARD_HANDS,
        START_REGIONS,
    ]


def bot_tables(run: RunData) -> pl.DataFrame | None:
    """The gene value table each valuing bot played with (``bot_values.parquet``), if any."""
    try:
        return run.data("bot_values.parquet")
    except Exception:  # older runs have no such file
        return None


def measured_with(run: RunData) -> str:
    """One sentence naming the bots the gene values were measured with, and their tables."""
    bots = sorted(set(run.config["strategies"]))
    labels = sorted({s.split("[")[0] for s in bots})
    text = f"Measured with the bots {', '.join(labels)} ({len(bots)} distinct parameter sets)"
    tables = bot_tables(run)
    if tables is not None and tables.height:
        described = []
        for row in tables.unique("sha256").iter_rows(named=True):
            first = row["provenance"].split("\n")[0] if row["provenance"] else "no provenance"
            described.append(f"{row['file']} (sha256 {row['sha256'][:12]}: {first})")
        text += "; value tables: " + "; ".join(described)
    return text + ". The values describe the game as these bots play it."


def sections(run: RunData) -> list[Section]:
    """The report's EVO sections: gene prices against values, initiative, combat."""
    curves = gene_price_curves(run)
    sections = []
    if not curves.is_empty():
        summary = gene_summary(curves)
        over = summary.filter(pl.col("surplus") < 0).sort("surplus")
        under = summary.filter(pl.col("surplus") > 0).sort("surplus", descending=True)
        text = (
            f"What each gene was worth at each auction against what buyers paid, with "
            f"{run.n_players} players (make a run per player count to compare them). "
            "Every player "
            "buys exactly one gene per auction, so worth is only measurable relative to the "
            "other genes: values and prices are in points relative to the average gene sold "
            "that round (see reports/evo.py for the model); surplus is value minus price, and "
            "the surpluses of all genes sold sum to zero, so a gene whose price the zero floor "
            "holds above its worth (every player must buy one) leaves a surplus on others. "
            f"{measured_with(run)} "
        )
        if under.height:
            g = under.row(0, named=True)
            text += (
                f"Most underpriced: {g['gene']} (worth {g['value']:+.1f} points against "
                f"the average gene, priced {g['price']:+.2f}). "
            )
        if over.height:
            g = over.row(0, named=True)
            text += (
                f"Most overpriced: {g['gene']} (worth {g['value']:+.1f}, priced {g['price']:+.2f})."
            )
        sections.append(
            Section(
                "Gene prices against gene values",
                text,
                summary,
                {
                    "gene": "str",
                    "sold": "int",
                    "paid": "float",
                    "price": "float",
                    "value": "float",
                    "surplus": "float",
                    "overpriced_rounds": "int",
                    "underpriced_rounds": "int",
                },
                plots.gene_curves(curves, list(GENES)),
                key="genes",
            )
        )
        detail = curves.filter(pl.col("value").is_not_null()).with_columns(
            pl.col("round").cast(pl.Int64)
        )
        sections.append(
            Section(
                "Gene prices and values by round",
                "Median and quartiles of the price paid; "
                "value and price relative to the average gene sold that round.",
                detail,
                {
                    "gene": "str",
                    "round": "int",
                    "sold": "int",
                    "paid_median": "float",
                    "paid_q1": "float",
                    "paid_q3": "float",
                    "price": "float",
                    "value": "float",
                    "lo": "float",
                    "hi": "float",
                    "verdict": "str",
                },
                key="gene_rounds",
            )
        )
    init = initiative_win_share(run)
    ties = initiative_ties(run)
    first, last = init.row(0, named=True), init.row(-1, named=True)
    tail_value = curves.filter(pl.col("gene") == "tail") if not curves.is_empty() else curves
    sections.append(
        Section(
            "Initiative: what playing first is worth",
            f"Final win share by initiative position over every seat-round (0 = first player): "
            f"first {first['mean']:.2%} [{first['lo']:.2%}, {first['hi']:.2%}], last "
            f"{last['mean']:.2%} [{last['lo']:.2%}, {last['hi']:.2%}]. A fair share is "
            f"{1 / run.n_players:.2%}.",
            init.with_columns(pl.col("initiative").cast(pl.String)),
            {"initiative": "str", "n": "int", "mean": "pct_ci"},
            plots.bars_with_ci(
                [f"{i}" for i in init["initiative"]],
                init,
                title="Win share by initiative position",
                ylabel="win share, %",
                reference=1 / run.n_players,
            ),
            key="initiative",
        )
    )
    sections.append(
        Section(
            "Initiative: how places were decided",
            "Each seat-round by what fixed its place: a tail count nobody else had, dinos on the "
            "board (tails tied), or the die (tails and dinos tied)."
            + (
                f" The tail gene's relative value by round is in the gene table "
                f"({tail_value.filter(pl.col('value').is_not_null()).height} rounds estimable)."
                if tail_value.height
                else ""
            ),
            ties,
            {"decided_by": "str", "seat_rounds": "int", "share": "pct_ci"},
            key="ties",
        )
    )
    cards = card_plays(run)
    if cards["played"].sum() > 0:
        rarely = cards.filter(pl.col("hands") >= 50).sort("per_hand").head(3)
        rare = ", ".join(
            f"{r['card_name']} {r['per_hand']:.0%}" for r in rarely.iter_rows(named=True)
        )
        sections.append(
            Section(
                "Event cards: how often each is played, and when",
                "Per card: the hands it reached (a seat's game in which it was dealt, drawn with "
                "a card gene or taken with Osztódás), the times it was played (reactions: "
                "Osztódás played right after another card), plays per hand reached, and the "
                "plays in each rulebook phase. A card played in few of the hands it reached is "
                f"one the bots rarely find worth playing (least played: {rare}).",
                cards,
                {
                    "card": "int",
                    "card_name": "str",
                    "hands": "int",
                    "played": "int",
                    "per_hand": "pct",
                    "reactions": "int",
                    **{f"phase_{k}": "int" for k in range(1, 7)},
                },
                key="cards",
            )
        )
    regions = start_region_win_share(run)
    if regions.height > 1:
        best = regions.sort("mean").row(-1, named=True)
        sections.append(
            Section(
                "Win share by start region (map-specific)",
                f"Final win share of the seat dealt each start star, with 95% intervals: from "
                f"{regions['mean'].min():.1%} to {regions['mean'].max():.1%} (region "
                f"{best['start_region']} best) against a fair {1 / run.n_players:.1%}. The "
                "start stars are dealt at random, so this is a property of the map, and the "
                "map is PROVISIONAL (synthetic; the printed maps are not public): these numbers "
                "describe this map, not the game.",
                regions.with_columns(pl.col("start_region").cast(pl.String)),
                {"start_region": "str", "n": "int", "mean": "pct_ci"},
                plots.bars_with_ci(
                    [str(r) for r in regions["start_region"]],
                    regions,
                    title="Win share by start region (provisional map)",
                    ylabel="win share, %",
                    reference=1 / run.n_players,
                ),
                key="start_regions",
            )
        )
    combats = combat_table(run)
    if combats.height:
        sections.append(
            Section(
                "Combat by horn difference",
                "Attacks by the attacker's horns minus the defender's (capped at ±2) and how often "
                "the attacker won; the rulebook's table gives 1/6, 2/6, 4/6 and 5/6.",
                combats.with_columns(pl.col("diff").cast(pl.String)),
                {"diff": "str", "attacks": "int", "win_rate": "pct_ci"},
                key="combat",
            )
        )
    return sections
