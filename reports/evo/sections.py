"""EVO's report sections: gene prices against values, initiative, event cards, start
regions, combat."""

from __future__ import annotations

import polars as pl

from reports import plots
from reports.aggregate import Partial
from reports.evo.analyses import (
    CARD_HANDS,
    CARD_PLAYS,
    COMBATS,
    INITIATIVE,
    INITIATIVE_TIES,
    START_REGIONS,
    card_plays,
    combat_table,
    initiative_ties,
    initiative_win_share,
    start_region_win_share,
)
from reports.evo.genes import gene_price_curves, gene_summary
from reports.evo.model import GENES, POSITION_SUMS
from reports.evo.prices import GENE_PRICES
from reports.section import Section
from reports.source import RunData

MIN_HANDS_FOR_RARE = 50
"""Cards reaching fewer hands than this are not named among the least played."""
RARE_CARDS_LISTED = 3
"""How many of the least played event cards the cards paragraph names."""
MIN_START_REGIONS = 2
"""Fewer start regions than this: no start-region section."""


def partials(run: RunData) -> list[Partial]:
    """What the report's EVO sections read, computed in the report's one pass (the gene value
    model's second pass, its residuals for the sandwich variance, comes after it)."""
    return [
        POSITION_SUMS,
        GENE_PRICES,
        INITIATIVE,
        INITIATIVE_TIES,
        COMBATS,
        CARD_PLAYS,
        CARD_HANDS,
        START_REGIONS,
    ]


def bot_tables(run: RunData) -> pl.DataFrame | None:
    """The gene value table each valuing bot played with (``bot_values.parquet``), if any."""
    try:
        return run.data("bot_values.parquet")
    except Exception:  # older runs have no such file
        return None


def measured_with(run: RunData) -> str:
    """One sentence naming the bots the gene values were measured with, and their tables."""
    bots = sorted(set(run.config["strategies"]))
    labels = sorted({s.split("[")[0] for s in bots})
    text = f"Measured with the bots {', '.join(labels)} ({len(bots)} distinct parameter sets)"
    tables = bot_tables(run)
    if tables is not None and tables.height:
        described = []
        for row in tables.unique("sha256").iter_rows(named=True):
            first = row["provenance"].split("\n")[0] if row["provenance"] else "no provenance"
            described.append(f"{row['file']} (sha256 {row['sha256'][:12]}: {first})")
        text += "; value tables: " + "; ".join(described)
    return text + ". The values describe the game as these bots play it."


def _underpriced_text(summary: pl.DataFrame) -> str:
    """The sentence naming the most underpriced gene, or '' when no gene is."""
    under = summary.filter(pl.col("surplus") > 0).sort("surplus", descending=True)
    if not under.height:
        return ""
    g = under.row(0, named=True)
    return (
        f"Most underpriced: {g['gene']} (worth {g['value']:+.1f} points against "
        f"the average gene, priced {g['price']:+.2f}). "
    )


def _overpriced_text(summary: pl.DataFrame) -> str:
    """The sentence naming the most overpriced gene, or '' when no gene is."""
    over = summary.filter(pl.col("surplus") < 0).sort("surplus")
    if not over.height:
        return ""
    g = over.row(0, named=True)
    return f"Most overpriced: {g['gene']} (worth {g['value']:+.1f}, priced {g['price']:+.2f})."


def _gene_text(run: RunData, summary: pl.DataFrame) -> str:
    """The gene paragraph: how worth is measured, by which bots, the most mispriced genes."""
    return (
        f"What each gene was worth at each auction against what buyers paid, with "
        f"{run.n_players} players (make a run per player count to compare them). "
        "Every player "
        "buys exactly one gene per auction, so worth is only measurable relative to the "
        "other genes: values and prices are in points relative to the average gene sold "
        "that round (see reports/evo/model.py for the model); surplus is value minus price, "
        "and the surpluses of all genes sold sum to zero, so a gene whose price the zero floor "
        "holds above its worth (every player must buy one) leaves a surplus on others. "
        f"{measured_with(run)} "
        f"{_underpriced_text(summary)}{_overpriced_text(summary)}"
    )


def _gene_section(run: RunData, curves: pl.DataFrame) -> Section | None:
    """Each gene's price against its value over the game, or None without gene curves."""
    if curves.is_empty():
        return None
    summary = gene_summary(curves)
    return Section(
        "Gene prices against gene values",
        _gene_text(run, summary),
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
        plots.gene_curves(curves, list(GENES)),
        key="genes",
    )


def _gene_rounds_section(curves: pl.DataFrame) -> Section | None:
    """Each gene's price and value round by round, or None without gene curves."""
    if curves.is_empty():
        return None
    detail = curves.filter(pl.col("value").is_not_null()).with_columns(
        pl.col("round").cast(pl.Int64)
    )
    return Section(
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


def _initiative_section(run: RunData) -> Section:
    """Final win share by initiative position, first against last."""
    init = initiative_win_share(run)
    first, last = init.row(0, named=True), init.row(-1, named=True)
    return Section(
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


def _tail_note(curves: pl.DataFrame) -> str:
    """Where the tail gene's value by round is, or '' when the gene table has no tail."""
    tail_value = curves.filter(pl.col("gene") == "tail") if not curves.is_empty() else curves
    if not tail_value.height:
        return ""
    return (
        f" The tail gene's relative value by round is in the gene table "
        f"({tail_value.filter(pl.col('value').is_not_null()).height} rounds estimable)."
    )


def _ties_section(run: RunData, curves: pl.DataFrame) -> Section:
    """How each seat-round's initiative place was decided: tails, dinos or the die."""
    return Section(
        "Initiative: how places were decided",
        "Each seat-round by what fixed its place: a tail count nobody else had, dinos on the "
        "board (tails tied), or the die (tails and dinos tied)." + _tail_note(curves),
        initiative_ties(run),
        {"decided_by": "str", "seat_rounds": "int", "share": "pct_ci"},
        key="ties",
    )


def _rare_cards_text(cards: pl.DataFrame) -> str:
    """The least played cards per hand reached, among those reaching enough hands."""
    rarely = cards.filter(pl.col("hands") >= MIN_HANDS_FOR_RARE).sort("per_hand")
    return ", ".join(
        f"{r['card_name']} {r['per_hand']:.0%}"
        for r in rarely.head(RARE_CARDS_LISTED).iter_rows(named=True)
    )


def _cards_section(run: RunData) -> Section | None:
    """How often each event card is played and in which phase, or None if none was."""
    cards = card_plays(run)
    if cards["played"].sum() <= 0:
        return None
    return Section(
        "Event cards: how often each is played, and when",
        "Per card: the hands it reached (a seat's game in which it was dealt, drawn with "
        "a card gene or taken with Osztódás), the times it was played (reactions: "
        "Osztódás played right after another card), plays per hand reached, and the "
        "plays in each rulebook phase. A card played in few of the hands it reached is "
        f"one the bots rarely find worth playing (least played: {_rare_cards_text(cards)}).",
        cards,
        {
            "card": "int",
            "card_name": "str",
            "hands": "int",
            "played": "int",
            "per_hand": "pct",
            "reactions": "int",
            **{f"phase_{k}": "int" for k in range(1, 7)},
        },
        key="cards",
    )


def _regions_section(run: RunData) -> Section | None:
    """Win share by start region (a property of the map), or None with too few regions."""
    regions = start_region_win_share(run)
    if regions.height < MIN_START_REGIONS:
        return None
    best = regions.sort("mean").row(-1, named=True)
    return Section(
        "Win share by start region (map-specific)",
        f"Final win share of the seat dealt each start star, with 95% intervals: from "
        f"{regions['mean'].min():.1%} to {regions['mean'].max():.1%} (region "
        f"{best['start_region']} best) against a fair {1 / run.n_players:.1%}. The "
        "start stars are dealt at random, so this is a property of the map, and the "
        "map is PROVISIONAL (synthetic; the printed maps are not public): these numbers "
        "describe this map, not the game.",
        regions.with_columns(pl.col("start_region").cast(pl.String)),
        {"start_region": "str", "n": "int", "mean": "pct_ci"},
        plots.bars_with_ci(
            [str(r) for r in regions["start_region"]],
            regions,
            title="Win share by start region (provisional map)",
            ylabel="win share, %",
            reference=1 / run.n_players,
        ),
        key="start_regions",
    )


def _combat_section(run: RunData) -> Section | None:
    """The attacker's win rate by horn difference, or None if nobody attacked."""
    combats = combat_table(run)
    if not combats.height:
        return None
    return Section(
        "Combat by horn difference",
        "Attacks by the attacker's horns minus the defender's (capped at ±2) and how often "
        "the attacker won; the rulebook's table gives 1/6, 2/6, 4/6 and 5/6.",
        combats.with_columns(pl.col("diff").cast(pl.String)),
        {"diff": "str", "attacks": "int", "win_rate": "pct_ci"},
        key="combat",
    )


def sections(run: RunData) -> list[Section]:
    """The report's EVO sections: gene prices against values, initiative, combat."""
    curves = gene_price_curves(run)
    candidates = [
        _gene_section(run, curves),
        _gene_rounds_section(curves),
        _initiative_section(run),
        _ties_section(run, curves),
        _cards_section(run),
        _regions_section(run),
        _combat_section(run),
    ]
    return [s for s in candidates if s is not None]
