"""Restrictable options of EVO (restricted play, Jaffe et al. 2012).

``OPTIONS``: the eight gene kinds (bidding on a row that offers that gene uses it), then the 26
event cards by their Hungarian names, as the ``cards`` table labels them (playing the card uses
it; Osztódás's reaction uses Osztódás). A bot forbidden an option never takes an action that
uses it unless every legal action of the decision does (passing a card window is always legal,
so a forbidden card is never played; a forbidden gene is bid on only when every row on offer
is forbidden and passing is not allowed).
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit_inline
from rules.evo.cards import CARDS
from rules.evo.constants import BID, CARD_PLAY, GENES, N_GENES

OPTIONS: tuple[str, ...] = GENES + tuple(c.hungarian for c in CARDS)
"""Gene kinds (option = gene code), then cards (option = N_GENES + number - 1)."""


def card_option(number: int) -> int:
    """The option of event card ``number`` (1-26)."""
    return N_GENES + number - 1


@jit_inline
def option_of(tb, st, action: int) -> np.int64:
    """The option the pending decision's ``action`` uses, or -1 when it uses none."""
    if action < 0:
        return np.int64(-1)
    kind = st.kind
    if kind == BID:
        return np.int64(st.offer[action >> 16])
    if kind == CARD_PLAY:
        return np.int64(N_GENES + (action >> 16) - 1)
    return np.int64(-1)
