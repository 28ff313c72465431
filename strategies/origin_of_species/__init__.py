"""Origin of Species bots: ``random``, ``heuristic``, ``search``, ``heuristic-v1``, ``tuned``
(``heuristic`` with the parameters of ``tuned.json``, tuned against the heuristic at each
player count)."""

from pathlib import Path

from rules.origin_of_species.options import OPTIONS
from strategies.core.registry import Registry, StrategyInfo, StrategyParam, alias, tuned
from strategies.origin_of_species.bots import HEURISTIC, RANDOM, SEARCH
from strategies.origin_of_species.heuristic import DEFAULTS, V1

_H = DEFAULTS
_HEURISTIC = StrategyInfo(
    "heuristic",
    HEURISTIC,
    "values each play by the change in expected points under a food-sharing model; "
    "feeds the nearest-to-fed animal, attacks when worth more than a red token",
    # the compiled bot reads these by position (hp[k]): new ones go at the end
    (
        StrategyParam("animals", _H[0], 0.0, 3.0, "weight of a new animal (vs traits)"),
        StrategyParam("caution", _H[1], 0.1, 3.0, "how much food demand counts"),
        StrategyParam("aggression", _H[2], 0.0, 3.0, "willingness to attack (0: never)"),
        StrategyParam("defence", _H[3], 0.0, 3.0, "value of defensive traits"),
        StrategyParam("carnivore", _H[4], 0.0, 3.0, "value of playing Carnivore"),
        StrategyParam("parasite", _H[5], 0.0, 3.0, "value of Parasites on opponents"),
        StrategyParam("fat", _H[6], 0.0, 3.0, "value of Fat Tissue and stored fat"),
        StrategyParam("links", _H[7], 0.0, 3.0, "value of paired traits' food"),
        StrategyParam(
            "utility",
            _H[8],
            0.0,
            3.0,
            "value of Piracy, Hibernation, Grazing, Scavenger (0: never used)",
        ),
        StrategyParam("pass_at", _H[9], -1.0, 5.0, "pass development below this value"),
        StrategyParam("tail_first", _H[10], 0.0, 1.0, "1: Tail Loss before Running"),
        StrategyParam("fat_bank", _H[11], 0.0, 30.0, "convert fat once the bank is this low"),
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
        StrategyParam(
            "model",
            _H[15],
            0.0,
            1.0,
            "1: the predation model; 0: heuristic-v1's play without it (predation, latent, "
            "risk unused)",
        ),
    ),
)
REGISTRY = Registry(
    "origin-of-species",
    [
        StrategyInfo(
            "random",
            RANDOM,
            "uniform over the legal choices of every decision (allowed ones under restricted play)",
        ),
        _HEURISTIC,
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
        alias(
            _HEURISTIC,
            "heuristic-v1",
            "the heuristic before its predation model (issue 16: one stacked animal), kept for "
            "reproduction: model 0 with the old defaults",
            **V1,
        ),
        tuned(_HEURISTIC, Path(__file__).with_name("tuned.json")),
    ],
    options=OPTIONS,
)
