"""Origin of Species bots by id: ``random``, ``heuristic`` (also ``heuristic-v1``, its
``model`` 0), ``search``, ``strong``; :func:`choose` dispatches.

Every bot returns an action for the pending decision of ``st.actor`` (see
:mod:`rules.origin_of_species.engine`). Restricted play lives in one place,
:mod:`strategies.origin_of_species.allowed`: the random bot draws from its ``n_allowed`` /
``allowed_action``, the search bots avoid forbidden options unless ``all_forbidden``, and the
heuristic checks each candidate against the same forbid row (``blocked``).
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.core.rng import bounded
from strategies.core.allowed import has_forbids
from strategies.core.scratch import search_bots
from strategies.origin_of_species.allowed import all_forbidden, allowed_action, n_allowed
from strategies.origin_of_species.heuristic import heuristic
from strategies.origin_of_species.search import search, strong

RANDOM, HEURISTIC, SEARCH, STRONG = 0, 1, 2, 3


@jit
def play_random(lineup, j, tb, st) -> np.int64:
    """Uniform over the legal actions (over the allowed ones under restricted play)."""
    n = n_allowed(lineup, j, tb, st)
    return allowed_action(lineup, j, tb, st, bounded(st.rng, 1 + st.actor, n))


@jit_inline
def play_heuristic(lineup, j, tb, st) -> np.int64:
    # The heuristic falls back on a forbidden action by itself when nothing else is legal, so
    # it needs no enumeration of the legal actions (``all_forbidden``) here.
    return heuristic(tb, st, lineup.params[j], lineup.forbid[j], has_forbids(lineup, j))


@jit_inline
def play_search(lineup, j, tb, st, seat, scratch) -> np.int64:
    """``search`` or ``strong``, rolling out on the two spare states ``scratch.worlds``."""
    strict = has_forbids(lineup, j) and not all_forbidden(lineup, j, tb, st)
    if lineup.ids[j] == STRONG:
        return strong(lineup, j, tb, st, scratch.worlds, strict)
    return search(lineup, j, tb, st, scratch.worlds, strict)


searching = search_bots(play_search)


@jit_inline
def choose(lineup, j, tb, st, seat, scratch) -> np.int64:
    """The action lineup position ``j``'s bot takes for ``seat`` (= ``st.actor``).

    ``scratch`` is one :data:`~strategies.origin_of_species.search.SCRATCH` record: for a
    lineup with a search bot, two spare states for its rollouts
    (:func:`strategies.core.scratch.scratch_dtype`).
    """
    sid = lineup.ids[j]
    if sid == HEURISTIC:
        return play_heuristic(lineup, j, tb, st)
    if sid == RANDOM:
        return play_random(lineup, j, tb, st)
    return searching(lineup, j, tb, st, seat, scratch)
