"""Dinosaur Table Battles: are the printed draft ratings right?

*Simulated value* of dino ``d``: its team-model coefficient ``beta_d``
(:mod:`reports.table_battles.team_model`) minus the mean ``beta`` of the dinos in play, times
the mean slope of the win probability, ``mean p(1 - p)`` over the decided games, in points of
win share: how much drafting this dino instead of an average one moves your chance to win,
with the same teammates, opponents and seat. (Teams almost always have three dinos, so the
data pin down how dinos compare with each other far better than what any dino is worth
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
out). Only the Theil-Sen line and the rank correlation work on whole tables: the dinos' (a few
dozen rows).
"""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy.stats import rankdata, theilslopes

from reports.aggregate import Chunk, Mapper, Partial, concat_sum, once_per_run, run_one
from reports.common import own_strings
from reports.source import RunData
from reports.stats import Z95, with_wilson
from reports.table_battles.games import decided
from reports.table_battles.team_model import TeamModel, team_model

MIN_GAMES = 30
"""Fewest decided games a dino must have been drafted in to be rated (fewer: too few games)."""

DRAWS = 4000


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
        players.join(decided(chunk), on="game_id")
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
    df = (
        pl.DataFrame(rows)
        .join(counts.select("name", "games", "raw_win_share"), on="name", how="left")
        .with_columns(pl.col("games").fill_null(0))
    )
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
    interval over draws of the coefficients (see the module's definitions) and ``se``, the
    interval's normal equivalent (its width over 2 x 1.96: what a study compares rho by)."""
    rated = values.filter(pl.col("verdict") != "too few games")
    k = rated.height
    if k < 3:
        nan = float("nan")
        return {"rho": nan, "lo": nan, "hi": nan, "se": nan, "dinos": k}
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
    se = float(hi - lo) / (2 * Z95)
    return {"rho": point, "lo": float(lo), "hi": float(hi), "se": se, "dinos": k}


def rating_accuracy(
    run: RunData,
    games: pl.DataFrame | None = None,
    model: TeamModel | None = None,
    mapper: Mapper | None = None,
) -> tuple[TeamModel, pl.DataFrame, dict[str, float]]:
    """The team model, the value table and the rank correlation of the run (``games``: fit on
    these :func:`~reports.table_battles.games.games_side_by_side` rows; ``model``: the team
    model, if already fitted)."""
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
