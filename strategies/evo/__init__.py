"""EVO bots: ``random``, ``heuristic``, ``search``."""

from strategies.core.registry import Registry, StrategyInfo, StrategyParam
from strategies.evo.bots import HEURISTIC, RANDOM, SEARCH
from strategies.evo.heuristic import DEFAULTS

_H = DEFAULTS
REGISTRY = Registry(
    "evo",
    [
        StrategyInfo(
            "random",
            RANDOM,
            "uniform over the legal choices at every decision, bids and card plays included",
        ),
        StrategyInfo(
            "heuristic",
            HEURISTIC,
            "saves dinos from the climate, attacks on good odds, bids gene values by round",
            (
                StrategyParam("aggression", _H[0], 0.0, 1.0, "value of killing an enemy dino"),
                StrategyParam("foresight", _H[1], 0.0, 3.0, "weight of next round's climate"),
                StrategyParam("bid", _H[2], 0.0, 5.0, "multiplier on gene values when bidding"),
                StrategyParam("cards", _H[3], 0.0, 1.0, "chance to play a useful card"),
                StrategyParam("egg", _H[4], 0.0, 5.0, "multiplier on the value of eggs"),
                StrategyParam("leg", _H[5], 0.0, 5.0, "multiplier on the value of legs"),
                StrategyParam("guard", _H[6], 0.0, 5.0, "multiplier on furs and parasols"),
                StrategyParam("horn", _H[7], 0.0, 5.0, "multiplier on the value of horns"),
            ),
        ),
        StrategyInfo(
            "search",
            SEARCH,
            "flat Monte Carlo over bids and moves, heuristic rollouts on determinised copies",
            (
                StrategyParam("rollouts", 8.0, 1.0, 64.0, "rollouts per candidate action"),
                StrategyParam("candidates", 6.0, 2.0, 32.0, "movement candidates compared"),
                StrategyParam("moves", 1.0, 0.0, 1.0, "1: search movement too; 0: bids only"),
            ),
        ),
    ],
)
