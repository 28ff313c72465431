"""Flat Monte Carlo search for EVO, compiled: the engine plays the rollouts.

At an auction bid (and, with ``moves`` on, at every movement step) the bot lists candidate
actions: every row at its lowest legal bid and passing where allowed; for movement the
heuristic's move, stopping, and further legal moves up to ``candidates``. Each candidate is
played out ``rollouts`` times to the end of the game with the default heuristic for every
seat, and the one with the best mean result wins (1 for a win, 1/k for a shared win, plus a
hundredth of the point margin to break ties). Other decisions use the default heuristic.

Rollouts never see hidden information: each starts from a *determinised* copy of the state
(:func:`determinise`) in which the dice streams are reseeded from the bot's own stream, the
bag's remaining order is reshuffled, and the cards the bot cannot see (the draw pile and the
other players' hands, except cards taken openly with Osztódás) are dealt again at random. The
i-th rollout of every candidate uses the same determinisation (common random numbers).
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit
from rules.core.rng import bounded, mix64, next_u64, shuffle
from rules.evo.constants import BID, GAME_OVER, MOVE, PASS, ROUND_DONE
from rules.evo.engine import (
    actions,
    advance,
    apply,
    bid_cap,
    final_result,
    final_score,
    min_bid,
    pack,
)
from rules.evo.state import CHANCE, N_STREAMS, STATE
from strategies.evo.heuristic import MAX_CAND, WORK, heuristic, set_defaults

_SALT = np.uint64(0x9FB21C651E98DF25)
SCRATCH = np.dtype([("work", WORK), ("worlds", STATE, (2,))], align=True)
"""The bots' scratch, one record: the heuristic's work record and two spare states for the
search bot's rollouts."""


@jit
def determinise(tb, sim, seat: int, key: np.uint64) -> None:
    """Resample what ``seat`` cannot know: future dice, the bag order, the unseen cards."""
    for k in range(N_STREAMS):
        x = mix64(key ^ (np.uint64(k + 1) * _SALT))
        sim.rng[k] = x if x != np.uint64(0) else np.uint64(1)
    if sim.bag_len - sim.bag_top > 1:
        shuffle(sim.bag[sim.bag_top : sim.bag_len], sim.rng, CHANCE)
    unseen = np.empty(32, dtype=np.int64)
    m = 0
    for i in range(sim.deck_top, sim.deck_len):
        unseen[m] = sim.deck[i]
        m += 1
    n = tb.n_players
    held = np.zeros(n, dtype=np.int64)
    for q in range(n):
        if q == seat:
            continue
        hidden = sim.hand[q] & ~sim.locked[q]
        for c in range(26):
            if hidden & (np.int64(1) << c):
                unseen[m] = c
                m += 1
                held[q] += 1
        sim.hand[q] &= sim.locked[q]
    for i in range(m - 1, 0, -1):
        j = bounded(sim.rng, CHANCE, i + 1)
        unseen[i], unseen[j] = unseen[j], unseen[i]
    i = 0
    for q in range(n):
        for _ in range(held[q]):
            sim.hand[q] |= np.int64(1) << unseen[i]
            i += 1
    for d in range(sim.deck_top, sim.deck_len):
        sim.deck[d] = unseen[i]
        i += 1


@jit
def rollout(tb, sim, wk) -> None:
    """Play ``sim`` to the end with the default heuristic in every seat."""
    sim.verbose = 0
    while True:
        kind = advance(tb, sim)
        sim.n_ev = 0
        if kind == GAME_OVER:
            return
        if kind == ROUND_DONE:
            continue
        set_defaults(wk)
        apply(tb, sim, heuristic(tb, sim, wk))


@jit
def outcome(tb, sim, seat: int) -> float:
    """1 for a win, 1/k for a shared win, 0 for a loss, plus 0.01 per point of margin."""
    n = tb.n_players
    winners = np.zeros(n, dtype=np.bool_)
    final_result(tb, sim, winners)
    count = 0
    best_other = -(1 << 30)
    for q in range(n):
        count += winners[q]
        if q != seat:
            best_other = max(best_other, final_score(sim, q))
    v = 1.0 / count if winners[seat] else 0.0
    return v + 0.01 * (final_score(sim, seat) - best_other)


@jit
def candidates(tb, st, wk, limit: int) -> int:
    """Fill ``wk.cand`` with the actions to compare; return how many."""
    set_defaults(wk)
    first = heuristic(tb, st, wk)
    wk.cand[0] = first
    m = 1
    total = actions(tb, st, -1)
    if st.kind == BID:  # every row at its lowest legal bid, and passing where allowed
        cap = bid_cap(tb, st, st.actor)
        for row in range(st.n_rows):
            lo = min_bid(tb, st, row)
            a = pack(row, lo)
            if lo <= cap and a != first and m < MAX_CAND:
                wk.cand[m] = a
                m += 1
        if st.n_passed < st.max_pass and first != PASS and m < MAX_CAND:
            wk.cand[m] = PASS
            m += 1
        return m
    limit = min(limit, MAX_CAND)
    if first != PASS and m < limit:
        wk.cand[m] = PASS
        m += 1
    start = bounded(st.rng, 1 + st.actor, total) if total > 0 else 0
    for i in range(total):
        if m >= limit:
            break
        a = actions(tb, st, (start + i) % total)
        dup = False
        for j in range(m):
            if wk.cand[j] == a:
                dup = True
        if not dup:
            wk.cand[m] = a
            m += 1
    return m


@jit
def search(tb, st, wk, pool, rollouts: int, limit: int, moves: bool) -> np.int64:
    """Flat Monte Carlo choice for ``st.actor`` (``pool``: at least two spare states)."""
    kind = st.kind
    if not (kind == BID or (kind == MOVE and moves)):
        set_defaults(wk)
        return heuristic(tb, st, wk)
    seat = st.actor
    m = candidates(tb, st, wk, limit)
    if m == 1:
        return wk.cand[0]
    for c in range(m):
        wk.value[c] = 0.0
    base = next_u64(st.rng, 1 + seat)
    for i in range(rollouts):
        key = mix64(base + np.uint64(i) * _SALT)
        pool[0] = st
        determinise(tb, pool[0], seat, key)
        for c in range(m):
            pool[1] = pool[0]
            sim = pool[1]
            apply(tb, sim, wk.cand[c])
            rollout(tb, sim, wk)
            wk.value[c] += outcome(tb, sim, seat)
    best = 0
    for c in range(1, m):
        if wk.value[c] > wk.value[best]:
            best = c
    return wk.cand[best]
