"""The compiled entry point: play a chunk of EVO games and fill the log columns.

It joins the resumable forward model (``rules.evo.engine``) and the bots
(``strategies.evo.bots``); it lives here, not in ``rules/``, because numba only caches a kernel
that reaches its bots as module globals, and ``rules`` may not import bots.

Game ``gid`` is keyed by ``(seed, gid)``. With seat rotation the P games ``k*P .. k*P+P-1``
share one deal (key ``(seed, k)``) and rotate the lineup one seat each: lineup position ``j``
sits at seat ``(j + gid % P) % P``.

The per-game tables (games, players) and per-round tables (turns, rounds) have known upper
bounds; combats, bids, cards and the replay trace vary, so :func:`play_chunk` stops before a
game that might overflow them and returns its index; the caller grows the buffers and calls
again from there (games are independent, so this never changes a result).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from rules.core.jit import jit
from rules.core.rng import game_key, seed_streams
from rules.evo.constants import GAME_OVER, N_GENES, ROUND_DONE
from rules.evo.engine import advance, apply, deal, final_result
from rules.evo.state import EV_BID, EV_CARD, EV_COMBAT, EV_WIDTH
from strategies.evo.bots import SEARCH, choose, search_choice

# counts[] slots
C_TURNS, C_ROUNDS, C_COMBATS, C_BIDS, C_CARDS, C_TRACE = range(6)


class Logs(NamedTuple):
    """Column buffers of one chunk."""

    g_rounds: np.ndarray  # int8
    g_winner: np.ndarray  # int8, -1 = shared victory
    g_n_winners: np.ndarray  # int8
    g_impact: np.ndarray  # bool
    g_meteor: np.ndarray  # int8, meteor space at the end
    g_rotation: np.ndarray  # int8
    p_lineup: np.ndarray  # int8
    p_points: np.ndarray  # int16
    p_bonus: np.ndarray  # int8
    p_dinos: np.ndarray  # int8
    p_winner: np.ndarray  # bool
    p_genes: np.ndarray  # int8 [n*P, 8]
    p_cards_played: np.ndarray  # int8
    p_cards_held: np.ndarray  # int8
    p_start: np.ndarray  # int16, 1-based region
    t_game: np.ndarray  # int64
    t_round: np.ndarray  # int8, from 1
    t_seat: np.ndarray  # int8
    t_initiative: np.ndarray  # int8
    t_tie: np.ndarray  # int8
    t_order: np.ndarray  # int8
    t_dinos: np.ndarray  # int8
    t_points: np.ndarray  # int16
    t_genes: np.ndarray  # int8 [rows, 8]
    t_born: np.ndarray  # int8
    t_died_climate: np.ndarray  # int8
    t_died_combat: np.ndarray  # int8
    t_died_card: np.ndarray  # int8
    t_scored: np.ndarray  # int8
    t_paid: np.ndarray  # int16
    t_penalty: np.ndarray  # int8
    t_cards: np.ndarray  # int8
    r_game: np.ndarray  # int64
    r_round: np.ndarray  # int8
    r_first: np.ndarray  # int8
    r_climate_roll: np.ndarray  # int8
    r_climate_card: np.ndarray  # int8
    r_climate_pos: np.ndarray  # int8
    r_temperate: np.ndarray  # int8
    r_meteor: np.ndarray  # int8
    r_meteor_roll: np.ndarray  # int8
    r_impact: np.ndarray  # bool
    c_game: np.ndarray  # int64
    c_round: np.ndarray  # int8
    c_data: np.ndarray  # int16 [rows, 8]: attacker, defender, horns a/d, roll, won, region, phase
    b_game: np.ndarray  # int64
    b_round: np.ndarray  # int8
    b_data: np.ndarray  # int16 [rows, 5]: seat, gene, bid, paid, mutations
    k_game: np.ndarray  # int64
    k_round: np.ndarray  # int8
    k_data: np.ndarray  # int16 [rows, 5]: seat, card, window, target, reaction
    e_round: np.ndarray  # int8 (replay trace)
    e_data: np.ndarray  # int32 [rows, EV_WIDTH]


def allocate(
    n_games: int,
    n_players: int,
    max_rounds: int,
    per_game: tuple[int, int, int],
    trace: bool = False,
    turns: bool = True,
) -> Logs:
    """Empty buffers for ``n_games`` games; ``per_game`` sizes combats, bids and cards rows."""
    g, p = n_games, n_games * n_players
    t = n_games * max_rounds * n_players * turns
    r = n_games * max_rounds * turns
    c, b, k = (n_games * x * turns + 64 for x in per_game)
    e = 4096 * n_games if trace else 0
    i8, i16, i64 = np.int8, np.int16, np.int64
    return Logs(
        np.empty(g, i8), np.empty(g, i8), np.empty(g, i8), np.empty(g, np.bool_),
        np.empty(g, i8), np.empty(g, i8),
        np.empty(p, i8), np.empty(p, i16), np.empty(p, i8), np.empty(p, i8),
        np.empty(p, np.bool_), np.empty((p, N_GENES), i8), np.empty(p, i8), np.empty(p, i8),
        np.empty(p, i16),
        np.empty(t, i64), np.empty(t, i8), np.empty(t, i8), np.empty(t, i8), np.empty(t, i8),
        np.empty(t, i8), np.empty(t, i8), np.empty(t, i16), np.empty((t, N_GENES), i8),
        np.empty(t, i8), np.empty(t, i8), np.empty(t, i8), np.empty(t, i8), np.empty(t, i8),
        np.empty(t, i16), np.empty(t, i8), np.empty(t, i8),
        np.empty(r, i64), np.empty(r, i8), np.empty(r, i8), np.empty(r, i8), np.empty(r, i8),
        np.empty(r, i8), np.empty(r, i8), np.empty(r, i8), np.empty(r, i8), np.empty(r, np.bool_),
        np.empty(c, i64), np.empty(c, i8), np.empty((c, 8), i16),
        np.empty(b, i64), np.empty(b, i8), np.empty((b, 5), i16),
        np.empty(k, i64), np.empty(k, i8), np.empty((k, 5), i16),
        np.empty(e, i8), np.empty((e, EV_WIDTH), np.int32),
    )  # fmt: skip


def grow(logs: Logs, counts: np.ndarray, table: str) -> Logs:
    """A copy of ``logs`` with twice the room in the variable table ``table`` (``c``, ``b``,
    ``k`` or ``e``), keeping the rows written so far."""
    slot = {"c": C_COMBATS, "b": C_BIDS, "k": C_CARDS, "e": C_TRACE}[table]
    used = int(counts[slot])
    out = logs._asdict()
    for name, arr in out.items():
        if name.startswith(table + "_"):
            bigger = np.empty((2 * arr.shape[0] + 64, *arr.shape[1:]), arr.dtype)
            bigger[:used] = arr[:used]
            out[name] = bigger
    return Logs(**out)


@jit
def popcount(x: np.int64) -> int:
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@jit
def play_chunk(
    tables,
    lineups,
    states,
    work,
    seed,
    rotate: bool,
    start: int,
    first: int,
    stop: int,
    logs,
    counts,
    worst,
) -> int:
    """Play games ``first .. stop-1`` of the chunk that starts at ``start``; return the index of
    the first game not played (``stop`` when done; earlier when a buffer needs to grow).

    ``tables``, ``lineups``, ``states`` (length >= 3: the game, then two for search) and
    ``work`` are record arrays; ``counts`` holds the rows written per table; ``worst`` the most
    combats, bids, cards and trace rows one game can add. The logging is written out here
    rather than in helper functions: every call that receives ``logs`` (53 arrays) pays a
    reference count per array, which cost more than the logging itself.
    """
    tb, lu, st, wk = tables[0], lineups[0], states[0], work[0]
    pool = states[1:]
    n = tb.n_players
    winners = np.zeros(n, dtype=np.bool_)
    log_turns = logs.t_game.shape[0] > 0
    log_events = logs.c_game.shape[0] > 64
    trace = logs.e_data.shape[0] > 0
    for gid in range(first, stop):
        if log_events and (
            counts[C_COMBATS] + worst[0] > logs.c_game.shape[0]
            or counts[C_BIDS] + worst[1] > logs.b_game.shape[0]
            or counts[C_CARDS] + worst[2] > logs.k_game.shape[0]
            or (trace and counts[C_TRACE] + worst[3] > logs.e_data.shape[0])
        ):
            return gid
        g = gid - start
        rot = gid % n if rotate else 0
        key = game_key(seed, np.uint64(gid // n if rotate else gid))
        seed_streams(st.rng[: 1 + n], key, game_key(seed, np.uint64(gid)) if rotate else key)
        deal(tb, st)
        st.verbose = 1 if trace else 0
        for s in range(n):
            logs.p_start[g * n + s] = st.pieces[s, 0] + 1
        while True:
            kind = advance(tb, st)
            if kind < ROUND_DONE:  # a decision (ROUND_DONE and GAME_OVER come last)
                s = st.actor
                j = s - rot if s >= rot else s - rot + n
                if lu.ids[j] == SEARCH:
                    apply(tb, st, search_choice(lu, j, tb, st, wk, pool))
                else:
                    apply(tb, st, choose(lu, j, tb, st, wk))
            if st.n_ev and log_events:  # move the engine's event records into the columns
                rnd = st.rnd + 1
                for i in range(st.n_ev):
                    ev = st.ev[i, 0]
                    if ev == EV_COMBAT:
                        row = counts[C_COMBATS]
                        logs.c_game[row] = gid
                        logs.c_round[row] = rnd
                        for k in range(8):
                            logs.c_data[row, k] = st.ev[i, 1 + k]
                        counts[C_COMBATS] = row + 1
                    elif ev == EV_BID:
                        row = counts[C_BIDS]
                        logs.b_game[row] = gid
                        logs.b_round[row] = rnd
                        for k in range(5):
                            logs.b_data[row, k] = st.ev[i, 1 + k]
                        counts[C_BIDS] = row + 1
                    elif ev == EV_CARD:
                        row = counts[C_CARDS]
                        logs.k_game[row] = gid
                        logs.k_round[row] = rnd
                        for k in range(5):
                            logs.k_data[row, k] = st.ev[i, 1 + k]
                        counts[C_CARDS] = row + 1
                    if trace:
                        row = counts[C_TRACE]
                        logs.e_round[row] = rnd
                        for k in range(EV_WIDTH):
                            logs.e_data[row, k] = st.ev[i, k]
                        counts[C_TRACE] = row + 1
            st.n_ev = 0
            if kind == GAME_OVER:
                break
            if kind == ROUND_DONE and log_turns:  # the rounds row and turns rows of the round
                rnd = st.rnd + 1
                row = counts[C_ROUNDS]
                logs.r_game[row] = gid
                logs.r_round[row] = rnd
                logs.r_first[row] = st.order[0]
                logs.r_climate_roll[row] = st.climate_roll
                logs.r_climate_card[row] = st.climate_card
                logs.r_climate_pos[row] = st.climate
                logs.r_temperate[row] = tb.cycle[st.climate]
                logs.r_meteor[row] = st.meteor
                logs.r_meteor_roll[row] = st.meteor_roll
                logs.r_impact[row] = st.impact == 1
                counts[C_ROUNDS] = row + 1
                row = counts[C_TURNS]
                for s in range(n):
                    logs.t_game[row] = gid
                    logs.t_round[row] = rnd
                    logs.t_seat[row] = s
                    logs.t_initiative[row] = st.init_pos[s]
                    logs.t_tie[row] = st.tie_how[s]
                    for i in range(n):
                        if st.order[i] == s:
                            logs.t_order[row] = i
                    logs.t_dinos[row] = st.n_dinos[s]
                    logs.t_points[row] = st.points_p5[s]
                    for k in range(N_GENES):
                        logs.t_genes[row, k] = st.genes[s, k] - (st.bought[s] == k)
                    logs.t_born[row] = st.born[s]
                    logs.t_died_climate[row] = st.died_climate[s]
                    logs.t_died_combat[row] = st.died_combat[s]
                    logs.t_died_card[row] = st.died_card[s]
                    logs.t_scored[row] = st.scored[s]
                    logs.t_paid[row] = st.paid[s]
                    logs.t_penalty[row] = st.penalty[s]
                    logs.t_cards[row] = popcount(st.hand[s])
                    row += 1
                counts[C_TURNS] = row
        result = final_result(tb, st, winners)
        count = 0
        for s in range(n):
            pr = g * n + s
            logs.p_lineup[pr] = s - rot if s >= rot else s - rot + n
            logs.p_points[pr] = st.points[s]
            logs.p_bonus[pr] = st.bonus[s]
            logs.p_dinos[pr] = st.n_dinos[s]
            logs.p_winner[pr] = winners[s]
            for k in range(N_GENES):
                logs.p_genes[pr, k] = st.genes[s, k]
            logs.p_cards_played[pr] = st.played[s]
            logs.p_cards_held[pr] = popcount(st.hand[s])
            count += winners[s]
        logs.g_rounds[g] = st.rnd + 1
        logs.g_winner[g] = result
        logs.g_n_winners[g] = count
        logs.g_impact[g] = st.impact == 1
        logs.g_meteor[g] = st.meteor
        logs.g_rotation[g] = rot
    return stop
