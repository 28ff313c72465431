"""EVO's play: what initiative is worth and how it was decided, combat, event cards,
start regions, and each seat's points round by round."""

from __future__ import annotations

import numpy as np
import polars as pl

from reports.aggregate import (
    Chunk,
    Mapper,
    Partial,
    cluster_moments,
    combine_moments,
    concat_sum,
    run_all,
    run_one,
)
from reports.common import clustered, share_expr, win_share_by
from reports.evo.model import turn_rows
from reports.models.clustered import moments_to_mean
from reports.source import RunData
from reports.stats import with_wilson
from rules.evo.cards import CARDS

CARD_NAMES = tuple(c.hungarian for c in CARDS)
"""The 26 event cards by number (as the ``cards`` table labels them)."""


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
    clusters = chunk.clusters_of(gid)
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
    return moments_to_mean(combine_moments(parts, ["initiative"]), ["initiative"])


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


def _region_rows(chunk: Chunk) -> pl.DataFrame:
    players = chunk.table("players", ["game_id", "seat", "winner", "start_region"])
    games = chunk.table("games", ["game_id", "n_winners"])
    return players.join(games, on="game_id", how="left").with_columns(share=share_expr())


START_REGIONS = clustered("win_share", _region_rows, ("start_region",))


def start_region_win_share(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Final win share by start region (the star a seat was dealt), with 95% intervals."""
    return win_share_by(run, ["start_region"], _region_rows, mapper=mapper).sort("start_region")


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
