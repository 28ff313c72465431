"""EVO bots: ``random``, ``heuristic``, ``heuristic-v1``, ``search``, ``strong``; :func:`choose`
dispatches.

Every bot returns an action for the pending decision of ``st.actor`` (see
:mod:`rules.evo.engine`): a packed ``(a << 16) | b`` or -1 for pass/stop. Every bot honours
restricted play (``lineup.forbid``) through :mod:`strategies.evo.allowed`.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.core.rng import bounded
from strategies.core.scratch import search_bots
from strategies.evo.allowed import allowed_action, n_allowed
from strategies.evo.heuristic import heuristic, set_params
from strategies.evo.heuristic_v1 import heuristic_v1, set_params_v1
from strategies.evo.search import search, strong

RANDOM, HEURISTIC, SEARCH, HEURISTIC_V1, STRONG = 0, 1, 2, 3, 4


@jit
def play_random(lu, j: int, tb, st) -> np.int64:
    """Uniform over the legal actions of the pending decision that position ``j`` may take
    (bids and card plays included)."""
    n = n_allowed(lu, j, tb, st)
    return allowed_action(lu, j, tb, st, bounded(st.rng, 1 + st.actor, n))


@jit_inline
def play_search(lineup, j: int, tb, st, seat: int, scratch) -> np.int64:
    """``search`` or ``strong``, rolling out on the two spare states ``scratch.worlds``."""
    wk, p = scratch.work, lineup.params[j]
    if lineup.ids[j] == SEARCH:
        return search(tb, st, wk, scratch.worlds, scratch.values[j], lineup, j, p)
    return strong(tb, st, wk, scratch.worlds, scratch.values[j], lineup, j, p)


searching = search_bots(play_search)


@jit_inline
def choose(lineup, j: int, tb, st, seat: int, scratch) -> np.int64:
    """The action lineup position ``j``'s bot takes for ``seat`` (= ``st.actor``).

    ``scratch`` is one :data:`~strategies.evo.search.SCRATCH` record: the heuristic's work
    record, each position's value table and, for a lineup with a search bot, two spare states
    for its rollouts (:func:`strategies.core.scratch.scratch_dtype`).
    """
    wk = scratch.work
    sid = lineup.ids[j]
    if sid == HEURISTIC:
        set_params(wk, lineup.params[j])
        return heuristic(tb, st, wk, scratch.values[j], lineup, j)
    if sid == RANDOM:
        return play_random(lineup, j, tb, st)
    if sid == HEURISTIC_V1:
        set_params_v1(wk, lineup.params[j])
        return heuristic_v1(tb, st, wk, lineup, j)
    return searching(lineup, j, tb, st, seat, scratch)
