"""EVO bots by id: ``random``, ``heuristic``, ``search``; :func:`choose` dispatches.

Every bot returns an action for the pending decision of ``st.actor`` (see
:mod:`rules.evo.engine`): a packed ``(a << 16) | b`` or -1 for pass/stop.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit
from rules.core.rng import bounded
from rules.evo.engine import actions
from strategies.evo.heuristic import heuristic, set_defaults, set_params
from strategies.evo.search import search

RANDOM, HEURISTIC, SEARCH = 0, 1, 2


@jit
def play_random(tb, st) -> np.int64:
    """Uniform over the legal actions of the pending decision (bids and card plays included)."""
    n = actions(tb, st, -1)
    return actions(tb, st, bounded(st.rng, 1 + st.actor, n))


@jit
def choose(lineup, j: int, tb, st, seat: int, scratch) -> np.int64:
    """The action lineup position ``j``'s bot takes for ``seat`` (= ``st.actor``).

    ``scratch`` is one :data:`~strategies.evo.search.SCRATCH` record: the heuristic's work
    record and two spare states for the search bot's rollouts.
    """
    wk = scratch.work
    sid = lineup.ids[j]
    if sid == HEURISTIC:
        set_params(wk, lineup.params[j])
        return heuristic(tb, st, wk)
    if sid == RANDOM:
        return play_random(tb, st)
    if sid == SEARCH:
        p = lineup.params[j]
        return search(tb, st, wk, scratch.worlds, np.int64(p[0]), np.int64(p[1]), p[2] >= 0.5)
    set_defaults(wk)
    return heuristic(tb, st, wk)
