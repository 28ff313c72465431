"""Origin of Species: how carnivores do.

*Attack success* (:func:`attack_outcomes`, :func:`kills_by_defender_trait`): the share of
attacks (``attacks`` rows, one per attack on its final target) that ended with the prey eaten,
by the last defence used and by each trait the final target carried when attacked.

*Carnivore share of points* (:func:`carnivores`): the points of surviving carnivores (the
animal, its trait cards and extras, ``players.carnivore_points``) over all points scored.

*Aggression* (:func:`aggression`): win share, attacks, kills and carnivore share of points by
bot, with each bot's ``aggression`` parameter read from the run's configuration; with seats
rotated and two or more aggression levels in the lineup, the win-share gap between the most and
the least aggressive bot, with its interval (the covariance of the two shares included).
"""

from __future__ import annotations

import re

import numpy as np
import polars as pl

from reports import common
from reports.aggregate import (
    Chunk,
    Mapper,
    Partial,
    chunks,
    cluster_cross,
    cluster_sums,
    combine_cross,
    combine_outer,
    concat_sum,
    outer_part,
    run_all,
    run_one,
)
from reports.models.clustered import difference, means_covariance
from reports.origin_of_species.rows import (
    interval,
    ratios_map,
    ratios_reduce,
    side_by_side,
)
from reports.source import RunData
from reports.stats import Z95
from rules.origin_of_species.constants import DEFENCES, N_TRAITS, OUTCOMES, TRAITS


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
    ratios_map,
    ratios_reduce,
    (_attack_frame, ("defence_used",), (("killed", "killed", None),)),
)

ATTACKS_ALL = Partial(
    "oos_attacks_all",
    ratios_map,
    ratios_reduce,
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
    ids_rows = chunk.clusters_of(a["game_id"].to_numpy())
    mask = a["defender_traits"].to_numpy().astype(np.int64)
    killed = (a["outcome"].cast(pl.String) == "killed").to_numpy().astype(np.float64)
    ids, sums = np.unique(ids_rows), np.zeros((0, 2 * N_TRAITS))
    if len(ids):  # one trait at a time: never attacks x traits
        bits = (((mask >> t) & 1).astype(np.float64) for t in range(N_TRAITS))
        per = [cluster_sums(ids_rows, np.c_[b * killed, b])[1] for b in bits]
        sums = np.c_[tuple(p[:, 0] for p in per) + tuple(p[:, 1] for p in per)]
    return outer_part(chunk, ids, sums)


def _defender_trait_reduce(parts: list):
    return means_covariance(combine_outer(parts, 2 * N_TRAITS))


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
    ratios_map,
    ratios_reduce,
    (_player_frame, ("strategy",), _CARNIVORE_METRICS),
)

CARNIVORES_ALL = Partial(
    "oos_carnivores_all",
    ratios_map,
    ratios_reduce,
    (_player_frame, ("all",), _CARNIVORE_METRICS),
)


def carnivores(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Over every seat-game: the carnivore share of points (``points_share``), the share of
    seats ending with a carnivore alive (``has_carnivore``), attacks and kills per seat-game
    and the kills per attack (``kill_rate``), each with ``_lo``/``_hi``."""
    return side_by_side(run_one(run, CARNIVORES_ALL, mapper), "all")


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
    return means_covariance(combine_cross(parts, "strategy", labels))


def share_cross(labels: tuple[str, ...]) -> Partial:
    """The bots' win shares (``labels``, the lineup's) with their covariance."""
    return Partial("oos_share_cross", _share_cross_map, _share_cross_reduce, (labels,))


def lineup_labels(run: RunData) -> tuple[str, ...]:
    """The lineup's bot labels, sorted."""
    return tuple(sorted(lineup_specs(run)))


def aggression(run: RunData, mapper: Mapper | None = None) -> tuple[pl.DataFrame, dict | None]:
    """Per bot: its ``aggression`` (heuristic bots), win share, carnivore share of points,
    attacks, kills and kills per attack per seat-game (each with ``_lo``/``_hi``); and, when the
    run can answer it (seats rotated, two or more aggression levels), the win-share gap between
    the most and the least aggressive bot (``mean``/``lo``/``hi``, with both labels), else
    ``None``."""
    specs = lineup_specs(run)
    labels = tuple(sorted(specs))
    res = run_all(run, [CARNIVORES_BY_STRATEGY, share_cross(labels)], mapper)
    table = side_by_side(res[CARNIVORES_BY_STRATEGY], "strategy").with_columns(
        aggression=pl.col("strategy").replace_strict(
            {k: aggression_of(v) for k, v in specs.items()}, default=None, return_dtype=pl.Float64
        )
    )
    levels = {k: aggression_of(v) for k, v in specs.items() if aggression_of(v) is not None}
    if not run.config.get("rotate") or len(set(levels.values())) < 2:
        return table.sort("strategy"), None
    m, _, cov = res[share_cross(labels)]
    high = max(levels, key=lambda k: levels[k])
    low = min(levels, key=lambda k: levels[k])
    d, se = difference(m, cov, labels.index(high), labels.index(low))
    gap = {"high": high, "low": low, "high_level": levels[high], "low_level": levels[low]}
    return table.sort("aggression", nulls_last=True), {**gap, **interval(d, se)}
