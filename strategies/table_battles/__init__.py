"""Dinosaur Table Battles bots: ``random``, ``heuristic``, ``search``, ``drafter``, ``tuned``
(``heuristic`` with the parameters of ``tuned.json``, tuned against the heuristic)."""

from pathlib import Path

from rules.table_battles.options import OPTIONS
from strategies.core.registry import Registry, StrategyInfo, StrategyParam, tuned
from strategies.table_battles.bots import DRAFTER, HEURISTIC, RANDOM, SEARCH
from strategies.table_battles.heuristic import DEFAULTS

_H = [float(x) for x in DEFAULTS]
_HEURISTIC = StrategyInfo(
    "heuristic",
    HEURISTIC,
    "attacks by expected damage and timing, least-bad reactions, flip-or-pay by card "
    "value, dice where they add most; drafts by rating and dice-face synergy",
    (
        StrategyParam("threshold", _H[0], -5.0, 10.0, "attack when its value reaches this"),
        StrategyParam("flip_value", _H[1], 0.0, 10.0, "markers a face-up card is worth"),
        StrategyParam("provoke", _H[2], 0.0, 10.0, "value of forcing a reaction"),
        StrategyParam("react", _H[3], 0.0, 3.0, "weight of reactions when placing dice"),
        StrategyParam("rating", _H[4], 0.0, 3.0, "weight of the printed draft rating"),
        StrategyParam("synergy", _H[5], 0.0, 5.0, "weight of each new accepted die face"),
        StrategyParam("deny", _H[6], 0.0, 1.0, "weight of the opponent's gain on removal"),
    ),
)
REGISTRY = Registry(
    "table-battles",
    [
        StrategyInfo(
            "random",
            RANDOM,
            "uniform over the legal choices at every decision, the draft included",
        ),
        _HEURISTIC,
        StrategyInfo(
            "search",
            SEARCH,
            "flat Monte Carlo over attacks, placements, reactions and flips; heuristic rollouts "
            "on determinised copies (future dice re-rolled from its own stream); heuristic draft",
            (
                StrategyParam("rollouts", 8.0, 1.0, 256.0, "rollouts per candidate"),
                StrategyParam("candidates", 6.0, 2.0, 64.0, "attacks / placements compared"),
            ),
        ),
        StrategyInfo(
            "drafter",
            DRAFTER,
            "drafts by simulated value (rollouts of the rest of the draft and the battle from "
            "each candidate pick, unseen cards redealt); battles with the heuristic",
            (StrategyParam("rollouts", 16.0, 1.0, 512.0, "rollouts per draft candidate"),),
        ),
        tuned(_HEURISTIC, Path(__file__).with_name("tuned.json")),
    ],
    options=OPTIONS,
)
