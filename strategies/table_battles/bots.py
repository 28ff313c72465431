"""Dinosaur Table Battles bots by id; :func:`choose` is the one dispatch every kernel calls.

Every bot returns an action for the pending decision of ``st.actor`` (see
:mod:`rules.table_battles.engine`) and honours ``lineup.forbid`` through
:mod:`strategies.table_battles.allowed`.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.core.rng import bounded
from rules.table_battles.engine import actions
from strategies.core.scratch import search_bots
from strategies.table_battles.allowed import allowed_action, n_allowed
from strategies.table_battles.heuristic import OWN, heuristic, remember, stalled
from strategies.table_battles.params import DRAFTER_AT, SEARCH_AT
from strategies.table_battles.search import drafter, search, strong

RANDOM, HEURISTIC, SEARCH, DRAFTER, STRONG = 0, 1, 2, 3, 4


@jit
def any_forbid(lu, j: int) -> bool:
    for o in range(lu.forbid.shape[1]):  # noqa: SIM110 (no generators in numba)
        if lu.forbid[j, o]:
            return True
    return False


@jit
def play_random(lu, j: int, tb, st) -> np.int64:
    """Uniform over the legal actions of the pending decision that ``j`` may take."""
    if not any_forbid(lu, j):
        n = actions(tb, st, np.int64(-1))
        return actions(tb, st, bounded(st.rng, 1 + st.actor, n))
    n = n_allowed(lu, j, tb, st)
    return allowed_action(lu, j, tb, st, bounded(st.rng, 1 + st.actor, n))


@jit_inline
def play_search(lineup, j: int, tb, st, seat: int, scratch) -> np.int64:
    """``search``, ``strong`` or ``drafter``, rolling out on the two spare states
    ``scratch.worlds``."""
    sid = lineup.ids[j]
    calm = stalled(st, scratch, seat)
    if sid == SEARCH:
        p = lineup.params[j]
        rollouts, limit = np.int64(p[SEARCH_AT.rollouts]), np.int64(p[SEARCH_AT.candidates])
        return search(tb, st, lineup, j, scratch.worlds, rollouts, limit, calm)
    if sid == STRONG:
        return strong(tb, st, lineup, j, scratch.worlds, calm)
    rollouts = np.int64(lineup.params[j, DRAFTER_AT.rollouts])
    return drafter(tb, st, lineup, j, scratch.worlds, rollouts, calm)


searching = search_bots(play_search)


@jit_inline
def choose(lineup, j: int, tb, st, seat: int, scratch) -> np.int64:
    """The action lineup position ``j``'s bot takes for ``seat`` (= ``st.actor``).

    ``scratch`` is one :data:`~strategies.table_battles.search.SCRATCH` record: every bot but
    ``random`` keeps there how long the battle has gone without progress (:func:`stalled`), to
    step out of a lock; for a lineup with a search bot it holds the two spare states of its
    rollouts (:func:`strategies.core.scratch.scratch_dtype`).
    """
    sid = lineup.ids[j]
    if sid == RANDOM:
        return play_random(lineup, j, tb, st)
    if sid == HEURISTIC:
        a = heuristic(tb, st, lineup, j, np.int64(OWN), stalled(st, scratch, seat))
    else:
        a = searching(lineup, j, tb, st, seat, scratch)
    remember(st, scratch, seat)
    return a
