"""Dino Kontra Dino bots: ``random``, ``greedy``, ``blind``, ``cautious``, ``montecarlo``.

Every bot honours restricted play (``name[forbid=Tyrannosaurus+figure]``, the options of
:mod:`rules.dino_kontra_dino.options`) through :mod:`strategies.dino_kontra_dino.allowed`."""

from rules.dino_kontra_dino.options import OPTIONS
from strategies.core.registry import Registry, StrategyInfo, StrategyParam
from strategies.dino_kontra_dino.bots import BLIND, CAUTIOUS, GREEDY, RANDOM
from strategies.dino_kontra_dino.dispatch import MONTECARLO

REGISTRY = Registry(
    "dino-kontra-dino",
    [
        StrategyInfo("random", RANDOM, "plays a uniformly random card from its hand"),
        StrategyInfo(
            "greedy",
            GREEDY,
            "knows the event's traits from its name; plays its strongest card for it",
        ),
        StrategyInfo(
            "blind",
            BLIND,
            "does not know the traits; plays the card with the best expected strength",
            (
                StrategyParam(
                    "memory", 1.0, 0.0, 1.0, "1: prior over unresolved events; 0: whole deck"
                ),
            ),
        ),
        StrategyInfo(
            "cautious",
            CAUTIOUS,
            "wins with the card it needs least later, sacrifices its worst when it cannot win",
            (
                StrategyParam("aim", 0.9, 0.0, 1.0, "strength to aim for, share of the maximum"),
                StrategyParam("figure", 1.0, 0.0, 10.0, "target lowered when holding the figure"),
            ),
        ),
        StrategyInfo(
            "montecarlo",
            MONTECARLO,
            "flat Monte Carlo: for each card, rollouts of imagined deals played out greedily",
            (StrategyParam("rollouts", 32.0, 1.0, 4096.0, "imagined games per candidate card"),),
        ),
    ],
    options=OPTIONS,
)
