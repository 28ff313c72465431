"""Paired comparison of a run with one of its rule variants (see ``simulate.variants``).

Both runs played game ``i`` from the same deal and dice streams, so for every game and seat the
*difference* in win share is the rule's effect plus far less noise than two independent runs
would have. Intervals are cluster-robust 95% intervals of the mean paired difference.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from reports.aggregate import (
    Chunk,
    Mapper,
    Partial,
    cluster_moments,
    combine_moments,
    concat_sum,
    read_range,
    run_all,
)
from reports.common import share_expr, share_frame
from reports.game import GameReport
from reports.measure import differences as metric_differences
from reports.measure import measure_run
from reports.metrics import SHARED, Context, Ref, catalogue, expand
from reports.models.clustered import moments_to_mean
from reports.source import RunData


def changed_rules(base: RunData, variant: RunData) -> dict[str, tuple]:
    """Rule keys whose values differ: key -> (run's value, variant's value)."""
    a, b = base.config["params"], variant.config["params"]
    return {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


def paired_rows(chunk: Chunk, base: RunData) -> pl.DataFrame:
    """Per game and seat of one chunk of the variant: win share in the run, in the variant,
    and the change (the base's rows for the same games, whatever its chunking)."""
    variant = share_frame(chunk).select("game_id", "seat", "strategy", variant_share="share")
    players = read_range(base, "players", chunk.start, chunk.stop, ["game_id", "seat", "winner"])
    games = read_range(base, "games", chunk.start, chunk.stop, ["game_id", "n_winners"])
    base_share = players.join(games, on="game_id").select(
        "game_id", "seat", base_share=share_expr()
    )
    return variant.join(base_share, on=["game_id", "seat"], how="inner").with_columns(
        change=pl.col("variant_share") - pl.col("base_share")
    )


def _shares_map(chunk: Chunk, base: RunData, by: str) -> pl.DataFrame:
    return (
        paired_rows(chunk, base)
        .group_by(by)
        .agg(rows=pl.len(), base=pl.col("base_share").sum(), variant=pl.col("variant_share").sum())
    )


def _shares_reduce(parts: list[pl.DataFrame], base: RunData, by: str) -> pl.DataFrame:
    df = concat_sum(parts, [by])
    return df.select(
        by, base=pl.col("base") / pl.col("rows"), variant=pl.col("variant") / pl.col("rows")
    )


def _change_map(chunk: Chunk, base: RunData, by: str):
    return cluster_moments(chunk, paired_rows(chunk, base), [by], "change")


def _change_reduce(parts, base: RunData, by: str) -> pl.DataFrame:
    return moments_to_mean(combine_moments(parts, [by]), [by])


def paired_by(
    base: RunData, variant: RunData, by: str, mapper: Mapper | None = None
) -> pl.DataFrame:
    """Mean win share in both runs and the paired change, by ``seat`` or ``strategy``, over
    the games the variant played (its chunks, paired with the same games of the run)."""
    shares = Partial("shares", _shares_map, _shares_reduce, (base, by))
    change = Partial("change", _change_map, _change_reduce, (base, by))
    results = run_all(variant, [shares, change], mapper)
    return results[shares].join(results[change], on=by).sort(by)


def share_moved(table: pl.DataFrame) -> float:
    """Win share moved between seats (or strategies) by the rule: half the sum of |change|."""
    return float(table["mean"].abs().sum()) / 2


# ------------------------------------------------------------------ several runs side by side


def differences(base: RunData, other: RunData) -> dict[str, tuple]:
    """What differs between two runs' configurations (rules, bots, players, seed ...)."""
    a, b = base.config, other.config
    out = {f"rule {k}": v for k, v in changed_rules(base, other).items()}
    for key in ("n_players", "strategies", "rotate", "seed", "games"):
        if a.get(key) != b.get(key):
            out[key] = (a.get(key), b.get(key))
    if base.manifest.get("data", {}).get("files") != other.manifest.get("data", {}).get("files"):
        out["data files"] = ("", "")
    return out


def is_paired(base: RunData, other: RunData) -> bool:
    """The runs played the same games from the same deals and dice: same seed, players and
    rotation (game ``i`` of one is game ``i`` of the other, with only rules or bots changed)."""
    a, b = base.config, other.config
    return all(a.get(k) == b.get(k) for k in ("seed", "n_players", "rotate"))


HEADLINE = ("seat_share", "balance", "first_share", "shared", "capped", "length")
"""The shared metrics compared between runs (each game adds its own mean metrics)."""


def headline_refs(runs: Sequence[RunData], report: GameReport | None = None) -> list[Ref]:
    """The headline metrics every run can be measured on: the shared ones, then the game's
    own metrics computed game by game (its model-based ones have their report sections)."""
    contexts = [Context.of(r, report) for r in runs]
    own = [m.name for m in catalogue(report) if m.is_mean and m not in SHARED]
    names = [*HEADLINE, *own]
    refs = expand(contexts[0], names, strict=False)
    return [r for r in refs if all(r.metric.why_not(c) is None for c in contexts[1:])]


def compare_runs(
    runs: list[RunData], mapper: Mapper | None = None, report: GameReport | None = None
) -> pl.DataFrame:
    """The headline metrics of every run (:mod:`reports.metrics`) and each one's difference
    from the first run's, with 95% intervals: paired game by game when the runs played the
    same games (same seed, players, rotation and games), from the two runs' standard errors
    otherwise. One row per run and metric (``figure``: the metric's name)."""
    if len({r.game for r in runs}) != 1:
        raise ValueError("runs of different games cannot be compared")
    base = runs[0]
    refs = [headline_refs([r], report) for r in runs]  # seats differ with the player count
    measured = [measure_run(r, rs, mapper) for r, rs in zip(runs, refs, strict=True)]
    out = []
    for k, (run, est) in enumerate(zip(runs, measured, strict=True)):
        common = [r for r in refs[k] if r.name in measured[0]]
        known = ({r.name: measured[0][r.name] for r in common}, est)
        diffs = metric_differences(base, run, common, mapper, known) if k > 0 else {}
        for r in refs[k]:
            e, d = est[r.name], diffs.get(r.name)
            out.append(
                {
                    "run": k,
                    "figure": r.name,
                    "value": e.value,
                    "lo": e.lo,
                    "hi": e.hi,
                    "diff": None if d is None else d.diff,
                    "diff_lo": None if d is None else d.lo,
                    "diff_hi": None if d is None else d.hi,
                    "test": "" if d is None else ("paired" if d.paired else "independent"),
                }
            )
    return pl.DataFrame(out)


def describe_differences(base: RunData, other: RunData) -> str:
    """What differs between two runs, in one line (and whether the comparison is paired)."""
    diffs = differences(base, other)
    text = "; ".join(
        key if key == "data files" else f"{key} {a!r} -> {b!r}" for key, (a, b) in diffs.items()
    )
    how = "paired: same seeds" if is_paired(base, other) else "independent"
    return f"{text or 'same configuration'} ({how})"
