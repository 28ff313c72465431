"""Dinosaur Table Battles: the decided games as the analyses read them, side A (seat 0)
against side B (seat 1).

A *decided game* ended by the rules (no markers left, one dino left, both at one marker); a
game stopped by the turn cap (``max_turns``) has no winner and is left out of every analysis
of this game but the end reasons (:func:`reports.table_battles.analyses.end_reasons`).
"""

from __future__ import annotations

import polars as pl

from reports.aggregate import Chunk
from reports.source import RunData

SEAT_COLUMNS = (
    "strategy",
    "dinos",
    "n_dinos",
    "hit_markers",
    "fewer_dinos",
    "fewer_cards",
    "trex",
    "first",
    "winner",
)

DIFFS = ("first", "fewer_dinos", "fewer_cards")
"""The covariates read from the players table, each as side A's value minus side B's."""

SEAT_ROW_COLUMNS = (
    "game_id",
    "seat",
    "n_dinos",
    "hit_markers",
    "fewer_dinos",
    "fewer_cards",
    "trex",
    "first",
    "winner",
)


def deal_cluster(run: RunData) -> pl.Expr:
    """A game's cluster: its deal (two rotated games) with seat rotation, else itself."""
    return pl.col("game_id") // 2 if run.config.get("rotate") else pl.col("game_id")


def games_side_by_side(run: RunData, decided: bool = True) -> pl.DataFrame:
    """One row per game: seat 0's columns (suffix ``_0``) and seat 1's (``_1``) of the players
    table, the game's ``end_reason`` and ``cluster``, ``won`` = seat 0 won; only the decided
    games unless ``decided`` is false. Teams are lists of dino names.

    This reads the whole run at once (for exploring a run in a notebook, or fitting
    :func:`~reports.table_battles.team_model.fit_team_model` on a subset of games): the
    report's analyses read chunk by chunk."""
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
        lf.with_columns(cluster=deal_cluster(run), won=pl.col("winner_0"))
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
        cluster=deal_cluster(run)
    )


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


def decided(chunk: Chunk) -> pl.DataFrame:
    """The ``game_id`` of the chunk's decided games."""
    games = chunk.table("games", ["game_id", "n_winners"])
    return games.filter(pl.col("n_winners") > 0).select("game_id")


def seat_frame(chunk: Chunk) -> pl.DataFrame:
    """A chunk's players rows of the decided games with the opponent's ``n_dinos``,
    ``hit_markers`` and ``trex`` (``_opp``) and ``won`` (1.0 for the winner)."""
    players = chunk.table("players", list(SEAT_ROW_COLUMNS))
    return _with_opponent(players.join(decided(chunk), on="game_id"), players)


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
        .join(decided(chunk), on="game_id")
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
