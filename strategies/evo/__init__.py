"""EVO bots: ``random``, ``heuristic``, ``heuristic-v1``, ``search``, ``tuned`` (``heuristic``
with the parameters of ``tuned.json``, tuned against three heuristics); their parameters are
declared in :mod:`strategies.evo.params`."""

from pathlib import Path

from rules.evo.options import OPTIONS
from strategies.core.registry import PathParam, Registry, StrategyInfo, tuned
from strategies.evo import params
from strategies.evo.bots import HEURISTIC, HEURISTIC_V1, RANDOM, SEARCH, STRONG
from strategies.evo.values import load

_VALUES = PathParam(
    "values",
    "gene value table (a CSV from `dinolab fit evo`); default: the shipped fit for these "
    "player counts (strategies/evo/data/values.csv)",
    load,
)

_HEURISTIC = StrategyInfo(
    "heuristic",
    HEURISTIC,
    "saves dinos from the climate, attacks on good odds, bids gene values fitted by "
    "self-play (a value table), jumping to the bid no rival would beat",
    params.HEURISTIC,
    (_VALUES,),
)
REGISTRY = Registry(
    "evo",
    [
        StrategyInfo(
            "random",
            RANDOM,
            "uniform over the legal choices at every decision (the allowed ones under "
            "restricted play), bids and card plays included",
        ),
        _HEURISTIC,
        StrategyInfo(
            "heuristic-v1",
            HEURISTIC_V1,
            "the heuristic before issue 10: typed-in gene values, always the lowest legal bid",
            params.HEURISTIC_V1,
        ),
        StrategyInfo(
            "search",
            SEARCH,
            "flat Monte Carlo over bids (several levels), card plays, newborn regions and "
            "moves, heuristic rollouts on determinised copies",
            params.SEARCH,
            cost=2_500,
            searches=True,
        ),
        StrategyInfo(
            "strong",
            STRONG,
            "the search's candidates compared by sequential halving over short heuristic "
            "playouts on determinised copies, cut off at a round's end and scored by the points "
            "and dinos ahead through a curve fitted on logged games "
            "(strategies.core.montecarlo)",
            params.STRONG,
            cost=250,
            searches=True,
        ),
        tuned(_HEURISTIC, Path(__file__).with_name("tuned.json")),
    ],
    options=OPTIONS,
)
