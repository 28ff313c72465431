"""The two numpy records of a Dino Kontra Dino game: the static TABLE and the STATE of one game.

The table holds the deck and the rule parameters, with every card's strength in every event
precomputed (``power``); it is built once per configuration by :func:`make_table`. The state is
everything that changes during a game; the search bot copies it with one assignment. Both are
fixed-size records (see :func:`rules.core.jit.records`).
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import records
from rules.dino_kontra_dino.deck import Deck
from rules.dino_kontra_dino.options import card_options
from rules.dino_kontra_dino.params import MAX_PLAYERS

MAX_HAND = 10
MAX_CARDS = 127
"""Largest number of dinosaurs and of events in a deck (card numbers are int8)."""

TABLE = np.dtype(
    [
        ("n_players", np.int64),
        ("hand_size", np.int64),
        ("n_dinos", np.int64),
        ("n_events", np.int64),
        ("first_holder", np.int64),  # -1: a random seat
        ("counts_both", np.int64),  # 1: a two-trait event counts for both traits at scoring
        ("traits", np.int8, (MAX_CARDS, 5)),  # the four traits, then 0 (indexed by NO_TRAIT)
        ("needs", np.int8, (MAX_CARDS, 2)),  # required trait codes; NO_TRAIT when only one
        ("power", np.int8, (MAX_CARDS, MAX_CARDS)),  # strength of dino d in event e
        ("d_option", np.int8, (MAX_CARDS,)),  # restricted play: dino d's option id, -1 if none
    ],
    align=True,
)
"""The rules of one configuration: deck and parameters, read-only during play."""

STATE = np.dtype(
    [
        ("turn", np.int64),  # rounds resolved so far; events[turn] is the current event
        ("holder", np.int64),  # seat holding the dinosaur figure
        ("draw", np.int64),  # next card of the pile
        ("hand_len", np.int64),  # cards in every hand
        ("drawing", np.int64),  # 0 once the pile has been set aside
        ("hands", np.int8, (MAX_PLAYERS, MAX_HAND)),  # slots 0..hand_len-1 are held
        ("deck", np.int8, (MAX_CARDS,)),  # shuffled dinosaur pile
        ("events", np.int8, (MAX_CARDS,)),  # shuffled event pile
        ("plays", np.int8, (MAX_PLAYERS,)),  # card each seat played in the last round
        ("scores", np.int64, (MAX_PLAYERS,)),  # each seat's strength in the last round
        ("wins", np.int64, (MAX_PLAYERS,)),  # event cards won
        ("trait_wins", np.int64, (MAX_PLAYERS, 5)),  # won events bearing each trait icon
        ("revealed", np.int8, (MAX_CARDS,)),  # round a dinosaur was revealed, -1 if not yet
        ("rng", np.uint64, (1 + MAX_PLAYERS,)),  # chance stream, then one stream per seat
    ],
    align=True,
)
"""One game in progress."""


def make_table(deck: Deck, n_players: int, hand_size: int, first_holder: int, counts_both: bool):
    """The :data:`TABLE` record array (length 1) for a validated configuration."""
    if deck.n_dinos > MAX_CARDS or deck.n_events > MAX_CARDS:
        raise ValueError(f"decks are limited to {MAX_CARDS} dinosaurs and {MAX_CARDS} events")
    tb = records(1, TABLE)
    t = tb[0]
    t.n_players, t.hand_size = n_players, hand_size
    t.n_dinos, t.n_events = deck.n_dinos, deck.n_events
    t.first_holder, t.counts_both = first_holder, int(counts_both)
    t.traits[: deck.n_dinos] = deck.kernel_dinos()
    t.needs[: deck.n_events] = deck.kernel_events()
    # strength: the dino's value in the event's required trait, plus the second trait's for a
    # two-trait event (a one-trait event's second code is NO_TRAIT, whose column reads 0)
    traits, needs = t.traits[: deck.n_dinos].astype(np.int64), t.needs[: deck.n_events]
    t.power[: deck.n_dinos, : deck.n_events] = traits[:, needs[:, 0]] + traits[:, needs[:, 1]]
    t.d_option[:] = -1
    t.d_option[: deck.n_dinos] = card_options(deck)
    return tb


def new_states(n: int) -> np.ndarray:
    """``n`` game states (for search: ``states[i] = st`` copies one)."""
    return records(n, STATE)
