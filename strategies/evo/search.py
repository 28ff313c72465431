"""Flat Monte Carlo search for EVO, compiled: the engine plays the rollouts.

At an auction bid, at card plays (``cards``), at newborn placements (``place``) and, with
``moves`` on, at every movement step the bot lists candidate actions and plays each out
``rollouts`` times to the end of the game with the default heuristic for every seat; the one
with the best mean result wins (1 for a win, 1/k for a shared win, plus a hundredth of the
point margin to break ties). Other decisions use the default heuristic.

Candidates: for a bid, the heuristic's bid and, on every row it may bid on, the lowest legal
bid, one and two more, and the bid that costs nothing (its mutations), with passing where
allowed; for a card window, passing and every playable card with the heuristic's target (or
the first legal one); for a newborn, the ``candidates`` best regions by the heuristic's
placement score; for movement, the heuristic's move, stopping, and further legal moves up to
``candidates``. Restricted play: a forbidden option is never a candidate unless every legal
action uses one (:mod:`strategies.evo.allowed`).

Rollouts never see hidden information: each starts from a *determinised* copy of the state
(:func:`determinise`) in which the dice streams are reseeded from the bot's own stream, the
bag's remaining order is reshuffled, and the cards the bot cannot see (the draw pile and the
other players' hands, except cards taken openly with Osztódás) are dealt again at random. The
i-th rollout of every candidate uses the same determinisation (common random numbers).

Ties (equal placement scores when listing regions, equal rollout totals when choosing) are
broken at random with the bot's own stream, never by list order (issue 16: seat symmetry).
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit
from rules.core.rng import bounded, mix64, next_u64, shuffle
from rules.evo.constants import (
    BID,
    CARD_PLAY,
    GAME_OVER,
    MAX_PLAYERS,
    MOVE,
    MUTATION,
    PASS,
    PLACE,
    ROUND_DONE,
)
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
from rules.evo.events import targets
from rules.evo.state import CHANCE, N_STREAMS, STATE
from strategies.evo.allowed import all_forbidden, forbidden, uses_forbidden
from strategies.evo.heuristic import (
    MAX_CAND,
    WORK,
    card_target,
    census,
    heuristic,
    keep_tie,
    place_score,
    prospects,
    set_defaults,
)
from strategies.evo.values import VALUES

_SALT = np.uint64(0x9FB21C651E98DF25)
DEFAULT_TABLE = MAX_PLAYERS
"""Slot of ``SCRATCH.values`` holding the shipped value table (slots 0-4: lineup positions)."""
SCRATCH = np.dtype(
    [("work", WORK), ("worlds", STATE, (2,)), ("values", VALUES, (MAX_PLAYERS + 1,))],
    align=True,
)
"""The bots' scratch, one record: the heuristic's work record, two spare states for the
search bot's rollouts, and the gene value table of every lineup position (and the shipped one),
filled by the spec's ``build_inputs``."""


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
def rollout(tb, sim, wk, vt, lu) -> None:
    """Play ``sim`` to the end with the default heuristic (table ``vt``) in every seat."""
    sim.verbose = 0
    while True:
        kind = advance(tb, sim)
        sim.n_ev = 0
        if kind == GAME_OVER:
            return
        if kind == ROUND_DONE:
            continue
        set_defaults(wk)
        apply(tb, sim, heuristic(tb, sim, wk, vt, lu, -1))


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
def add(wk, m: int, a: int) -> int:
    """Append action ``a`` to ``wk.cand[:m]`` unless it is there or the list is full."""
    if m >= MAX_CAND:
        return m
    for i in range(m):
        if wk.cand[i] == a:
            return m
    wk.cand[m] = a
    return m + 1


@jit
def candidates(tb, st, wk, vt, lu, j: int, limit: int) -> int:
    """Fill ``wk.cand`` with the actions to compare; return how many."""
    set_defaults(wk)
    first = heuristic(tb, st, wk, vt, lu, j)
    wk.cand[0] = first
    m = 1
    s = st.actor
    kind = st.kind
    if kind == BID:  # several bid levels on every row it may bid on, passing where allowed
        cap = bid_cap(tb, st, s)
        free = st.genes[s, MUTATION]
        strict = not all_forbidden(lu, j, tb, st)
        for row in range(st.n_rows):
            lo = min_bid(tb, st, row)
            if lo > cap or (strict and uses_forbidden(lu, j, tb, st, pack(row, lo))):
                continue
            m = add(wk, m, pack(row, lo))
            for b in (lo + 1, lo + 2, free):
                if lo < b <= cap:
                    m = add(wk, m, pack(row, b))
        if st.n_passed < st.max_pass:
            m = add(wk, m, PASS)
        return m
    if kind == CARD_PLAY:  # passing, and every card it may play with the heuristic's target
        m = add(wk, m, PASS)
        if st.react >= 0:
            take = pack(16, st.react + 1)
            if not forbidden(lu, j, tb, st, take):
                m = add(wk, m, take)
            return m
        for c in range(26):
            if not st.options & (np.int64(1) << c):
                continue
            if not uses_forbidden(lu, j, tb, st, pack(c + 1, 0)):
                t = card_target(tb, st, wk, vt, lu, j, s, c + 1)
                if t < 0:
                    t = targets(tb, st, s, c + 1, 0)
                m = add(wk, m, pack(c + 1, t))
        return m
    limit = min(limit, MAX_CAND)
    if kind == PLACE:  # the best regions by the heuristic's placement score
        prospects(tb, st, wk)
        census(tb, st, wk, s)
        while m < min(limit, st.n_marked):
            best, pick, ties = -1e18, -1, 0
            for i in range(st.n_marked):
                r = st.marked[i]
                dup = False
                for k in range(m):
                    if wk.cand[k] == r:
                        dup = True
                if not dup:
                    v = place_score(tb, st, wk, s, r)
                    if v > best:
                        best, pick, ties = v, r, 1
                    elif v == best:
                        ties += 1
                        if keep_tie(st, s, ties):
                            pick = r
            if pick < 0:
                break
            wk.cand[m] = pick
            m += 1
        return m
    total = actions(tb, st, -1)
    if first != PASS and m < limit:
        wk.cand[m] = PASS
        m += 1
    start = bounded(st.rng, 1 + st.actor, total) if total > 0 else 0
    for i in range(total):
        if m >= limit:
            break
        m = add(wk, m, actions(tb, st, (start + i) % total))
    return m


@jit
def search(tb, st, wk, pool, vt, lu, j: int, rollouts: int, limit: int, flags: int) -> np.int64:
    """Flat Monte Carlo choice for ``st.actor`` (``pool``: at least two spare states; ``vt``:
    the value table of the heuristic it searches with; ``flags``: 1 movement, 2 cards,
    4 placements are searched too)."""
    kind = st.kind
    searched = (
        kind == BID
        or (kind == MOVE and flags & 1)
        or (kind == CARD_PLAY and flags & 2)
        or (kind == PLACE and flags & 4)
    )
    if not searched:
        set_defaults(wk)
        return heuristic(tb, st, wk, vt, lu, j)
    seat = st.actor
    m = candidates(tb, st, wk, vt, lu, j, limit)
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
            rollout(tb, sim, wk, vt, lu)
            wk.value[c] += outcome(tb, sim, seat)
    best, ties = 0, 1
    for c in range(1, m):
        if wk.value[c] > wk.value[best]:
            best, ties = c, 1
        elif wk.value[c] == wk.value[best]:
            ties += 1
            if keep_tie(st, seat, ties):
                best = c
    return wk.cand[best]
