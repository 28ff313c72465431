"""Origin of Species' report sections: traits, carnivores, food."""

from __future__ import annotations

import polars as pl

from reports import plots
from reports.aggregate import Partial
from reports.origin_of_species.carnivores import (
    ATTACK_COUNTS,
    ATTACKS_ALL,
    ATTACKS_BY_DEFENCE,
    CARNIVORES_ALL,
    CARNIVORES_BY_STRATEGY,
    KILLS_BY_TRAIT,
    aggression,
    attack_outcomes,
    carnivores,
    kills_by_defender_trait,
    lineup_labels,
    share_cross,
)
from reports.origin_of_species.food import FOOD_ALL, FOOD_BY_ROUND, food_by_round, food_overall
from reports.origin_of_species.plots import food_plot, forest_plot
from reports.origin_of_species.traits import (
    CARD_SUMS,
    TRAIT_LIFT,
    TRAIT_USES,
    card_value,
    trait_lift,
)
from reports.section import Section
from reports.source import RunData


def partials(run: RunData) -> list[Partial]:
    """What the report's Origin of Species sections read in the report's one pass (the
    card-value fit's residual pass comes after it)."""
    return [
        TRAIT_LIFT,
        CARD_SUMS,
        TRAIT_USES,
        ATTACKS_BY_DEFENCE,
        ATTACKS_ALL,
        ATTACK_COUNTS,
        KILLS_BY_TRAIT,
        CARNIVORES_ALL,
        CARNIVORES_BY_STRATEGY,
        share_cross(lineup_labels(run)),
        FOOD_BY_ROUND,
        FOOD_ALL,
    ]


def _pp(row: dict, key: str = "mean", lo: str = "lo", hi: str = "hi") -> str:
    return f"{row[key] * 100:+.2f} pp [{row[lo] * 100:+.2f}, {row[hi] * 100:+.2f}]"


def sections(run: RunData) -> list[Section]:
    """The report's Origin of Species sections: traits, carnivores, food."""
    out = [*_trait_sections(run), *_carnivore_sections(run), _food_section(run)]
    return out


def _trait_sections(run: RunData) -> list[Section]:
    lift = trait_lift(run)
    shown = lift.filter((pl.col("n_with") > 0) & (pl.col("n_without") > 0)).filter(
        pl.col("adjusted").is_not_nan()
    )
    text = (
        "For each trait, the seats that ended the game with it on at least one surviving "
        "animal against those that did not, over every seat-game: their win shares, the "
        "difference (the lift), and the lift at equal survivors (the same difference among "
        "seats with as many surviving animals, 1, 2, 3, or 4 and more, averaged over the seats "
        "with the trait), each with a cluster-robust 95% interval; the last column is the lift "
        "at equal survivors in final points. The plain lift mostly says that seats with "
        "survivors win; the lift at equal survivors compares like with like, but still "
        "describes the games, not the trait alone (a seat that keeps a Carnivore alive also "
        "found the food for it)."
    )
    if shown.height:
        best = shown.sort("adjusted", descending=True).row(0, named=True)
        worst = shown.sort("adjusted").row(0, named=True)
        text += (
            f" Largest lift at equal survivors: {best['trait']} "
            f"({_pp(best, 'adjusted', 'adj_lo', 'adj_hi')}); smallest: {worst['trait']} "
            f"({_pp(worst, 'adjusted', 'adj_lo', 'adj_hi')})."
        )
    value = card_value(run)
    traits_only = value.filter(pl.col("trait") != "(as an animal)")
    animal = value.filter(pl.col("trait") == "(as an animal)").row(0, named=True)
    worth = traits_only.filter(pl.col("verdict") == "worth a card as a trait")["trait"].to_list()
    not_worth = traits_only.filter(pl.col("verdict") == "worth more as an animal")[
        "trait"
    ].to_list()
    text2 = (
        "Win share and final points that go with one more card played as each trait, against "
        "one more card played as an animal, for the same other plays (a least-squares fit over "
        "every seat-game of win share, and of score, on the cards played as each trait and as "
        "animals; cluster-robust 95% intervals). 'vs animal' is the trait's coefficient minus "
        f"the animal's ({_pp(animal)} win share per card played as an animal). "
        f"'played' and 'used' are per seat and game (uses as the engine counts them, see "
        f"traits.parquet). Worth a card as a trait (interval above the animal's): "
        f"{', '.join(worth) or 'none'}. Worth more as an animal: {', '.join(not_worth) or 'none'}."
        " The bots choose what to play and when, so these are values as the bots play them."
    )
    return [
        Section(
            "Traits: lift on the surviving animals",
            text,
            lift.with_columns(
                adj_ci=pl.format(
                    "{} [{}, {}]",
                    *((pl.col(c) * 100).round(2) for c in ("adjusted", "adj_lo", "adj_hi")),
                ),
                score_ci=pl.format(
                    "{} [{}, {}]",
                    *(
                        pl.col(c).round(2)
                        for c in ("score_adjusted", "score_adj_lo", "score_adj_hi")
                    ),
                ),
            ),
            {
                "trait": "str",
                "n_with": "int",
                "share_with": "pct",
                "share_without": "pct",
                "mean": "pct_ci",
                "adj_ci": "str",
                "score_ci": "str",
            },
            forest_plot(
                shown["trait"].to_list(),
                shown["adjusted"],
                shown["adj_lo"],
                shown["adj_hi"],
                title="Win-share lift of a trait on a survivor, at equal survivors (95%)",
                xlabel="with minus without, percentage points",
            ),
            key="oos-trait-lift",
        ),
        Section(
            "Traits: is a card worth more as a trait or as an animal?",
            text2,
            value.with_columns(
                vs_ci=pl.format(
                    "{} [{}, {}]",
                    *((pl.col(c) * 100).round(2) for c in ("vs_animal", "vs_lo", "vs_hi")),
                ),
                points_ci=pl.format(
                    "{} [{}, {}]",
                    *(pl.col(c).round(2) for c in ("points", "points_lo", "points_hi")),
                ),
            ),
            {
                "trait": "str",
                "played": "float",
                "used": "float",
                "mean": "pct_ci",
                "vs_ci": "str",
                "points_ci": "str",
                "verdict": "str",
            },
            forest_plot(
                traits_only["trait"].to_list(),
                traits_only["vs_animal"],
                traits_only["vs_lo"],
                traits_only["vs_hi"],
                title="A card as this trait minus as an animal (95%)",
                xlabel="win share per card, percentage points",
            ),
            key="oos-card-value",
        ),
    ]


def _carnivore_sections(run: RunData) -> list[Section]:
    outcomes = attack_outcomes(run)
    by_trait = kills_by_defender_trait(run)
    every = outcomes.filter(pl.col("defence_used") == "every attack").row(0, named=True)
    car = carnivores(run).row(0, named=True)
    table, gap = aggression(run)
    if every["attacks"]:
        kill = f"{every['mean']:.1%} [{every['lo']:.1%}, {every['hi']:.1%}]"
        text = (
            f"{every['attacks']:,} attacks; {kill} of them ended with the prey eaten. By the "
            "last defence the prey used (Running, Mimicry, Tail Loss or none), with the kill "
            "rate's cluster-robust 95% interval; the second table gives the kill rate of "
            "attacks on animals carrying each trait."
        )
        shown = outcomes.filter(pl.col("attacks") > 0)
        figure = plots.bars_with_ci(
            shown["defence_used"].to_list(),
            shown,
            title="Attacks ending in a kill, by defence",
            ylabel="kill rate, %",
        )
    else:
        text, figure = "No attack in this run (no carnivore ever attacked).", None
    points = (
        f"Surviving carnivores scored {car['points_share']:.1%} [{car['points_share_lo']:.1%}, "
        f"{car['points_share_hi']:.1%}] of all points; {car['has_carnivore']:.1%} of seats ended "
        f"the game with a carnivore alive; a seat made {car['attacks']:.2f} attacks and "
        f"{car['kills']:.2f} kills a game."
    )
    if gap is None:
        why = (
            "the seats were not rotated"
            if not run.config.get("rotate")
            else "every heuristic seat plays the same aggression"
            if table["aggression"].drop_nulls().n_unique() <= 1
            else "no heuristic bot in the lineup"
        )
        verdict = (
            f" Do carnivore strategies dominate? This run's lineup cannot answer that ({why}): "
            "play heuristic bots of high and low aggression against each other with --rotate, "
            'e.g. dinolab simulate oos --strategy "heuristic[aggression=2],heuristic[aggression=0]'
            ',heuristic[aggression=2],heuristic[aggression=0]" --rotate.'
        )
    else:
        better = "more" if gap["lo"] > 0 else "less" if gap["hi"] < 0 else "about as"
        verdict = (
            f" Do carnivore strategies dominate? The most aggressive bot ({gap['high']}, "
            f"aggression {gap['high_level']:g}) wins {_pp(gap)} against the least aggressive "
            f"({gap['low']}, aggression {gap['low_level']:g}), seats rotated over the same "
            f"deals: high aggression wins {better}"
            + (" often." if better != "about as" else " often as low aggression (no clear gap).")
        )
        top = table.sort("share", descending=True, nulls_last=True).row(0, named=True)
        if top["aggression"] is not None:
            verdict += (
                f" The strongest bot of the run is {top['strategy']} (aggression "
                f"{top['aggression']:g}, win share {top['share']:.1%} [{top['share_lo']:.1%}, "
                f"{top['share_hi']:.1%}])."
            )
    shown_table = table.with_columns(
        mean=pl.col("share"), lo=pl.col("share_lo"), hi=pl.col("share_hi")
    )
    return [
        Section(
            "Carnivores: attacks and defences",
            text,
            outcomes,
            {
                "defence_used": "str",
                "attacks": "int",
                "share": "pct",
                "killed": "int",
                "escaped": "int",
                "tail_lost": "int",
                "mean": "pct_ci",
            },
            figure,
            key="oos-attacks",
        ),
        Section(
            "Carnivores: kill rate by the prey's traits",
            "",
            by_trait,
            {"trait": "str", "attacks": "int", "mean": "pct_ci"},
            key="oos-attacks-by-trait",
        ),
        Section(
            "Carnivores: points and aggression",
            points + verdict + " By bot (seat-games; 'points share' is the carnivores' points "
            "over all the bot's points; 95% intervals):",
            shown_table,
            {
                "strategy": "str",
                "aggression": "float",
                "n": "int",
                "mean": "pct_ci",
                "points_share": "pct",
                "attacks": "float",
                "kills": "float",
                "kill_rate": "pct",
            },
            plots.bars_with_ci(
                shown_table["strategy"].to_list(),
                shown_table,
                title="Win share by bot",
                ylabel="win share, %",
                reference=1 / run.n_players,
            ),
            key="oos-carnivores",
        ),
    ]


def _food_section(run: RunData) -> Section:
    df = food_by_round(run)
    overall = food_overall(run)
    text = (
        f"Per round, over the games that reached it: the food bank rolled for the feeding "
        f"phase, the food the animals needed when it was rolled (1 per animal plus the extra food "
        f"of Carnivore, High Body Weight and Parasite, summed over seats), the bank per token "
        f"needed, and the share of animals alive at extinction that starved; 95% intervals. "
        f"Over every round: bank {overall['bank']:.2f} tokens, need {overall['need']:.2f}, "
        f"bank per token needed {overall['bank_per_need']:.2f} [{overall['bank_per_need_lo']:.2f}, "
        f"{overall['bank_per_need_hi']:.2f}], starvation rate {overall['starvation']:.1%} "
        f"[{overall['starvation_lo']:.1%}, {overall['starvation_hi']:.1%}] with "
        f"{run.n_players} players (compare runs at other player counts with food_by_players)."
    )
    return Section(
        "Food pressure",
        text,
        df.with_columns(
            mean=pl.col("starvation"), lo=pl.col("starvation_lo"), hi=pl.col("starvation_hi")
        ),
        {
            "round": "int",
            "n": "int",
            "bank": "float",
            "need": "float",
            "bank_per_need": "float",
            "mean": "pct_ci",
            "kills": "float",
        },
        food_plot(df),
        key="oos-food",
    )
