"""Dino Kontra Dino bots: ``random``, ``greedy``, ``blind``, ``cautious``, ``montecarlo``,
``odds``, ``tuned`` (``odds`` with the parameters of ``tuned.json``, tuned against three greedy
bots); their parameters are declared in :mod:`strategies.dino_kontra_dino.params`.

Every bot honours restricted play (``name[forbid=Tyrannosaurus+figure]``, the options of
:mod:`rules.dino_kontra_dino.options`) through :mod:`strategies.dino_kontra_dino.allowed`."""

from pathlib import Path

from rules.dino_kontra_dino.options import OPTIONS
from strategies.core.registry import Registry, StrategyInfo, tuned
from strategies.dino_kontra_dino import params
from strategies.dino_kontra_dino.bots import BLIND, CAUTIOUS, GREEDY, ODDS, RANDOM
from strategies.dino_kontra_dino.dispatch import MONTECARLO, STRONG

_ODDS = StrategyInfo(
    "odds",
    ODDS,
    "plays the card with the best chance of winning now, less what it is worth later",
    params.ODDS,
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
            params.BLIND,
        ),
        StrategyInfo(
            "cautious",
            CAUTIOUS,
            "wins with the card it needs least later, sacrifices its worst when it cannot win",
            params.CAUTIOUS,
        ),
        StrategyInfo(
            "montecarlo",
            MONTECARLO,
            "flat Monte Carlo: for each card, rollouts of imagined deals played out greedily",
            params.MONTECARLO,
            cost=1_000,
        ),
        _ODDS,
        StrategyInfo(
            "strong",
            STRONG,
            "tuned's card where its odds separate the cards; among the cards they cannot "
            "separate, the best by sequential halving over imagined games cut off after a few "
            "rounds, scored through a curve fitted on logged games (strategies.core.montecarlo)",
            params.STRONG,
            cost=250,
        ),
        tuned(_ODDS, Path(__file__).with_name("tuned.json")),
    ],
    options=OPTIONS,
)
