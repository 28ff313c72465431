"""The compiled entry point: play a chunk of EVO games and fill the log columns.

It joins the resumable forward model (``rules.evo.engine``) and the bots
(``strategies.evo.bots``); it lives here, not in ``rules/``, because numba only caches a kernel
that reaches its bots as module globals, and ``rules`` may not import bots. Seeding, seat
rotation and stopping for room: :mod:`simulate.kit.support`.
"""

from __future__ import annotations

import numpy as np

from rules.core.events import copy_record, event_kind
from rules.core.jit import jit
from rules.evo.constants import GAME_OVER, N_GENES, ROUND_DONE
from rules.evo.engine import advance, apply, deal, final_result
from rules.evo.state import BID_EVENT, CARD_EVENT, COMBAT_EVENT
from simulate.games.evo.tables import copy_bid, copy_card, copy_combat
from simulate.kit.support import claim, logging, position, room, start_game
from strategies.evo.bots import choose


@jit
def popcount(x: np.int64) -> int:
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@jit
def play_chunk(
    tables, lineups, states, scratches, seed, rotate: bool, start: int, first: int, stop: int, logs
) -> int:
    """Play games ``first .. stop-1`` of the chunk starting at ``start`` into ``logs``; return
    the first game not played (earlier than ``stop`` when a table needs room).

    ``tables``, ``lineups``, ``states`` and ``scratches`` (the bots' work record and spare
    states, :data:`~strategies.evo.search.SCRATCH`) are record arrays. The engine's event
    records become rows through the copiers declared with the tables (inlined); the other rows
    are written out here rather than in helper functions: every call that receives ``logs``
    pays a reference count per buffer, which cost more than the logging itself.
    """
    tb, lu, st, scratch = tables[0], lineups[0], states[0], scratches[0]
    n = tb.n_players
    winners = np.zeros(n, dtype=np.bool_)
    gl, pl, tl, rl = logs.games, logs.players, logs.turns, logs.rounds
    cl, bl, kl, el = logs.combats, logs.bids, logs.cards, logs.events
    detail = logging(tl)
    trace = logging(el)
    for gid in range(first, stop):
        if not room(logs):
            return gid
        rot = start_game(st.rng, n, seed, gid, rotate)
        deal(tb, st)
        st.verbose = 1 if trace else 0
        p0 = pl.meta[0]
        for s in range(n):
            pl.start_region[p0 + s] = st.pieces[s, 0] + 1
        while True:
            kind = advance(tb, st)
            if kind < ROUND_DONE:  # a decision (ROUND_DONE and GAME_OVER come last)
                s = st.actor
                apply(tb, st, choose(lu, position(s, rot, n), tb, st, s, scratch))
            if st.n_ev and detail:  # move the engine's event records into the columns
                rnd = st.rnd + 1
                for i in range(st.n_ev):
                    ev = event_kind(st, i)
                    if ev == COMBAT_EVENT.kind:
                        copy_combat(cl, st, i, game_id=gid, round=rnd)
                    elif ev == BID_EVENT.kind:
                        copy_bid(bl, st, i, game_id=gid, round=rnd)
                    elif ev == CARD_EVENT.kind:
                        copy_card(kl, st, i, game_id=gid, round=rnd)
                    if trace:
                        r = claim(el)
                        el.round[r] = rnd
                        copy_record(el.data[r], st, i)
            st.n_ev = 0
            if kind == GAME_OVER:
                break
            if kind == ROUND_DONE and detail:  # the rounds row and turns rows of the round
                rnd = st.rnd + 1
                r = claim(rl)
                rl.game_id[r] = gid
                rl.round[r] = rnd
                rl.first_seat[r] = st.order[0]
                rl.climate_roll[r] = st.climate_roll
                rl.climate_card[r] = st.climate_card
                rl.temperate[r] = tb.cycle[st.climate]
                rl.climate_field[r] = st.climate
                rl.meteor_space[r] = st.meteor
                rl.meteor_roll[r] = st.meteor_roll
                rl.impact[r] = st.impact == 1
                for s in range(n):
                    r = claim(tl)
                    tl.game_id[r] = gid
                    tl.round[r] = rnd
                    tl.seat[r] = s
                    tl.initiative[r] = st.init_pos[s]
                    tl.initiative_by[r] = st.tie_how[s]
                    for i in range(n):
                        if st.order[i] == s:
                            tl.order[r] = i
                    tl.dinos[r] = st.n_dinos[s]
                    tl.points[r] = st.points_p5[s]
                    for k in range(N_GENES):
                        tl.genes[r, k] = st.genes[s, k] - (st.bought[s] == k)
                    tl.born[r] = st.born[s]
                    tl.died_climate[r] = st.died_climate[s]
                    tl.died_combat[r] = st.died_combat[s]
                    tl.died_card[r] = st.died_card[s]
                    tl.scored[r] = st.scored[s]
                    tl.paid[r] = st.paid[s]
                    tl.penalty[r] = st.penalty[s]
                    tl.cards_held[r] = popcount(st.hand[s])
        result = final_result(tb, st, winners)
        count = 0
        for s in range(n):
            pr = p0 + s
            pl.strategy[pr] = position(s, rot, n)
            pl.points[pr] = st.points[s]
            pl.bonus[pr] = st.bonus[s]
            pl.score[pr] = st.points[s] + st.bonus[s]
            pl.dinos[pr] = st.n_dinos[s]
            pl.winner[pr] = winners[s]
            for k in range(N_GENES):
                pl.genes[pr, k] = st.genes[s, k]
            pl.cards_played[pr] = st.played[s]
            pl.cards_held[pr] = popcount(st.hand[s])
            k = 0
            for c in range(26):
                if st.seen[s] & (np.int64(1) << c):
                    pl.cards_seen[pr, k] = c
                    k += 1
            for i in range(k, 26):
                pl.cards_seen[pr, i] = -1
            count += winners[s]
        pl.meta[0] = p0 + n
        g = claim(gl)
        gl.rounds[g] = st.rnd + 1
        gl.winner_seat[g] = result
        gl.n_winners[g] = count
        gl.impact[g] = st.impact == 1
        gl.meteor_space[g] = st.meteor
        gl.rotation[g] = rot
    return stop
