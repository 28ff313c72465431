"""Restricted play in one place: which legal actions a lineup position may take.

A position forbidden an option (``lineup.forbid[j, o]``, see :mod:`rules.table_battles.options`)
never takes an action that uses it unless every legal action of the decision does. Every bot
asks :func:`forbidden` before taking an action, or draws from :func:`n_allowed` /
:func:`allowed_action`.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.table_battles.engine import actions
from rules.table_battles.options import option_of


@jit_inline
def uses_forbidden(lu, j: int, tb, st, action: int) -> bool:
    o = option_of(tb, st, action)
    return o >= 0 and lu.forbid[j, o] != 0


@jit
def all_forbidden(lu, j: int, tb, st) -> bool:
    """Every legal action of the pending decision uses a forbidden option."""
    for k in range(actions(tb, st, np.int64(-1))):
        if not uses_forbidden(lu, j, tb, st, actions(tb, st, k)):
            return False
    return True


@jit_inline
def forbidden(lu, j: int, tb, st, action: int) -> bool:
    """Position ``j`` may not take ``action`` (it uses a forbidden option while some legal
    action does not). Cheap when nothing is forbidden."""
    if not uses_forbidden(lu, j, tb, st, action):
        return False
    return not all_forbidden(lu, j, tb, st)


@jit
def n_allowed(lu, j: int, tb, st) -> int:
    """How many legal actions position ``j`` may take."""
    n = actions(tb, st, np.int64(-1))
    c = 0
    for k in range(n):
        if not uses_forbidden(lu, j, tb, st, actions(tb, st, k)):
            c += 1
    return c if c > 0 else n


@jit
def allowed_action(lu, j: int, tb, st, i: int) -> np.int64:
    """The ``i``-th action position ``j`` may take (in :func:`actions` order)."""
    n = actions(tb, st, np.int64(-1))
    if n_allowed(lu, j, tb, st) == n:
        return actions(tb, st, i)
    c = 0
    for k in range(n):
        a = actions(tb, st, k)
        if not uses_forbidden(lu, j, tb, st, a):
            if c == i:
                return a
            c += 1
    return actions(tb, st, np.int64(0))
