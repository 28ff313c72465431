"""Restricted play in one place: which legal actions a lineup position may take.

A position forbidden an option (``lineup.forbid[j, o]``, see :mod:`rules.evo.options`) never
takes an action that uses it unless every legal action of the decision does. Every EVO bot asks
:func:`forbidden` before taking an action, or draws from :func:`n_allowed` /
:func:`allowed_action`. ``j < 0`` means "no restriction" (the search bot's rollouts model the
table, not the restricted bot).
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.evo.constants import BID, CARD_PLAY
from rules.evo.engine import actions, bid_cap, min_bid
from rules.evo.options import option_of


@jit_inline
def uses_forbidden(lu, j: int, tb, st, action: int) -> bool:
    """``action`` uses an option forbidden to position ``j``."""
    if j < 0:
        return False
    o = option_of(tb, st, action)
    return o >= 0 and lu.forbid[j, o] != 0


@jit
def all_forbidden(lu, j: int, tb, st) -> bool:
    """Every legal action of the pending decision uses a forbidden option."""
    kind = st.kind
    if j < 0 or (kind != BID and kind != CARD_PLAY):
        return False
    if kind == CARD_PLAY or st.n_passed < st.max_pass:
        return False  # passing is legal and uses nothing
    cap = bid_cap(tb, st, st.actor)
    for row in range(st.n_rows):  # a bid's option is its row's gene: one check per row
        if min_bid(tb, st, row) <= cap and lu.forbid[j, st.offer[row]] == 0:
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
def restricted(lu, j: int, tb, st) -> bool:
    """Position ``j`` is forbidden some option, and the pending decision is one that can use
    options (a bid or a card play)."""
    if j < 0 or (st.kind != BID and st.kind != CARD_PLAY):
        return False
    for o in range(lu.forbid.shape[1]):  # noqa: SIM110 (no generators in numba)
        if lu.forbid[j, o]:
            return True
    return False


@jit
def n_allowed(lu, j: int, tb, st) -> int:
    """How many legal actions position ``j`` may take."""
    n = actions(tb, st, np.int64(-1))
    if not restricted(lu, j, tb, st) or all_forbidden(lu, j, tb, st):
        return n
    c = 0
    for k in range(n):
        if not uses_forbidden(lu, j, tb, st, actions(tb, st, k)):
            c += 1
    return c


@jit
def allowed_action(lu, j: int, tb, st, i: int) -> np.int64:
    """The ``i``-th action position ``j`` may take (in :func:`actions` order)."""
    if not restricted(lu, j, tb, st) or all_forbidden(lu, j, tb, st):
        return actions(tb, st, i)
    n = actions(tb, st, np.int64(-1))
    c = 0
    for k in range(n):
        a = actions(tb, st, k)
        if not uses_forbidden(lu, j, tb, st, a):
            if c == i:
                return a
            c += 1
    return actions(tb, st, np.int64(0))
