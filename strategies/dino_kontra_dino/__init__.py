"""Dino Kontra Dino bots: ``random``, ``greedy``, ``blind``, ``cautious``, ``montecarlo``,
``tuned`` (``cautious`` with the parameters of ``tuned.json``, tuned against three greedy bots).

Every bot honours restricted play (``name[forbid=Tyrannosaurus+figure]``, the options of
:mod:`rules.dino_kontra_dino.options`) through :mod:`strategies.dino_kontra_dino.allowed`."""

from pathlib import Path

from rules.dino_kontra_dino.options import OPTIONS
from strategies.core.registry import Registry, StrategyInfo, StrategyParam, tuned
from strategies.dino_kontra_dino.bots import BLIND, CAUTIOUS, GREEDY, ODDS, RANDOM
from strategies.dino_kontra_dino.dispatch import MONTECARLO

_CAUTIOUS = StrategyInfo(
    "cautious",
    CAUTIOUS,
    "wins with the card it needs least later, sacrifices its worst when it cannot win",
    (
        StrategyParam("aim", 0.9, 0.0, 1.0, "strength to aim for, share of the maximum"),
        StrategyParam("figure", 1.0, 0.0, 10.0, "target lowered when holding the figure"),
    ),
)
_ODDS = StrategyInfo(
    "odds",
    ODDS,
    "plays the card with the best chance of winning now, less what it is worth later",
    (
        StrategyParam("keep", 0.3, 0.0, 5.0, "weight of a card's strength in events to come"),
        StrategyParam("field", 1.0, 0.0, 2.0, "opponents' strength: 1 = they play their best"),
    ),
)
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
        _CAUTIOUS,
        StrategyInfo(
            "montecarlo",
            MONTECARLO,
            "flat Monte Carlo: for each card, rollouts of imagined deals played out greedily",
            (StrategyParam("rollouts", 32.0, 1.0, 4096.0, "imagined games per candidate card"),),
        ),
        _ODDS,
        tuned(_ODDS, Path(__file__).with_name("tuned.json")),
    ],
    options=OPTIONS,
)
