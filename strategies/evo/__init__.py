"""EVO bots: ``random``, ``heuristic``, ``heuristic-v1``, ``search``, ``tuned`` (``heuristic``
with the parameters of ``tuned.json``, tuned against three heuristics)."""

from pathlib import Path

from rules.evo.options import OPTIONS
from strategies.core.registry import PathParam, Registry, StrategyInfo, StrategyParam, tuned
from strategies.evo import heuristic_v1
from strategies.evo.bots import HEURISTIC, HEURISTIC_V1, RANDOM, SEARCH
from strategies.evo.heuristic import DEFAULTS
from strategies.evo.values import load

_H, _V1 = DEFAULTS, heuristic_v1.DEFAULTS
_VALUES = PathParam(
    "values",
    "gene value table (a CSV from `dinolab fit evo`); default: the shipped fit for these "
    "player counts (strategies/evo/data/values.csv)",
    load,
)


def _common(d: tuple[float, ...], bid: str) -> tuple[StrategyParam, ...]:
    return (
        StrategyParam("aggression", d[0], 0.0, 1.0, "value of killing an enemy dino"),
        StrategyParam("foresight", d[1], 0.0, 3.0, "weight of next round's climate"),
        StrategyParam("bid", d[2], 0.0, 5.0, bid),
        StrategyParam("cards", d[3], 0.0, 1.0, "chance to play a useful card"),
        StrategyParam("egg", d[4], 0.0, 5.0, "multiplier on the value of eggs"),
        StrategyParam("leg", d[5], 0.0, 5.0, "multiplier on the value of legs"),
        StrategyParam("guard", d[6], 0.0, 5.0, "multiplier on furs and parasols"),
        StrategyParam("horn", d[7], 0.0, 5.0, "multiplier on the value of horns"),
    )


_HEURISTIC = StrategyInfo(
    "heuristic",
    HEURISTIC,
    "saves dinos from the climate, attacks on good odds, bids gene values fitted by "
    "self-play (a value table), jumping to the bid no rival would beat",
    (
        *_common(_H, "multiplier on the table's gene values (1: as fitted)"),
        StrategyParam(
            "jump", _H[8], 0.0, 1.0, "1: bid at once what no rival would beat; 0: lowest"
        ),
    ),
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
            _common(_V1, "multiplier on its gene valuations when bidding"),
        ),
        StrategyInfo(
            "search",
            SEARCH,
            "flat Monte Carlo over bids (several levels), card plays, newborn regions and "
            "moves, heuristic rollouts on determinised copies",
            (
                StrategyParam("rollouts", 8.0, 1.0, 64.0, "rollouts per candidate action"),
                StrategyParam("candidates", 6.0, 2.0, 32.0, "movement/placement candidates"),
                StrategyParam("moves", 1.0, 0.0, 1.0, "1: search movement too; 0: bids only"),
                StrategyParam("cards", 1.0, 0.0, 1.0, "1: search card plays too"),
                StrategyParam("place", 1.0, 0.0, 1.0, "1: search newborn placement too"),
            ),
        ),
        tuned(_HEURISTIC, Path(__file__).with_name("tuned.json")),
    ],
    options=OPTIONS,
)
