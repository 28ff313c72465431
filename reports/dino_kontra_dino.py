"""Dino Kontra Dino analyses: what the figure decides and what it is worth; card strength.

Definitions
-----------
*Figure-decided round*: two or more seats played the top strength (``n_top > 1``), so the
tie rule chose the winner: the holder when it was among them (*kept by the holder*), else the
tied seat nearest the holder clockwise (*clockwise*).
*Events moved by the figure*: against a tie broken uniformly at random, a figure-decided round
gives its winner ``1 - 1/n_top`` extra events in expectation; summed per game.
*Card win rate*: rounds won when the card was played / rounds it was played (Wilson interval).
"""

from __future__ import annotations

import polars as pl

from reports.load import Run
from reports.stats import clustered_mean, wilson


def figure_rounds(run: Run) -> pl.DataFrame:
    """How rounds were decided: outright, by the holder in a tie, or clockwise in a tie."""
    r = (
        run.scan("rounds")
        .select(
            rounds=pl.len(),
            tied=(pl.col("n_top") > 1).sum(),
            kept=((pl.col("n_top") > 1) & (pl.col("winner") == pl.col("holder"))).sum(),
            holder_won=(pl.col("winner") == pl.col("holder")).sum(),
            moved=pl.when(pl.col("n_top") > 1).then(1 - 1 / pl.col("n_top")).otherwise(0).sum(),
        )
        .collect(engine="streaming")
        .row(0, named=True)
    )
    n = r["rounds"]
    rows = []
    for label, k in (
        ("decided outright (no tie at the top)", n - r["tied"]),
        ("decided by the figure: tie, holder kept it", r["kept"]),
        ("decided by the figure: tie, nearest clockwise", r["tied"] - r["kept"]),
        ("won by the figure holder (any way)", r["holder_won"]),
    ):
        lo, hi = wilson(k, n)
        rows.append({"rounds": label, "count": k, "share": k / n, "lo": lo, "hi": hi})
    df = pl.DataFrame(rows)
    return df.with_columns(
        events_moved_per_game=pl.lit(r["moved"] / run.games_logged),
    )


def figure_value(run: Run) -> pl.DataFrame:
    """Round win rate when holding the figure and when not (per seat-round), and the gap.

    Without the figure a seat would win 1/P of rounds on average; the gap between holders and
    the others is the per-round worth of holding it (including the holder's better hands: the
    figure goes to the last round's winner).
    """
    lf = run.scan("turns").with_columns(holding=pl.col("seat") == pl.col("holder"))
    df = (
        lf.group_by("holding")
        .agg(rounds=pl.len(), won=pl.col("won").sum())
        .collect(engine="streaming")
        .sort("holding", descending=True)
    )
    rows = []
    for holding, n, k in df.iter_rows():
        lo, hi = wilson(k, n)
        label = "holding the figure" if holding else "not holding it"
        rows.append({"seat-rounds": label, "rounds": n, "win_rate": k / n, "lo": lo, "hi": hi})
    return pl.DataFrame(rows)


def first_holder_value(run: Run) -> pl.DataFrame:
    """Win share of the seat that started with the figure against the others.

    With the default ``first_holder = 0`` this is also seat 0's advantage; set
    ``first_holder = -1`` (a random seat) to separate the figure from the seat.
    """
    from reports.common import with_win_share

    games = run.scan("games").select("game_id", "first_holder")
    lf = (
        with_win_share(run)
        .join(games, on="game_id", how="left")
        .with_columns(started_with_figure=pl.col("seat") == pl.col("first_holder"))
    )
    return clustered_mean(lf, ["started_with_figure"], "share", run.cluster()).sort(
        "started_with_figure", descending=True
    )


def card_strength(run: Run) -> pl.DataFrame:
    """Every dinosaur card: how often it was played, how often it won, its mean strength."""
    played = (
        run.scan("turns")
        .group_by("card_id")
        .agg(
            played=pl.len(),
            won=pl.col("won").sum(),
            mean_strength=pl.col("strength").cast(pl.Float64).mean(),
        )
        .collect(engine="streaming")
    )
    dinos = run.data("dinos.parquet")
    df = dinos.join(played, on="card_id", how="left").with_columns(
        pl.col("played").fill_null(0), pl.col("won").fill_null(0)
    )
    ci = [wilson(k, n) for k, n in zip(df["won"], df["played"], strict=True)]
    return (
        df.with_columns(
            win_rate=pl.col("won") / pl.col("played"),
            lo=pl.Series([c[0] for c in ci]),
            hi=pl.Series([c[1] for c in ci]),
            total=pl.col("predation") + pl.col("size") + pl.col("speed") + pl.col("adaptability"),
        )
        .sort("win_rate", descending=True, nulls_last=True)
        .with_row_index("rank", offset=1)
    )


def event_difficulty(run: Run) -> pl.DataFrame:
    """Every event: the mean winning strength and how often the figure decided it."""
    r = (
        run.scan("rounds")
        .group_by("event_id")
        .agg(
            rounds=pl.len(),
            mean_top=pl.col("top_strength").cast(pl.Float64).mean(),
            figure_decided=(pl.col("n_top") > 1).mean(),
        )
        .collect(engine="streaming")
    )
    return (
        run.data("events.parquet")
        .select("event_id", "name", "needs")
        .join(r, on="event_id", how="left")
        .sort("figure_decided", descending=True)
    )
