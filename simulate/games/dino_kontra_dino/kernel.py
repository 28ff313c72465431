"""The compiled entry point: play a chunk of Dino Kontra Dino games and fill the log columns.

It joins the forward model (``rules.dino_kontra_dino.engine``) and the bots
(``strategies.dino_kontra_dino.dispatch``); it lives here, not in ``rules/``, because numba only
caches a kernel that reaches its bots as module globals, and ``rules`` may not import bots.
Seeding and seat rotation: :mod:`simulate.kit.support`.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit
from rules.dino_kontra_dino.engine import current_event, deal, final_result, game_over, play_round
from simulate.kit.support import logging, position, start_game
from strategies.dino_kontra_dino.dispatch import choose


@jit
def play_chunk(
    tables, lineups, states, scratches, seed, rotate: bool, start: int, first: int, stop: int, logs
) -> int:
    """Play games ``first .. stop-1`` of the chunk starting at ``start`` into ``logs``; return
    the first game not played.

    ``tables``, ``lineups``, ``states`` and ``scratches`` are record arrays of
    :data:`~rules.dino_kontra_dino.state.TABLE`, the registry's lineup dtype,
    :data:`~rules.dino_kontra_dino.state.STATE` and the bots'
    :data:`~strategies.dino_kontra_dino.search.SCRATCH`. No table of this game grows (every
    game has the same rounds), so the kernel never stops for room: checking before every game
    cost 5%. Rows are written inline: a helper
    receiving ``logs`` would pay a reference count per buffer on every call.
    """
    tb, lu, st, scratch = tables[0], lineups[0], states[0], scratches[0]
    n = tb.n_players
    slots = np.zeros(n, dtype=np.int64)
    winners = np.zeros(n, dtype=np.bool_)
    gl, pl, rl, tl, hl = logs.games, logs.players, logs.rounds, logs.turns, logs.hands
    trace = logging(hl)
    detail = logging(tl)
    # rows written so far, kept in registers and stored back into the tables' meta at the end
    g, pr, rr, row = gl.meta[0], pl.meta[0], rl.meta[0], tl.meta[0]
    for gid in range(first, stop):
        rot = start_game(st.rng, n, seed, gid, rotate)
        deal(tb, st)
        first_holder = st.holder
        while not game_over(tb, st):
            rnd = st.turn
            ev = current_event(st)
            holder = st.holder
            if trace:
                for s in range(n):
                    for k in range(tb.hand_size):
                        hl.hand[row + s, k] = st.hands[s, k] if k < st.hand_len else -1
            for s in range(n):
                slots[s] = choose(lu, position(s, rot, n), tb, st, s, scratch)
            w = play_round(tb, st, slots)
            if not detail:
                continue
            top, n_top = st.scores[w], 0
            for s in range(n):
                n_top += st.scores[s] == top
            rl.game_id[rr] = gid
            rl.round[rr] = rnd
            rl.event_id[rr] = ev + 1
            rl.holder[rr] = holder
            rl.winner[rr] = w
            rl.top_strength[rr] = top
            rl.n_top[rr] = n_top
            rr += 1
            for s in range(n):
                tl.game_id[row] = gid
                tl.round[row] = rnd
                tl.seat[row] = s
                tl.event_id[row] = ev + 1
                tl.card_id[row] = st.plays[s] + 1
                tl.strength[row] = st.scores[s]
                tl.holder[row] = holder
                tl.won[row] = s == w
                row += 1
        result = final_result(tb, st, winners)
        count = 0
        for s in range(n):
            pl.strategy[pr] = position(s, rot, n)
            pl.events_won[pr] = st.wins[s]
            for t in range(4):
                pl.trait_events[pr, t] = st.trait_wins[s, t]
            pl.winner[pr] = winners[s]
            pl.figure_at_end[pr] = st.holder == s
            count += winners[s]
            pr += 1
        gl.rounds[g] = st.turn
        gl.winner_seat[g] = result
        gl.n_winners[g] = count
        gl.first_holder[g] = first_holder
        gl.rotation[g] = rot
        g += 1
    gl.meta[0], pl.meta[0], rl.meta[0], tl.meta[0] = g, pr, rr, row
    hl.meta[0] = row if trace else 0
    return stop
