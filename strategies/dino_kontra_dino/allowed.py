"""Restricted play in one place: which hand slots a lineup position may play.

A position forbidden some options (``lineup.forbid[j, o]``, see
:mod:`rules.dino_kontra_dino.options`) never plays a card that uses one unless every card of its
hand does. The bots receive the slots they may play as a bit mask (bit ``k``: slot ``k``);
:data:`ALL` means "no restriction this decision" (nothing forbidden applies, or everything
does), and with it every bot plays exactly as it did before restricted play existed. It stays
apart from the turn-based games' :mod:`strategies.core.allowed`: every seat plays at once from
its hand, so what is allowed is a mask of hand slots (and the figure), not a walk over a list
of legal actions.

Most positions are forbidden nothing, and the greedy kernel makes tens of millions of
decisions a second, so the dispatch first reads ``scratch.free[j]`` (1: position ``j`` is
forbidden nothing), set once per setup by :func:`mark_free`. A scratch record not so marked
(all zeros) makes every decision check its slots: slower, never wrong.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit_inline
from rules.dino_kontra_dino.options import FIGURE_OPTION, leans_on_figure, option_of

ALL = -1
"""The mask of every slot: nothing restricts this decision."""


@jit_inline
def uses_forbidden(lu, j: int, tb, st, seat: int, slot: int) -> bool:
    """Playing ``slot`` uses an option forbidden to position ``j`` (its card, or the figure)."""
    o = option_of(tb, st, seat, slot)
    if o >= 0 and lu.forbid[j, o] != 0:
        return True
    return lu.forbid[j, FIGURE_OPTION] != 0 and leans_on_figure(tb, st, seat, slot)


@jit_inline
def allowed_slots(lu, j: int, tb, st, seat: int) -> int:
    """The slots position ``j`` may play from ``seat`` as a bit mask; :data:`ALL` when no slot
    uses a forbidden option or every slot does."""
    hl = st.hand_len
    mask = 0
    for k in range(hl):
        if not uses_forbidden(lu, j, tb, st, seat, k):
            mask |= 1 << k
    if mask == 0 or mask == (1 << hl) - 1:
        return ALL
    return mask


@jit_inline
def may_play(allowed: int, slot: int) -> bool:
    """Slot ``slot`` is in the mask ``allowed``."""
    return (allowed >> slot) & 1 != 0


def mark_free(lineup: np.ndarray, scratch: np.ndarray) -> None:
    """Set ``scratch[0].free[j]`` for every lineup position forbidden nothing (Python, once
    per setup; ``lineup`` and ``scratch`` are record arrays of length 1)."""
    forbid = np.asarray(lineup[0].forbid)
    scratch[0].free[:] = (forbid == 0).all(axis=1)
