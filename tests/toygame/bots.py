"""High card's bots: random, high (its highest card, or random with ``noise``), low."""

from __future__ import annotations

from rules.core.jit import jit
from rules.core.rng import bounded, uniform
from strategies.core.registry import Registry, StrategyInfo, StrategyParam, indices

RANDOM, HIGH, LOW = 0, 1, 2
HIGH_PARAMS = (StrategyParam("noise", 0.0, 0.0, 1.0, "chance to play a random card instead"),)
HIGH_AT = indices(HIGH_PARAMS)  # the bot reads its parameters by name: params[j, HIGH_AT.noise]
REGISTRY = Registry(
    "high-card",
    [
        StrategyInfo("random", RANDOM, "a random card"),
        StrategyInfo("high", HIGH, "its highest card", HIGH_PARAMS),
        StrategyInfo("low", LOW, "its lowest card"),
    ],
    options=("high_cards",),
)


@jit
def choose(lineup, j: int, tb, st, seat: int, left: int) -> int:
    sid = lineup.ids[j]
    if sid == RANDOM or (
        sid == HIGH and uniform(st.rng, 1 + seat) < lineup.params[j, HIGH_AT.noise]
    ):
        return bounded(st.rng, 1 + seat, left)
    best = 0
    for k in range(1, left):
        c, b = st.hands[seat, k], st.hands[seat, best]
        if (sid == HIGH and c > b) or (sid == LOW and c < b):
            best = k
    return best
