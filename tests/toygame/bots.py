"""High card's bots: random, high (its highest card, or random with ``noise``), low."""

from __future__ import annotations

from rules.core.jit import jit
from rules.core.rng import bounded, uniform
from strategies.core.registry import Registry, StrategyInfo, StrategyParam

RANDOM, HIGH, LOW = 0, 1, 2
REGISTRY = Registry(
    "high-card",
    [
        StrategyInfo("random", RANDOM, "a random card"),
        StrategyInfo(
            "high", HIGH, "its highest card",
            (StrategyParam("noise", 0.0, 0.0, 1.0, "chance to play a random card instead"),),
        ),
        StrategyInfo("low", LOW, "its lowest card"),
    ],
    options=("high_cards",),
)  # fmt: skip


@jit
def choose(lineup, j: int, tb, st, seat: int, left: int) -> int:
    sid = lineup.ids[j]
    if sid == RANDOM or (sid == HIGH and uniform(st.rng, 1 + seat) < lineup.params[j, 0]):
        return bounded(st.rng, 1 + seat, left)
    best = 0
    for k in range(1, left):
        c, b = st.hands[seat, k], st.hands[seat, best]
        if (sid == HIGH and c > b) or (sid == LOW and c < b):
            best = k
    return best
