"""The compiled entry point: play a chunk of Origin of Species games and fill the log columns.

It joins the resumable forward model (``rules.origin_of_species.engine``) and the bots
(``strategies.origin_of_species.bots``); it lives here, not in ``rules/``, because numba only
caches a kernel that reaches its bots as module globals, and ``rules`` may not import bots.
Seeding, seat rotation and stopping for room: :mod:`simulate.kit.support`.
"""

from __future__ import annotations

import numpy as np

from rules.core.events import copy_record, event_field, event_kind
from rules.core.jit import jit, records
from rules.origin_of_species.board import B_CARN, full_mask
from rules.origin_of_species.constants import GAME_OVER, N_USES, ROUND_DONE
from rules.origin_of_species.engine import advance, animal_score, apply, deal, final_result
from rules.origin_of_species.state import (
    ANIMAL_EVENT,
    ATTACK_EVENT,
    TRAIT_EVENT,
    make_table,
    new_states,
)
from simulate.games.origin_of_species.tables import copy_attack, copy_trait
from simulate.kit.support import claim, logging, position, room, start_game
from strategies.core.scratch import scratch_dtype
from strategies.origin_of_species import REGISTRY
from strategies.origin_of_species.bots import choose
from strategies.origin_of_species.search import SCRATCH


def kernel_inputs(params, deck, lineup, searches: bool) -> tuple:
    """The records a kernel (or the step checker) reads: the rules table, the lineup record,
    one game state and one bots' scratch record (spare states only where the lineup
    ``searches``), each a record array of length 1."""
    tb = make_table(params, deck, len(lineup))
    lu = REGISTRY.lineup_record(list(lineup))
    return tb, lu, new_states(1), records(1, scratch_dtype(SCRATCH, searches))


@jit
def play_chunk(
    tables, lineups, states, scratches, seed, rotate: bool, start: int, first: int, stop: int, logs
) -> int:
    """Play games ``first .. stop-1`` of the chunk starting at ``start`` into ``logs``; return
    the first game not played (earlier than ``stop`` when a table needs room).

    ``tables``, ``lineups``, ``states`` and ``scratches`` are record arrays of
    :data:`~rules.origin_of_species.state.TABLE`, the registry's lineup dtype,
    :data:`~rules.origin_of_species.state.STATE` and the bots'
    :data:`~strategies.origin_of_species.search.SCRATCH`; the kernel passes their first records.
    The engine's event records become ``traits`` and ``attacks`` rows (and, traced, ``events``
    rows) right after the engine call that left them, through the copiers declared with the
    tables (inlined); each finished round becomes a ``rounds`` row and a ``turns`` row per
    seat, written here rather than in helpers: a call that receives ``logs`` pays a reference
    count per buffer.
    """
    tb, lu, st, scratch = tables[0], lineups[0], states[0], scratches[0]
    n = tb.n_players
    winners = np.zeros(n, dtype=np.bool_)
    gl, pl, rl, tl = logs.games, logs.players, logs.rounds, logs.turns
    xl, al, el = logs.traits, logs.attacks, logs.events
    detail = logging(tl)
    trace = logging(el)
    for gid in range(first, stop):
        if not room(logs):
            return gid
        rot = start_game(st.rng, n, seed, gid, rotate)
        deal(tb, st)
        st.verbose = 1 if trace else 0
        first_seat = st.first
        p0 = pl.meta[0]
        for s in range(n):
            pr = p0 + s
            pl.animals_played[pr] = 0
            pl.traits_played[pr] = 0
            pl.food_taken[pr] = 0
            pl.food_received[pr] = 0
            pl.kills[pr] = 0
        while True:
            kind = advance(tb, st)
            decide = kind < ROUND_DONE  # a decision (ROUND_DONE and GAME_OVER come last)
            for call in range(2):  # the events of advance, then (after a decision) of apply
                if st.n_ev:
                    for i in range(st.n_ev):
                        ev = event_kind(st, i)
                        if ev == TRAIT_EVENT.kind:
                            pl.traits_played[p0 + event_field(st, i, TRAIT_EVENT.seat)] += 1
                            if detail:
                                copy_trait(xl, st, i, game_id=gid)
                        elif ev == ANIMAL_EVENT.kind:
                            pl.animals_played[p0 + event_field(st, i, ANIMAL_EVENT.seat)] += 1
                        elif ev == ATTACK_EVENT.kind and detail:
                            copy_attack(al, st, i, game_id=gid)
                        if trace and el.meta[0] < el.meta[1]:
                            copy_record(el.data[claim(el)], st, i)
                    st.n_ev = 0
                if call == 1 or not decide:
                    break
                s = st.actor
                apply(tb, st, choose(lu, position(s, rot, n), tb, st, s, scratch))
            if kind == ROUND_DONE:  # the round's counters are complete
                for s in range(n):
                    pr = p0 + s
                    pl.food_taken[pr] += st.r_red[s]
                    pl.food_received[pr] += st.r_blue[s]
                    pl.kills[pr] += st.r_kills[s]
                if detail:
                    rnd = st.rnd + 1
                    r = claim(rl)
                    rl.game_id[r] = gid
                    rl.round[r] = rnd
                    rl.first_seat[r] = st.first
                    rl.food_bank[r] = st.r_bank
                    rl.deck_left[r] = st.r_deck_left
                    rl.last[r] = st.over != 0
                    for s in range(n):
                        r = claim(tl)
                        tl.game_id[r] = gid
                        tl.round[r] = rnd
                        tl.seat[r] = s
                        tl.animals[r] = st.r_animals[s]
                        tl.survivors[r] = st.r_survivors[s]
                        tl.traits[r] = st.r_traits[s]
                        tl.need[r] = st.r_need[s]
                        tl.food_taken[r] = st.r_red[s]
                        tl.food_received[r] = st.r_blue[s]
                        tl.starved[r] = st.r_starved[s]
                        tl.poisoned[r] = st.r_poisoned[s]
                        tl.kills[r] = st.r_kills[s]
                        tl.cards_drawn[r] = st.r_drawn[s]
                        tl.hand[r] = st.r_hand[s]
                        tl.score[r] = st.r_score[s]
            elif kind == GAME_OVER:
                break
        result = final_result(tb, st, winners)
        count = 0
        best = -(1 << 30)
        second = -(1 << 30)
        for s in range(n):
            v = st.score[s]
            if v > best:
                second = best
                best = v
            elif v > second:
                second = v
        for s in range(n):
            pr = p0 + s
            pl.strategy[pr] = position(s, rot, n)
            pl.score[pr] = st.score[s]
            pl.animals[pr] = st.end_animals[s]
            pl.traits[pr] = st.end_traits[s]
            pl.extra_points[pr] = st.extra[s]
            pl.discard[pr] = st.discard_n[s]
            pl.winner[pr] = winners[s]
            mask = 0
            carn = 0
            carn_pts = 0
            for a in range(st.n_an[s]):
                m = full_mask(st, s, a)
                mask |= m
                if m & B_CARN:
                    carn += 1
                    carn_pts += animal_score(tb, st, s, a)[0]
            pl.survivor_traits[pr] = mask
            pl.carnivores[pr] = carn
            pl.carnivore_points[pr] = carn_pts
            for u in range(N_USES):
                pl.uses[pr, u] = st.uses[s, u]
            count += winners[s]
        pl.meta[0] = p0 + n
        g = claim(gl)
        gl.rounds[g] = st.rnd + 1
        gl.winner_seat[g] = result
        gl.n_winners[g] = count
        gl.tie_break[g] = best == second
        gl.margin[g] = best - second
        gl.first_seat[g] = first_seat
        gl.rotation[g] = rot
    return stop
