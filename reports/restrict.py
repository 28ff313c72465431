"""Restricted play (Jaffe et al., AIIDE 2012, "Evaluating competitive game balance with
restricted play"): what each option of a game is worth to a bot.

A *study* is one **baseline** run, the same strategy ``S`` in every seat, and for each option
``X`` one **restricted** run whose lineup position 0 plays ``S[forbid=X]`` (it takes an action
using ``X`` only when every legal action does) against ``S`` in the other seats. Every run has
the same seed, players, rules, games and seat rotation, so game ``g`` of a restricted run starts
from the deal and the random streams of game ``g`` of the baseline (common random numbers): the
runs differ only by what the restriction changed.

Definitions
-----------
*Win share* of a seat in a game: 1 for an outright win, ``1/k`` for a victory shared by ``k``
players, 0 otherwise (as in :mod:`reports.common`).

*Restricted position*: lineup position 0. With seat rotation game ``g`` rotates the lineup by
``g mod P`` seats, so position 0 sits at seat ``g mod P`` (at seat 0 without rotation), in
the baseline as in the restricted run; it therefore plays every seat of every deal equally.

Per game ``g``: ``R_g`` is the restricted position's win share in the restricted run, ``B_g``
the same position's win share in the baseline's game ``g``, and ``D_g = R_g - B_g``.

*restricted*, *baseline*: the means of ``R_g`` and ``B_g`` over the games (the baseline's is
``1/P`` up to noise, every seat playing the same bot). *change*: the mean of ``D_g``, each game
one observation, with a cluster-robust 95% interval (the ``P`` rotated games of a deal form
one cluster; see :func:`reports.models.clustered.moments_to_mean`). *worth* ``= -change``, in points
of win share (percentage points): what the bot loses when it may not use the option.

*used* (where the game's report can tell from the logs, through its optional
``option_uses(chunk, options)``: :class:`reports.game.GameReport`): the share of the
baseline's games in which position 0 used the option at least once, and its mean uses per
game.

Every analysis maps over the restricted run's chunks (joined with the same games of the
baseline, whatever its chunking), so memory does not grow with the number of games.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import polars as pl

from reports import plots
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
from reports.common import share_expr
from reports.game import GameReport
from reports.models.clustered import moments_to_mean
from reports.section import Section
from reports.source import RunData

PAIRED_KEYS = ("game", "n_players", "rotate", "seed", "games", "params", "data_digest")
"""Configuration keys a restricted run shares with its baseline (only the lineup differs)."""


class NotPaired(ValueError):
    """A run is not the restricted twin of the baseline (other seed, games, rules ...)."""


def check_paired(baseline: RunData, restricted: RunData) -> None:
    """Raise :class:`NotPaired` naming what differs, unless ``restricted`` plays the
    baseline's games with only lineup position 0 changed."""
    a, b = baseline.config, restricted.config
    diff = [k for k in PAIRED_KEYS if a.get(k) != b.get(k)]
    if list(a["strategies"][1:]) != list(b["strategies"][1:]):
        diff.append("strategies of positions 1..P-1")
    if diff:
        raise NotPaired(
            f"{restricted_label(restricted)} is not paired with the baseline: "
            f"{', '.join(diff)} differ"
        )


def restricted_label(run: RunData) -> str:
    """The label of lineup position 0 (``S[forbid=X]`` for a restricted run)."""
    return label_of(run.config["strategies"][0])


def label_of(spec: str) -> str:
    """A recorded strategy spec shortened for people: the name and ``forbid=`` only."""
    name, _, rest = spec.partition("[")
    forbid = [item for item in rest.rstrip("]").split(",") if item.startswith("forbid=")]
    return f"{name}[{forbid[0]}]" if forbid else name


def position0_seat(n_players: int, rotate: bool) -> pl.Expr:
    """The seat lineup position 0 sits at in game ``game_id``."""
    return pl.col("game_id") % n_players if rotate else pl.lit(0, pl.Int64)


def position0_shares(
    players: pl.DataFrame, games: pl.DataFrame, n_players: int, rotate: bool
) -> pl.DataFrame:
    """``game_id``, ``strategy`` and position 0's win share, from a chunk's ``players`` (with
    ``game_id, seat, strategy, winner``) and ``games`` (``game_id, n_winners``) rows."""
    return (
        players.join(games, on="game_id", how="left")
        .filter(pl.col("seat").cast(pl.Int64) == position0_seat(n_players, rotate))
        .select("game_id", pl.col("strategy").cast(pl.String), share=share_expr())
    )


COLUMNS = {"players": ["game_id", "seat", "strategy", "winner"], "games": ["game_id", "n_winners"]}


def paired_games(chunk: Chunk, baseline: RunData) -> pl.DataFrame:
    """Per game of one chunk of a restricted run: ``restricted`` (R_g), ``baseline`` (B_g) and
    ``change`` (D_g). Checks that the seat taken for position 0 holds the restricted bot."""
    a, b = chunk.start, chunk.stop
    mine = position0_shares(
        chunk.table("players", COLUMNS["players"]),
        chunk.table("games", COLUMNS["games"]),
        chunk.n_players,
        chunk.rotate,
    )
    theirs = position0_shares(
        read_range(baseline, "players", a, b, COLUMNS["players"]),
        read_range(baseline, "games", a, b, COLUMNS["games"]),
        baseline.n_players,
        bool(baseline.config.get("rotate")),
    )
    labels = set(mine["strategy"].unique().to_list())
    if len(labels) != 1 or labels & set(theirs["strategy"].unique().to_list()):
        raise NotPaired(f"position 0 of {restricted_label(chunk.run)} is not one restricted bot")
    return (
        mine.select("game_id", restricted="share")
        .join(theirs.select("game_id", baseline="share"), on="game_id", how="inner")
        .with_columns(change=pl.col("restricted") - pl.col("baseline"))
    )


def _worth_map(chunk: Chunk, baseline: RunData):
    wide = paired_games(chunk, baseline)
    if wide.height != chunk.stop - chunk.start:
        raise NotPaired(
            f"games {chunk.start}..{chunk.stop - 1} of {restricted_label(chunk.run)} are not all "
            "in the baseline"
        )
    long = wide.unpivot(["restricted", "baseline", "change"], index="game_id", variable_name="what")
    return cluster_moments(chunk, long, ["what"], "value")


def _worth_reduce(parts, baseline: RunData) -> pl.DataFrame:
    return moments_to_mean(combine_moments(parts, ["what"]), ["what"])


def worth_partial(baseline: RunData) -> Partial:
    """The means of R_g, B_g and D_g over a restricted run, with cluster-robust intervals."""
    return Partial("restricted_worth", _worth_map, _worth_reduce, (baseline,))


OptionUses = Callable[[Chunk, tuple[str, ...]], pl.DataFrame]
"""A game's :attr:`~reports.game.GameReport.option_uses`."""


def _uses_map(chunk: Chunk, uses_of: OptionUses, options: tuple[str, ...]) -> pl.DataFrame:
    uses = uses_of(chunk, options)
    seat = position0_seat(chunk.n_players, chunk.rotate)
    return (
        uses.filter(pl.col("seat").cast(pl.Int64) == seat)
        .group_by("option")
        .agg(games_used=pl.col("game_id").n_unique(), uses=pl.col("uses").sum())
    )


def _uses_reduce(parts, uses_of: OptionUses, options: tuple[str, ...]) -> pl.DataFrame:
    df = concat_sum(parts, ["option"])
    if df.height == 0:
        return pl.DataFrame(schema={"option": pl.String, "games_used": pl.Int64, "uses": pl.Int64})
    return df


def option_use(
    baseline: RunData, game: GameReport | None, options: Sequence[str], mapper=None
) -> pl.DataFrame | None:
    """How often the baseline's position 0 used each option: ``used`` (share of games with a
    use) and ``uses_per_game``; ``None`` when the game's report cannot tell (it has no
    ``option_uses``). Options it cannot measure from the logs are left out."""
    if game is None or game.option_uses is None:
        return None
    p = Partial("option_uses", _uses_map, _uses_reduce, (game.option_uses, tuple(options)))
    df = run_all(baseline, [p], mapper)[p]
    n = baseline.games_logged
    return df.select(
        "option",
        used=pl.col("games_used") / n,
        uses_per_game=pl.col("uses") / n,
    )


def reading(change: float, lo: float, hi: float) -> str:
    """One line saying what an option's paired change means."""
    if not (_known(change) and _known(lo) and _known(hi)):
        return "not measurable (too few games)"
    if hi < 0:
        return f"worth {-change * 100:.1f} points of win share; the bot is weaker without it"
    if lo > 0:
        return (
            f"forbidding it helps: the bot wins {change * 100:.1f} points more without it (it "
            "misuses the option)"
        )
    bound = max(abs(lo), abs(hi)) * 100
    return f"no measurable worth (within ±{bound:.1f} points)"


def restricted_play(
    baseline: RunData,
    runs: Sequence[tuple[str, RunData]],
    game: GameReport | None = None,
    mapper: Mapper | None = None,
) -> pl.DataFrame:
    """One row per option (``runs``: each option with its restricted run): games, the
    restricted and baseline win shares of position 0, the paired ``change`` with ``lo``/``hi``
    and ``se``, ``worth`` (``-change``), the reading and, where measurable, ``used`` and
    ``uses_per_game`` in the baseline. Sorted by worth, largest first."""
    rows = []
    for option, run in runs:
        check_paired(baseline, run)
        p = worth_partial(baseline)
        df = run_all(run, [p], mapper)[p]
        by = {r["what"]: r for r in df.iter_rows(named=True)}
        c = by.get("change")
        if c is None:
            continue
        rows.append(
            {
                "option": option,
                "strategy": restricted_label(run),
                "games": c["n"],
                "restricted": by["restricted"]["mean"],
                "restricted_lo": by["restricted"]["lo"],
                "restricted_hi": by["restricted"]["hi"],
                "baseline": by["baseline"]["mean"],
                "change": c["mean"],
                "lo": c["lo"],
                "hi": c["hi"],
                "se": c["se"],
                "worth": -c["mean"],
                "reading": reading(c["mean"], c["lo"], c["hi"]),
            }
        )
    schema = {
        "option": pl.String,
        "strategy": pl.String,
        "games": pl.Int64,
        "restricted": pl.Float64,
        "restricted_lo": pl.Float64,
        "restricted_hi": pl.Float64,
        "baseline": pl.Float64,
        "change": pl.Float64,
        "lo": pl.Float64,
        "hi": pl.Float64,
        "se": pl.Float64,
        "worth": pl.Float64,
        "reading": pl.String,
    }
    table = pl.DataFrame(rows, schema=schema, orient="row")
    use = option_use(baseline, game, [o for o, _ in runs], mapper)
    if use is not None:
        table = table.join(use, on="option", how="left")
    return table.sort("worth", descending=True, nulls_last=True)


def change_text(row: dict) -> str:
    """``-3.10 pp [-4.02, -2.18]``: a row's change and interval in percentage points."""
    if row["change"] is None:
        return "n/a"
    if not _known(row["lo"]) or not _known(row["hi"]):
        return f"{row['change'] * 100:+.2f} pp [n/a]"
    return f"{row['change'] * 100:+.2f} pp [{row['lo'] * 100:+.2f}, {row['hi'] * 100:+.2f}]"


def _known(x) -> bool:
    return x is not None and x == x


def forest(table: pl.DataFrame) -> bytes:
    """Each option's paired change in win share (percentage points) with its 95% interval,
    the most valuable option (largest loss) at the top; red where the interval is below 0."""
    d = table.filter(pl.col("change").is_not_null()).sort("change", descending=True)
    names = d["option"].to_list()
    x = d["change"].to_numpy() * 100
    lo = d["lo"].fill_null(np.nan).to_numpy() * 100
    hi = d["hi"].fill_null(np.nan).to_numpy() * 100
    # red: a measurable worth; teal: the bot does better without it; grey: neither (or unknown)
    colors = np.where(hi < 0, plots.ACCENT, np.where(lo > 0, plots.COLOR, "grey")).tolist()
    lo, hi = np.where(np.isnan(lo), x, lo), np.where(np.isnan(hi), x, hi)
    err = [np.maximum(x - lo, 0), np.maximum(hi - x, 0)]
    fig, ax = plots.subplots(figsize=(7, max(2.4, 0.28 * len(names) + 1.2)))
    ax.errorbar(x, names, xerr=err, fmt="none", ecolor="black", capsize=3, zorder=1)
    ax.scatter(x, names, color=colors, zorder=2, s=28)
    ax.axvline(0, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xlabel("change in the restricted bot's win share, percentage points (95% interval)")
    ax.set_title("Restricted play: win share without each option")
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(axis="x", alpha=0.3)
    return plots.png(fig)


def config_rows(baseline: RunData, strategy: str, options: Sequence[str]) -> pl.DataFrame:
    """The study's configuration as (setting, value) rows, for the report's first screen."""
    c = baseline.config
    rules = ", ".join(f"{k}={v}" for k, v in c["params"].items())
    rows = [
        ("game", baseline.title),
        ("data", baseline.manifest.get("data", {}).get("description", "")),
        ("rules", rules),
        ("strategy", f"{strategy} in every seat; position 0 restricted in each option's run"),
        ("players", str(c["n_players"])),
        ("games per run", f"{c['games']:,} (seats rotated)" if c["rotate"] else f"{c['games']:,}"),
        ("seed", str(c["seed"])),
        ("options", f"{len(options)} of the game's options"),
    ]
    return pl.DataFrame(rows, schema=["setting", "value"], orient="row")


def sections(
    baseline: RunData, table: pl.DataFrame, strategy: str, options: Sequence[str]
) -> list[Section]:
    """The report: configuration, the options ranked by worth (table and forest plot), and
    what the numbers mean."""
    n_players = baseline.n_players
    strong = table.filter(pl.col("hi") < 0)
    harmful = table.filter(pl.col("lo") > 0)
    top = strong.row(0, named=True) if strong.height else None
    summary = (
        f"{strong.height} of {table.height} options have a measurable worth (forbidding them "
        "costs the bot win share, the interval excluding 0)"
        + (f"; the most valuable is {top['option']} ({top['reading']})" if top else "")
        + (
            f"; {harmful.height} make{'s' if harmful.height == 1 else ''} the bot stronger "
            "when forbidden"
            if harmful.height
            else ""
        )
        + "."
    )
    columns = {
        "option": "str",
        "games": "int",
        "restricted": "pct",
        "baseline": "pct",
        "change_ci": "str",
        "reading": "str",
    }
    shown = table.with_columns(
        change_ci=pl.Series([change_text(r) for r in table.iter_rows(named=True)], dtype=pl.String)
    )
    if "used" in table.columns:
        columns["used"] = "pct"
        columns["uses_per_game"] = "float"
    out = [
        Section(
            "Configuration",
            "What was played: one baseline run and one restricted run per option, all on the "
            "same games (same seed, same deals and random streams: paired).",
            config_rows(baseline, strategy, options),
            {"setting": "str", "value": "str"},
            key="configuration",
        ),
        Section(
            "What each option is worth",
            f"{summary} Each row: the restricted bot's win share (position 0, playing "
            f"{strategy} but never an action using the option unless nothing else is legal), "
            f"the same position's win share in the baseline on the same games (fair share "
            f"{1 / n_players:.2%}), and the paired change with its 95% interval (each game one "
            "observation, the rotated games of a deal one cluster). A negative change is the "
            "option's worth; an interval holding 0 means no measurable worth at this many games."
            + (
                " 'used': share of the baseline's games in which its position 0 used the option "
                "(blank where the logs do not tell)."
                if "used" in table.columns
                else ""
            ),
            shown,
            columns,
            forest(table) if table.height else None,
            key="worth",
        ),
        Section(
            "How to read it",
            "Restricted play (Jaffe et al. 2012) measures an option by forbidding it to one "
            "player. An option whose loss costs much win share is one good play relies on; one "
            "that costs nothing is redundant or rarely decisive for this bot; one whose loss "
            "helps is one the bot misuses. The figures describe this bot, not perfect play: a "
            "weak bot may undervalue an option a strong player would use. Intervals shrink as "
            "1/sqrt(games): four times the games halve them.",
            key="reading",
        ),
    ]
    return out
