"""Origin of Species bots: ``random``, ``heuristic``, ``search``, ``heuristic-v1``, ``tuned``
(``heuristic`` with the parameters of ``tuned.json``, tuned against the heuristic at each
player count); their parameters are declared in :mod:`strategies.origin_of_species.params`."""

from pathlib import Path

from rules.origin_of_species.options import OPTIONS
from strategies.core.registry import Registry, StrategyInfo, alias, tuned
from strategies.origin_of_species import params
from strategies.origin_of_species.bots import HEURISTIC, RANDOM, SEARCH, STRONG

_HEURISTIC = StrategyInfo(
    "heuristic",
    HEURISTIC,
    "values each play by the change in expected points under a food-sharing model; "
    "feeds the nearest-to-fed animal, attacks when worth more than a red token",
    params.HEURISTIC,
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
            params.SEARCH,
            cost=5_000,
            searches=True,
        ),
        StrategyInfo(
            "strong",
            STRONG,
            "the search's candidates compared by sequential halving over short heuristic "
            "playouts on determinised copies, scored by an evaluation fitted on logged games "
            "(strategies.core.montecarlo)",
            params.STRONG,
            cost=100,
            searches=True,
        ),
        alias(
            _HEURISTIC,
            "heuristic-v1",
            "the heuristic before its predation model (issue 16: one stacked animal), kept for "
            "reproduction: model 0 with the old defaults",
            **params.V1,
        ),
        tuned(_HEURISTIC, Path(__file__).with_name("tuned.json")),
    ],
    options=OPTIONS,
)
