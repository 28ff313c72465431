"""The report of a run: one self-contained HTML page with plots, and a Markdown summary.

A report is a list of :class:`~reports.section.Section` s: the common ones (seats, strategies,
balance, shared wins, length, convergence), the game's own (its
:class:`~reports.game.GameReport`'s sections, named by the game's spec) and one per paired
variant. Every number comes from
an analysis function in ``reports/``; notebooks call the same functions. This module only reads:
the CLI opens the run and its variants, plays missing variants with ``simulate``, and writes
the page this module renders.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Sequence

import numpy as np
import polars as pl

from reports import common, compare, plots, ratings
from reports import robustness as robust
from reports.aggregate import Mapper, prefetch
from reports.game import GameReport
from reports.measure import features_partial, measure_run
from reports.metrics import Estimate, Ref
from reports.section import Section, ci_text, rows_of
from reports.source import RunData
from reports.stats import p_text, with_wilson


def widest_half_width(conv: pl.DataFrame) -> float:
    """The widest seat interval's half-width with all games (NaN when not measurable)."""
    last = conv.filter(pl.col("games") == conv["games"].max())["half_width"].max()
    return float("nan") if last is None else float(last)


def length_table(length: pl.DataFrame, most: int = 25) -> pl.DataFrame:
    """The game-length distribution, in ranges of rounds when it has many values."""
    if length.height <= most:
        return length.with_columns(pl.col("rounds").cast(pl.String))
    lo, hi = int(length["rounds"].min()), int(length["rounds"].max())
    width = -(-(hi - lo + 1) // most)
    start = (pl.col("rounds").cast(pl.Int64) - lo) // width * width + lo
    binned = (
        length.with_columns(start=start)
        .group_by("start")
        .agg(games=pl.col("games").sum(), total=pl.col("total").first())
        .sort("start")
        .with_columns(rounds=pl.format("{}-{}", "start", pl.col("start") + width - 1))
    )
    binned = with_wilson(binned, "games", "total", "share")
    return binned.select("rounds", "games", "share", "lo", "hi")


HEADLINE_INTRO = (
    "The headline figures of this run, each with its 95% interval and sample size, and "
    "the bots (tier) each holds for; the sections below give the details and definitions. "
    "The metric names are those `dinolab compare`, `sweep` and `search` use (`dinolab "
    "games GAME` lists them)."
)
"""The glance table's opening words (a sentence on stronger bots may follow)."""
FIRST_MOVER_ROWS = {
    "first_share": "first_share: win share of the player who moved first",
    "seat_share[0]": "seat_share[0]: seat 0's win share (first seat)",
}
"""The first-mover metric the glance table shows, in order of preference, and its label."""
P_SIGNIFICANT = 0.05
"""The p-value below which the glance table's note calls the seats different."""

Row = tuple[str, str, str]
"""A glance-table row: measure, value, note."""


def headline(
    run: RunData,
    precision: float | None = None,
    game: GameReport | None = None,
    stronger: tuple[robust.Verdict, str] | None = None,
) -> Section:
    """The first table of every report: the balance answers, each with its interval and n.

    Its figures are the declared metrics (:mod:`reports.metrics`, as ``compare``, sweeps and
    searches measure them): the shared headline ones and the game's own game-by-game ones.
    Each row names the bots it holds for (its *tier*). ``stronger``: the first mover's verdict
    with stronger bots (:func:`reports.robustness.conclusions`) and their label, shown beside
    the run's figure, and before it when the stronger bots change the answer."""
    refs = compare.headline_refs([run], game)
    est = measure_run(run, refs)
    n = run.games_logged
    widest = widest_half_width(common.convergence(run))
    rows = _balance_rows(run)
    first_at = len(rows)
    rows.append(_first_mover_row(run, est))
    rows += _outcome_rows(est, n)
    rows += _game_metric_rows(refs, est)
    rows += _precision_rows(widest, n, precision)
    rows, lead = with_tiers(rows, robust.bot_label(run), first_at, stronger)
    table = pl.DataFrame(rows, schema=["measure", "value", "tier", "note"], orient="row")
    return Section(
        "Balance at a glance",
        HEADLINE_INTRO + lead,
        table,
        {"measure": "str", "value": "str", "tier": "str", "note": "str"},
        key="headline",
    )


def _balance_rows(run: RunData) -> list[Row]:
    """The game count, the seat balance and the test of equal seats."""
    bal = common.seat_balance(run)
    return [
        ("games logged", f"{run.games_logged:,}", ""),
        (
            "balance (1 - largest gap between seats)",
            f"{bal['balance']:.3f} [{bal['lo']:.3f}, {bal['hi']:.3f}]",
            f"seats {bal['best_seat']} and {bal['worst_seat']}; noise alone gives a gap of "
            f"about {bal['noise_gap'] * 100:.2f} pp",
        ),
        (
            "seats equal? (Wald test)",
            f"chi2 {bal['chi2']:.1f}, {bal['df']} df, {p_text(bal['p_value'])}",
            f"p below {P_SIGNIFICANT} would mean the seats differ beyond sampling noise",
        ),
    ]


def _first_mover_row(run: RunData, est: dict[str, Estimate]) -> Row:
    """The first mover's win share (seat 0's where the game has no first mover)."""
    name = next(m for m in FIRST_MOVER_ROWS if m in est)
    return (FIRST_MOVER_ROWS[name], pct_ci(est[name]), f"fair share {1 / run.n_players:.2%}")


def _outcome_rows(est: dict[str, Estimate], n: int) -> list[Row]:
    """Shared victories, games stopped by the turn cap (where measured) and game length."""
    shared = est["shared"]
    rows = [
        (
            "shared: games ending in a shared victory",
            pct_ci(shared, 3),
            f"{round(shared.value * n):,} games",
        )
    ]
    if "capped" in est:
        capped = est["capped"]
        rows.append(
            (
                "capped: games stopped by the turn cap",
                pct_ci(capped, 3),
                f"{round(capped.value * n):,} games, reported apart, never scored as a normal end",
            )
        )
    rows.append(("length: mean rounds per game", num_ci(est["length"]), ""))
    return rows


def _game_metric_rows(refs: Sequence[Ref], est: dict[str, Estimate]) -> list[Row]:
    """The game's own game-by-game metrics (the shared headline ones have their rows)."""
    return [
        (
            f"{r.name}: {r.metric.meaning}",
            pct_ci(est[r.name]) if "share" in r.metric.unit else num_ci(est[r.name]),
            r.metric.unit,
        )
        for r in refs
        if r.metric.name not in compare.HEADLINE
    ]


def _precision_rows(widest: float, n: int, precision: float | None) -> list[Row]:
    """The widest seat interval, and the games a wanted ``precision`` needs."""
    rows = [("widest seat interval (95%)", f"±{widest * 100:.2f} pp", "shrinks as 1/sqrt(games)")]
    if precision:
        need = common.games_needed(widest, n, precision)
        more = max(0, need - n)
        rows.append(
            (
                f"games for ±{precision * 100:.2f} pp",
                f"about {need:,}",
                f"play about {more:,} more games" if more else "already reached",
            )
        )
    return rows


def with_tiers(
    rows: list[tuple[str, str, str]],
    tier: str,
    first_at: int,
    stronger: tuple[robust.Verdict, str] | None,
) -> tuple[list[tuple[str, str, str, str]], str]:
    """The glance table's rows with the bots each figure holds for (``tier``; none for the
    game count), and the stronger bots' first-mover row beside the run's (row ``first_at``):
    before it, with a sentence that says so, when they change the answer."""
    out = [(m, v, tier if k else "", note) for k, (m, v, note) in enumerate(rows)]
    if stronger is None:
        return out, ""
    verdict, bots = stronger
    name = out[first_at][0].split(":")[0]
    row = (f"{name} with stronger bots (the run's first games)", verdict.stronger, bots)
    changes = verdict.state == robust.CHANGES
    out.insert(first_at if changes else first_at + 1, (*row, verdict.verdict))
    if not changes:
        return out, ""
    return out, (
        f" Stronger bots ({bots}) change who is favoured, so their figure leads; the run's own "
        f"figure below it describes {tier} play."
    )


def pct_ci(e: Estimate, digits: int = 2) -> str:
    """An estimate and its interval in per cent."""
    return f"{e.value:.{digits}%} [{e.lo:.{digits}%}, {e.hi:.{digits}%}]"


def num_ci(e: Estimate) -> str:
    return f"{e.value:.3f} [{e.lo:.3f}, {e.hi:.3f}]"


LENGTH_QUANTILES = (0.5, 0.9)
"""The game-length section's median and the share of games its 'within' figure covers."""
CONVERGENCE_TARGETS = (0.01, 0.005, 0.001)
"""Seat-interval half-widths the convergence section says the games needed for."""


def common_sections(
    run: RunData,
    precision: float | None = None,
    game: GameReport | None = None,
    stronger: tuple[robust.Verdict, str] | None = None,
) -> list[Section]:
    """The sections every game's report has (after the game's own come the variants)."""
    return [
        headline(run, precision, game, stronger),
        seat_section(run),
        *strategy_sections(run),
        shared_section(run),
        length_section(run),
        convergence_section(run),
    ]


def seat_section(run: RunData) -> Section:
    """Win share by seat, the balance with its interval and the test of equal seats."""
    seats = common.seat_win_share(run)
    bal = common.seat_balance(run)
    fair = 1 / run.n_players
    worst = seats.sort("diff").row(0, named=True)
    clustered = " clustered by deal (seats were rotated)" if run.config["rotate"] else ""
    best = seats.sort("diff", descending=True).row(0, named=True)
    return Section(
        "Seat advantage",
        f"Win share by seat (1 for an outright win, 1/k for a k-way shared win), with "
        f"95% intervals{clustered}. "
        f"A fair seat wins {fair:.2%}. Seat {best['seat']} does best ({ci_text(best)}), seat "
        f"{worst['seat']} worst ({ci_text(worst)}). Balance (1 minus the largest gap between "
        f"seats, Ludii's measure): {bal['balance']:.3f} [{bal['lo']:.3f}, {bal['hi']:.3f}] "
        f"(delta method). Even with equal seats sampling noise opens a gap of about "
        f"{bal['noise_gap'] * 100:.2f} percentage points, so the balance measured on few games "
        f"is biased low by about that much. Test of equal seats: chi-square "
        f"{bal['chi2']:.1f} on {bal['df']} degrees of freedom, {p_text(bal['p_value'])}.",
        seats.with_columns(pl.col("seat").cast(pl.String)),
        {"seat": "str", "n": "int", "mean": "pct_ci", "diff": "pp"},
        plots.bars_with_ci(
            [f"seat {s}" for s in seats["seat"]],
            seats,
            title="Win share by seat",
            ylabel="win share, %",
            reference=fair,
        ),
        key="seats",
    )


def strategy_sections(run: RunData) -> list[Section]:
    """Win share by bot and the bots' ratings, where the run played more than one bot."""
    strategies = common.strategy_win_share(run)
    if strategies.height <= 1:
        return []
    top = strategies.row(0, named=True)
    rotation = (
        " (seats rotated, so every bot met every seat on the same deals)"
        if run.config["rotate"]
        else " (seats not rotated: seat effects are mixed in; use --rotate)"
    )
    shares = Section(
        "Strategies",
        "Win share of each bot over every seat it played"
        + rotation
        + f". 'relative' is win share times the number of players (1 = a fair share). "
        f"Strongest: {top['strategy']} at {ci_text(top)}.",
        strategies,
        {"strategy": "str", "n": "int", "mean": "pct_ci", "relative": "float"},
        plots.bars_with_ci(
            strategies["strategy"].to_list(),
            strategies,
            title="Win share by strategy",
            ylabel="win share, %",
            reference=1 / run.n_players,
        ),
        key="strategies",
    )
    return [shares, rating_section([run])]


def shared_section(run: RunData) -> Section:
    """How many games ended with how many winners."""
    shared = common.shared_wins(run)
    share_shared = float(shared.filter(pl.col("n_winners") > 1)["share"].sum())
    return Section(
        "Shared victories",
        f"{share_shared:.3%} of games ended in a shared victory (every tie-break equal).",
        shared,
        {"n_winners": "int", "games": "int", "share": "pct_ci"},
        key="shared",
    )


def length_section(run: RunData) -> Section:
    """The distribution of rounds per game, with its mean and quantiles."""
    length = common.game_length(run)
    cumulative = length["share"].cum_sum().to_numpy()
    median, within = (
        int(length["rounds"][int(np.searchsorted(cumulative, q))]) for q in LENGTH_QUANTILES
    )
    return Section(
        "Game length",
        f"Rounds per game: mean {float((length['rounds'] * length['share']).sum()):.2f}, "
        f"median {median}, {LENGTH_QUANTILES[1]:.0%} of games within {within}.",
        length_table(length),
        {"rounds": "str", "games": "int", "share": "pct_ci"},
        plots.histogram(
            length["rounds"].to_list(),
            length["games"].to_list(),
            title="Game length",
            xlabel="rounds",
        ),
        key="length",
    )


def convergence_section(run: RunData) -> Section:
    """How seat 0's interval narrows with the games, and the games each target width needs."""
    conv = common.convergence(run)
    half = widest_half_width(conv)
    text = (
        f"Seat win shares estimated from the first n games. With all {run.games_logged:,} "
        f"games the widest 95% interval is ±{half * 100:.2f} percentage points; it narrows as "
        f"1/sqrt(games) (4x the games halves it)."
        if half == half
        else "Too few games to measure how the intervals narrow."
    )
    for target in CONVERGENCE_TARGETS:
        need = common.games_needed(half, run.games_logged, target)
        text += f" ±{target * 100:g} pp needs about {need:,} games."
    return Section(
        "Convergence",
        text,
        conv.filter(pl.col("seat") == 0).with_columns(pl.col("seat").cast(pl.String)),
        {"games": "int", "mean": "pct_ci", "half_width": "pct"},
        plots.convergence(conv, fair=1 / run.n_players),
        key="convergence",
    )


def rating_section(runs: Sequence[RunData], mapper: Mapper | None = None) -> Section:
    """The strategies of ``runs`` on one rating scale, with a forest plot."""
    table = ratings.rate(runs, mapper)
    n_games = sum(r.games_logged for r in runs)
    return Section(
        "Strategy ratings",
        f"Every strategy on one scale from {n_games:,} games: a Plackett-Luce model of who "
        "wins, fitted by maximum likelihood, with cluster-robust 95% intervals (see "
        "reports/ratings.py). 'theta' is the log-strength (mean 0), 'elo' the same on the Elo "
        "scale, 'vs field' the expected win share of one seat against average opponents.",
        table.with_columns(
            elo_ci=pl.format(
                "{} [{}, {}]",
                *(pl.col(c).round(0).cast(pl.Int64) for c in ("elo", "elo_lo", "elo_hi")),
            ),
            mean=pl.col("win_share_vs_field"),
            lo=pl.col("share_lo"),
            hi=pl.col("share_hi"),
        ),
        {"strategy": "str", "games": "int", "theta": "float", "elo_ci": "str", "mean": "pct_ci"},
        plots.forest(
            table,
            title="Strategy ratings (95% intervals)",
            xlabel="Elo",
            value="elo",
            lo="elo_lo",
            hi="elo_hi",
        ),
        key="ratings",
    )


def decisiveness_section(run: RunData, progress) -> Section:
    """When the final winner's lead began, for games won outright."""
    df = common.decisiveness(run, progress)
    games = int(df["games"].sum())
    first = int(df.filter(pl.col("led_from") == df["led_from"].min())["games"].sum())
    late = float(df.filter(pl.col("decided_at") >= 0.9)["games"].sum())
    by_round = df.group_by("led_from").agg(games=pl.col("games").sum()).sort("led_from")
    by_round = with_wilson(by_round.with_columns(total=pl.lit(games)), "games", "total", "share")
    return Section(
        "Decisiveness: when the winner took the lead for good",
        f"Of {games:,} games won outright, {first / games:.1%} were led by the final winner "
        f"from the first round; in {late / games:.1%} the final lead began in the last tenth of "
        f"the game. A game decided late is one whose result stayed open.",
        by_round,
        {"led_from": "int", "games": "int", "share": "pct_ci"},
        plots.lead_histogram(df),
        key="decisiveness",
    )


def variant_sections(run: RunData, variants: Sequence[tuple[RunData, str]]) -> list[Section]:
    """One section per paired variant (``variants``: each variant's run and what it measures)."""
    sections = []
    for variant, note in variants:
        if not variant.games_logged:
            continue
        changes = compare.changed_rules(run, variant)
        label = ", ".join(f"{k}={json.dumps(b)}" for k, (_, b) in changes.items())
        seats = compare.paired_by(run, variant, "seat")
        moved = compare.share_moved(seats)
        text = (
            f"The same {variant.games_logged:,} games (same deals and dice) with {label}. "
            f"The rule change moves {moved * 100:.2f} percentage points of win share between "
            f"seats; each row's change is a paired difference with its 95% interval."
        )
        if note:
            text += " " + note
        key = "variant-" + ",".join(f"{k}={json.dumps(b)}" for k, (_, b) in changes.items())
        sections.append(
            Section(
                f"Rule variant: {label} (paired)",
                text,
                seats.with_columns(pl.col("seat").cast(pl.String)),
                {"seat": "str", "base": "pct", "variant": "pct", "mean": "pct_ci"},
                key=key,
            )
        )
        strategies = compare.paired_by(run, variant, "strategy")
        if strategies.height > 1:
            sections.append(
                Section(
                    f"Rule variant: {label}, by strategy",
                    "",
                    strategies,
                    {"strategy": "str", "base": "pct", "variant": "pct", "mean": "pct_ci"},
                    key=f"{key}-strategies",
                )
            )
    return sections


def build_sections(
    run: RunData,
    game: GameReport | None = None,
    variants: Sequence[tuple[RunData, str]] = (),
    precision: float | None = None,
    stronger: tuple[robust.Verdict, str] | None = None,
) -> list[Section]:
    """Every section of the run's report, in order: common, the game's own, variants."""
    sections = common_sections(run, precision, game, stronger)
    if logs_some_tables(run):
        game = None
        sections.append(
            Section(
                "Analyses left out",
                f"This run logged only the tables {', '.join(run.manifest['tables'])} "
                "(--tables): the game's own analyses need its other tables and are left out. "
                "Play the run with every table for them.",
                key="left-out",
            )
        )
    if game is not None and game.progress is not None:
        sections.append(decisiveness_section(run, game.progress))
    own = game.sections(run) if game is not None else []
    return sections + own + variant_sections(run, variants)


def logs_some_tables(run: RunData) -> bool:
    """The run logged only some of its game's tables (``--tables``)."""
    return run.config.get("tables") is not None


def _header(run: RunData, title: str | None = None, config: str | None = None) -> dict[str, str]:
    c, m = run.config, run.manifest
    params = ", ".join(f"{k}={json.dumps(v)}" for k, v in c["params"].items())
    return {
        "title": title or f"{run.title}: {c['n_players']} players, {run.games_logged:,} games",
        "data": m["data"]["description"],
        "lineup": ", ".join(c["strategies"]) + (" (rotated)" if c["rotate"] else ""),
        "config": config or f"seed {c['seed']}; {params}",
        "tool": ", ".join(f"{k} {v}" for k, v in m["versions"].items() if k != "platform"),
        "status": ""
        if run.complete
        else (
            f"INCOMPLETE RUN: {run.games_logged:,} of {c['games']:,} games logged; "
            "finish it with dinolab simulate ... --resume"
        ),
    }


CSS = """
body{font-family:system-ui,sans-serif;max-width:1000px;margin:2em auto;color:#222;line-height:1.45}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.85em;margin:.6em 0}
td,th{border:1px solid #ddd;padding:.25em .6em;text-align:right}th{background:#f3f5f6}
td:first-child,th:first-child{text-align:left}
.warn{background:#fff3cd;padding:.6em;border:1px solid #e0c36a}
.meta{color:#555;font-size:.9em}img{max-width:100%}
"""


def render_html(
    run: RunData, sections: list[Section], title: str | None = None, config: str | None = None
) -> str:
    """The report as one self-contained HTML page (plots embedded as PNG); ``config``
    replaces the run's configuration line (a study's report describes the study)."""
    h = _header(run, title, config)
    e = html.escape
    out = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>{e(h['title'])}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<h1>{e(h['title'])}</h1>",
    ]
    if h["status"]:
        out.append(f"<p class='warn'>{e(h['status'])}</p>")
    cls = " class='warn'" if "PROVISIONAL" in h["data"] else ""
    out.append(f"<p{cls}><b>Data:</b> {e(h['data'])}</p>")
    out.append(
        f"<p class='meta'><b>Bots:</b> {e(h['lineup'])}<br><b>Configuration:</b> "
        f"{e(h['config'])}<br><b>Made with:</b> {e(h['tool'])}</p>"
    )
    for s in sections:
        out.append(f"<h2 id='{s.key}'>{e(s.title)}</h2>")
        if s.text:
            out.append(f"<p>{e(s.text)}</p>")
        if s.figure:
            b64 = base64.b64encode(s.figure).decode()
            out.append(f"<img alt='{e(s.title)}' src='data:image/png;base64,{b64}'>")
        if s.table is not None:
            header, rows = rows_of(s)
            out.append("<table><tr>" + "".join(f"<th>{e(c)}</th>" for c in header) + "</tr>")
            for r in rows:
                out.append("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>")
            out.append("</table>")
    out.append("</body></html>")
    return "\n".join(out)


def render_markdown(
    run: RunData, sections: list[Section], title: str | None = None, config: str | None = None
) -> str:
    """The report's tables and text as Markdown (plots are in the HTML page)."""
    h = _header(run, title, config)
    out = [f"# {h['title']}", ""]
    if h["status"]:
        out += [f"**{h['status']}**", ""]
    out += [
        f"- Data: {h['data']}",
        f"- Bots: {h['lineup']}",
        f"- Configuration: {h['config']}",
        f"- Made with: {h['tool']}",
        "",
        "Plots are in report.html.",
        "",
    ]
    for s in sections:
        out += [f"## {s.title}", ""]
        if s.text:
            out += [s.text, ""]
        if s.table is not None:
            header, rows = rows_of(s)
            out.append("| " + " | ".join(header) + " |")
            out.append("|" + "---|" * len(header))
            out += ["| " + " | ".join(r) + " |" for r in rows]
            out.append("")
    return "\n".join(out)


def report(
    run: RunData,
    game: GameReport | None = None,
    variants: Sequence[tuple[RunData, str]] = (),
    mapper: Mapper | None = None,
    precision: float | None = None,
    robustness: tuple[RunData | None, str] | None = None,
) -> tuple[str, str]:
    """The run's report as (HTML, Markdown) text.

    ``game`` is the game's report: its sections, the analyses they read and its decisiveness
    progress. Every partial of the common and the game's
    sections is computed in one pass over the run's chunks before the sections are built.
    ``robustness``: the run's companion with stronger bots (``simulate.robustness``) or
    ``None`` and why not, for the section :mod:`reports.robustness` writes; ``None``: no
    such section.
    """
    wanted = common.partials(run)
    if len(set(run.config["strategies"])) > 1:
        wanted += [ratings.COMPOSITIONS, ratings.CLUSTERS]
    feats = [f for r in compare.headline_refs([run], game) for f in r.features]
    wanted.append(features_partial(feats))
    own = game is not None and not logs_some_tables(run)
    if own:
        wanted += game.partials(run)
        if game.progress is not None:
            wanted.append(common.decisiveness_partial(game.progress))
    checked = robustness is not None and robustness[0] is not None
    if checked:
        wanted.append(robust.partial(run, game))
    run = prefetch(run, wanted, mapper)
    verdicts = None
    stronger = None
    if checked:
        verdicts = robust.conclusions(run, robustness[0], game, mapper)
        stronger = (verdicts[0], robust.bot_label(robustness[0]))
    sections = build_sections(run, game, variants, precision, stronger)
    if robustness is not None:
        companion, why_not = robustness
        sections.append(robust.section(run, game, companion, why_not, mapper, verdicts))
    return render_html(run, sections), render_markdown(run, sections)


def comparison_page(
    runs: Sequence[RunData], names: Sequence[str], table: pl.DataFrame
) -> tuple[str, str]:
    """Several runs' headline figures side by side, as (HTML, Markdown)."""
    base = runs[0]
    intro = [
        f"run {k}: {names[k]} ({r.games_logged:,} games) "
        + ("is the base" if k == 0 else "differs: " + compare.describe_differences(base, r))
        for k, r in enumerate(runs)
    ]
    shown = table.with_columns(
        value_ci=pl.format("{} [{}, {}]", *(pl.col(c).round(4) for c in ("value", "lo", "hi"))),
        diff_ci=pl.when(pl.col("diff").is_not_null()).then(
            pl.format("{} [{}, {}]", *(pl.col(c).round(4) for c in ("diff", "diff_lo", "diff_hi")))
        ),
    )
    section = Section(
        "Headline figures",
        " ".join(f"{line}." for line in intro)
        + " Each difference is against run 0, with its 95% interval: paired game by game when "
        "the runs share their seeds, else from the two runs' standard errors.",
        shown,
        {"run": "int", "figure": "str", "value_ci": "str", "diff_ci": "str", "test": "str"},
        plots.comparison(table),
        key="compare",
    )
    title = f"Comparison of {len(runs)} {base.title} runs (the base run's configuration below)"
    return render_html(base, [section], title), render_markdown(base, [section], title)
