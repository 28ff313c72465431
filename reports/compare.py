"""Paired comparison of a run with one of its rule variants (see ``simulate.variants``).

Both runs played game ``i`` from the same deal and dice streams, so for every game and seat the
*difference* in win share is the rule's effect plus far less noise than two independent runs
would have. Intervals are cluster-robust 95% intervals of the mean paired difference.
"""

from __future__ import annotations

import polars as pl

from reports.aggregate import (
    Chunk,
    Mapper,
    Partial,
    cluster_moments,
    combine_moments,
    concat_sum,
    moments_to_mean,
    read_range,
    run_all,
)
from reports.common import share_expr, share_frame
from reports.source import RunData
from reports.stats import Z95


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
    return moments_to_mean(combine_moments(parts, [by]), [by], Z95)


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


def headline_figures(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """The figures compared between runs, each with its standard error: every seat's win
    share, the balance, the shared-victory rate and the mean game length."""
    from reports import common

    seats = common.seat_win_share(run, mapper)
    bal = common.seat_balance(run, mapper)
    shared = common.shared_wins(run, mapper)
    length = common.game_length(run, mapper)
    n = run.games_logged
    multi = float(shared.filter(pl.col("n_winners") > 1)["games"].sum()) / n
    rounds = length["rounds"].cast(pl.Float64).to_numpy()
    p = length["share"].to_numpy()
    mean_len = float((rounds * p).sum())
    sd_len = float(((rounds - mean_len) ** 2 * p).sum()) ** 0.5
    rows = [
        (f"seat {s} win share", m, se)
        for s, m, se in seats.select("seat", "mean", "se").iter_rows()
    ]
    rows += [
        ("balance", bal["balance"], (bal["balance"] - bal["lo"]) / Z95),
        ("shared victories", multi, (multi * (1 - multi) / n) ** 0.5),
        ("mean game length (rounds)", mean_len, sd_len / n**0.5),
    ]
    return pl.DataFrame(rows, schema=["figure", "value", "se"], orient="row")


def compare_runs(runs: list[RunData], mapper: Mapper | None = None) -> pl.DataFrame:
    """The headline figures of every run and each one's difference from the first run's, with
    95% intervals: paired (game by game, seat by seat) for seat win shares when the runs share
    their seeds, independent (``sqrt(se_a^2 + se_b^2)``) otherwise."""
    if len({r.game for r in runs}) != 1:
        raise ValueError("runs of different games cannot be compared")
    base = runs[0]
    figures = [headline_figures(r, mapper) for r in runs]
    out = []
    for k, (run, fig) in enumerate(zip(runs, figures, strict=True)):
        paired = k > 0 and is_paired(base, run)
        seat_change = paired_by(base, run, "seat", mapper) if paired else None
        for row, b in zip(
            fig.iter_rows(named=True), figures[0].iter_rows(named=True), strict=False
        ):
            diff, lo, hi, how = None, None, None, ""
            if k > 0 and row["figure"] == b["figure"]:
                diff = row["value"] - b["value"]
                se = (row["se"] ** 2 + b["se"] ** 2) ** 0.5
                how = "independent"
                if seat_change is not None and row["figure"].startswith("seat "):
                    seat = int(row["figure"].split()[1])
                    r = seat_change.filter(pl.col("seat") == seat).row(0, named=True)
                    diff, se, how = r["mean"], r["se"], "paired"
                lo, hi = diff - Z95 * se, diff + Z95 * se
            out.append(
                {
                    "run": k,
                    "figure": row["figure"],
                    "value": row["value"],
                    "lo": row["value"] - Z95 * row["se"],
                    "hi": row["value"] + Z95 * row["se"],
                    "diff": diff,
                    "diff_lo": lo,
                    "diff_hi": hi,
                    "test": how,
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
