"""High card's chunk kernel (the kit's signature; see simulate.kit.support)."""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit
from simulate.kit.support import claim, logging, position, room, start_game
from tests.toygame.bots import choose
from tests.toygame.rules import deal, final_result, play_round


@jit
def play_chunk(tables, lineups, states, seed, rotate, start, first, stop, logs) -> int:
    tb, lu, st = tables[0], lineups[0], states[0]
    n = tb.n_players
    slots = np.zeros(n, np.int64)
    winners = np.zeros(n, np.bool_)
    gl, pl, tl, xl, hl = logs.games, logs.players, logs.turns, logs.ties, logs.hands
    detail, trace = logging(tl), logging(hl)
    for gid in range(first, stop):
        if not room(logs):
            return gid
        rot = start_game(st.rng, n, seed, gid, rotate)
        deal(tb, st)
        for r in range(tb.hand):
            left = tb.hand - r
            if trace:
                for s in range(n):
                    h = claim(hl)
                    for k in range(tb.hand):
                        hl.hand[h, k] = st.hands[s, k] if k < left else 0
            for s in range(n):
                slots[s] = choose(lu, position(s, rot, n), tb, st, s, left)
            w = play_round(tb, st, slots, left)
            if not detail:
                continue
            if w < 0:
                x = claim(xl)
                xl.game_id[x] = gid
                xl.round[x] = r
                xl.card[x] = max(st.plays[:n])
            for s in range(n):
                t = claim(tl)
                tl.game_id[t] = gid
                tl.round[t] = r
                tl.seat[t] = s
                tl.card[t] = st.plays[s]
                tl.won[t] = s == w
        result = final_result(tb, st, winners)
        count = 0
        for s in range(n):
            p = claim(pl)
            pl.game_id[p] = gid
            pl.seat[p] = s
            pl.strategy[p] = position(s, rot, n)
            pl.wins[p] = st.wins[s]
            pl.winner[p] = winners[s]
            count += winners[s]
        g = claim(gl)
        gl.game_id[g] = gid
        gl.n_players[g] = n
        gl.rounds[g] = tb.hand
        gl.winner_seat[g] = result
        gl.n_winners[g] = count
    return stop
