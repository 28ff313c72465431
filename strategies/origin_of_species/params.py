"""The Origin of Species bots' parameters, declared once: the registry
(:mod:`strategies.origin_of_species`) offers them by name, and the compiled bots read their
vectors through the named indices made here from the same declarations (``hp[HP.risk]``), so
reordering a declaration changes no play."""

from strategies.core.registry import StrategyParam, indices

HEURISTIC = (
    StrategyParam("animals", 0.5, 0.0, 3.0, "weight of a new animal (vs traits)"),
    StrategyParam("caution", 2.0, 0.1, 3.0, "how much food demand counts"),
    StrategyParam("aggression", 0.08, 0.0, 3.0, "willingness to attack (0: never)"),
    StrategyParam("defence", 0.3, 0.0, 3.0, "value of defensive traits"),
    StrategyParam("carnivore", 1.6, 0.0, 3.0, "value of playing Carnivore"),
    StrategyParam("parasite", 0.5, 0.0, 3.0, "value of Parasites on opponents"),
    StrategyParam("fat", 1.5, 0.0, 3.0, "value of Fat Tissue and stored fat"),
    StrategyParam("links", 1.0, 0.0, 3.0, "value of paired traits' food"),
    StrategyParam(
        "utility", 1.0, 0.0, 3.0, "value of Piracy, Hibernation, Grazing, Scavenger (0: never used)"
    ),
    StrategyParam("pass_at", -0.5, -1.0, 5.0, "pass development below this value"),
    StrategyParam("tail_first", 0.0, 0.0, 1.0, "1: Tail Loss before Running"),
    StrategyParam("fat_bank", 0.0, 0.0, 30.0, "convert fat once the bank is this low"),
    StrategyParam(
        "predation",
        0.6,
        0.0,
        1.0,
        "chance an opponent carnivore attacks one of the animals it can reach",
    ),
    StrategyParam(
        "latent", 0.3, 0.0, 1.0, "the same for a carnivore an opponent without one may still play"
    ),
    StrategyParam(
        "risk", 1.0, 0.0, 3.0, "weight of that predation risk on animals and traits (0: ignored)"
    ),
    StrategyParam(
        "model",
        1.0,
        0.0,
        1.0,
        "1: the predation model; 0: heuristic-v1's play without it (predation, latent, "
        "risk unused)",
    ),
)
V1 = {"caution": 1.5, "aggression": 0.15, "parasite": 1.0, "fat": 1.0, "model": 0.0}
"""``heuristic-v1``: the defaults that differ from the heuristic's (``model`` 0, and the
``caution``, ``aggression``, ``parasite`` and ``fat`` from before the predation model)."""
SEARCH = (
    StrategyParam("rollouts", 12.0, 1.0, 64.0, "rollouts per candidate action"),
    StrategyParam("candidates", 6.0, 2.0, 32.0, "candidate actions compared"),
    StrategyParam("feed", 1.0, 0.0, 1.0, "1: search feeding decisions too"),
)
STRONG = (
    StrategyParam("playouts", 16.0, 1.0, 1024.0, "playouts per decision, by sequential halving"),
    StrategyParam("horizon", 1.0, 1.0, 100.0, "rounds a playout looks ahead"),
    StrategyParam("candidates", 6.0, 2.0, 32.0, "candidate actions compared"),
    StrategyParam("feed", 1.0, 0.0, 1.0, "1: search feeding decisions too"),
    # fitted on logged games (reports.evaluation):
    # `dinolab simulate oos -n 4000 -p 4 --seed 11`, then
    # fit_margin(run, "score"); tests/test_strong.py refits them on fresh games
    StrategyParam("slope", 0.154, 0.0, 5.0, "evaluation: logistic slope per point ahead"),
    StrategyParam(
        "lead", 0.404, -5.0, 5.0, "evaluation: log-odds a level leader has over a fair seat"
    ),
)

HP = indices(HEURISTIC)
SEARCH_AT = indices(SEARCH)
STRONG_AT = indices(STRONG)
