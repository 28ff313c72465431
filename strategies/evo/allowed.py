"""Restricted play in one place: which legal actions a lineup position may take.

A position forbidden an option (``lineup.forbid[j, o]``, see :mod:`rules.evo.options`) never
takes an action that uses it unless every legal action of the decision does. Every EVO bot asks
:func:`forbidden` before taking an action, or draws from :func:`n_allowed` /
:func:`allowed_action`: the shared functions of :mod:`strategies.core.allowed` over this game's
``actions`` and ``option_of``, with EVO's own :func:`restricted` (only bids and card plays use
options) and a faster exact :func:`all_forbidden`. ``j < 0`` means "no restriction" (the search
bot's rollouts model the table, not the restricted bot).
"""

from __future__ import annotations

from rules.core.jit import jit
from rules.evo.constants import BID, CARD_PLAY
from rules.evo.engine import actions, bid_cap, min_bid
from rules.evo.options import option_of
from strategies.core.allowed import allowed_for, has_forbids


@jit
def restricted(lu, j: int, tb, st) -> bool:
    """Position ``j`` is forbidden some option, and the pending decision is one that can use
    options (a bid or a card play)."""
    return (st.kind == BID or st.kind == CARD_PLAY) and has_forbids(lu, j)


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


uses_forbidden, all_forbidden, forbidden, n_allowed, allowed_action = allowed_for(
    actions, option_of, restricted, all_forbidden
)
