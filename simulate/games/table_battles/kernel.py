"""The compiled entry point: play a chunk of Dinosaur Table Battles games and fill the logs.

It joins the resumable forward model (``rules.table_battles.engine``) and the bots
(``strategies.table_battles.bots``); it lives here, not in ``rules/``, because numba only caches
a kernel that reaches its bots as module globals, and ``rules`` may not import bots. Seeding,
seat rotation and stopping for room: :mod:`simulate.kit.support`.
"""

from __future__ import annotations

import numpy as np

from rules.core.events import event_kind
from rules.core.jit import jit, records
from rules.table_battles.constants import DRAFT, GAME_OVER, MAX_HAND, MAX_TEAM, ROUND_DONE
from rules.table_battles.engine import advance, apply, deal, face_up_cards, final_result
from rules.table_battles.state import DRAFT_EVENT, TURN_EVENT, make_table, new_states
from simulate.games.table_battles.tables import copy_draft, copy_turn
from simulate.kit.support import claim, logging, position, room, start_game
from strategies.core.scratch import scratch_dtype
from strategies.table_battles import REGISTRY
from strategies.table_battles.bots import choose
from strategies.table_battles.search import SCRATCH


def kernel_inputs(params, cards, lineup, searches: bool) -> tuple:
    """The records a kernel (or the step checker) reads: the rules table, the lineup record,
    one game state and one scratch record (spare states only where the lineup ``searches``),
    each as a record array of length 1."""
    tb = make_table(params, cards, 2)
    lu = REGISTRY.lineup_record(list(lineup))
    return tb, lu, new_states(1), records(1, scratch_dtype(SCRATCH, searches))


@jit
def play_chunk(
    tables, lineups, states, scratches, seed, rotate: bool, start: int, first: int, stop: int, logs
) -> int:
    """Play games ``first .. stop-1`` of the chunk starting at ``start`` into ``logs``; return
    the first game not played (earlier than ``stop`` when the turns table needs room).

    ``tables``, ``lineups``, ``states`` and ``scratches`` are record arrays of
    :data:`~rules.table_battles.state.TABLE`, the registry's lineup dtype,
    :data:`~rules.table_battles.state.STATE` and the bots'
    :data:`~strategies.table_battles.search.SCRATCH`; the kernel passes their first records.
    The engine's event records (a draft pick, a finished turn) become ``drafts`` and ``turns``
    rows right after the ``advance`` that left them, through the copiers declared with the
    tables (inlined: a call that receives ``logs`` would pay a reference count per buffer).
    """
    tb, lu, st, scratch = tables[0], lineups[0], states[0], scratches[0]
    n = 2
    winners = np.zeros(n, dtype=np.bool_)
    gl, pl, dl, tl = logs.games, logs.players, logs.drafts, logs.turns
    hl, xl = logs.hands, logs.decisions
    detail = logging(tl)
    trace = logging(xl)
    for gid in range(first, stop):
        if not room(logs):
            return gid
        rot = start_game(st.rng, n, seed, gid, rotate)
        deal(tb, st)
        if trace:
            for s in range(n):
                h = claim(hl)
                for k in range(MAX_HAND):
                    hl.hand[h, k] = st.hand[s, k] if k < st.hand_len[s] else -1
        while True:
            kind = advance(tb, st)
            if detail:
                for i in range(st.n_ev):
                    ev = event_kind(st, i)
                    if ev == DRAFT_EVENT.kind:
                        copy_draft(dl, st, i, game_id=gid, tb=tb)
                    elif ev == TURN_EVENT.kind:
                        copy_turn(tl, st, i, game_id=gid, tb=tb)
            st.n_ev = 0
            if kind == GAME_OVER:
                break
            if kind == ROUND_DONE:
                continue
            s = st.actor
            action = choose(lu, position(s, rot, n), tb, st, s, scratch)
            if trace:
                x = claim(xl)
                xl.turn[x] = 0 if kind == DRAFT else st.turn + 1
                xl.seat[x] = s
                xl.kind[x] = kind
                xl.action[x] = action
                for f in range(7):
                    xl.roll[x, f] = st.rolled[f]
            apply(tb, st, action)
        result = final_result(tb, st, winners)
        p0 = pl.meta[0]
        count = 0
        for s in range(n):
            o = 1 - s
            pr = p0 + s
            pl.strategy[pr] = position(s, rot, n)
            rating = 0
            trex = False
            for k in range(MAX_TEAM):
                if k < st.n_team[s]:
                    d = st.team[s, k]
                    pl.dinos[pr, k] = tb.d_name[d]
                    rating += tb.d_rating[d]
                    trex = trex or tb.d_trex[d] != 0
                else:
                    pl.dinos[pr, k] = -1
            pl.n_dinos[pr] = st.n_team[s]
            pl.action_cards[pr] = st.cards0[s]
            pl.hit_markers[pr] = st.markers0[s]
            pl.fewer_dinos[pr] = st.n_team[s] < st.n_team[o]
            pl.fewer_cards[pr] = st.cards0[s] < st.cards0[o]
            pl.trex[pr] = trex
            pl.draft_rating[pr] = rating
            pl.first[pr] = st.first[s] == 1
            pl.winner[pr] = winners[s]
            pl.markers_left[pr] = st.markers[s]
            pl.dinos_left[pr] = st.n_alive[s]
            pl.cards_face_up[pr] = face_up_cards(tb, st, np.int64(s))
            count += winners[s]
        pl.meta[0] = p0 + n
        g = claim(gl)
        gl.rounds[g] = (st.turn + 1) // 2
        gl.turns[g] = st.turn
        gl.winner_seat[g] = result
        gl.n_winners[g] = count
        gl.end_reason[g] = st.end_reason - 1
        gl.first_seat[g] = st.first_seat
        gl.rotation[g] = rot
    return stop
