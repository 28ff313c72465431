"""Monte Carlo search for EVO, compiled: the engine plays the rollouts (the search itself is
:mod:`strategies.core.montecarlo`; this module gives it the game: candidates, determinisation,
playouts, tie rule).

``strong`` compares the same candidates by sequential halving over a total of ``playouts``
playouts, each cut off after ``horizon`` rounds and scored by a logistic model of the win
share fitted on logged games (:func:`cutoff_value`, :func:`reports.evaluation.fit_evo`): the
seat's lead in points, which weighs more as the game goes on, and in dinos on the board.

``search``:

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

from rules.core.jit import jit, jit_inline
from rules.core.rng import bounded, mix64, shuffle
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
from strategies.core.montecarlo import SALT, instantiate
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
from strategies.evo.params import SEARCH_AT, STRONG_AT
from strategies.evo.values import VALUES

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
        x = mix64(key ^ (np.uint64(k + 1) * SALT))
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
def rollout(tb, sim, wk, vt, lu, horizon: int) -> bool:
    """Play ``sim`` on with the default heuristic (table ``vt``) in every seat, to the end or
    (``horizon`` >= 0) until ``horizon`` rounds have ended; whether the game ended."""
    sim.verbose = 0
    left = horizon
    while True:
        kind = advance(tb, sim)
        sim.n_ev = 0
        if kind == GAME_OVER:
            return True
        if kind == ROUND_DONE:
            left -= 1
            if left == 0:
                return False
            continue
        set_defaults(wk)
        apply(tb, sim, heuristic(tb, sim, wk, vt, lu, -1))


@jit
def margin(tb, sim, seat: int) -> int:
    """``seat``'s final-count score less the best opponent's."""
    best_other = -(1 << 30)
    for q in range(tb.n_players):
        if q != seat:
            best_other = max(best_other, final_score(sim, q))
    return final_score(sim, seat) - best_other


@jit
def outcome(tb, sim, seat: int) -> float:
    """1 for a win, 1/k for a shared win, 0 for a loss, plus 0.01 per point of margin."""
    n = tb.n_players
    winners = np.zeros(n, dtype=np.bool_)
    final_result(tb, sim, winners)
    count = 0
    for q in range(n):
        count += winners[q]
    v = 1.0 / count if winners[seat] else 0.0
    return v + 0.01 * margin(tb, sim, seat)


@jit
def cutoff_value(tb, sim, seat: int, vt, ev) -> float:
    """An unfinished playout's value for ``seat`` at the end of a round: its chance of winning
    by the logistic model fitted on logged games (:func:`reports.evaluation.fit_evo`), whose
    log-odds are a fair seat's plus ``lead``, plus a weight that grows with the round times its
    lead in points (the gene it just bought counted at the value table's worth: the auction
    has been paid, the gene not yet used), plus one that shrinks with the round times its
    lead in dinos on the board; plus the hundredth of the points lead a finished playout adds.
    ``ev``: (lead, slope, slope per round, dinos, dinos per round)."""
    lead, slope, slope_round, dinos, dinos_round = ev
    r = min(sim.rnd, vt.rounds - 1)
    best_val, best_dinos = -1e300, -(1 << 30)
    own = 0.0
    for q in range(tb.n_players):
        v = np.float64(sim.points[q])
        g = sim.bought[q]
        if g >= 0:
            v += vt.value[r, g, 0] + vt.price[r]
        if q == seat:
            own = v
        else:
            best_val = max(best_val, v)
            best_dinos = max(best_dinos, sim.n_dinos[q])
    points = own - best_val
    ahead = sim.n_dinos[seat] - best_dinos
    rnd = sim.rnd + 1.0
    z = lead - np.log(tb.n_players - 1.0)
    z += (slope + slope_round * rnd) * points + (dinos + dinos_round * rnd) * ahead
    return 1.0 / (1.0 + np.exp(-z)) + 0.01 * points


@jit_inline
def mc_play(tb, sim, a: int, seat: int, ctx) -> float:
    """Candidate ``a`` played out; ``ctx``: (work record, value table, lineup, horizon, the
    evaluation's coefficients, :func:`cutoff_value`)."""
    wk, vt, lu, horizon, ev = ctx
    apply(tb, sim, a)
    if rollout(tb, sim, wk, vt, lu, horizon) or sim.over:
        return outcome(tb, sim, seat)
    return cutoff_value(tb, sim, seat, vt, ev)


@jit_inline
def mc_best(st, seat: int, value, m: int) -> np.int64:
    """The best total, equal ones broken at random with the bot's stream."""
    best, ties = 0, 1
    for c in range(1, m):
        if value[c] > value[best]:
            best, ties = c, 1
        elif value[c] == value[best]:
            ties += 1
            if keep_tie(st, seat, ties):
                best = c
    return best


flat_pick, halving_pick = instantiate(mc_determinise=determinise, mc_play=mc_play, mc_best=mc_best)


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
def pick(
    tb,
    st,
    wk,
    pool,
    vt,
    lu,
    j: int,
    budget: int,
    limit: int,
    flags: int,
    horizon: int,
    ev,
) -> np.int64:
    """The searched choice for ``st.actor`` (``pool``: at least two spare states; ``vt``: the
    value table of the heuristic it searches with; ``flags``: 1 movement, 2 cards,
    4 placements are searched too): ``budget`` playouts of each candidate to the end
    (``horizon`` < 0), or about ``budget`` in all by sequential halving, each cut off after
    ``horizon`` rounds and scored by :func:`cutoff_value` with coefficients ``ev``; bids are
    always searched."""
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
    m = candidates(tb, st, wk, vt, lu, j, limit)
    if m == 1:
        return wk.cand[0]
    ctx = (wk, vt, lu, horizon, ev)
    if horizon < 0:
        return wk.cand[flat_pick(tb, st, pool, wk.cand, m, st.actor, budget, ctx)]
    return wk.cand[halving_pick(tb, st, pool, wk.cand, m, st.actor, budget, ctx)]


@jit_inline
def search(tb, st, wk, pool, vt, lu, j: int, p) -> np.int64:
    """``search``: flat Monte Carlo, every playout to the end (``p``: its parameters)."""
    flags = (p[SEARCH_AT.moves] >= 0.5) + 2 * (p[SEARCH_AT.cards] >= 0.5)
    flags += 4 * (p[SEARCH_AT.place] >= 0.5)
    rollouts, limit = np.int64(p[SEARCH_AT.rollouts]), np.int64(p[SEARCH_AT.candidates])
    no = (0.0, 0.0, 0.0, 0.0, 0.0)
    return pick(tb, st, wk, pool, vt, lu, j, rollouts, limit, flags, np.int64(-1), no)


@jit_inline
def strong(tb, st, wk, pool, vt, lu, j: int, p) -> np.int64:
    """``strong``: sequential halving over short playouts scored by :func:`cutoff_value`."""
    flags = (p[STRONG_AT.moves] >= 0.5) + 2 * (p[STRONG_AT.cards] >= 0.5)
    flags += 4 * (p[STRONG_AT.place] >= 0.5)
    playouts, limit = np.int64(p[STRONG_AT.playouts]), np.int64(p[STRONG_AT.candidates])
    lead, slope, slope_round = p[STRONG_AT.lead], p[STRONG_AT.slope], p[STRONG_AT.slope_round]
    ev = (lead, slope, slope_round, p[STRONG_AT.dinos], p[STRONG_AT.dinos_round])
    horizon = np.int64(p[STRONG_AT.horizon])
    return pick(tb, st, wk, pool, vt, lu, j, playouts, limit, flags, horizon, ev)
