"""Dinosaur Table Battles: what moving first, team size and the hit-marker bonuses are
worth, and how games ended (with how often the turn cap stopped them).

Every analysis but the end reasons is over the decided games
(:mod:`reports.table_battles.games`), with 95% cluster-robust intervals (clusters: the deals
with seat rotation, the games otherwise).
"""

from __future__ import annotations

import polars as pl

from reports.aggregate import Chunk, Mapper, Partial, concat_sum, run_one
from reports.common import clustered, own_strings
from reports.source import RunData
from reports.stats import with_wilson
from reports.table_battles.games import seat_frame
from reports.table_battles.team_model import TeamModel

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
            rows.append(
                {
                    "bonus": label,
                    "measure": "win share of the seat with it",
                    "n": r["n"],
                    "mean": r["mean"],
                    "lo": r["lo"],
                    "hi": r["hi"],
                }
            )
        if model is not None and col in model.terms:
            e = model.effect(col)
            rows.append(
                {
                    "bonus": label,
                    "measure": "team model: effect beyond the dinos",
                    "n": model.games,
                    "mean": 0.5 + e["mean"],
                    "lo": 0.5 + e["lo"],
                    "hi": 0.5 + e["hi"],
                }
            )
    schema = {
        "bonus": pl.String,
        "measure": pl.String,
        "n": pl.Int64,
        "mean": pl.Float64,
        "lo": pl.Float64,
        "hi": pl.Float64,
    }
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
            [
                df,
                pl.DataFrame(
                    {
                        "end_reason": missing,
                        "games": [0] * len(missing),
                        "mean_turns": [None] * len(missing),
                    }
                ),
            ],
            how="vertical_relaxed",
        )
    df = df.with_columns(
        total=pl.col("games").sum(),
        _o=pl.col("end_reason").replace_strict(order, list(range(len(order))), default=9),
    ).sort("_o")
    return with_wilson(df.drop("_o"), "games", "total", "share")
