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


TRAIT_LIFT_TEXT = (
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
ANIMAL_ROW = "(as an animal)"
"""The card-value table's row for a card played as an animal (the yardstick)."""
WORTH_AS_TRAIT = "worth a card as a trait"
"""The card-value verdict of a trait whose interval lies above the animal's."""
WORTH_AS_ANIMAL = "worth more as an animal"
"""The card-value verdict of a trait whose interval lies below the animal's."""
EVERY_ATTACK = "every attack"
"""The attack-outcome row over all attacks, whatever defence the prey used."""
MAX_LEVELS_FOR_NO_GAP = 1
"""At most this many distinct aggression levels among heuristic seats: no gap to measure."""
LIFT_COLUMNS = {
    "trait": "str",
    "n_with": "int",
    "share_with": "pct",
    "share_without": "pct",
    "mean": "pct_ci",
    "adj_ci": "str",
    "score_ci": "str",
}
CARD_VALUE_COLUMNS = {
    "trait": "str",
    "played": "float",
    "used": "float",
    "mean": "pct_ci",
    "vs_ci": "str",
    "points_ci": "str",
    "verdict": "str",
}
ATTACK_COLUMNS = {
    "defence_used": "str",
    "attacks": "int",
    "share": "pct",
    "killed": "int",
    "escaped": "int",
    "tail_lost": "int",
    "mean": "pct_ci",
}
AGGRESSION_COLUMNS = {
    "strategy": "str",
    "aggression": "float",
    "n": "int",
    "mean": "pct_ci",
    "points_share": "pct",
    "attacks": "float",
    "kills": "float",
    "kill_rate": "pct",
}


def _ci_text(columns: tuple[str, str, str], scale: float | None = None) -> pl.Expr:
    """Three columns as ``mean [lo, hi]``, each times ``scale`` (if any), rounded to 2 places."""
    cols = (pl.col(c) if scale is None else pl.col(c) * scale for c in columns)
    return pl.format("{} [{}, {}]", *(c.round(2) for c in cols))


def _trait_sections(run: RunData) -> list[Section]:
    """The trait sections: lift on the surviving animals, and a card's value as a trait."""
    return [_lift_section(run), _card_value_section(run)]


def _lift_text(shown: pl.DataFrame) -> str:
    """The lift paragraph, naming the largest and smallest lift at equal survivors."""
    if not shown.height:
        return TRAIT_LIFT_TEXT
    best = shown.sort("adjusted", descending=True).row(0, named=True)
    worst = shown.sort("adjusted").row(0, named=True)
    return TRAIT_LIFT_TEXT + (
        f" Largest lift at equal survivors: {best['trait']} "
        f"({_pp(best, 'adjusted', 'adj_lo', 'adj_hi')}); smallest: {worst['trait']} "
        f"({_pp(worst, 'adjusted', 'adj_lo', 'adj_hi')})."
    )


def _lift_section(run: RunData) -> Section:
    """Each trait's win-share lift on a surviving animal, plain and at equal survivors."""
    lift = trait_lift(run)
    shown = lift.filter((pl.col("n_with") > 0) & (pl.col("n_without") > 0)).filter(
        pl.col("adjusted").is_not_nan()
    )
    return Section(
        "Traits: lift on the surviving animals",
        _lift_text(shown),
        lift.with_columns(
            adj_ci=_ci_text(("adjusted", "adj_lo", "adj_hi"), 100),
            score_ci=_ci_text(("score_adjusted", "score_adj_lo", "score_adj_hi")),
        ),
        LIFT_COLUMNS,
        forest_plot(
            shown["trait"].to_list(),
            shown["adjusted"],
            shown["adj_lo"],
            shown["adj_hi"],
            title="Win-share lift of a trait on a survivor, at equal survivors (95%)",
            xlabel="with minus without, percentage points",
        ),
        key="oos-trait-lift",
    )


def _card_value_text(value: pl.DataFrame) -> str:
    """The card-value paragraph: the animal's yardstick, the traits worth a card or not."""
    traits_only = value.filter(pl.col("trait") != ANIMAL_ROW)
    animal = value.filter(pl.col("trait") == ANIMAL_ROW).row(0, named=True)
    worth = traits_only.filter(pl.col("verdict") == WORTH_AS_TRAIT)["trait"].to_list()
    not_worth = traits_only.filter(pl.col("verdict") == WORTH_AS_ANIMAL)["trait"].to_list()
    return (
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


def _card_value_section(run: RunData) -> Section:
    """Whether a card is worth more played as each trait or as an animal."""
    value = card_value(run)
    traits_only = value.filter(pl.col("trait") != ANIMAL_ROW)
    return Section(
        "Traits: is a card worth more as a trait or as an animal?",
        _card_value_text(value),
        value.with_columns(
            vs_ci=_ci_text(("vs_animal", "vs_lo", "vs_hi"), 100),
            points_ci=_ci_text(("points", "points_lo", "points_hi")),
        ),
        CARD_VALUE_COLUMNS,
        forest_plot(
            traits_only["trait"].to_list(),
            traits_only["vs_animal"],
            traits_only["vs_lo"],
            traits_only["vs_hi"],
            title="A card as this trait minus as an animal (95%)",
            xlabel="win share per card, percentage points",
        ),
        key="oos-card-value",
    )


def _carnivore_sections(run: RunData) -> list[Section]:
    """The carnivore sections: attacks and defences, kills by trait, points and aggression."""
    return [_attacks_section(run), _kills_by_trait_section(run), _aggression_section(run)]


def _attacks_section(run: RunData) -> Section:
    """How attacks ended, by the last defence the prey used."""
    outcomes = attack_outcomes(run)
    every = outcomes.filter(pl.col("defence_used") == EVERY_ATTACK).row(0, named=True)
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
    return Section(
        "Carnivores: attacks and defences",
        text,
        outcomes,
        ATTACK_COLUMNS,
        figure,
        key="oos-attacks",
    )


def _kills_by_trait_section(run: RunData) -> Section:
    """The kill rate of attacks on animals carrying each trait."""
    return Section(
        "Carnivores: kill rate by the prey's traits",
        "",
        kills_by_defender_trait(run),
        {"trait": "str", "attacks": "int", "mean": "pct_ci"},
        key="oos-attacks-by-trait",
    )


def _points_text(run: RunData) -> str:
    """The carnivores' share of points, and a seat's carnivores, attacks and kills a game."""
    car = carnivores(run).row(0, named=True)
    return (
        f"Surviving carnivores scored {car['points_share']:.1%} [{car['points_share_lo']:.1%}, "
        f"{car['points_share_hi']:.1%}] of all points; {car['has_carnivore']:.1%} of seats ended "
        f"the game with a carnivore alive; a seat made {car['attacks']:.2f} attacks and "
        f"{car['kills']:.2f} kills a game."
    )


def _no_gap_text(run: RunData, table: pl.DataFrame) -> str:
    """Why the lineup cannot say whether carnivore strategies dominate, and what to play."""
    why = (
        "the seats were not rotated"
        if not run.config.get("rotate")
        else "every heuristic seat plays the same aggression"
        if table["aggression"].drop_nulls().n_unique() <= MAX_LEVELS_FOR_NO_GAP
        else "no heuristic bot in the lineup"
    )
    return (
        f" Do carnivore strategies dominate? This run's lineup cannot answer that ({why}): "
        "play heuristic bots of high and low aggression against each other with --rotate, "
        'e.g. dinolab simulate oos --strategy "heuristic[aggression=2],heuristic[aggression=0]'
        ',heuristic[aggression=2],heuristic[aggression=0]" --rotate.'
    )


def _gap_text(table: pl.DataFrame, gap: dict) -> str:
    """The most against the least aggressive bot's win share, and the run's strongest bot."""
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
    return verdict


def _aggression_section(run: RunData) -> Section:
    """The carnivores' points, and whether aggressive bots win more, by bot."""
    points = _points_text(run)
    table, gap = aggression(run)
    verdict = _no_gap_text(run, table) if gap is None else _gap_text(table, gap)
    shown_table = table.with_columns(
        mean=pl.col("share"), lo=pl.col("share_lo"), hi=pl.col("share_hi")
    )
    return Section(
        "Carnivores: points and aggression",
        points + verdict + " By bot (seat-games; 'points share' is the carnivores' "
        "points over all the bot's points; 95% intervals):",
        shown_table,
        AGGRESSION_COLUMNS,
        plots.bars_with_ci(
            shown_table["strategy"].to_list(),
            shown_table,
            title="Win share by bot",
            ylabel="win share, %",
            reference=1 / run.n_players,
        ),
        key="oos-carnivores",
    )


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
