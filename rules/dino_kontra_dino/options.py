"""Restrictable options of Dino Kontra Dino (restricted play, Jaffe et al. 2012).

A player's only decision is which dinosaur of the hand to play, so the options are:

* every dinosaur card, by name: playing that card uses it. The names are those of the default
  (``provisional``) deck; a designer's deck (``--set deck=FILE``) gets an option for each card
  whose name is in the default deck and none for the others (those are never restricted).
* ``figure`` (the rulebook's *dinosaur figure*, which wins ties for its holder): a seat that
  holds the figure uses it when it plays a card weaker, for the current event, than the
  strongest card of its hand: it leans on the tie-break to win with less, or to keep its
  strong cards. A bot forbidden the figure plays its strongest card whenever it holds the
  figure. Bots that always play their strongest card (``greedy``) never use it.

A bot forbidden some options never plays a card that uses one unless every card of its hand
does (then it plays as it would unrestricted). ``option_of`` and ``leans_on_figure`` say what a
play uses; :mod:`strategies.dino_kontra_dino.allowed` turns that into the slots a bot may play.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit_inline
from rules.dino_kontra_dino.deck import Deck, load_deck

DEFAULT_DECK = "provisional"
CARD_OPTIONS: tuple[str, ...] = load_deck(DEFAULT_DECK).dino_names
"""One option per dinosaur of the default deck, in card order (option id = card number - 1)."""
FIGURE = "figure"
OPTIONS: tuple[str, ...] = (*CARD_OPTIONS, FIGURE)
FIGURE_OPTION = len(CARD_OPTIONS)
"""The figure's option id (after the cards)."""


def card_options(deck: Deck) -> np.ndarray:
    """int8 [n_dinos]: each card's option id (matched by name), -1 for a name the default deck
    does not have."""
    index = {name: i for i, name in enumerate(CARD_OPTIONS)}
    return np.array([index.get(n, -1) for n in deck.dino_names], dtype=np.int8)


@jit_inline
def option_of(tb, st, seat: int, slot: int) -> int:
    """The card option ``seat`` uses by playing hand slot ``slot`` (-1: the card has none)."""
    return tb.d_option[st.hands[seat, slot]]


@jit_inline
def leans_on_figure(tb, st, seat: int, slot: int) -> bool:
    """``seat`` holds the figure and the card in ``slot`` is weaker for the current event than
    the strongest card of its hand: playing it uses the figure."""
    if st.holder != seat:
        return False
    ev = st.events[st.turn]
    s = tb.power[st.hands[seat, slot], ev]
    for k in range(st.hand_len):  # noqa: SIM110 (no generators in numba)
        if tb.power[st.hands[seat, k], ev] > s:
            return True
    return False
