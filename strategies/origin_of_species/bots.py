"""Origin of Species bots by id: ``random``, ``heuristic`` (also ``heuristic-v1``, its
``model`` 0), ``search``; :func:`choose` dispatches.

Every bot returns an action for the pending decision of ``st.actor`` (see
:mod:`rules.origin_of_species.engine`). Restricted play lives in one place: :func:`restricted`
says whether a lineup position has forbidden options and some legal action avoids them, and
:func:`allowed_count` / :func:`allowed_kth` walk the legal actions skipping forbidden ones;
the heuristic checks each candidate against the same forbid row (``blocked``).
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.core.rng import bounded
from rules.origin_of_species.engine import COUNT, actions
from rules.origin_of_species.options import option_of
from strategies.origin_of_species.heuristic import heuristic
from strategies.origin_of_species.search import search, strong

RANDOM, HEURISTIC, SEARCH, STRONG = 0, 1, 2, 3


@jit
def forbidden(lineup, j, tb, st, action) -> bool:
    o = option_of(tb, st, action)
    return o >= 0 and lineup.forbid[j, o] != 0


@jit_inline
def has_forbids(lineup, j) -> bool:
    for o in range(lineup.forbid.shape[1]):  # noqa: SIM110 (compiled: no generators)
        if lineup.forbid[j, o]:
            return True
    return False


@jit
def allowed_count(lineup, j, tb, st) -> np.int64:
    """Legal actions of the pending decision that use no forbidden option."""
    c = np.int64(0)
    for k in range(actions(tb, st, COUNT)):
        if not forbidden(lineup, j, tb, st, actions(tb, st, k)):
            c += 1
    return c


@jit
def allowed_kth(lineup, j, tb, st, i) -> np.int64:
    """The ``i``-th legal action that uses no forbidden option."""
    for k in range(actions(tb, st, COUNT)):
        a = actions(tb, st, k)
        if not forbidden(lineup, j, tb, st, a):
            if i == 0:
                return a
            i -= 1
    return np.int64(-1)


@jit
def restricted(lineup, j, tb, st) -> bool:
    """Position ``j`` must avoid its forbidden options now (it has some, and some legal action
    of this decision uses none)."""
    if not has_forbids(lineup, j):
        return False
    for k in range(actions(tb, st, COUNT)):
        if not forbidden(lineup, j, tb, st, actions(tb, st, k)):
            return True
    return False


@jit
def play_random(lineup, j, tb, st) -> np.int64:
    """Uniform over the legal actions (over the allowed ones under restricted play)."""
    if restricted(lineup, j, tb, st):
        m = allowed_count(lineup, j, tb, st)
        return allowed_kth(lineup, j, tb, st, bounded(st.rng, 1 + st.actor, m))
    n = actions(tb, st, COUNT)
    return actions(tb, st, bounded(st.rng, 1 + st.actor, n))


@jit
def play_heuristic(lineup, j, tb, st) -> np.int64:
    # The heuristic falls back on a forbidden action by itself when nothing else is legal, so
    # it needs no enumeration of the legal actions (``restricted``) here.
    return heuristic(tb, st, lineup.params[j], lineup.forbid[j], has_forbids(lineup, j))


@jit
def choose(lineup, j, tb, st, seat, scratch) -> np.int64:
    """The action lineup position ``j``'s bot takes for ``seat`` (= ``st.actor``).

    ``scratch`` is one :data:`~strategies.origin_of_species.search.SCRATCH` record: the search
    bot plays its rollouts on the two spare states ``scratch.worlds``.
    """
    sid = lineup.ids[j]
    if sid == HEURISTIC:
        return play_heuristic(lineup, j, tb, st)
    if sid == RANDOM:
        return play_random(lineup, j, tb, st)
    strict = has_forbids(lineup, j) and restricted(lineup, j, tb, st)
    if sid == STRONG:
        return strong(lineup, j, tb, st, scratch.worlds, strict)
    return search(lineup, j, tb, st, scratch.worlds, strict)
