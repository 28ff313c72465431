"""The Dinosaur Table Battles bots' parameters, declared once: the registry
(:mod:`strategies.table_battles`) offers them by name, and the compiled bots read their vectors
through the named indices made here from the same declarations (``HP.flip_value``), so
reordering a declaration changes no play."""

from strategies.core.registry import StrategyParam, indices

HEURISTIC = (
    StrategyParam("threshold", 1.0, -5.0, 10.0, "attack when its value reaches this"),
    StrategyParam("flip_value", 2.5, 0.0, 10.0, "markers a face-up card is worth"),
    StrategyParam("provoke", 4.0, 0.0, 10.0, "value of forcing a reaction"),
    StrategyParam("react", 0.6, 0.0, 3.0, "weight of reactions when placing dice"),
    StrategyParam("rating", 0.7, 0.0, 3.0, "weight of the printed draft rating"),
    StrategyParam("synergy", 2.0, 0.0, 5.0, "weight of each new accepted die face"),
    StrategyParam("deny", 0.3, 0.0, 1.0, "weight of the opponent's gain on removal"),
)
SEARCH = (
    StrategyParam("rollouts", 8.0, 1.0, 256.0, "rollouts per candidate"),
    StrategyParam("candidates", 6.0, 2.0, 64.0, "attacks / placements compared"),
)
DRAFTER = (StrategyParam("rollouts", 16.0, 1.0, 512.0, "rollouts per draft candidate"),)
STRONG = (
    StrategyParam("playouts", 3.0, 1.0, 4096.0, "playouts per decision, by sequential halving"),
    StrategyParam("horizon", 4.0, 1.0, 1000.0, "turns a playout looks ahead"),
    StrategyParam("candidates", 3.0, 2.0, 64.0, "attacks / placements compared"),
    # fitted on logged games of this bot (reports.evaluation): `dinolab simulate dtb -n 20000
    # --seed 11 --strategy strong,strong`, then fit_battle(run); weights fitted on heuristic
    # games play weaker (docs/benchmarks.md); tests/test_strong.py refits them on fresh games
    StrategyParam("w_markers", 0.416, 0.0, 5.0, "evaluation: weight of each hit marker ahead"),
    StrategyParam("w_cards", 0.723, 0.0, 5.0, "evaluation: weight of each face-up card ahead"),
    StrategyParam("w_dice", 0.206, 0.0, 5.0, "evaluation: weight of each die on a card ahead"),
    StrategyParam("w_turn", 0.193, -5.0, 5.0, "evaluation: log-odds of moving next"),
)

HP = indices(HEURISTIC)
SEARCH_AT = indices(SEARCH)
DRAFTER_AT = indices(DRAFTER)
STRONG_AT = indices(STRONG)
