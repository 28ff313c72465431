"""The one place a Dino Kontra Dino kernel turns a strategy id into a decision."""

from __future__ import annotations

from rules.core.jit import jit, jit_inline
from strategies.dino_kontra_dino.allowed import ALL, allowed_slots
from strategies.dino_kontra_dino.bots import (
    BLIND,
    CAUTIOUS,
    GREEDY,
    ODDS,
    RANDOM,
    play_blind,
    play_cautious,
    play_greedy,
    play_odds,
    play_random,
)
from strategies.dino_kontra_dino.params import BLIND_AT, CAUTIOUS_AT, MONTECARLO_AT, ODDS_AT
from strategies.dino_kontra_dino.search import play_montecarlo, play_strong

MONTECARLO = 4
STRONG = 6


@jit_inline
def choose(lineup, j: int, tb, st, seat: int, scratch) -> int:
    """The hand slot that lineup position ``j``'s bot plays from ``seat`` (``scratch``: the
    bots' :data:`~strategies.dino_kontra_dino.search.SCRATCH` record). A position forbidden
    some options goes through :func:`choose_restricted`; the others (marked in
    ``scratch.free``) call their bot with :data:`ALL`, a constant the compiler folds away."""
    if not scratch.free[j]:
        return choose_restricted(lineup, j, tb, st, seat, scratch)
    sid = lineup.ids[j]
    if sid == GREEDY:
        return play_greedy(tb, st, seat, ALL)
    if sid == RANDOM:
        return play_random(st, seat, ALL)
    if sid == BLIND:
        return play_blind(tb, st, seat, lineup.params[j, BLIND_AT.memory], ALL)
    if sid == CAUTIOUS:
        return play_cautious(
            tb,
            st,
            seat,
            lineup.params[j, CAUTIOUS_AT.aim],
            lineup.params[j, CAUTIOUS_AT.figure],
            ALL,
        )
    return choose_rest(lineup, j, tb, st, seat, scratch, ALL)


@jit
def choose_restricted(lineup, j: int, tb, st, seat: int, scratch) -> int:
    """:func:`choose` for a position that may be forbidden some options: its bot chooses among
    the slots :func:`~strategies.dino_kontra_dino.allowed.allowed_slots` allows."""
    allowed = allowed_slots(lineup, j, tb, st, seat)
    sid = lineup.ids[j]
    if sid == GREEDY:
        return play_greedy(tb, st, seat, allowed)
    if sid == RANDOM:
        return play_random(st, seat, allowed)
    if sid == BLIND:
        return play_blind(tb, st, seat, lineup.params[j, BLIND_AT.memory], allowed)
    if sid == CAUTIOUS:
        return play_cautious(
            tb,
            st,
            seat,
            lineup.params[j, CAUTIOUS_AT.aim],
            lineup.params[j, CAUTIOUS_AT.figure],
            allowed,
        )
    return choose_rest(lineup, j, tb, st, seat, scratch, allowed)


@jit
def choose_rest(lineup, j: int, tb, st, seat: int, scratch, allowed: int) -> int:
    """The search bots and the later bots, kept out of :func:`choose`: scratch allocations
    and longer bodies there made every greedy decision ~8% slower."""
    if lineup.ids[j] == ODDS:
        return play_odds(
            tb, st, seat, lineup.params[j, ODDS_AT.keep], lineup.params[j, ODDS_AT.field], allowed
        )
    if lineup.ids[j] == MONTECARLO:
        return play_montecarlo(
            tb, st, seat, lineup.params[j, MONTECARLO_AT.rollouts], scratch, allowed
        )
    if lineup.ids[j] == STRONG:
        return play_strong(tb, st, seat, lineup.params[j], scratch, allowed)
    return 0
