"""The compiled entry point: play a chunk of Dino Kontra Dino games and fill the log columns.

It joins the forward model (``rules.dino_kontra_dino.engine``) and the bots
(``strategies.dino_kontra_dino.bots``); it lives here, not in ``rules/``, because numba only
caches a kernel that reaches its bots as module globals, and ``rules`` may not import bots.

Game ``gid`` is keyed by ``(seed, gid)``. With seat rotation the P games ``k*P .. k*P+P-1``
share one deal (key ``(seed, k)``) and rotate the lineup one seat each: lineup position ``j``
sits at seat ``(j + gid % P) % P``. That pairs the deals, so comparisons of seats and
strategies cancel the luck of the deal.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from rules.core.jit import jit
from rules.core.rng import game_key, seed_streams
from rules.dino_kontra_dino.engine import (
    current_event,
    deal,
    final_result,
    game_over,
    play_round,
)
from strategies.dino_kontra_dino.dispatch import choose


class Logs(NamedTuple):
    """Column buffers of one chunk (games: n rows, players: n*P, rounds: n*rounds,
    turns: n*rounds*P). Game, round, seat and event of the rounds table are read off turns."""

    g_rounds: np.ndarray  # int8
    g_winner: np.ndarray  # int8, -1 = shared victory
    g_n_winners: np.ndarray  # int8
    g_first_holder: np.ndarray  # int8
    g_rotation: np.ndarray  # int8
    p_lineup: np.ndarray  # int8: lineup position of the seat's strategy
    p_events: np.ndarray  # int8
    p_traits: np.ndarray  # int8 [n*P, 4]: won events bearing each trait icon
    p_winner: np.ndarray  # bool
    p_figure_end: np.ndarray  # bool
    t_game: np.ndarray  # int64
    t_round: np.ndarray  # int8
    t_seat: np.ndarray  # int8
    t_event: np.ndarray  # int8, printed number (1-based)
    t_card: np.ndarray  # int8, printed number (1-based)
    t_strength: np.ndarray  # int8
    t_holder: np.ndarray  # int8
    t_won: np.ndarray  # bool
    r_winner: np.ndarray  # int8 [n*rounds]: the round's winner
    r_top: np.ndarray  # int8: the highest strength played
    r_n_top: (
        np.ndarray
    )  # int8: seats that played the highest strength (>1: the figure rule decided)
    trace_hands: np.ndarray  # int8 [rows, H] hands before each round (replay only), or [0, H]


def allocate(
    n_games: int,
    n_players: int,
    rounds: int,
    hand_size: int,
    trace: bool = False,
    turns: bool = True,
) -> Logs:
    """Empty buffers for ``n_games`` games (``turns=False``: no per-turn rows, for benchmarks)."""
    g, p, t = n_games, n_games * n_players, n_games * rounds * n_players * turns
    r = n_games * rounds * turns
    i8 = np.int8
    return Logs(
        np.empty(g, i8),
        np.empty(g, i8),
        np.empty(g, i8),
        np.empty(g, i8),
        np.empty(g, i8),
        np.empty(p, i8),
        np.empty(p, i8),
        np.empty((p, 4), i8),
        np.empty(p, np.bool_),
        np.empty(p, np.bool_),
        np.empty(t, np.int64),
        np.empty(t, i8),
        np.empty(t, i8),
        np.empty(t, i8),
        np.empty(t, i8),
        np.empty(t, i8),
        np.empty(t, i8),
        np.empty(t, np.bool_),
        np.empty(r, i8),
        np.empty(r, i8),
        np.empty(r, i8),
        np.full((t if trace else 0, hand_size), -1, i8),
    )


@jit
def play_chunk(tables, lineups, states, seed, rotate: bool, start: int, stop: int, logs) -> int:
    """Play games ``start .. stop-1``; return the number of turn rows written.

    ``tables``, ``lineups`` and ``states`` are record arrays (length >= 1) of
    :data:`~rules.dino_kontra_dino.engine.TABLE`, :data:`~strategies.core.registry.LINEUP` and
    :data:`~rules.dino_kontra_dino.engine.STATE`.
    """
    tb, lu, st = tables[0], lineups[0], states[0]
    n = tb.n_players
    slots = np.zeros(n, dtype=np.int64)
    winners = np.zeros(n, dtype=np.bool_)
    trace = logs.trace_hands.shape[0] > 0
    log_turns = logs.t_game.shape[0] > 0
    row = 0
    for gid in range(start, stop):
        g = gid - start
        rot = gid % n if rotate else 0
        key = game_key(seed, np.uint64(gid // n if rotate else gid))
        seed_streams(st.rng[: 1 + n], key, game_key(seed, np.uint64(gid)) if rotate else key)
        deal(tb, st)
        logs.g_first_holder[g] = st.holder
        while not game_over(tb, st):
            rnd = st.turn
            ev = current_event(st)
            holder = st.holder
            if trace:
                for s in range(n):
                    for k in range(tb.hand_size):
                        logs.trace_hands[row + s, k] = st.hands[s, k] if k < st.hand_len else -1
            for s in range(n):
                j = s - rot if s >= rot else s - rot + n
                slots[s] = choose(lu, j, tb, st, s)
            w = play_round(tb, st, slots)
            if not log_turns:
                continue
            top, n_top = st.scores[w], 0
            for s in range(n):
                n_top += st.scores[s] == top
            rr = row // n
            logs.r_winner[rr] = w
            logs.r_top[rr] = top
            logs.r_n_top[rr] = n_top
            for s in range(n):
                logs.t_game[row] = gid
                logs.t_round[row] = rnd
                logs.t_seat[row] = s
                logs.t_event[row] = ev + 1
                logs.t_card[row] = st.plays[s] + 1
                logs.t_strength[row] = st.scores[s]
                logs.t_holder[row] = holder
                logs.t_won[row] = s == w
                row += 1
        result = final_result(tb, st, winners)
        count = 0
        for s in range(n):
            pr = g * n + s
            logs.p_lineup[pr] = s - rot if s >= rot else s - rot + n
            logs.p_events[pr] = st.wins[s]
            for t in range(4):
                logs.p_traits[pr, t] = st.trait_wins[s, t]
            logs.p_winner[pr] = winners[s]
            logs.p_figure_end[pr] = st.holder == s
            count += winners[s]
        logs.g_rounds[g] = st.turn
        logs.g_winner[g] = result
        logs.g_n_winners[g] = count
        logs.g_rotation[g] = rot
    return row
