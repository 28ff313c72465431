"""``dinolab report RUN``: one self-contained HTML file with plots, and a Markdown summary.

The report is a list of :class:`Section` s: the common ones (seats, strategies, balance, shared
wins, length, convergence) and the game's own (see ``GAME_SECTIONS``). Every number comes
from an analysis function in ``reports/``; notebooks call the same functions.
"""

from __future__ import annotations

import base64
import dataclasses
import html
import json
from collections.abc import Callable
from pathlib import Path

import polars as pl

from reports import common, compare, evo, plots
from reports import dino_kontra_dino as dkd
from reports.load import Run


@dataclasses.dataclass
class Section:
    title: str
    text: str
    table: pl.DataFrame | None = None
    columns: dict[str, str] = dataclasses.field(default_factory=dict)
    """Columns to show: name -> format ('pct', 'pct_ci', 'int', 'float', 'str')."""
    figure: bytes | None = None
    key: str = ""
    """A short id for tests and links."""


def fmt(value, kind: str) -> str:
    if value is None:
        return ""
    if kind == "pct":
        return f"{value:.2%}"
    if kind == "pp":
        return f"{value * 100:+.2f} pp"
    if kind == "int":
        return f"{int(value):,}"
    if kind == "float":
        return f"{value:.3f}"
    return str(value)


def _ci(row: dict, kind: str = "pct") -> str:
    return f"{fmt(row['mean'], kind)} [{fmt(row['lo'], kind)}, {fmt(row['hi'], kind)}]"


def rows_of(section: Section) -> tuple[list[str], list[list[str]]]:
    """Header and formatted rows of a section's table."""
    assert section.table is not None
    header = list(section.columns)
    out = []
    for r in section.table.iter_rows(named=True):
        cells = []
        for name, kind in section.columns.items():
            if kind == "pct_ci":
                cells.append(
                    f"{fmt(r[name], 'pct')} [{fmt(r['lo'], 'pct')}, {fmt(r['hi'], 'pct')}]"
                )
            else:
                cells.append(fmt(r[name], kind))
        out.append(cells)
    return header, out


def common_sections(run: Run) -> list[Section]:
    seats = common.seat_win_share(run)
    bal = common.balance(seats)
    fair = 1 / run.n_players
    worst = seats.sort("diff").row(0, named=True)
    clustered = " clustered by deal (seats were rotated)" if run.config["rotate"] else ""
    best = seats.sort("diff", descending=True).row(0, named=True)
    sections = [
        Section(
            "Seat advantage",
            f"Win share by seat (1 for an outright win, 1/k for a k-way shared win), with "
            f"95% intervals{clustered}. "
            f"A fair seat wins {fair:.2%}. Seat {best['seat']} does best ({_ci(best)}), seat "
            f"{worst['seat']} worst ({_ci(worst)}). Balance (1 minus the largest gap between "
            f"seats, Ludii's measure): {bal:.3f}.",
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
    ]
    strategies = common.strategy_win_share(run)
    if strategies.height > 1:
        top = strategies.row(0, named=True)
        sections.append(
            Section(
                "Strategies",
                "Win share of each bot over every seat it played"
                + (
                    " (seats rotated, so every bot met every seat on the same deals)"
                    if run.config["rotate"]
                    else " (seats not rotated: seat effects are mixed in; use --rotate)"
                )
                + f". 'relative' is win share times the number of players (1 = a fair share). "
                f"Strongest: {top['strategy']} at {_ci(top)}.",
                strategies,
                {"strategy": "str", "n": "int", "mean": "pct_ci", "relative": "float"},
                plots.bars_with_ci(
                    strategies["strategy"].to_list(),
                    strategies,
                    title="Win share by strategy",
                    ylabel="win share, %",
                    reference=fair,
                ),
                key="strategies",
            )
        )
    shared = common.shared_wins(run)
    share_shared = float(shared.filter(pl.col("n_winners") > 1)["share"].sum())
    sections.append(
        Section(
            "Shared victories",
            f"{share_shared:.3%} of games ended in a shared victory (every tie-break equal).",
            shared,
            {"n_winners": "int", "games": "int", "share": "pct_ci"},
            key="shared",
        )
    )
    length = common.game_length(run)
    sections.append(
        Section(
            "Game length",
            f"Rounds per game: mean {float((length['rounds'] * length['share']).sum()):.2f}.",
            length,
            {"rounds": "int", "games": "int", "share": "pct"},
            plots.histogram(
                length["rounds"].to_list(),
                length["games"].to_list(),
                title="Game length",
                xlabel="rounds",
            ),
            key="length",
        )
    )
    conv = common.convergence(run)
    last = conv.filter(pl.col("games") == conv["games"].max())
    half = float(last["half_width"].max())
    sections.append(
        Section(
            "Convergence",
            f"Seat win shares estimated from the first n games. With all "
            f"{run.games_logged:,} games the widest 95% interval is ±{half * 100:.2f} "
            f"percentage points; it narrows as 1/sqrt(games) (4x the games halves it).",
            conv.filter(pl.col("seat") == 0).with_columns(pl.col("seat").cast(pl.String)),
            {"games": "int", "mean": "pct_ci", "half_width": "pct"},
            plots.convergence(conv, fair=fair),
            key="convergence",
        )
    )
    return sections


def dkd_sections(run: Run) -> list[Section]:
    rounds = dkd.figure_rounds(run)
    moved = float(rounds["events_moved_per_game"][0])
    tied = rounds.row(1, named=True)["share"] + rounds.row(2, named=True)["share"]
    value = dkd.figure_value(run)
    hold, other = value.row(0, named=True), value.row(1, named=True)
    first = dkd.first_holder_value(run)
    cards = dkd.card_strength(run)
    strongest, weakest = (
        cards.row(0, named=True),
        cards.filter(pl.col("played") > 0).row(-1, named=True),
    )
    events = dkd.event_difficulty(run)
    shown_first = first.with_columns(pl.col("started_with_figure").cast(pl.String))
    return [
        Section(
            "The dinosaur figure: how often it decides",
            f"{tied:.2%} of rounds had a tie at the top strength, so the figure rule picked the "
            f"winner. Against ties broken at random, the rule moves {moved:.3f} events per game "
            f"to the tied player nearest the figure.",
            rounds,
            {"rounds": "str", "count": "int", "share": "pct_ci"},
            plots.stacked_shares(
                ["outright", "tie, holder kept", "tie, clockwise"],
                [rounds.row(i, named=True)["share"] for i in range(3)],
                title="How rounds are decided",
            ),
            key="figure",
        ),
        Section(
            "The dinosaur figure: what holding it is worth",
            f"Seats holding the figure won {hold['win_rate']:.2%} of rounds "
            f"[{hold['lo']:.2%}, {hold['hi']:.2%}], the others {other['win_rate']:.2%} "
            f"[{other['lo']:.2%}, {other['hi']:.2%}] (a fair share is "
            f"{1 / run.n_players:.2%}). The holder won the previous round, so part of the gap is "
            f"its stronger hand. Win share of the seat that started with the figure against the "
            f"rest is in the second table"
            + (
                " (the figure always started at seat 0, so this is also seat 0's advantage; "
                "--set first_holder=-1 separates them)."
                if run.config["params"].get("first_holder", 0) >= 0
                else "."
            ),
            value,
            {"seat-rounds": "str", "rounds": "int", "win_rate": "pct_ci"},
            key="figure_value",
        ),
        Section(
            "Win share of the first figure holder",
            "",
            shown_first,
            {"started_with_figure": "str", "n": "int", "mean": "pct_ci"},
            key="first_holder",
        ),
        Section(
            "Card strength",
            f"Every dinosaur by the share of rounds it won when played. Strongest: "
            f"{strongest['name']} #{strongest['card_id']} ({strongest['win_rate']:.1%}); weakest: "
            f"{weakest['name']} #{weakest['card_id']} ({weakest['win_rate']:.1%}). Bots choose "
            f"when to play a card, so this measures the card as the bots use it.",
            cards,
            {
                "rank": "int",
                "name": "str",
                "card_id": "int",
                "predation": "int",
                "size": "int",
                "speed": "int",
                "adaptability": "int",
                "played": "int",
                "win_rate": "pct_ci",
                "mean_strength": "float",
            },
            plots.ranked_cards(cards),
            key="cards",
        ),
        Section(
            "Events",
            "Every event by how often the figure decided it, with the mean winning strength.",
            events,
            {
                "event_id": "int",
                "name": "str",
                "needs": "str",
                "rounds": "int",
                "mean_top": "float",
                "figure_decided": "pct",
            },
            key="events",
        ),
    ]


TAIL_VARIANT = ["initiative_tails=false"]


def evo_sections(run: Run) -> list[Section]:
    curves = evo.gene_price_curves(run)
    sections = []
    if not curves.is_empty():
        summary = evo.gene_summary(curves)
        over = summary.filter(pl.col("surplus") < 0).sort("surplus")
        under = summary.filter(pl.col("surplus") > 0).sort("surplus", descending=True)
        text = (
            f"What each gene was worth at each auction against what buyers paid, with "
            f"{run.n_players} players (make a run per player count to compare them). "
            "Every player "
            "buys exactly one gene per auction, so worth is only measurable relative to the "
            "other genes: values and prices are in points relative to the average gene sold "
            "that round (see reports/evo.py for the model). "
        )
        if under.height:
            g = under.row(0, named=True)
            text += (
                f"Most underpriced: {g['gene']} (worth {g['value']:+.1f} points against "
                f"the average gene, priced {g['price']:+.2f}). "
            )
        if over.height:
            g = over.row(0, named=True)
            text += (
                f"Most overpriced: {g['gene']} (worth {g['value']:+.1f}, priced {g['price']:+.2f})."
            )
        sections.append(
            Section(
                "Gene prices against gene values",
                text,
                summary,
                {
                    "gene": "str",
                    "sold": "int",
                    "paid": "float",
                    "price": "float",
                    "value": "float",
                    "surplus": "float",
                    "overpriced_rounds": "int",
                    "underpriced_rounds": "int",
                },
                plots.gene_curves(curves, list(evo.GENES)),
                key="genes",
            )
        )
        detail = curves.filter(pl.col("value").is_not_null()).with_columns(
            pl.col("round").cast(pl.Int64)
        )
        sections.append(
            Section(
                "Gene prices and values by round",
                "Median and quartiles of the price paid; "
                "value and price relative to the average gene sold that round.",
                detail,
                {
                    "gene": "str",
                    "round": "int",
                    "sold": "int",
                    "paid_median": "float",
                    "paid_q1": "float",
                    "paid_q3": "float",
                    "price": "float",
                    "value": "float",
                    "lo": "float",
                    "hi": "float",
                    "verdict": "str",
                },
                key="gene_rounds",
            )
        )
    init = evo.initiative_win_share(run)
    ties = evo.initiative_ties(run)
    first, last = init.row(0, named=True), init.row(-1, named=True)
    tail_value = curves.filter(pl.col("gene") == "tail") if not curves.is_empty() else curves
    sections.append(
        Section(
            "Initiative: what playing first is worth",
            f"Final win share by initiative position over every seat-round (0 = first player): "
            f"first {first['mean']:.2%} [{first['lo']:.2%}, {first['hi']:.2%}], last "
            f"{last['mean']:.2%} [{last['lo']:.2%}, {last['hi']:.2%}]. A fair share is "
            f"{1 / run.n_players:.2%}.",
            init.with_columns(pl.col("initiative").cast(pl.String)),
            {"initiative": "str", "n": "int", "mean": "pct_ci"},
            plots.bars_with_ci(
                [f"{i}" for i in init["initiative"]],
                init,
                title="Win share by initiative position",
                ylabel="win share, %",
                reference=1 / run.n_players,
            ),
            key="initiative",
        )
    )
    sections.append(
        Section(
            "Initiative: how places were decided",
            "Each seat-round by what fixed its place: a tail count nobody else had, dinos on the "
            "board (tails tied), or the die (tails and dinos tied)."
            + (
                f" The tail gene's relative value by round is in the gene table "
                f"({tail_value.filter(pl.col('value').is_not_null()).height} rounds estimable)."
                if tail_value.height
                else ""
            ),
            ties,
            {"decided_by": "str", "seat_rounds": "int", "share": "pct_ci"},
            key="ties",
        )
    )
    combats = evo.combat_table(run)
    if combats.height:
        sections.append(
            Section(
                "Combat by horn difference",
                "Attacks by the attacker's horns minus the defender's (capped at ±2) and how often "
                "the attacker won; the rulebook's table gives 1/6, 2/6, 4/6 and 5/6.",
                combats.with_columns(pl.col("diff").cast(pl.String)),
                {"diff": "str", "attacks": "int", "win_rate": "pct_ci"},
                key="combat",
            )
        )
    return sections


GAME_SECTIONS: dict[str, Callable[[Run], list[Section]]] = {
    "dino-kontra-dino": dkd_sections,
    "evo": evo_sections,
}
GAME_VARIANTS: dict[str, list[list[str]]] = {"evo": [TAIL_VARIANT]}
"""Paired variants a game's report plays when they are missing."""


def variant_sections(run: Run) -> list[Section]:
    from simulate.variants import list_variants

    sections = []
    for folder in list_variants(run.store):
        variant = Run(folder)
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
        if run.game == "evo" and "initiative_tails" in changes:
            text += (
                " With initiative_tails=false, tails no longer decide who plays first: "
                "this is how much the tail rule moves the game."
            )
        sections.append(
            Section(
                f"Rule variant: {label} (paired)",
                text,
                seats.with_columns(pl.col("seat").cast(pl.String)),
                {"seat": "str", "base": "pct", "variant": "pct", "mean": "pct_ci"},
                key=f"variant-{folder.name}",
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
                    key=f"variant-{folder.name}-strategies",
                )
            )
    return sections


def build_sections(run: Run) -> list[Section]:
    extra = GAME_SECTIONS.get(run.game)
    return common_sections(run) + (extra(run) if extra else []) + variant_sections(run)


def ensure_variants(run: Run, games: int, workers: int | None) -> None:
    """Play the game's report variants that are missing (paired, at most ``games`` games)."""
    from rules.core.params import parse_assignments
    from simulate.executors import make_executor
    from simulate.variants import VARIANTS, run_variant, variant_name

    if not run.complete:
        return
    for assignments in GAME_VARIANTS.get(run.game, []):
        folder = run.store.child(f"{VARIANTS}/{variant_name(parse_assignments(assignments))}")
        if folder.exists("manifest.json") and Run(folder).complete:
            continue
        n = min(games, run.games_logged)
        print(f"playing the paired variant {', '.join(assignments)} on {n:,} games ...")
        run_variant(run.store, assignments, make_executor(workers), n)


def _header(run: Run) -> dict[str, str]:
    c, m = run.config, run.manifest
    params = ", ".join(f"{k}={json.dumps(v)}" for k, v in c["params"].items())
    return {
        "title": f"{m.get('game_title', run.game)}: {c['n_players']} players, "
        f"{run.games_logged:,} games",
        "data": m["data"]["description"],
        "lineup": ", ".join(c["strategies"]) + (" (rotated)" if c["rotate"] else ""),
        "config": f"seed {c['seed']}; {params}",
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


def render_html(run: Run, sections: list[Section]) -> str:
    h = _header(run)
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


def render_markdown(run: Run, sections: list[Section]) -> str:
    h = _header(run)
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


def write_report(
    run_dir: str | Path,
    *,
    variants: bool = True,
    variant_games: int = 50_000,
    workers: int | None = None,
) -> tuple[str, str]:
    """Write ``report.html`` and ``report.md`` into the run directory; return where."""
    run = Run(run_dir)
    if variants:
        ensure_variants(run, variant_games, workers)
    sections = build_sections(run)
    run.store.write_bytes("report.html", render_html(run, sections).encode())
    run.store.write_bytes("report.md", render_markdown(run, sections).encode())
    base = str(run.path).rstrip("/")
    return f"{base}/report.html", f"{base}/report.md"
