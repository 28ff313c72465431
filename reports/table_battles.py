"""Dinosaur Table Battles analyses: are the printed draft ratings right; what moving first, team
size and the hit-marker bonuses are worth; how often the turn cap stops a game.

Definitions
-----------
*Decided game*: a game that ended by the rules (no markers left, one dino left, both at one
marker). A game stopped by the turn cap (``max_turns``) has no winner: it is counted in
:func:`end_reasons` and left out of every other analysis here (the shared sections score it 0
for both seats, as nobody won it).

*Team model* (:func:`fit_team_model`): over the decided games, from one side (A, seat 0) against
the other (B, seat 1), the L2-regularised logistic model

    logit P(A wins) = a + sum_d beta_d x_d + sum_k gamma_k z_k

with ``x_d = +1`` when dino ``d`` is on A's team, ``-1`` on B's, ``0`` out of play; covariates
``z_k`` as A's value minus B's: ``first`` (+1 when A moves first, -1 when B does), and one term
per bot when the seats' bots differ. ``a`` is the seat term (seat 0 against seat 1 beyond
everything else). Fitted by Newton's method on the penalised likelihood, penalty ``l2 / 2``
times the sum of squares of every coefficient but ``a`` (``l2 = 1``: a normal prior with
standard deviation 1 on each log-odds effect, negligible with thousands of games), until no
coefficient's step exceeds :data:`NEWTON_STEP`.
Intervals are 95% cluster-robust (sandwich) intervals: clusters are the deals with seat
rotation, the games otherwise.

*Simulated value* of dino ``d``: ``beta_d`` minus the mean ``beta`` of the dinos in play,
times the mean slope of the win probability, ``mean p(1 - p)`` over the decided games, in
points of win share: how much drafting this dino instead of an average one moves your chance
to win, with the same teammates, opponents and seat. (Teams almost always have three dinos, so
the data pin down how dinos compare with each other far better than what any dino is worth
against no dino at all: the values are relative.) It is what the dino is worth to these bots
with these cards.

*Rank correlation*: Spearman's rho between value and printed rating over the dinos in play that
were drafted in at least :data:`MIN_GAMES` decided games; its interval is the 2.5% and 97.5%
quantiles of rho over 4,000 draws of the coefficients from their estimated normal distribution
(the estimation noise of the values; the ratings are fixed).

*Printed scale* (:func:`printed_scale`): what a printed rating stands for in value, the line
``value = a + b * rating`` through the rated dinos, fitted robustly (Theil-Sen) when the
ratings do order the values (the slope's 95% interval above 0), so that a few mis-rated dinos
do not move it; when they do not, the line that gives the values the printed ratings' mean and
spread. *Suggested rating*: the value read back on that scale, ``(value - a) / b``, rounded.
A dino is *under-rated* when its value's 95% interval lies above the value its printed rating
stands for, *over-rated* when below, and *fits* otherwise (the line's own uncertainty is left
out).

*Memory*: every analysis is map-reduce over the run's chunks (:mod:`reports.aggregate`), so the
report's memory does not grow with the number of games. Each Newton step of the team models
sums the likelihood's gradient and information, and the sandwich's per-cluster score products
(a deal split by a chunk boundary joined in the reduce), chunk by chunk: one pass over the
chunks per step, both models side by side, the first step in the report's one pass (five
passes in all on the runs measured). Only the Theil-Sen line and the rank correlation work on
whole tables: the dinos' (a few dozen rows).
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import polars as pl
from scipy.special import expit
from scipy.stats import rankdata, theilslopes

from reports import plots
from reports.aggregate import (
    Chunk,
    Cross,
    Mapper,
    Partial,
    chunks,
    cluster_sums,
    combine_outer,
    concat_sum,
    once_per_run,
    run_one,
    second_pass,
)
from reports.common import clustered, own_strings
from reports.metrics import Claim, Estimate, Metric, MetricError, Ranking
from reports.section import Section
from reports.source import RunData
from reports.stats import Z95, with_wilson

MIN_GAMES = 30
"""Fewest decided games a dino must have been drafted in to be rated (fewer: too few games)."""
L2 = 1.0
DRAWS = 4000
SEAT_COLUMNS = ("strategy", "dinos", "n_dinos", "hit_markers", "fewer_dinos", "fewer_cards",
                "trex", "first", "winner")  # fmt: skip
DIFFS = ("first", "fewer_dinos", "fewer_cards")
"""The covariates read from the players table, each as side A's value minus side B's."""


# ------------------------------------------------------------------ the games, whole run


def _cluster(run: RunData) -> pl.Expr:
    return pl.col("game_id") // 2 if run.config.get("rotate") else pl.col("game_id")


def games_side_by_side(run: RunData, decided: bool = True) -> pl.DataFrame:
    """One row per game: seat 0's columns (suffix ``_0``) and seat 1's (``_1``) of the players
    table, the game's ``end_reason`` and ``cluster``, ``won`` = seat 0 won; only the decided
    games unless ``decided`` is false. Teams are lists of dino names.

    This reads the whole run at once (for exploring a run in a notebook, or fitting
    :func:`fit_team_model` on a subset of games): the report's analyses read chunk by chunk."""
    players = run.scan("players").select(
        "game_id",
        "seat",
        *[
            pl.col(c).cast(pl.List(pl.String))
            if c == "dinos"
            else pl.col(c).cast(pl.String)
            if c == "strategy"
            else pl.col(c)
            for c in SEAT_COLUMNS
        ],
    )
    side = [
        players.filter(pl.col("seat") == s)
        .drop("seat")
        .rename({c: f"{c}_{s}" for c in SEAT_COLUMNS})
        for s in (0, 1)
    ]
    games = run.scan("games").select("game_id", "n_winners", pl.col("end_reason").cast(pl.String))
    lf = side[0].join(side[1], on="game_id").join(games, on="game_id")
    if decided:
        lf = lf.filter(pl.col("n_winners") > 0)
    return (
        lf.with_columns(cluster=_cluster(run), won=pl.col("winner_0"))
        .sort("game_id")
        .collect(engine="streaming")
    )


def seat_rows(run: RunData) -> pl.LazyFrame:
    """The players rows of the decided games with the opponent's team size and markers
    (``n_dinos_opp``, ``hit_markers_opp``) and the ``cluster`` of the game, as one LazyFrame
    over the whole run (for a notebook; the report uses :func:`seat_frame` chunk by chunk)."""
    players = run.scan("players").select(*SEAT_ROW_COLUMNS)
    games = run.scan("games").filter(pl.col("n_winners") > 0).select("game_id")
    return _with_opponent(players.join(games, on="game_id"), players).with_columns(
        cluster=_cluster(run)
    )


# ------------------------------------------------------------------ a chunk's games

SEAT_ROW_COLUMNS = ("game_id", "seat", "n_dinos", "hit_markers", "fewer_dinos", "fewer_cards",
                    "trex", "first", "winner")  # fmt: skip


def _with_opponent(rows, players):
    """``rows`` (players rows) with the opponent's ``n_dinos``, ``hit_markers`` and ``trex``
    (``_opp``) from ``players``, and ``won`` as a number."""
    opp = players.select(
        "game_id",
        seat=1 - pl.col("seat"),
        n_dinos_opp="n_dinos",
        hit_markers_opp="hit_markers",
        trex_opp="trex",
    )
    return rows.join(opp, on=["game_id", "seat"]).with_columns(
        won=pl.col("winner").cast(pl.Float64)
    )


def _decided(chunk: Chunk) -> pl.DataFrame:
    """The ``game_id`` of the chunk's decided games."""
    games = chunk.table("games", ["game_id", "n_winners"])
    return games.filter(pl.col("n_winners") > 0).select("game_id")


def seat_frame(chunk: Chunk) -> pl.DataFrame:
    """A chunk's players rows of the decided games with the opponent's ``n_dinos``,
    ``hit_markers`` and ``trex`` (``_opp``) and ``won`` (1.0 for the winner)."""
    players = chunk.table("players", list(SEAT_ROW_COLUMNS))
    return _with_opponent(players.join(_decided(chunk), on="game_id"), players)


def game_frame(chunk: Chunk) -> pl.DataFrame:
    """A chunk's decided games side by side, in game order: ``game_id``, ``won`` (side A =
    seat 0 won), the bots (``strategy_0``, ``strategy_1``), the teams (``team_a``, ``team_b``:
    lists of dino names) and :data:`DIFFS` as A's value minus B's."""
    players = chunk.table(
        "players", ["game_id", "seat", "strategy", "dinos", *DIFFS, "winner"]
    ).with_columns(pl.col("strategy").cast(pl.String), pl.col("dinos").cast(pl.List(pl.String)))
    own = ("strategy", "dinos", *DIFFS, "winner")
    side = [
        players.filter(pl.col("seat") == s).drop("seat").rename({c: f"{c}_{s}" for c in own})
        for s in (0, 1)
    ]
    diff = {c: pl.col(f"{c}_0").cast(pl.Float64) - pl.col(f"{c}_1").cast(pl.Float64) for c in DIFFS}
    return (
        side[0]
        .join(side[1], on="game_id")
        .join(_decided(chunk), on="game_id")
        .sort("game_id")
        .select(
            "game_id",
            "strategy_0",
            "strategy_1",
            won=pl.col("winner_0").cast(pl.Int64),
            team_a="dinos_0",
            team_b="dinos_1",
            **diff,
        )
    )


# ------------------------------------------------------------------ the team model


@dataclasses.dataclass(frozen=True)
class TeamModel:
    """A fitted :func:`fit_team_model`: every term's coefficient and their covariance."""

    terms: list[str]
    """``seat 0``, then one term per dino name, then the covariates."""
    beta: np.ndarray
    cov: np.ndarray
    slope: float
    """Mean ``p (1 - p)`` over the games: turns log-odds into win-share points (x 100)."""
    games: int

    def index(self, term: str) -> int:
        return self.terms.index(term)

    def effect(self, term: str, against: Sequence[str] = ()) -> dict[str, float]:
        """A term's effect in win-share points: ``mean``, ``lo``, ``hi``, ``se`` (log-odds
        times :attr:`slope`) and its log-odds coefficient ``beta``; with ``against``, the
        effect relative to the mean coefficient of those terms (a contrast, with its own
        variance)."""
        c = np.zeros(len(self.terms))
        c[self.index(term)] = 1.0
        for t in against:
            c[self.index(t)] -= 1.0 / len(against)
        se = float(np.sqrt(max(c @ self.cov @ c, 0.0)))
        b = float(c @ self.beta)
        return {
            "beta": b,
            "mean": b * self.slope,
            "lo": (b - Z95 * se) * self.slope,
            "hi": (b + Z95 * se) * self.slope,
            "se": se * self.slope,
        }


def _mask(column: str, names: Sequence[str]) -> pl.Expr:
    codes = pl.element().replace_strict(list(names), list(range(len(names))), return_dtype=pl.Int64)
    return pl.col(column).list.eval(pl.lit(2, dtype=pl.Int64).pow(codes)).list.sum()


def _bits(masks: np.ndarray, k: int) -> np.ndarray:
    return ((masks[:, None] >> np.arange(k, dtype=np.int64)) & 1).astype(np.float64)


def _design(
    df: pl.DataFrame, k: int, covariates: Sequence[str], teams: np.ndarray | None = None
) -> np.ndarray:
    """The model's regressors of rows with team masks ``ma``, ``mb`` and the covariates: 1,
    +1/-1/0 per dino (on A's team, on B's, out of play: ``teams`` if already made), then each
    covariate."""
    if teams is None:
        teams = _teams(df, k)
    x = np.empty((df.height, 1 + k + len(covariates)))
    x[:, 0] = 1.0
    x[:, 1 : 1 + k] = teams
    for j, c in enumerate(covariates):
        x[:, 1 + k + j] = df[c].cast(pl.Float64).to_numpy()
    return x


def _teams(df: pl.DataFrame, k: int) -> np.ndarray:
    return _bits(df["ma"].to_numpy(), k) - _bits(df["mb"].to_numpy(), k)


NEWTON_STEP = 1e-8
"""The fit has converged when no coefficient's Newton step is larger than this."""
MAX_PASSES = 30


@dataclasses.dataclass(frozen=True)
class _Sums:
    """A team model's sums over the games at one ``beta``: the log-likelihood's gradient
    ``X'(y - p)`` and information ``X' diag(p (1 - p)) X``, the log-likelihood, ``sum p (1 -
    p)``, the games, and the meat: the sum over clusters of the outer products of their score
    sums ``sum x (y - p)``."""

    grad: np.ndarray
    info: np.ndarray
    loglik: float
    pq: float
    games: int
    meat: np.ndarray


def _likelihood(x: np.ndarray, y: np.ndarray, beta: np.ndarray):
    """Gradient, information, log-likelihood, ``sum p (1 - p)`` and each row's score.

    Products of these tall, narrow matrices are numpy loops (``einsum``), not BLAS: the maps
    run on several threads next to polars' own, and a threaded BLAS on top of those made one
    chunk's products take seconds instead of milliseconds on a busy machine."""
    eta = np.einsum("nk,k->n", x, beta)
    p = expit(eta)
    r = y - p
    loglik = float(np.sum(y * eta - np.logaddexp(0.0, eta)))
    w = p * (1 - p)
    grad = np.einsum("nk,n->k", x, r)
    info = np.einsum("nk,nl->kl", x * w[:, None], x)
    return grad, info, loglik, float(w.sum()), x * r[:, None]


def _outer_part(chunk: Chunk, ids: np.ndarray, sums: np.ndarray):
    """:func:`reports.aggregate.outer_part` with the outer products as a numpy loop (see
    :func:`_likelihood`): the chunk's :class:`~reports.aggregate.Cross` of whole clusters
    and the raw vectors of the clusters it may share with a neighbour."""
    split = np.isin(ids, np.array(chunk.split_clusters(), dtype=ids.dtype))
    whole = sums[~split]
    cross = Cross(whole.sum(axis=0), np.einsum("ck,cl->kl", whole, whole), len(whole))
    return cross, (ids[split], sums[split])


def _penalty(width: int, l2: float) -> np.ndarray:
    pen = np.full(width, l2)
    pen[0] = 0.0  # the seat term is not penalised
    return pen


Fitted = tuple[np.ndarray, _Sums, np.ndarray]
"""A converged model: its coefficients, the sums of its last pass, the bread there."""


def _newton(evaluate, widths: Sequence[int], l2: float) -> list[Fitted]:
    """Newton's method on the penalised log-likelihood of several models at once, from 0.

    ``evaluate(indices, betas)`` returns the :class:`_Sums` of those models at those
    coefficients (one pass over the data). A step that lowers the penalised likelihood is
    halved. Returns per model its coefficients, the sums of the last pass and the inverse
    penalised information there (the sandwich's bread)."""
    pens = [_penalty(w, l2) for w in widths]
    betas = [np.zeros(w) for w in widths]
    sums = dict(zip(range(len(widths)), evaluate(range(len(widths)), betas), strict=True))
    best: dict[int, tuple[float, np.ndarray]] = {}
    done: dict[int, Fitted] = {}
    for _ in range(MAX_PASSES):
        todo = []
        for i, s in sums.items():
            pen, b = pens[i], betas[i]
            f = s.loglik - 0.5 * float(np.sum(pen * b**2))
            if i in best and f < best[i][0] - 1e-12 * abs(best[i][0]):
                betas[i] = (best[i][1] + b) / 2  # overshot: back half way
                todo.append(i)
                continue
            best[i] = (f, b)
            info = s.info + np.diag(pen)
            step = np.linalg.lstsq(info, s.grad - pen * b, rcond=None)[0]
            if np.max(np.abs(step), initial=0.0) <= NEWTON_STEP:
                done[i] = (b + step, s, np.linalg.pinv(info))
            else:
                betas[i] = b + step
                todo.append(i)
        if not todo:
            return [done[i] for i in range(len(widths))]
        sums = dict(zip(todo, evaluate(todo, [betas[i] for i in todo]), strict=True))
    raise RuntimeError(f"the team model did not converge in {MAX_PASSES} Newton steps")


def _model(fit, names: Sequence[str], covariates: Sequence[str]) -> TeamModel:
    beta, s, bread = fit
    slope = s.pq / s.games if s.games else 0.0
    terms = ["seat 0", *names, *covariates]
    return TeamModel(terms, beta, bread @ s.meat @ bread, slope, s.games)


def fit_team_model(
    games: pl.DataFrame,
    names: Sequence[str],
    covariates: Sequence[str] = ("first",),
    l2: float = L2,
) -> TeamModel:
    """Fit the team model on ``games``: one row per game with ``cluster``, ``won`` (side A
    won), ``team_a`` and ``team_b`` (lists of dino names from ``names``) and each covariate
    as a number (A's value minus B's). (The report fits the same model chunk by chunk:
    :func:`team_models`.)"""
    k = len(names)
    if k > 62:
        raise ValueError("at most 62 dino names")
    df = games.select(
        "cluster", "won", *covariates, ma=_mask("team_a", names), mb=_mask("team_b", names)
    )
    x = _design(df, k, covariates)
    y = df["won"].cast(pl.Float64).to_numpy()
    _, ids = np.unique(df["cluster"].to_numpy(), return_inverse=True)

    def evaluate(models, betas):
        out = []
        for beta in betas:
            grad, info, loglik, pq, scores = _likelihood(x, y, beta)
            _, per = cluster_sums(ids, scores)
            out.append(_Sums(grad, info, loglik, pq, len(y), np.einsum("ck,cl->kl", per, per)))
        return out

    return _model(_newton(evaluate, [x.shape[1]], l2)[0], names, covariates)


def _strategy_terms(games: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """One covariate per bot but the first (alphabetically) when the seats' bots differ."""
    labels = sorted(set(games["strategy_0"].unique()) | set(games["strategy_1"].unique()))
    terms = []
    for label in labels[1:]:
        name = f"bot {label}"
        games = games.with_columns(_bot_term(name))
        terms.append(name)
    return games, terms


def _bot_term(term: str) -> pl.Expr:
    """The covariate ``bot <label>``: +1 when only A plays it, -1 when only B does."""
    label = term.removeprefix("bot ")
    return (
        (pl.col("strategy_0") == label).cast(pl.Float64)
        - (pl.col("strategy_1") == label).cast(pl.Float64)
    ).alias(term)


def model_frame(games: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """:func:`games_side_by_side` rows as the team model's input (side A = seat 0), with the
    covariates ``first``, ``fewer_dinos`` and ``fewer_cards`` (A minus B) and the bot terms;
    returns the frame and the bot terms' names."""
    diff = {c: pl.col(f"{c}_0").cast(pl.Float64) - pl.col(f"{c}_1").cast(pl.Float64) for c in DIFFS}
    games = games.with_columns(team_a=pl.col("dinos_0"), team_b=pl.col("dinos_1"), **diff)
    return _strategy_terms(games)


def _step_map(chunk: Chunk, names: tuple[str, ...], models: tuple) -> list:
    """One Newton pass over a chunk: every model's sums at its coefficients (``models``:
    ``(covariates, beta)`` pairs), the meat as per-cluster score sums (split deals apart)."""
    df = chunk.derived(game_frame)
    terms = {c for covariates, _ in models for c in covariates if c.startswith("bot ")}
    df = df.with_columns(
        *[_bot_term(c) for c in sorted(terms)], ma=_mask("team_a", names), mb=_mask("team_b", names)
    )
    y = df["won"].cast(pl.Float64).to_numpy()
    ids = df["game_id"].to_numpy().astype(np.int64)  # in order: each game its own cluster
    teams = _teams(df, len(names))
    out = []
    for covariates, beta in models:
        x = _design(df, len(names), covariates, teams)
        grad, info, loglik, pq, scores = _likelihood(x, y, np.asarray(beta))
        if chunk.rotate:  # a deal's games are one cluster
            meat = _outer_part(chunk, *cluster_sums(ids // chunk.n_players, scores))
        else:
            meat = _outer_part(chunk, ids, scores)
        out.append((grad, info, loglik, pq, len(y), meat))
    return out


def _step_reduce(parts: list, names: tuple[str, ...], models: tuple) -> list[_Sums]:
    out = []
    for k, (_, beta) in enumerate(models):
        mine = [p[k] for p in parts]
        out.append(
            _Sums(
                sum(m[0] for m in mine),
                sum(m[1] for m in mine),
                float(sum(m[2] for m in mine)),
                float(sum(m[3] for m in mine)),
                int(sum(m[4] for m in mine)),
                combine_outer([m[5] for m in mine], len(beta)).outer,
            )
        )
    return out


def _step(names: Sequence[str], specs: Sequence[Sequence[str]], betas) -> Partial:
    models = tuple(
        (tuple(c), tuple(float(v) for v in b)) for c, b in zip(specs, betas, strict=True)
    )
    return Partial("dtb_team_model", _step_map, _step_reduce, (tuple(names), models))


def _covariates(bonuses: bool, bots: Sequence[str]) -> list[str]:
    return ["first", *(["fewer_dinos", "fewer_cards"] if bonuses else []), *bots]


def bot_terms(run: RunData) -> list[str]:
    """The team model's bot terms: one per bot of the lineup but the first (alphabetically)
    when the seats' bots differ (every game seats the whole lineup: its first game names
    them)."""
    first = chunks(run)[0][0]
    labels = run.read("players", first, ["strategy"])["strategy"].head(run.n_players)
    return [f"bot {label}" for label in sorted(set(labels.cast(pl.String)))[1:]]


def _model_specs(run: RunData, which: Sequence[bool]) -> list[list[str]]:
    bots = bot_terms(run)
    return [_covariates(bonuses, bots) for bonuses in which]


def first_step(run: RunData, which: Sequence[bool] = (False, True)) -> Partial:
    """The team models' first Newton pass (at 0), for the report's one pass."""
    specs = _model_specs(run, which)
    widths = [1 + len(dino_names(run)) + len(c) for c in specs]
    return _step(dino_names(run), specs, [np.zeros(w) for w in widths])


def team_models(
    run: RunData,
    which: Sequence[bool] = (False, True),
    l2: float = L2,
    games: pl.DataFrame | None = None,
    mapper: Mapper | None = None,
) -> list[TeamModel]:
    """The team models of the run's decided games, one per entry of ``which``: dinos, the
    first player, the bots, and when the entry is true also the fewer-dinos and fewer-cards
    terms (see :func:`marker_bonuses`). Newton's method with every step's sums computed
    chunk by chunk, the models side by side (one pass per step; the first in the report's
    one pass). ``games``: fit on these :func:`games_side_by_side` rows instead."""
    names = dino_names(run)
    if games is not None:
        frame, bots = model_frame(games)
        return [fit_team_model(frame, names, _covariates(b, bots), l2) for b in which]
    if len(names) > 62:
        raise ValueError("at most 62 dino names")
    specs = _model_specs(run, which)
    known = getattr(run, "prefetched", {})
    data, first_mapper = second_pass(run)

    def evaluate(models, betas):
        step = _step(names, [specs[i] for i in models], betas)
        if step in known:
            return known[step]
        return run_one(data, step, mapper or first_mapper)

    fits = _newton(evaluate, [1 + len(names) + len(c) for c in specs], l2)
    return [_model(f, names, c) for f, c in zip(fits, specs, strict=True)]


def team_model(
    run: RunData,
    bonuses: bool = False,
    l2: float = L2,
    games: pl.DataFrame | None = None,
    mapper: Mapper | None = None,
) -> TeamModel:
    """The team model of the run's decided games: dinos, the first player, the bots; with
    ``bonuses`` also the fewer-dinos and fewer-cards terms (see :func:`marker_bonuses`).
    ``games``: fit on these :func:`games_side_by_side` rows instead of the whole run."""
    return team_models(run, (bonuses,), l2, games, mapper)[0]


def dino_names(run: RunData) -> list[str]:
    """Every dino name of the run's card file, once, in file order."""
    return run.data("dinos.parquet").unique("name_code").sort("name_code")["name"].to_list()


def printed_ratings(run: RunData) -> pl.DataFrame:
    """The dinos in play: name, printed draft rating, whether the rating is known (not
    provisional), class and size."""
    return (
        run.data("dinos.parquet")
        .filter(pl.col("in_play"))
        .select("name", "draft_rating", "rating_known", "provisional", "class", "size")
    )


def _drafted_map(chunk: Chunk) -> pl.DataFrame:
    players = chunk.table("players", ["game_id", "dinos", "winner"])
    return (
        players.join(_decided(chunk), on="game_id")
        .select(pl.col("dinos").cast(pl.List(pl.String)), "winner")
        .explode("dinos")
        .group_by(name="dinos")
        .agg(games=pl.len().cast(pl.Int64), wins=pl.col("winner").sum().cast(pl.Int64))
        .pipe(own_strings)
    )


def _drafted_reduce(parts: list[pl.DataFrame]) -> pl.DataFrame:
    return concat_sum(parts, ["name"])


DRAFTED = Partial("dtb_drafted", _drafted_map, _drafted_reduce)


def drafted(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Per dino: decided games it was drafted in, and the raw win share of its team (no
    control for teammates or opponents), with a Wilson interval."""
    rows = run_one(run, DRAFTED, mapper)
    return with_wilson(rows, "wins", "games", "raw_win_share").rename(
        {"lo": "raw_lo", "hi": "raw_hi"}
    )


def printed_scale(rated: pl.DataFrame) -> dict[str, float | str] | None:
    """What a printed rating stands for in value, ``value = a + b * rating``, from the rated
    dinos (``value``, ``draft_rating``): the Theil-Sen line (the median of the pairwise slopes,
    then of the residuals: a few mis-rated dinos do not move it) when its slope's 95% interval
    lies above 0, i.e. the ratings do order the values; otherwise the line that gives the
    values the printed ratings' mean and spread (the ratings say nothing, only their scale is
    kept). ``how`` names the one used; None with fewer than three rated dinos or no spread."""
    if rated.height < 3 or not rated["value"].std() or not rated["draft_rating"].std():
        return None
    v = rated["value"].to_numpy()
    r = rated["draft_rating"].to_numpy().astype(np.float64)
    fit = theilslopes(v, r, alpha=0.95, method="joint")
    if fit.low_slope > 0:
        return {"a": float(fit.intercept), "b": float(fit.slope), "how": "theil-sen"}
    b = float(v.std(ddof=1) / r.std(ddof=1))
    return {"a": float(v.mean() - b * r.mean()), "b": b, "how": "mean and spread"}


def value_table(model: TeamModel, ratings: pl.DataFrame, counts: pl.DataFrame) -> pl.DataFrame:
    """Every dino in play: printed rating, simulated value with its interval (win-share
    points against the average dino in play), games drafted, suggested rating on the printed
    scale and the verdict (under-rated, over-rated, fits, too few games); sorted by value."""
    rows = []
    in_play = ratings["name"].to_list()
    for r in ratings.iter_rows(named=True):
        e = model.effect(r["name"], in_play)
        rows.append({**r, "value": e["mean"], "lo": e["lo"], "hi": e["hi"], "se": e["se"]})
    df = pl.DataFrame(rows).join(counts.select("name", "games", "raw_win_share"), on="name",
                                 how="left").with_columns(pl.col("games").fill_null(0))  # fmt: skip
    ok = pl.col("games") >= MIN_GAMES
    scale = printed_scale(df.filter(ok))
    rating = pl.col("draft_rating").cast(pl.Float64)
    if scale is None:
        implied = pl.lit(None, pl.Float64)
        suggested = pl.lit(None, pl.Float64)
    else:
        implied = scale["a"] + scale["b"] * rating
        suggested = ((pl.col("value") - scale["a"]) / scale["b"]).round().clip(0, 99)
    verdict = (
        pl.when(~ok)
        .then(pl.lit("too few games"))
        .when(pl.col("lo") > pl.col("implied"))
        .then(pl.lit("under-rated"))
        .when(pl.col("hi") < pl.col("implied"))
        .then(pl.lit("over-rated"))
        .otherwise(pl.lit("fits"))
    )
    return (
        df.with_columns(implied=implied, suggested=pl.when(ok).then(suggested))
        .with_columns(
            verdict=verdict, gap=pl.col("draft_rating").cast(pl.Float64) - pl.col("suggested")
        )
        .sort("value", descending=True)
    )


def rank_correlation(model: TeamModel, values: pl.DataFrame, seed: int = 0) -> dict[str, float]:
    """Spearman's rho between value and printed rating over the rated dinos, with the 95%
    interval over draws of the coefficients (see the module's definitions)."""
    rated = values.filter(pl.col("verdict") != "too few games")
    k = rated.height
    if k < 3:
        return {"rho": float("nan"), "lo": float("nan"), "hi": float("nan"), "dinos": k}
    idx = [model.index(n) for n in rated["name"]]
    rating = rankdata(rated["draft_rating"].to_numpy())
    rng = np.random.default_rng(seed)
    draws = rng.multivariate_normal(
        model.beta[idx], model.cov[np.ix_(idx, idx)], size=DRAWS, method="eigh"
    )

    def rho(v: np.ndarray) -> np.ndarray:
        rv = rankdata(v, axis=-1)
        a = rv - rv.mean(axis=-1, keepdims=True)
        b = rating - rating.mean()
        den = np.sqrt((a**2).sum(axis=-1) * (b**2).sum())
        return (a * b).sum(axis=-1) / np.where(den > 0, den, np.nan)

    point = float(rho(model.beta[idx]))
    lo, hi = np.nanquantile(rho(draws), [0.025, 0.975])
    return {"rho": point, "lo": float(lo), "hi": float(hi), "dinos": k}


def rating_accuracy(
    run: RunData,
    games: pl.DataFrame | None = None,
    model: TeamModel | None = None,
    mapper: Mapper | None = None,
) -> tuple[TeamModel, pl.DataFrame, dict[str, float]]:
    """The team model, the value table and the rank correlation of the run (``games``: fit on
    these :func:`games_side_by_side` rows; ``model``: the team model, if already fitted)."""
    if model is None and games is None:  # the run's own model: fitted once per run object
        model = once_per_run(run, "dtb_team_model", lambda: team_model(run, mapper=mapper))
    elif model is None:
        model = team_model(run, games=games, mapper=mapper)
    values = value_table(model, printed_ratings(run), drafted(run, mapper))
    return model, values, rank_correlation(model, values)


def dino_ranking(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """The dinos rated in :func:`rating_accuracy`'s value table (drafted in at least
    :data:`MIN_GAMES` decided games), as a :class:`~reports.metrics.Ranking` table."""
    _, values, _ = rating_accuracy(run, mapper=mapper)
    rated = values.filter(pl.col("verdict") != "too few games")
    return rated.select("name", "value", "lo", "hi")


RANKING = Ranking(
    "dinos",
    "simulated value: win-share points drafting it adds against an average dino",
    "pp",
    dino_ranking,
)
"""The report's dino values, most to least valuable (its robustness check reads them)."""


# ------------------------------------------------------------------ first player, sizes, bonuses

FIRST_GROUPS = (
    "every decided game",
    "equal markers (alphabetical tie-break)",
    "fewer hit markers",
)
"""The first player's rows: all of them, then by why it moved first (codes 0, 1, 2)."""


def _first_frame(chunk: Chunk) -> pl.DataFrame:
    """The first player's rows of the chunk's decided games, twice: once as every decided
    game (``group`` 0), once by why it moved first (1: the tie-break, 2: fewer markers).
    Groups are codes, not labels: a label column would share the chunk's string buffers."""
    rows = chunk.derived(seat_frame).filter(pl.col("first"))
    how = pl.when(pl.col("hit_markers") < pl.col("hit_markers_opp")).then(2).otherwise(1)
    return pl.concat(
        [
            rows.select("game_id", "won", group=pl.lit(0, dtype=pl.Int8)),
            rows.select("game_id", "won", group=how.cast(pl.Int8)),
        ]
    )


FIRST = clustered("dtb_first_player", _first_frame, ("group",), "won")
SIZES = clustered("dtb_team_sizes", seat_frame, ("n_dinos",), "won")
MATCHUPS = clustered("dtb_size_matchups", seat_frame, ("n_dinos", "n_dinos_opp"), "won")


def first_player(
    run: RunData, model: TeamModel | None = None, mapper: Mapper | None = None
) -> pl.DataFrame:
    """The first player's win share in decided games: over all of them, where it moved first
    by having fewer hit markers, and where the markers were equal (the alphabetical tie-break:
    the tempo alone); then the team model's first-player effect (composition held fixed)."""
    df = run_one(run, FIRST, mapper).select(
        pl.col("group").replace_strict(range(3), FIRST_GROUPS).alias("first player"),
        "n",
        "mean",
        "lo",
        "hi",
    )
    if model is not None:
        e = model.effect("first")
        df = pl.concat(
            [
                df,
                pl.DataFrame(
                    {
                        "first player": ["team model: moving first, teams held fixed"],
                        "n": [model.games],
                        "mean": [0.5 + e["mean"]],
                        "lo": [0.5 + e["lo"]],
                        "hi": [0.5 + e["hi"]],
                    }
                ),
            ],
            how="vertical_relaxed",
        )
    return df


def team_sizes(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Win share of a team of 1, 2, 3, 4 ... dinos in decided games (both seats' rows,
    clustered by game or deal), with how often each size was drafted."""
    df = run_one(run, SIZES, mapper)
    total = df["n"].sum()
    return df.with_columns(drafted=pl.col("n") / total).select(
        "n_dinos", "n", "drafted", "mean", "lo", "hi"
    )


def size_matchups(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Win share of a team of ``n_dinos`` against a team of ``n_dinos_opp`` (decided games)."""
    df = run_one(run, MATCHUPS, mapper)
    return df.select("n_dinos", "n_dinos_opp", "n", "mean", "lo", "hi")


BONUSES = {
    "fewer_dinos": "fewer dino cards (bonus_markers)",
    "fewer_cards": "fewer action cards (bonus_markers)",
    "trex": "the Tyrannosaurus Rex (trex_markers)",
}


def _bonus_frame(chunk: Chunk) -> pl.DataFrame:
    """The rows of the seats that took each bonus (a seat once per bonus it took), the bonus
    as its position in :data:`BONUSES`."""
    rows = chunk.derived(seat_frame)
    return pl.concat(
        [
            rows.filter(pl.col(c)).select("game_id", "won", bonus=pl.lit(k, dtype=pl.Int8))
            for k, c in enumerate(BONUSES)
        ]
    )


BONUS_SHARES = clustered("dtb_bonuses", _bonus_frame, ("bonus",), "won")


def marker_bonuses(
    run: RunData, model: TeamModel | None = None, mapper: Mapper | None = None
) -> pl.DataFrame:
    """Each hit-marker bonus: in decided games where exactly one seat took it, that seat's
    win share (a bonus that exactly made up for its cause would give 50%); and, for the
    fewer-dinos and fewer-cards bonuses, the effect of the term in the team model with
    ``bonuses`` (``model``), beyond the dinos' own values. The T-Rex's bonus cannot be told
    apart from the T-Rex in one run (they always come together): its value includes it."""
    shares = {r["bonus"]: r for r in run_one(run, BONUS_SHARES, mapper).iter_rows(named=True)}
    rows = []
    for k, (col, label) in enumerate(BONUSES.items()):  # at most one seat of a game has each
        if k in shares:
            r = shares[k]
            rows.append({"bonus": label, "measure": "win share of the seat with it",
                         "n": r["n"], "mean": r["mean"], "lo": r["lo"], "hi": r["hi"]})  # fmt: skip
        if model is not None and col in model.terms:
            e = model.effect(col)
            rows.append({"bonus": label, "measure": "team model: effect beyond the dinos",
                         "n": model.games, "mean": 0.5 + e["mean"], "lo": 0.5 + e["lo"],
                         "hi": 0.5 + e["hi"]})  # fmt: skip
    schema = {"bonus": pl.String, "measure": pl.String, "n": pl.Int64, "mean": pl.Float64,
              "lo": pl.Float64, "hi": pl.Float64}  # fmt: skip
    return pl.DataFrame(rows, schema=schema)


def _ends_map(chunk: Chunk) -> pl.DataFrame:
    games = chunk.table("games", ["end_reason", "turns"])
    counts = games.group_by(pl.col("end_reason").cast(pl.String)).agg(
        games=pl.len().cast(pl.Int64), turns=pl.col("turns").cast(pl.Int64).sum()
    )
    return own_strings(counts)


def _ends_reduce(parts: list[pl.DataFrame]) -> pl.DataFrame:
    return concat_sum(parts, ["end_reason"])


END_REASONS = Partial("dtb_end_reasons", _ends_map, _ends_reduce)


def end_reasons(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """How games ended, with Wilson intervals: markers, one dino, both at one marker, turn cap
    (the capped games: no winner, left out of this game's other analyses)."""
    df = run_one(run, END_REASONS, mapper).select(
        "end_reason", "games", mean_turns=pl.col("turns") / pl.col("games")
    )
    order = ["markers", "one dino", "both at one marker", "turn cap"]
    present = set(df["end_reason"])
    missing = [r for r in order if r not in present]
    if missing:
        df = pl.concat(
            [df, pl.DataFrame({"end_reason": missing, "games": [0] * len(missing),
                               "mean_turns": [None] * len(missing)})],
            how="vertical_relaxed",
        )  # fmt: skip
    df = df.with_columns(
        total=pl.col("games").sum(),
        _o=pl.col("end_reason").replace_strict(order, list(range(len(order))), default=9),
    ).sort("_o")
    return with_wilson(df.drop("_o"), "games", "total", "share")


def partials(run: RunData) -> list[Partial]:
    """What the report's Table Battles sections read (computed in the report's one pass; the
    team models' later Newton steps take a pass each)."""
    if run.config["params"].get("setup") == "first_game":
        return [END_REASONS, FIRST]
    return [END_REASONS, FIRST, SIZES, MATCHUPS, BONUS_SHARES, DRAFTED, first_step(run)]


# ------------------------------------------------------------------ metrics (reports.metrics)


def first_mover(chunk: Chunk) -> pl.DataFrame:
    """Per game: ``first_seat``, the first player (``games.first_seat``: fewest hit markers,
    else the alphabetical tie-break), for the shared ``first_share`` metric."""
    return chunk.table("games", ["game_id", "first_seat"])


FIRST_MOVER_TABLES = ("games",)
"""The tables :func:`first_mover` reads."""


def measure_rating_spearman(
    run: RunData, arg: str | None = None, mapper: Mapper | None = None
) -> Estimate:
    """``rating_spearman``: :func:`rating_accuracy`'s rank correlation with its interval (the
    draws' quantiles; ``se`` is their width over 2 x 1.96), from the decided games."""
    if run.config.get("params", {}).get("setup") == "first_game":
        raise MetricError(
            "metric 'rating_spearman' needs a drafting run (setup=draft): with setup=first_game "
            "nobody drafts, so the logs cannot tell the dinos' values apart"
        )
    model, _, rho = rating_accuracy(run, mapper=mapper)
    lo, hi = rho["lo"], rho["hi"]
    return Estimate(rho["rho"], (hi - lo) / (2 * Z95), lo, hi, model.games)


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


# ------------------------------------------------------------------ plots

VERDICT_COLORS = {"under-rated": "#2b6f77", "over-rated": "#c8553d", "fits": "#8e9aaf",
                  "too few games": "#d0d0d0"}  # fmt: skip


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


def calibration_plot(values: pl.DataFrame) -> bytes:
    """Simulated value (95% interval) against the printed rating, one point per dino, with
    the line of values the printed ratings stand for (mean and spread matched)."""
    fig, ax = plt.subplots(figsize=(7.5, 5))
    # dinos of one printed rating spread sideways (by value) so their labels stay apart
    values = values.with_columns(
        _k=pl.col("value").rank("ordinal").over("draft_rating"),
        _x=pl.col("draft_rating").cast(pl.Float64)
        + 0.18
        * (
            pl.col("value").rank("ordinal").over("draft_rating")
            - (pl.len().over("draft_rating") + 1) / 2
        ),
    )
    for verdict, color in VERDICT_COLORS.items():
        d = values.filter(pl.col("verdict") == verdict)
        if not d.height:
            continue
        x = d["_x"].to_numpy()
        y = d["value"].to_numpy() * 100
        err = [y - d["lo"].to_numpy() * 100, d["hi"].to_numpy() * 100 - y]
        ax.errorbar(x, y, yerr=err, fmt="o", color=color, ecolor=color, capsize=3, ms=6,
                    label=verdict)  # fmt: skip
        for name, xi, yi, k in zip(d["name"], x, y, d["_k"], strict=True):
            dy = 3 if k % 2 else -10  # neighbours of one rating label above and below
            ax.annotate(name, (xi, yi), xytext=(4, dy), textcoords="offset points", fontsize=7)
    line = values.filter(pl.col("implied").is_not_null()).sort("draft_rating")
    if line.height:
        ax.plot(line["draft_rating"], line["implied"] * 100, "--", color="grey",
                label="value the printed rating stands for")  # fmt: skip
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xlabel("printed draft rating")
    ax.set_ylabel("simulated value, win-share points")
    ax.set_title("Draft ratings: printed against simulated")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    return _png(fig)


def value_plot(values: pl.DataFrame) -> bytes:
    """Every dino's simulated value with its interval, best on top, coloured by verdict."""
    d = values.sort("value")
    y = np.arange(d.height)
    v = d["value"].to_numpy() * 100
    err = [v - d["lo"].to_numpy() * 100, d["hi"].to_numpy() * 100 - v]
    colors = [VERDICT_COLORS[x] for x in d["verdict"]]
    fig, ax = plt.subplots(figsize=(6.5, max(3, 0.28 * d.height + 1)))
    ax.barh(y, v, xerr=err, color=colors, ecolor="black", capsize=2)
    ax.set_yticks(y, [f"{n} ({r})" for n, r in zip(d["name"], d["draft_rating"], strict=True)])
    ax.tick_params(axis="y", labelsize=7)
    ax.axvline(0, color="black", linewidth=0.6)
    ax.set_xlabel("simulated value, win-share points (printed rating in brackets)")
    ax.set_title("Dinos by simulated value")
    ax.grid(axis="x", alpha=0.3)
    return _png(fig)


# ------------------------------------------------------------------ the report


SCALE_TEXT = {
    "theil-sen": "The printed ratings do order the values, so a rating stands for the value on "
    "the robust (Theil-Sen) line through the dinos, and a suggested rating reads a value back "
    "on that line.",
    "mean and spread": "The printed ratings do not order the values (the robust line's slope "
    "is not clearly positive), so suggested ratings only keep the printed scale's mean and "
    "spread.",
    None: "Too few dinos were drafted often enough to put values on the printed scale.",
}


def _rho_text(rho: dict[str, float]) -> str:
    if rho["dinos"] < 3 or not np.isfinite(rho["rho"]):
        return (
            f"Only {rho['dinos']} dinos were drafted in at least {MIN_GAMES} decided games: too "
            "few for a rank correlation (play more games)."
        )
    return (
        f"Spearman's rank correlation between value and printed rating over the "
        f"{rho['dinos']} dinos drafted in at least {MIN_GAMES} games: {rho['rho']:.2f} "
        f"[{rho['lo']:.2f}, {rho['hi']:.2f}]."
    )


def _points(column: str) -> pl.Expr:
    """``column`` and its ``lo``, ``hi`` as signed win-share points: ``+3.1 [+1.2, +5.0]``."""
    return pl.format(
        "{} [{}, {}]",
        *[
            (pl.col(c) * 100).map_elements(lambda v: f"{v:+.1f}", return_dtype=pl.String)
            for c in (column, "lo", "hi")
        ],
    )


def _pp(x: float) -> str:
    return f"{x * 100:+.1f}"


def _ci(r: dict) -> str:
    return f"{r['mean']:.1%} [{r['lo']:.1%}, {r['hi']:.1%}]"


def sections(run: RunData) -> list[Section]:
    """The report's Dinosaur Table Battles sections (see the module's definitions)."""
    ends = end_reasons(run)
    capped = ends.filter(pl.col("end_reason") == "turn cap").row(0, named=True)
    total = int(ends["games"].sum())
    decided = total - int(capped["games"])
    max_turns = run.config["params"].get("max_turns", 200)
    out = [
        Section(
            "How games ended; capped games",
            f"{capped['games']:,} of {total:,} games ({capped['share']:.2%} "
            f"[{capped['lo']:.2%}, {capped['hi']:.2%}]) reached the turn cap of {max_turns} "
            f"turns: nobody won them. They are counted here and left out of every analysis "
            f"below ({decided:,} decided games); the shared sections above score them 0 for "
            "both seats.",
            ends,
            {"end_reason": "str", "games": "int", "share": "pct_ci", "mean_turns": "float"},
            plots.stacked_shares(
                ends["end_reason"].to_list(), ends["share"].to_list(), title="How games ended"
            ),
            key="ends",
        )
    ]
    if decided < 10:
        return out
    if run.config["params"].get("setup") == "first_game":
        first = first_player(run)
        out.append(
            Section(
                "Draft ratings",
                "This run played the first game's fixed teams (setup=first_game): nobody "
                "drafted, so nothing in the logs tells the dinos' values apart. Draft-rating "
                "accuracy needs a run with setup=draft.",
                key="ratings",
            )
        )
        out.append(
            Section(
                "First-player advantage",
                f"The first player won {_ci(first.row(0, named=True))} of decided games.",
                first,
                {"first player": "str", "n": "int", "mean": "pct_ci"},
                key="first",
            )
        )
        return out
    model, bonus_model = team_models(run, (False, True))
    once_per_run(run, "dtb_team_model", lambda: model)  # the same fit as team_model(run)
    model, values, rho = rating_accuracy(run, model=model)
    ratings = printed_ratings(run)
    known = int(ratings["rating_known"].sum())
    status = (
        f"All {ratings.height} printed ratings are marked known in the card file."
        if known == ratings.height
        else f"{ratings.height - known} of the {ratings.height} printed ratings are PROVISIONAL "
        "(not marked known in the card file): this compares the simulation with them, not "
        "with the published cards."
    )
    rated = values.filter(pl.col("verdict") != "too few games")
    scale = printed_scale(rated)
    how = scale["how"] if scale else None
    over = values.filter(pl.col("verdict") == "over-rated").sort("gap", descending=True)
    under = values.filter(pl.col("verdict") == "under-rated").sort("gap")

    def names(df: pl.DataFrame) -> str:
        return (
            ", ".join(
                f"{r['name']} (printed {r['draft_rating']}, suggested {int(r['suggested'])})"
                for r in df.head(3).iter_rows(named=True)
            )
            or "none"
        )

    out.append(
        Section(
            "Draft ratings: printed against simulated",
            f"Each dino's simulated value: the win-share points drafting it instead of an "
            f"average dino adds, with teammates, opponents, the first player and the seat held "
            f"fixed (an "
            f"L2-regularised logistic model on team composition over {model.games:,} decided "
            f"games; 95% cluster-robust intervals). {_rho_text(rho)} Most under-rated: "
            f"{names(under)}. Most over-rated: {names(over)}. {SCALE_TEXT[how]} {status}",
            values.with_columns(value_points=_points("value")).select(
                "name",
                "draft_rating",
                "value_points",
                "games",
                "raw_win_share",
                "suggested",
                "verdict",
            ),
            {
                "name": "str",
                "draft_rating": "int",
                "value_points": "str",
                "games": "int",
                "raw_win_share": "pct",
                "suggested": "int",
                "verdict": "str",
            },
            calibration_plot(values),
            key="ratings",
        )
    )
    out.append(
        Section(
            "Dinos by simulated value",
            f"The same values ranked (win-share points, {rated.height} dinos rated). "
            "'raw_win_share' in the table above is the plain share of decided games its team "
            "won, without holding teammates or opponents fixed.",
            None,
            {},
            value_plot(values),
            key="values",
        )
    )
    first = first_player(run, model)
    r0 = first.row(0, named=True)
    fe = model.effect("first")
    out.append(
        Section(
            "First-player advantage",
            f"The first player (fewer hit markers, else the alphabetical tie-break) won "
            f"{_ci(r0)} of decided games. Teams with fewer markers move first, so part of that "
            f"is the team; with equal markers only the tempo differs; the team model holds the "
            f"teams fixed: moving first is worth {_pp(fe['mean'])} win-share points "
            f"[{_pp(fe['lo'])}, {_pp(fe['hi'])}].",
            first,
            {"first player": "str", "n": "int", "mean": "pct_ci"},
            plots.bars_with_ci(
                ["all", "fewer markers", "equal markers", "model"][: first.height],
                first,
                title="First player's win share",
                ylabel="win share, %",
                reference=0.5,
            ),
            key="first",
        )
    )
    sizes = team_sizes(run)
    out.append(
        Section(
            "Team size",
            "Win share of a team by its number of dinos (decided games; a team of fewer dinos "
            "takes bonus_markers extra hit markers, one of fewer action cards too), and how "
            "often each size was drafted. The second table splits by the opponent's size.",
            sizes,
            {"n_dinos": "int", "n": "int", "drafted": "pct", "mean": "pct_ci"},
            plots.bars_with_ci(
                [f"{k} dinos" for k in sizes["n_dinos"]],
                sizes,
                title="Win share by team size",
                ylabel="win share, %",
                reference=0.5,
            ),
            key="sizes",
        )
    )
    out.append(
        Section(
            "Team size against the opponent's",
            "",
            size_matchups(run),
            {"n_dinos": "int", "n_dinos_opp": "int", "n": "int", "mean": "pct_ci"},
            key="matchups",
        )
    )
    bonuses = marker_bonuses(run, bonus_model)
    out.append(
        Section(
            "Hit-marker bonuses",
            "For each bonus, the win share of the seat that took it (decided games; a bonus "
            "that exactly made up for having fewer dinos or cards would give 50%), and for the "
            "two bonus_markers bonuses the team model's term beyond the dinos' own values "
            "(shown as 50% plus the effect). The T-Rex always brings its markers, so one run "
            "cannot separate them: its simulated value above includes them; to measure them "
            "alone, compare with a run made with --set trex_markers=0. More hit markers also "
            "mean moving second (the first player is the one with fewer), so a bonus can cost "
            "more in tempo than its markers give.",
            bonuses,
            {"bonus": "str", "measure": "str", "n": "int", "mean": "pct_ci"},
            key="bonuses",
        )
    )
    return out
