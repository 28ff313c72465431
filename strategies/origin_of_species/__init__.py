"""Origin of Species bots: ``random``, ``heuristic``, ``search``, ``heuristic-v1``."""

from rules.origin_of_species.options import OPTIONS
from strategies.core.registry import Registry, StrategyInfo, StrategyParam
from strategies.origin_of_species import heuristic_v1
from strategies.origin_of_species.bots import HEURISTIC, HEURISTIC_V1, RANDOM, SEARCH
from strategies.origin_of_species.heuristic import DEFAULTS


def _common(h) -> tuple[StrategyParam, ...]:
    """The parameters the heuristic shares with ``heuristic-v1`` (defaults ``h``; the compiled
    bots read them by position ``hp[k]``, so new ones go at the end)."""
    return (
        StrategyParam("animals", h[0], 0.0, 3.0, "weight of a new animal (vs traits)"),
        StrategyParam("caution", h[1], 0.1, 3.0, "how much food demand counts"),
        StrategyParam("aggression", h[2], 0.0, 3.0, "willingness to attack (0: never)"),
        StrategyParam("defence", h[3], 0.0, 3.0, "value of defensive traits"),
        StrategyParam("carnivore", h[4], 0.0, 3.0, "value of playing Carnivore"),
        StrategyParam("parasite", h[5], 0.0, 3.0, "value of Parasites on opponents"),
        StrategyParam("fat", h[6], 0.0, 3.0, "value of Fat Tissue and stored fat"),
        StrategyParam("links", h[7], 0.0, 3.0, "value of paired traits' food"),
        StrategyParam(
            "utility",
            h[8],
            0.0,
            3.0,
            "value of Piracy, Hibernation, Grazing, Scavenger (0: never used)",
        ),
        StrategyParam("pass_at", h[9], -1.0, 5.0, "pass development below this value"),
        StrategyParam("tail_first", h[10], 0.0, 1.0, "1: Tail Loss before Running"),
        StrategyParam("fat_bank", h[11], 0.0, 30.0, "convert fat once the bank is this low"),
    )


_H = DEFAULTS
REGISTRY = Registry(
    "origin-of-species",
    [
        StrategyInfo(
            "random",
            RANDOM,
            "uniform over the legal choices of every decision (allowed ones under restricted play)",
        ),
        StrategyInfo(
            "heuristic",
            HEURISTIC,
            "values each play by the change in expected points under a food-sharing model; "
            "feeds the nearest-to-fed animal, attacks when worth more than a red token",
            (
                *_common(_H),
                StrategyParam(
                    "predation",
                    _H[12],
                    0.0,
                    1.0,
                    "chance an opponent carnivore attacks one of the animals it can reach",
                ),
                StrategyParam(
                    "latent",
                    _H[13],
                    0.0,
                    1.0,
                    "the same for a carnivore an opponent without one may still play",
                ),
                StrategyParam(
                    "risk",
                    _H[14],
                    0.0,
                    3.0,
                    "weight of that predation risk on animals and traits (0: ignored)",
                ),
            ),
        ),
        StrategyInfo(
            "search",
            SEARCH,
            "flat Monte Carlo over development (and feeding) choices, heuristic rollouts on "
            "determinised copies",
            (
                StrategyParam("rollouts", 12.0, 1.0, 64.0, "rollouts per candidate action"),
                StrategyParam("candidates", 6.0, 2.0, 32.0, "candidate actions compared"),
                StrategyParam("feed", 1.0, 0.0, 1.0, "1: search feeding decisions too"),
            ),
        ),
        StrategyInfo(
            "heuristic-v1",
            HEURISTIC_V1,
            "the heuristic before its predation model (issue 16: one stacked animal), kept for "
            "reproduction",
            _common(heuristic_v1.DEFAULTS),
        ),
    ],
    options=OPTIONS,
)
