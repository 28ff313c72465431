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
from reports.table_battles.team_model import TeamModel, first_step, team_models

MIN_DECIDED_GAMES = 10
"""Fewer decided games than this: the report stops after how games ended."""
MIN_RHO_DINOS = 3
"""Fewer dinos drafted often enough than this: no rank correlation is given."""
NAMES_LISTED = 3
"""How many of the most under- and over-rated dinos the ratings paragraph names."""
DEFAULT_MAX_TURNS = 200
"""The turn cap quoted when the run's parameters do not set max_turns."""
FIRST_PLAYER_COLUMNS = {"first player": "str", "n": "int", "mean": "pct_ci"}


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
    """The rank-correlation sentence, or why there is none."""
    if rho["dinos"] < MIN_RHO_DINOS or not np.isfinite(rho["rho"]):
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
    """A share as signed points: ``+3.1``."""
    return f"{x * 100:+.1f}"


def _ci(r: dict) -> str:
    """A row's mean and interval as percentages: ``52.0% [50.1%, 53.9%]``."""
    return f"{r['mean']:.1%} [{r['lo']:.1%}, {r['hi']:.1%}]"


def _decided_games(ends: pl.DataFrame) -> int:
    """Games that ended with a winner (all but those that reached the turn cap)."""
    capped = ends.filter(pl.col("end_reason") == "turn cap").row(0, named=True)
    return int(ends["games"].sum()) - int(capped["games"])


def _ends_section(run: RunData, ends: pl.DataFrame) -> Section:
    """How games ended, and how many reached the turn cap."""
    capped = ends.filter(pl.col("end_reason") == "turn cap").row(0, named=True)
    total = int(ends["games"].sum())
    max_turns = run.config["params"].get("max_turns", DEFAULT_MAX_TURNS)
    return Section(
        "How games ended; capped games",
        f"{capped['games']:,} of {total:,} games ({capped['share']:.2%} "
        f"[{capped['lo']:.2%}, {capped['hi']:.2%}]) reached the turn cap of {max_turns} "
        f"turns: nobody won them. They are counted here and left out of every analysis "
        f"below ({_decided_games(ends):,} decided games); the shared sections above score "
        "them 0 for both seats.",
        ends,
        {"end_reason": "str", "games": "int", "share": "pct_ci", "mean_turns": "float"},
        plots.stacked_shares(
            ends["end_reason"].to_list(), ends["share"].to_list(), title="How games ended"
        ),
        key="ends",
    )


def _first_game_ratings_section() -> Section:
    """Why a first-game run has no draft ratings to check."""
    return Section(
        "Draft ratings",
        "This run played the first game's fixed teams (setup=first_game): nobody "
        "drafted, so nothing in the logs tells the dinos' values apart. Draft-rating "
        "accuracy needs a run with setup=draft.",
        key="ratings",
    )


def _first_game_first_section(run: RunData) -> Section:
    """The first player's win share in a first-game run (no team model)."""
    first = first_player(run)
    return Section(
        "First-player advantage",
        f"The first player won {_ci(first.row(0, named=True))} of decided games.",
        first,
        FIRST_PLAYER_COLUMNS,
        key="first",
    )


def _status_text(ratings: pl.DataFrame) -> str:
    """Whether the printed ratings compared are all marked known in the card file."""
    known = int(ratings["rating_known"].sum())
    if known == ratings.height:
        return f"All {ratings.height} printed ratings are marked known in the card file."
    return (
        f"{ratings.height - known} of the {ratings.height} printed ratings are PROVISIONAL "
        "(not marked known in the card file): this compares the simulation with them, not "
        "with the published cards."
    )


def _names(df: pl.DataFrame) -> str:
    """The first few dinos of ``df`` with their printed and suggested ratings, or 'none'."""
    return (
        ", ".join(
            f"{r['name']} (printed {r['draft_rating']}, suggested {int(r['suggested'])})"
            for r in df.head(NAMES_LISTED).iter_rows(named=True)
        )
        or "none"
    )


def _ratings_text(
    run: RunData, model: TeamModel, values: pl.DataFrame, rho: dict[str, float]
) -> str:
    """The ratings paragraph: the model, the rank correlation, the misrated, the scale."""
    rated = values.filter(pl.col("verdict") != "too few games")
    scale = printed_scale(rated)
    how = scale["how"] if scale else None
    over = values.filter(pl.col("verdict") == "over-rated").sort("gap", descending=True)
    under = values.filter(pl.col("verdict") == "under-rated").sort("gap")
    status = _status_text(printed_ratings(run))
    return (
        f"Each dino's simulated value: the win-share points drafting it instead of an "
        f"average dino adds, with teammates, opponents, the first player and the seat held "
        f"fixed (an "
        f"L2-regularised logistic model on team composition over {model.games:,} decided "
        f"games; 95% cluster-robust intervals). {_rho_text(rho)} Most under-rated: "
        f"{_names(under)}. Most over-rated: {_names(over)}. {SCALE_TEXT[how]} {status}"
    )


def _ratings_section(
    run: RunData, model: TeamModel, values: pl.DataFrame, rho: dict[str, float]
) -> Section:
    """Each dino's printed draft rating against its simulated value."""
    return Section(
        "Draft ratings: printed against simulated",
        _ratings_text(run, model, values, rho),
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


def _values_section(values: pl.DataFrame) -> Section:
    """The dinos ranked by simulated value (a figure only)."""
    rated = values.filter(pl.col("verdict") != "too few games")
    return Section(
        "Dinos by simulated value",
        f"The same values ranked (win-share points, {rated.height} dinos rated). "
        "'raw_win_share' in the table above is the plain share of decided games its team "
        "won, without holding teammates or opponents fixed.",
        None,
        {},
        value_plot(values),
        key="values",
    )


def _first_player_section(run: RunData, model: TeamModel) -> Section:
    """The first player's win share, raw, by markers, and as the team model's term."""
    first = first_player(run, model)
    fe = model.effect("first")
    return Section(
        "First-player advantage",
        f"The first player (fewer hit markers, else the alphabetical tie-break) won "
        f"{_ci(first.row(0, named=True))} of decided games. Teams with fewer markers move "
        f"first, so part of that is the team; with equal markers only the tempo differs; the "
        f"team model holds the teams fixed: moving first is worth {_pp(fe['mean'])} win-share "
        f"points [{_pp(fe['lo'])}, {_pp(fe['hi'])}].",
        first,
        FIRST_PLAYER_COLUMNS,
        plots.bars_with_ci(
            ["all", "fewer markers", "equal markers", "model"][: first.height],
            first,
            title="First player's win share",
            ylabel="win share, %",
            reference=0.5,
        ),
        key="first",
    )


def _team_size_section(run: RunData) -> Section:
    """Win share and draft share by a team's number of dinos."""
    sizes = team_sizes(run)
    return Section(
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


def _matchups_section(run: RunData) -> Section:
    """Win share by team size against the opponent's team size."""
    return Section(
        "Team size against the opponent's",
        "",
        size_matchups(run),
        {"n_dinos": "int", "n_dinos_opp": "int", "n": "int", "mean": "pct_ci"},
        key="matchups",
    )


def _bonuses_section(run: RunData, bonus_model: TeamModel) -> Section:
    """The win share of the seat that took each hit-marker bonus."""
    return Section(
        "Hit-marker bonuses",
        "For each bonus, the win share of the seat that took it (decided games; a bonus "
        "that exactly made up for having fewer dinos or cards would give 50%), and for the "
        "two bonus_markers bonuses the team model's term beyond the dinos' own values "
        "(shown as 50% plus the effect). The T-Rex always brings its markers, so one run "
        "cannot separate them: its simulated value above includes them; to measure them "
        "alone, compare with a run made with --set trex_markers=0. More hit markers also "
        "mean moving second (the first player is the one with fewer), so a bonus can cost "
        "more in tempo than its markers give.",
        marker_bonuses(run, bonus_model),
        {"bonus": "str", "measure": "str", "n": "int", "mean": "pct_ci"},
        key="bonuses",
    )


def _draft_sections(run: RunData) -> list[Section]:
    """The sections of a drafted run, all read from the fitted team models."""
    model, bonus_model = team_models(run, (False, True))
    once_per_run(run, "dtb_team_model", lambda: model)  # the same fit as team_model(run)
    model, values, rho = rating_accuracy(run, model=model)
    return [
        _ratings_section(run, model, values, rho),
        _values_section(values),
        _first_player_section(run, model),
        _team_size_section(run),
        _matchups_section(run),
        _bonuses_section(run, bonus_model),
    ]


def sections(run: RunData) -> list[Section]:
    """The report's Dinosaur Table Battles sections (see the module's definitions)."""
    ends = end_reasons(run)
    out = [_ends_section(run, ends)]
    if _decided_games(ends) < MIN_DECIDED_GAMES:
        return out
    if run.config["params"].get("setup") == "first_game":
        return [*out, _first_game_ratings_section(), _first_game_first_section(run)]
    return out + _draft_sections(run)
