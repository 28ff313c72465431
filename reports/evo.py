"""EVO analyses: what each gene is worth against what the auction charges, and what tails decide.

Definitions
-----------
*Position at the auction of round r*: a seat's genes before that auction (``turns`` row of round
r), its points after the round's scoring, its dinos on the board and its event cards in hand.

*Gene value* (per round r): the linear probability model, fitted over every seat of every game
that reached round r,

    win share = a + sum_g beta_g * genes_g + pi * points + delta * dinos + kappa * cards

Buying gene g at the auction for p points changes the position by +1 gene and -p points, so the
win share moves by ``beta_g - pi * p``: the gene is worth ``beta_g / pi`` points. Card genes
draw an event card, so their coefficient is ``kappa``.

Every player buys exactly one gene per auction (the seed's mandatory bids), so everyone holds
the same *number* of genes in a round: the logs can tell how much more one gene is worth than
another, but not a gene's worth on its own (the model's gene columns sum to a constant). Values
are therefore *relative*: ``(beta_g - mean beta) / pi``, the mean weighted by the genes sold that
round, in points. With the harder variant (passing allowed) holdings differ in number too.

*Price*: what the buyer paid (the winning bid minus mutations, never below 0). Relative price:
the gene's mean price minus the mean price of all genes sold that round. A gene whose relative
price lies above its relative value's interval is overpriced; below, underpriced.

Intervals are 95%, from cluster-robust variances (by game, or by deal with seat rotation) and
the delta method. The model is observational: it measures what a gene was worth to these bots in
these positions, not a causal effect in every position.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from reports import plots
from reports.aggregate import Chunk
from reports.common import cluster, share_expr, win_share_by, with_win_share
from reports.section import Section
from reports.source import RunData
from reports.stats import Z95, with_wilson
from rules.evo.cards import CARDS

GENES = ("tail", "leg", "horn", "egg", "fur", "parasol", "mutation", "card")
CARD_NAMES = tuple(c.hungarian for c in CARDS)
"""The 26 event cards by number (as the ``cards`` table labels them)."""
FEATURES = ("tails", "legs", "horns", "eggs", "furs", "parasols", "mutations", "cards_held",
            "points", "dinos")  # fmt: skip
COLUMN_OF_GENE = dict(zip(GENES, FEATURES[:8], strict=True))
MIN_ROWS = 200


def positions(run: RunData) -> pl.LazyFrame:
    """One row per game, round and seat: the position at the round's auction and the final
    win share of that seat."""
    share = with_win_share(run).select("game_id", "seat", "share")
    return (
        run.scan("turns")
        .select("game_id", "round", "seat", "initiative", "initiative_by", *FEATURES)
        .join(share, on=["game_id", "seat"], how="left")
        .with_columns(_cluster=cluster(run))
    )


def _sums(lf: pl.LazyFrame, names: list[str], y: str) -> pl.DataFrame:
    exprs = [pl.len().alias("rows")]
    for i, a in enumerate(names):
        exprs.append((pl.col(a) * pl.col(y)).sum().alias(f"xy_{a}"))
        for b in names[i:]:
            exprs.append((pl.col(a) * pl.col(b)).sum().alias(f"xx_{a}_{b}"))
    return lf.group_by("round").agg(exprs).collect(engine="streaming").sort("round")


def _matrix(row: dict, names: list[str], prefix: str) -> np.ndarray:
    k = len(names)
    m = np.empty((k, k))
    for i, a in enumerate(names):
        for j in range(i, k):
            m[i, j] = m[j, i] = row[f"{prefix}_{a}_{names[j]}"]
    return m


def gene_values(run: RunData) -> pl.DataFrame:
    """Per round and gene: value relative to the average gene sold that round, in points.

    Mutation genes are the model's reference (their holding coefficient is fixed at 0); each
    gene's coefficient is then measured against the sold-weighted mean of all genes'
    coefficients, so the choice of reference does not matter. Features that nobody varies in a
    round (round 1: everyone holds the portrait) are left out, and their genes get no value.
    """
    return relative_gene_values(positions(run), gene_prices(run).select("gene", "round", "sold"))


def relative_gene_values(positions: pl.LazyFrame, sold: pl.DataFrame) -> pl.DataFrame:
    """:func:`gene_values` on any positions (``round``, ``_cluster``, ``share`` and
    :data:`FEATURES` columns) and genes sold per round (``gene``, ``round``, ``sold``)."""
    names = ["one", *FEATURES]
    lf = positions.with_columns(
        one=pl.lit(1.0), **{f: pl.col(f).cast(pl.Float64) for f in FEATURES}
    )
    sums = _sums(lf, names, "share")
    fits = {}
    for row in sums.iter_rows(named=True):
        n = row["rows"]
        if n < MIN_ROWS:
            continue
        xtx = _matrix(row, names, "xx")
        mean = xtx[0] / n
        varying = [
            i for i, a in enumerate(names) if a == "one" or xtx[i, i] / n - mean[i] ** 2 > 1e-9
        ]
        used = [i for i in varying if names[i] != "mutations"]
        if names.index("points") not in used:
            continue
        sub = xtx[np.ix_(used, used)]
        if np.linalg.matrix_rank(sub) < len(used):
            continue
        inv = np.linalg.inv(sub)
        beta = np.zeros(len(names))
        beta[used] = inv @ np.array([row[f"xy_{names[i]}"] for i in used])
        fits[row["round"]] = (used, beta, inv)
    if not fits:
        return pl.DataFrame()
    beta_frame = pl.DataFrame(
        {
            "round": list(fits),
            **{f"b_{a}": [f[1][i] for f in fits.values()] for i, a in enumerate(names)},
        }
    ).with_columns(pl.col("round").cast(pl.Int8))
    residual = pl.col("share") - sum(pl.col(f"b_{a}") * pl.col(a) for a in names)
    scores = (
        lf.join(beta_frame.lazy(), on="round", how="inner")
        .with_columns(_e=residual)
        .group_by("round", "_cluster")
        .agg([(pl.col(a) * pl.col("_e")).sum().alias(f"s_{a}") for a in names])
    )
    meat_exprs = [pl.len().alias("clusters")]
    for i, a in enumerate(names):
        for b in names[i:]:
            meat_exprs.append((pl.col(f"s_{a}") * pl.col(f"s_{b}")).sum().alias(f"m_{a}_{b}"))
    meats = {
        m["round"]: m
        for m in scores.group_by("round")
        .agg(meat_exprs)
        .collect(engine="streaming")
        .iter_rows(named=True)
    }
    rows = []
    p = names.index("points")
    for r, (used, beta, inv) in fits.items():
        m = meats[r]
        c = m["clusters"]
        meat = _matrix(m, names, "m")[np.ix_(used, used)]
        cov = np.zeros((len(names), len(names)))
        cov[np.ix_(used, used)] = inv @ meat @ inv * (c / max(c - 1, 1))
        counts = {g: n for g, rr, n in sold.iter_rows() if rr == r}
        total = sum(counts.values())
        weights = np.zeros(len(names))
        for g, n in counts.items():
            weights[names.index(COLUMN_OF_GENE[g])] += n / total if total else 0.0
        pi = beta[p]
        pi_known = pi - 2 * math.sqrt(max(cov[p, p], 0.0)) > 0  # a point is clearly worth >0
        for gene in GENES:
            g = names.index(COLUMN_OF_GENE[gene])
            if not pi_known or (g not in used and gene != "mutation") or total == 0:
                rows.append(
                    {
                        "gene": gene,
                        "round": r,
                        "value": None,
                        "lo": None,
                        "hi": None,
                        "point_value": pi,
                    }
                )
                continue
            contrast = -weights.copy()
            contrast[g] += 1.0
            numerator = contrast @ beta
            grad = contrast / pi
            grad[p] -= numerator / pi**2
            se = math.sqrt(max(grad @ cov @ grad, 0.0))
            value = numerator / pi
            rows.append(
                {
                    "gene": gene,
                    "round": r,
                    "value": value,
                    "lo": value - Z95 * se,
                    "hi": value + Z95 * se,
                    "point_value": pi,
                }
            )
    return pl.DataFrame(
        rows, schema_overrides={"value": pl.Float64, "lo": pl.Float64, "hi": pl.Float64}
    ).sort("gene", "round")


def gene_prices(run: RunData) -> pl.DataFrame:
    """Per gene and round: genes sold, and the median and quartiles of the bid and price paid."""
    return (
        run.scan("bids")
        .with_columns(pl.col("gene").cast(pl.String))
        .group_by("gene", "round")
        .agg(
            sold=pl.len(),
            bid_median=pl.col("bid").median(),
            paid_median=pl.col("paid").median(),
            paid_q1=pl.col("paid").quantile(0.25),
            paid_q3=pl.col("paid").quantile(0.75),
            paid_mean=pl.col("paid").cast(pl.Float64).mean(),
        )
        .collect(engine="streaming")
        .with_columns(pl.col("round").cast(pl.Int8))
        .sort("gene", "round")
    )


def gene_price_curves(run: RunData) -> pl.DataFrame:
    """Relative value against relative price per gene and round, with a verdict.

    ``price`` is the mean price paid for the gene minus the mean price of all genes sold that
    round; a gene is *overpriced* when its relative price lies above its relative value's
    interval, *underpriced* when below.
    """
    values = gene_values(run)
    prices = gene_prices(run)
    if values.is_empty():
        return values
    average = prices.group_by("round").agg(
        average_paid=(pl.col("paid_mean") * pl.col("sold")).sum() / pl.col("sold").sum()
    )
    df = (
        values.join(prices, on=["gene", "round"], how="left")
        .join(average, on="round", how="left")
        .with_columns(
            pl.col("sold").fill_null(0), price=pl.col("paid_mean") - pl.col("average_paid")
        )
    )
    verdict = (
        pl.when(pl.col("sold") == 0)
        .then(pl.lit("not sold"))
        .when(pl.col("value").is_null())
        .then(pl.lit("not estimable"))
        .when(pl.col("price") > pl.col("hi"))
        .then(pl.lit("overpriced"))
        .when(pl.col("price") < pl.col("lo"))
        .then(pl.lit("underpriced"))
        .otherwise(pl.lit("fair"))
    )
    return df.with_columns(verdict=verdict)


def gene_summary(curves: pl.DataFrame) -> pl.DataFrame:
    """Per gene over the rounds where its value is estimable, weighted by genes sold: mean
    price paid, relative price, relative value, and the surplus (value minus price)."""
    sold = curves.filter((pl.col("sold") > 0) & pl.col("value").is_not_null())
    return (
        sold.group_by("gene")
        .agg(
            sold=pl.col("sold").sum(),
            paid=(pl.col("paid_mean") * pl.col("sold")).sum() / pl.col("sold").sum(),
            price=(pl.col("price") * pl.col("sold")).sum() / pl.col("sold").sum(),
            value=(pl.col("value") * pl.col("sold")).sum() / pl.col("sold").sum(),
            overpriced_rounds=(pl.col("verdict") == "overpriced").sum(),
            underpriced_rounds=(pl.col("verdict") == "underpriced").sum(),
        )
        .with_columns(surplus=pl.col("value") - pl.col("price"))
        .sort("surplus")
    )


def initiative_win_share(run: RunData) -> pl.DataFrame:
    """Final win share by initiative position (0 = first player), over every seat-round."""
    return win_share_by(run, ["initiative"], positions(run))


def initiative_ties(run: RunData) -> pl.DataFrame:
    """What decided each seat's initiative place: a unique tail count, dinos, or the die."""
    df = (
        run.scan("turns")
        .group_by(pl.col("initiative_by").cast(pl.String))
        .agg(seat_rounds=pl.len())
        .collect(engine="streaming")
    )
    df = df.rename({"initiative_by": "decided_by"}).with_columns(total=pl.col("seat_rounds").sum())
    out = with_wilson(df, "seat_rounds", "total", "share").drop("total")
    return out.sort("seat_rounds", descending=True)


def combat_table(run: RunData) -> pl.DataFrame:
    """Attacks by horn difference: how often the attacker won (Wilson intervals)."""
    df = (
        run.scan("combats")
        .with_columns(diff=(pl.col("attacker_horns") - pl.col("defender_horns")).clip(-2, 2))
        .group_by("diff")
        .agg(attacks=pl.len(), won=pl.col("attacker_won").sum())
        .collect(engine="streaming")
        .sort("diff")
    )
    return with_wilson(df, "won", "attacks", "win_rate")


def card_plays(run: RunData) -> pl.DataFrame:
    """Per event card: the hands it reached (seat-games whose ``cards_seen`` list it), how
    often it was played, how many of those were Osztódás reactions, the plays per reached hand,
    and the plays in each rulebook phase (1-6)."""
    held = (
        run.scan("players")
        .select(pl.col("cards_seen").explode().cast(pl.String).alias("card_name"))
        .drop_nulls()
        .group_by("card_name")
        .agg(hands=pl.len())
    )
    plays = (
        run.scan("cards")
        .with_columns(pl.col("card_name").cast(pl.String))
        .group_by("card", "card_name")
        .agg(
            played=pl.len(),
            reactions=pl.col("reaction").sum(),
            **{f"phase_{k}": (pl.col("phase") == k).sum() for k in range(1, 7)},
        )
    )
    names = pl.LazyFrame(
        {"card": list(range(1, 27)), "card_name": list(CARD_NAMES)},
        schema={"card": pl.Int8, "card_name": pl.String},
    )
    df = (
        names.join(plays.drop("card"), on="card_name", how="left")
        .join(held, on="card_name", how="left")
        .collect(engine="streaming")
        .fill_null(0)
        .with_columns(
            per_hand=pl.when(pl.col("hands") > 0)
            .then(pl.col("played") / pl.col("hands"))
            .otherwise(None)
        )
    )
    return df.sort("card")


def _region_rows(chunk: Chunk) -> pl.DataFrame:
    players = chunk.table("players", ["game_id", "seat", "winner", "start_region"])
    games = chunk.table("games", ["game_id", "n_winners"])
    return players.join(games, on="game_id", how="left").with_columns(share=share_expr())


def start_region_win_share(run: RunData) -> pl.DataFrame:
    """Final win share by start region (the star a seat was dealt), with 95% intervals."""
    return win_share_by(run, ["start_region"], _region_rows).sort("start_region")


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


def sections(run: RunData) -> list[Section]:
    """The report's EVO sections: gene prices against values, initiative, combat."""
    curves = gene_price_curves(run)
    sections = []
    if not curves.is_empty():
        summary = gene_summary(curves)
        over = summary.filter(pl.col("surplus") < 0).sort("surplus")
        under = summary.filter(pl.col("surplus") > 0).sort("surplus", descending=True)
        text = (
            f"What each gene was worth at each auction against what buyers paid, with "
            f"{run.n_players} players (make a run per player count to compare them). "
            "Every player "
            "buys exactly one gene per auction, so worth is only measurable relative to the "
            "other genes: values and prices are in points relative to the average gene sold "
            "that round (see reports/evo.py for the model); surplus is value minus price, and "
            "the surpluses of all genes sold sum to zero, so a gene whose price the zero floor "
            "holds above its worth (every player must buy one) leaves a surplus on others. "
            f"{measured_with(run)} "
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
                plots.gene_curves(curves, list(GENES)),
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
    init = initiative_win_share(run)
    ties = initiative_ties(run)
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
    cards = card_plays(run)
    if cards["played"].sum() > 0:
        rarely = cards.filter(pl.col("hands") >= 50).sort("per_hand").head(3)
        rare = ", ".join(
            f"{r['card_name']} {r['per_hand']:.0%}" for r in rarely.iter_rows(named=True)
        )
        sections.append(
            Section(
                "Event cards: how often each is played, and when",
                "Per card: the hands it reached (a seat's game in which it was dealt, drawn with "
                "a card gene or taken with Osztódás), the times it was played (reactions: "
                "Osztódás played right after another card), plays per hand reached, and the "
                "plays in each rulebook phase. A card played in few of the hands it reached is "
                f"one the bots rarely find worth playing (least played: {rare}).",
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
        )
    regions = start_region_win_share(run)
    if regions.height > 1:
        best = regions.sort("mean").row(-1, named=True)
        sections.append(
            Section(
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
        )
    combats = combat_table(run)
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
