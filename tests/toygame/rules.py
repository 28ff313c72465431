"""High card's rules: parameters, the two records, deal, a round, the result."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from rules.core.errors import RuleError
from rules.core.jit import jit, records
from rules.core.params import Parameters, param
from rules.core.rng import CHANCE, bounded

MAX_PLAYERS, MAX_DECK = 4, 60


@dataclasses.dataclass(frozen=True)
class ToyParameters(Parameters):
    GAME: ClassVar[str] = "high-card"

    deck: int = param(
        8, "card values 1..deck, three cards of each", source="test game", lo=2, hi=20
    )
    hand: int = param(5, "cards in each hand (= rounds)", source="test game", lo=1, hi=15)

    def check_players(self, n_players: int) -> None:
        if self.hand * n_players > 3 * self.deck:
            raise RuleError(
                f"{n_players} hands of {self.hand} need more than {3 * self.deck} cards"
            )


TABLE = np.dtype([("n_players", np.int64), ("deck", np.int64), ("hand", np.int64)], align=True)
STATE = np.dtype(
    [
        ("cards", np.int8, (MAX_DECK,)),
        ("hands", np.int8, (MAX_PLAYERS, 15)),
        ("plays", np.int8, (MAX_PLAYERS,)),
        ("wins", np.int64, (MAX_PLAYERS,)),
        ("rng", np.uint64, (1 + MAX_PLAYERS,)),
    ],
    align=True,
)


def make_table(params: ToyParameters, n_players: int) -> np.ndarray:
    tb = records(1, TABLE)
    tb[0].n_players, tb[0].deck, tb[0].hand = n_players, params.deck, params.hand
    return tb


def new_states(n: int) -> np.ndarray:
    return records(n, STATE)


@jit
def deal(tb, st) -> None:
    size = 3 * tb.deck
    for i in range(size):
        st.cards[i] = i // 3 + 1
    for i in range(size - 1, 0, -1):
        j = bounded(st.rng, CHANCE, i + 1)
        st.cards[i], st.cards[j] = st.cards[j], st.cards[i]
    for s in range(tb.n_players):
        st.wins[s] = 0
        for k in range(tb.hand):
            st.hands[s, k] = st.cards[s * tb.hand + k]


@jit
def play_round(tb, st, slots, left: int) -> int:
    """Each seat plays hand slot ``slots[seat]``; return the winner, or -1 for a tie at the top."""
    n = tb.n_players
    top, winner = -1, -1
    for s in range(n):
        c = st.hands[s, slots[s]]
        st.plays[s] = c
        for k in range(slots[s], left - 1):
            st.hands[s, k] = st.hands[s, k + 1]
        st.hands[s, left - 1] = 0
        if c > top:
            top, winner = c, s
        elif c == top:
            winner = -1
    if winner >= 0:
        st.wins[winner] += 1
    return winner


@jit
def final_result(tb, st, winners) -> int:
    n = tb.n_players
    best = 0
    for s in range(n):
        best = max(best, st.wins[s])
    count, sole = 0, -1
    for s in range(n):
        winners[s] = st.wins[s] == best
        if winners[s]:
            count += 1
            sole = s
    return sole if count == 1 else -1
