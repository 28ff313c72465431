"""The Dino Kontra Dino bots' parameters, declared once: the registry
(:mod:`strategies.dino_kontra_dino`) offers them by name, and the compiled bots read their
vectors through the named indices made here from the same declarations
(``lineup.params[j, CAUTIOUS_AT.aim]``), so reordering a declaration changes no play."""

import json
from pathlib import Path

from strategies.core.registry import StrategyParam, indices

TUNED = json.loads(Path(__file__).with_name("tuned.json").read_text())["params"]

BLIND = (StrategyParam("memory", 1.0, 0.0, 1.0, "1: prior over unresolved events; 0: whole deck"),)
CAUTIOUS = (
    StrategyParam("aim", 0.9, 0.0, 1.0, "strength to aim for, share of the maximum"),
    StrategyParam("figure", 1.0, 0.0, 10.0, "target lowered when holding the figure"),
)
MONTECARLO = (StrategyParam("rollouts", 32.0, 1.0, 4096.0, "imagined games per candidate card"),)
ODDS = (
    StrategyParam("keep", 0.3, 0.0, 5.0, "weight of a card's strength in events to come"),
    StrategyParam("field", 1.0, 0.0, 2.0, "opponents' strength: 1 = they play their best"),
)
STRONG = (
    StrategyParam("playouts", 16.0, 1.0, 4096.0, "imagined games per decision, by halving"),
    StrategyParam("horizon", 3.0, 1.0, 100.0, "rounds an imagined game looks ahead"),
    # fitted on logged games (reports.evaluation):
    # `dinolab simulate dkd -n 20000 -p 4 --seed 11`, then
    # fit_margin(run, "won", True); tests/test_strong.py refits them on fresh games
    StrategyParam("slope", 0.859, 0.0, 10.0, "evaluation: logistic slope per event won ahead"),
    StrategyParam(
        "lead", 0.522, -5.0, 5.0, "evaluation: log-odds a level leader has over a fair seat"
    ),
    # the prior is `tuned`: odds with the parameters of tuned.json
    StrategyParam(
        "keep", TUNED["keep"], 0.0, 5.0, "prior (odds): weight of a card's later strength"
    ),
    StrategyParam("field", TUNED["field"], 0.0, 2.0, "prior (odds): opponents' strength"),
    StrategyParam("gate", 0.01, 0.0, 10.0, "search only the cards this close to the prior's best"),
)

BLIND_AT = indices(BLIND)
CAUTIOUS_AT = indices(CAUTIOUS)
MONTECARLO_AT = indices(MONTECARLO)
ODDS_AT = indices(ODDS)
STRONG_AT = indices(STRONG)
