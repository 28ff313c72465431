"""The one place a Dino Kontra Dino kernel turns a strategy id into a decision."""

from __future__ import annotations

from rules.core.jit import jit, jit_inline
from strategies.dino_kontra_dino.bots import (
    BLIND,
    CAUTIOUS,
    GREEDY,
    RANDOM,
    play_blind,
    play_cautious,
    play_greedy,
    play_random,
)
from strategies.dino_kontra_dino.search import play_montecarlo

MONTECARLO = 4


@jit_inline
def choose(lineup, j: int, tb, st, seat: int, scratch) -> int:
    """The hand slot that lineup position ``j``'s bot plays from ``seat`` (``scratch``: the
    search bots' :data:`~strategies.dino_kontra_dino.search.SCRATCH` record)."""
    sid = lineup.ids[j]
    if sid == GREEDY:
        return play_greedy(tb, st, seat)
    if sid == RANDOM:
        return play_random(st, seat)
    if sid == BLIND:
        return play_blind(tb, st, seat, lineup.params[j, 0])
    if sid == CAUTIOUS:
        return play_cautious(tb, st, seat, lineup.params[j, 0], lineup.params[j, 1])
    return choose_search(lineup, j, tb, st, seat, scratch)


@jit
def choose_search(lineup, j: int, tb, st, seat: int, scratch) -> int:
    """The search bots, kept out of :func:`choose`: their scratch allocations made every
    greedy decision ~8% slower when they shared its body."""
    if lineup.ids[j] == MONTECARLO:
        return play_montecarlo(tb, st, seat, lineup.params[j, 0], scratch)
    return 0
