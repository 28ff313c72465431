"""Dinosaur Table Battles bots: ``random``, ``heuristic``, ``search``, ``drafter``, ``tuned``
(``heuristic`` with the parameters of ``tuned.json``, tuned against the heuristic); their
parameters are declared in :mod:`strategies.table_battles.params`."""

from pathlib import Path

from rules.table_battles.options import OPTIONS
from strategies.core.registry import Registry, StrategyInfo, tuned
from strategies.table_battles import params
from strategies.table_battles.bots import DRAFTER, HEURISTIC, RANDOM, SEARCH, STRONG

_HEURISTIC = StrategyInfo(
    "heuristic",
    HEURISTIC,
    "attacks by expected damage and timing, least-bad reactions, flip-or-pay by card "
    "value, dice where they add most; drafts by rating and dice-face synergy",
    params.HEURISTIC,
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
            params.SEARCH,
            cost=850,
            searches=True,
        ),
        StrategyInfo(
            "drafter",
            DRAFTER,
            "drafts by simulated value (rollouts of the rest of the draft and the battle from "
            "each candidate pick, unseen cards redealt); battles with the heuristic",
            params.DRAFTER,
            cost=650,
            searches=True,
        ),
        StrategyInfo(
            "strong",
            STRONG,
            "the search's attacks, placements, reactions and flips compared by sequential "
            "halving over short heuristic playouts on determinised copies, scored by an "
            "evaluation fitted on logged games; heuristic draft (strategies.core.montecarlo)",
            params.STRONG,
            cost=21,
            searches=True,
        ),
        tuned(_HEURISTIC, Path(__file__).with_name("tuned.json")),
    ],
    options=OPTIONS,
)
