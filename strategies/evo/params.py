"""The EVO bots' parameters, declared once: the registry (:mod:`strategies.evo`) offers them by
name, and the compiled bots read their vectors through the named indices made here from the
same declarations (``wk.hp[HP.foresight]``), so reordering a declaration changes no play.

The heuristic and ``heuristic-v1`` share their movement, culling and card code, which reads
the work record's ``wk.hp`` in the heuristic's order (:data:`HP`); ``heuristic-v1``'s vector is
copied there by name (:data:`V1_SLOTS`)."""

from strategies.core.registry import StrategyParam, indices


def _common(bid_doc: str, **d: float) -> tuple[StrategyParam, ...]:
    """The parameters both heuristics have, with their defaults by name (``d``) and the
    meaning ``bid_doc`` of their bid multiplier."""
    params = (
        StrategyParam(
            "aggression", d.pop("aggression"), 0.0, 1.0, "value of killing an enemy dino"
        ),
        StrategyParam("foresight", d.pop("foresight"), 0.0, 3.0, "weight of next round's climate"),
        StrategyParam("bid", d.pop("bid"), 0.0, 5.0, bid_doc),
        StrategyParam("cards", d.pop("cards"), 0.0, 1.0, "chance to play a useful card"),
        StrategyParam("egg", d.pop("egg"), 0.0, 5.0, "multiplier on the value of eggs"),
        StrategyParam("leg", d.pop("leg"), 0.0, 5.0, "multiplier on the value of legs"),
        StrategyParam("guard", d.pop("guard"), 0.0, 5.0, "multiplier on furs and parasols"),
        StrategyParam("horn", d.pop("horn"), 0.0, 5.0, "multiplier on the value of horns"),
    )
    if d:
        raise TypeError(f"no common heuristic parameter {', '.join(d)}")
    return params


HEURISTIC = (
    *_common(
        "multiplier on the table's gene values (1: as fitted)",
        aggression=0.5,
        foresight=0.5,
        bid=1.0,
        cards=1.0,
        egg=1.0,
        leg=1.0,
        guard=1.0,
        horn=1.0,
    ),
    StrategyParam("jump", 1.0, 0.0, 1.0, "1: bid at once what no rival would beat; 0: lowest"),
)
HEURISTIC_V1 = _common(
    "multiplier on its gene valuations when bidding",
    aggression=0.5,
    foresight=0.5,
    bid=1.5,
    cards=1.0,
    egg=1.3,
    leg=1.0,
    guard=2.0,
    horn=1.0,
)
SEARCH = (
    StrategyParam("rollouts", 8.0, 1.0, 64.0, "rollouts per candidate action"),
    StrategyParam("candidates", 6.0, 2.0, 32.0, "movement/placement candidates"),
    StrategyParam("moves", 1.0, 0.0, 1.0, "1: search movement too; 0: bids only"),
    StrategyParam("cards", 1.0, 0.0, 1.0, "1: search card plays too"),
    StrategyParam("place", 1.0, 0.0, 1.0, "1: search newborn placement too"),
)
STRONG = (
    StrategyParam("playouts", 20.0, 1.0, 1024.0, "playouts per decision, by sequential halving"),
    StrategyParam("horizon", 1.0, 1.0, 100.0, "rounds a playout looks ahead"),
    StrategyParam("candidates", 6.0, 2.0, 32.0, "movement/placement candidates"),
    StrategyParam("moves", 1.0, 0.0, 1.0, "1: search movement too; 0: bids only"),
    StrategyParam("cards", 1.0, 0.0, 1.0, "1: search card plays too"),
    StrategyParam("place", 1.0, 0.0, 1.0, "1: search newborn placement too"),
    # fitted on logged games (reports.evaluation): `dinolab simulate evo -n 4000 -p 4
    # --seed 11`, then fit_evo(run, builtin().worth(4)); tests/test_strong.py refits them
    StrategyParam(
        "lead", 0.610, -5.0, 5.0, "evaluation: log-odds a level leader has over a fair seat"
    ),
    StrategyParam(
        "slope", -0.039, -5.0, 5.0, "evaluation: log-odds per point ahead, plus slope_round x round"
    ),
    StrategyParam("slope_round", 0.056, -1.0, 1.0, "evaluation: change of the slope per round"),
    StrategyParam(
        "dinos", 0.995, -5.0, 5.0, "evaluation: log-odds per dino ahead, plus dinos_round x round"
    ),
    StrategyParam(
        "dinos_round", -0.077, -1.0, 1.0, "evaluation: change of the dinos' slope per round"
    ),
)

HP = indices(HEURISTIC)
"""Positions in the heuristic's vector, and in the work record's ``hp`` (both heuristics)."""
V1_SLOTS = tuple(getattr(HP, p.name) for p in HEURISTIC_V1)
"""Where each of ``heuristic-v1``'s parameters goes in ``wk.hp``, in its vector's order (by
name: ``heuristic-v1`` has no ``jump``, the shared code reads none of the heuristic's own)."""
SEARCH_AT = indices(SEARCH)
STRONG_AT = indices(STRONG)
