"""Dinosaur Table Battles' report sections (see the package's definitions)."""

from __future__ import annotations

import numpy as np
import polars as pl

from reports import plots
from reports.aggregate import Partial, once_per_run
from reports.section import Section
from reports.source import RunData
from reports.table_battles.analyses import (
    BONUS_SHARES,
    END_REASONS,
    FIRST,
    MATCHUPS,
    SIZES,
    end_reasons,
    first_player,
    marker_bonuses,
    size_matchups,
    team_sizes,
)
from reports.table_battles.draft import (
    DRAFTED,
    MIN_GAMES,
    printed_ratings,
    printed_scale,
    rating_accuracy,
)
from reports.table_battles.plots import calibration_plot, value_plot
from reports.table_battles.team_model import first_step, team_models


def partials(run: RunData) -> list[Partial]:
    """What the report's Table Battles sections read (computed in the report's one pass; the
    team models' later Newton steps take a pass each)."""
    if run.config["params"].get("setup") == "first_game":
        return [END_REASONS, FIRST]
    return [END_REASONS, FIRST, SIZES, MATCHUPS, BONUS_SHARES, DRAFTED, first_step(run)]


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
