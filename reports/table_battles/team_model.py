"""Dinosaur Table Battles' team model: what each dino, moving first, the bots and the
marker bonuses are worth, holding the rest of both teams fixed.

Over the decided games, from side A (seat 0) against side B (seat 1), the L2-regularised
logistic model

    logit P(A wins) = a + sum_d beta_d x_d + sum_k gamma_k z_k

with ``x_d = +1`` when dino ``d`` is on A's team, ``-1`` on B's, ``0`` out of play; covariates
``z_k`` as A's value minus B's: ``first`` (+1 when A moves first, -1 when B does), and one term
per bot when the seats' bots differ (with ``bonuses`` also ``fewer_dinos`` and ``fewer_cards``).
``a`` is the seat term (seat 0 against seat 1 beyond everything else). Fitted by Newton's
method on the penalised likelihood (:mod:`reports.models.logistic`), penalty ``l2 / 2`` times
the sum of squares of every coefficient but ``a`` (``l2 = 1``: a normal prior with standard
deviation 1 on each log-odds effect, negligible with thousands of games). Intervals are 95%
cluster-robust (sandwich) intervals, clusters the deals with seat rotation, the games
otherwise, without the small-sample factor (``C/(C-1)``: these intervals have always been
reported without it, and with thousands of games it would move them by hundredths of a
per cent).

Each Newton step sums the likelihood's gradient and information, and the sandwich's
per-cluster score products, chunk by chunk: one pass over the chunks per step, both of the
report's models side by side, the first step in the report's one pass.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import polars as pl

from reports.aggregate import Chunk, Mapper, Partial, chunks, run_one, second_pass
from reports.models import logistic
from reports.source import RunData
from reports.stats import Z95
from reports.table_battles.games import DIFFS, game_frame

L2 = 1.0
"""The penalty: a normal prior of standard deviation 1 on each log-odds effect but the seat
term."""


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


def _penalty(width: int, l2: float) -> np.ndarray:
    pen = np.full(width, l2)
    pen[0] = 0.0  # the seat term is not penalised
    return pen


def _model(fit: logistic.Fit, names: Sequence[str], covariates: Sequence[str]) -> TeamModel:
    s = fit.sums
    slope = s.pq / s.rows if s.rows else 0.0
    terms = ["seat 0", *names, *covariates]
    return TeamModel(terms, fit.coef, fit.covariance(small_sample=False), slope, s.rows)


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
    clusters = df["cluster"].to_numpy()

    def evaluate(models, betas):
        return [logistic.frame_sums(x, y, clusters, beta) for beta in betas]

    return _model(logistic.newton(evaluate, [_penalty(x.shape[1], l2)])[0], names, covariates)


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
    """:func:`~reports.table_battles.games.games_side_by_side` rows as the team model's input
    (side A = seat 0), with the covariates ``first``, ``fewer_dinos`` and ``fewer_cards`` (A
    minus B) and the bot terms; returns the frame and the bot terms' names."""
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
    clusters = chunk.clusters_of(df["game_id"].to_numpy())  # games in order
    teams = _teams(df, len(names))
    return [
        logistic.chunk_terms(chunk, _design(df, len(names), covariates, teams), y, clusters, beta)
        for covariates, beta in models
    ]


def _step_reduce(parts: list, names: tuple[str, ...], models: tuple) -> list[logistic.Sums]:
    return [logistic.combine([p[k] for p in parts], len(b)) for k, (_, b) in enumerate(models)]


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
    terms (see :func:`~reports.table_battles.analyses.marker_bonuses`). Newton's method with
    every step's sums computed chunk by chunk, the models side by side (one pass per step; the
    first in the report's one pass). ``games``: fit on these
    :func:`~reports.table_battles.games.games_side_by_side` rows instead."""
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

    fits = logistic.newton(evaluate, [_penalty(1 + len(names) + len(c), l2) for c in specs])
    return [_model(f, names, c) for f, c in zip(fits, specs, strict=True)]


def team_model(
    run: RunData,
    bonuses: bool = False,
    l2: float = L2,
    games: pl.DataFrame | None = None,
    mapper: Mapper | None = None,
) -> TeamModel:
    """The team model of the run's decided games: dinos, the first player, the bots; with
    ``bonuses`` also the fewer-dinos and fewer-cards terms (see
    :func:`~reports.table_battles.analyses.marker_bonuses`).
    ``games``: fit on these :func:`~reports.table_battles.games.games_side_by_side` rows
    instead of the whole run."""
    return team_models(run, (bonuses,), l2, games, mapper)[0]


def dino_names(run: RunData) -> list[str]:
    """Every dino name of the run's card file, once, in file order."""
    return run.data("dinos.parquet").unique("name_code").sort("name_code")["name"].to_list()
