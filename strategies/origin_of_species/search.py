"""Monte Carlo search for Origin of Species, compiled: the engine plays the rollouts (the
search itself is :mod:`strategies.core.montecarlo`; this module gives it the game).

``strong`` compares the same candidates by sequential halving over a total of ``playouts``
playouts, each cut off after ``horizon`` rounds and scored by the margin of the points a seat
would score if the game ended then, through a logistic curve fitted on logged games
(:mod:`reports.evaluation`).

``search``:

At a development decision (and, with ``feed`` on, at every feeding decision) the bot lists
candidate actions and plays each out ``rollouts`` times to the end of the game with the
default heuristic in every seat; the best mean result wins (1 for a win, 1/k for a shared
win, plus a hundredth of the score margin over the best opponent). Other decisions (defence,
chains, scavengers) use the default heuristic.

Candidates: in development the heuristic's choice, passing, and for each card type in hand
its top trait, its bottom trait (each at the heuristic's best place) and the card as an
animal, the ``candidates`` best by the heuristic's values; in feeding the heuristic's choice
and then the legal actions from a random start, up to ``candidates``.

Rollouts never see hidden information: each starts from a *determinised* copy
(:func:`determinise`): the chance and bot streams are reseeded from the bot's own stream,
and the cards the bot cannot see (the other hands and the deck) are dealt again at random
from the cards it has not seen (all cards, less its own hand, the traits ever played face
up and its own animal cards). The i-th rollout of every candidate uses the same
determinisation (common random numbers). The best mean wins; the heuristic's choice keeps
its ties, and ties between the other candidates are broken at random with the bot's own stream
(``heuristic.better``), never by the order of the candidates (which follows the seats).
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.core.rng import bounded, mix64, shuffle
from rules.origin_of_species.constants import (
    DEVELOP,
    FEED,
    GAME_OVER,
    MAX_CARDS,
    OP_ANIMAL,
    OP_TOP,
    PASS,
    ROUND_DONE,
)
from rules.origin_of_species.engine import (
    COUNT,
    actions,
    advance,
    apply,
    final_result,
    pack,
    seat_score,
)
from rules.origin_of_species.options import option_of
from rules.origin_of_species.state import CHANCE, N_STREAMS, STATE
from strategies.core.montecarlo import SALT, instantiate, margin_value
from strategies.origin_of_species.heuristic import (
    DEFAULTS,
    NEG,
    better,
    blocked,
    dev_context,
    dev_option,
    heuristic,
)
from strategies.origin_of_species.params import SEARCH_AT, STRONG_AT

MAX_CAND = 32

SCRATCH = np.dtype([("worlds", STATE, (2,))], align=True)
"""The bots' scratch, one record: two spare states for the search bot's rollouts
(``worlds[0]`` the determinised copy, ``worlds[1]`` the copy a candidate is played out on).
One record rather than an array of states, so the kernel's hot loop carries one pointer
through the dispatch (passing the pool as an array cost another game's kernel 7%)."""


@jit
def determinise(tb, sim, seat, key) -> None:
    """Resample what ``seat`` cannot know: future dice and the unseen cards."""
    for k in range(N_STREAMS):
        x = mix64(key ^ (np.uint64(k + 1) * SALT))
        sim.rng[k] = x if x != np.uint64(0) else np.uint64(1)
    sim.pause = 0
    n = tb.n_players
    unseen = np.empty(MAX_CARDS, dtype=np.int8)
    m = 0
    for t in range(tb.n_types):
        u = tb.type_copies[t] - sim.hand[seat, t] - sim.public_out[t] - sim.animal_out[seat, t]
        for _ in range(u):
            unseen[m] = t
            m += 1
    shuffle(unseen[:m], sim.rng, CHANCE)
    i = 0
    for q in range(n):
        if q == seat:
            continue
        for t in range(tb.n_types):
            sim.hand[q, t] = 0
        for _ in range(sim.n_hand[q]):
            sim.hand[q, unseen[i]] += 1
            i += 1
    for d in range(sim.deck_top, sim.deck_len):
        sim.deck[d] = unseen[i]
        i += 1


@jit
def rollout(tb, sim, hp, fb, strict, horizon) -> bool:
    """Play ``sim`` on with the heuristic of parameters ``hp`` in every seat (``fb`` all
    zero, ``strict`` false: a runtime value, so the heuristic is compiled once), to the end
    or (``horizon`` >= 0) until ``horizon`` rounds have ended; whether the game ended."""
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
        apply(tb, sim, heuristic(tb, sim, hp, fb, strict))


@jit
def outcome(tb, sim, seat) -> float:
    """1 for a win, 1/k for a shared win, 0 for a loss, plus 0.01 per point of margin."""
    n = tb.n_players
    winners = np.zeros(n, dtype=np.bool_)
    final_result(tb, sim, winners)
    count = 0
    best_other = -(1 << 30)
    for q in range(n):
        count += winners[q]
        if q != seat:
            best_other = max(best_other, sim.score[q])
    v = 1.0 / count if winners[seat] else 0.0
    return v + 0.01 * (sim.score[seat] - best_other)


@jit
def evaluate(tb, sim, seat, slope, lead) -> float:
    """``seat``'s prospects in an unfinished game, from the margin of the points it would
    score if the game ended now over the best opponent's (the turns table's ``score``, on
    which the evaluation was fitted; :func:`~strategies.core.montecarlo.margin_value`)."""
    mine = np.int64(0)
    best_other = np.int64(-(1 << 30))
    for q in range(tb.n_players):
        points = seat_score(tb, sim, q)[0]
        if q == seat:
            mine = points
        else:
            best_other = max(best_other, points)
    return margin_value(mine - best_other, slope, lead, tb.n_players)


@jit_inline
def mc_play(tb, sim, a, seat, ctx) -> float:
    """Candidate ``a`` played out; ``ctx``: (heuristic parameters, an empty forbid row, false,
    horizon, the evaluation's slope and lead)."""
    hp, free, loose, horizon, slope, lead = ctx
    apply(tb, sim, a)
    if rollout(tb, sim, hp, free, loose, horizon):
        return outcome(tb, sim, seat)
    return evaluate(tb, sim, seat, slope, lead)


@jit_inline
def mc_best(st, seat, value, m) -> np.int64:
    """The best total; the heuristic's choice (first) keeps its ties, equal others at random
    (``heuristic.better``)."""
    best = 0
    bv = value[0]
    ties = np.int64(0)
    for c in range(1, m):
        take, bv, ties = better(st, value[c], bv, ties)
        if take:
            best = c
    return best


flat_pick, halving_pick = instantiate(mc_determinise=determinise, mc_play=mc_play, mc_best=mc_best)


@jit
def forbidden_for(lineup, j, tb, st, a, strict) -> bool:
    if not strict:
        return False
    o = option_of(tb, st, a)
    return o >= 0 and lineup.forbid[j, o] != 0


@jit
def add(cand, m, a) -> np.int64:
    for i in range(m):
        if cand[i] == a:
            return m
    cand[m] = a
    return m + 1


@jit
def candidates(lineup, j, tb, st, hp, cand, limit, strict) -> np.int64:
    """Fill ``cand`` with the actions to compare; return how many."""
    fb = lineup.forbid[j]
    first = heuristic(tb, st, hp, fb, strict)
    cand[0] = first
    m = np.int64(1)
    limit = min(limit, MAX_CAND)
    if st.kind == DEVELOP:
        s = st.actor
        ctx = dev_context(tb, st, hp, s)
        vals = np.full(3 * tb.n_types, NEG)
        acts = np.full(3 * tb.n_types, np.int64(-1))
        for ty in range(tb.n_types):
            if st.hand[s, ty] == 0:
                continue
            for side in range(3):
                if blocked(
                    tb, st, fb, strict, pack(OP_TOP + side if side < 2 else OP_ANIMAL, ty, 0, 0, 0)
                ):
                    continue
                if side < 2 and (tb.type_top[ty] if side == 0 else tb.type_bot[ty]) < 0:
                    continue
                v, a = dev_option(tb, st, hp, s, ty, side, ctx)
                if a >= 0:
                    vals[3 * ty + side] = v
                    acts[3 * ty + side] = a
        m = add(cand, m, np.int64(PASS))
        order = np.argsort(-vals, kind="mergesort")  # stable: the same order interpreted
        for i in order:
            if m >= limit or acts[i] < 0:
                break
            m = add(cand, m, acts[i])
        return m
    total = actions(tb, st, COUNT)
    start = bounded(st.rng, 1 + st.actor, total) if total > 0 else 0
    for i in range(total):
        if m >= limit:
            break
        a = actions(tb, st, (start + i) % total)
        if not forbidden_for(lineup, j, tb, st, a, strict):
            m = add(cand, m, a)
    return m


@jit
def pick(lineup, j, tb, st, worlds, strict, budget, limit, feed, horizon, slope, lead) -> np.int64:
    """The searched choice for ``st.actor`` (``worlds``: the two spare states of a
    :data:`SCRATCH` record): ``budget`` playouts of each candidate to the end (``horizon``
    < 0), or about ``budget`` in all by sequential halving, each cut off after ``horizon``
    rounds and scored by :func:`evaluate`; the heuristic decides what is not searched."""
    kind = st.kind
    hp = np.empty(len(DEFAULTS))
    for i in range(len(DEFAULTS)):
        hp[i] = DEFAULTS[i]
    if not (kind == DEVELOP or (kind == FEED and feed)):
        return heuristic(tb, st, hp, lineup.forbid[j], strict)
    cand = np.empty(MAX_CAND, dtype=np.int64)
    m = candidates(lineup, j, tb, st, hp, cand, limit, strict)
    free = np.zeros(lineup.forbid.shape[1], dtype=np.uint8)
    loose = lineup.ids[j] < 0  # false, but not a literal
    if m == 1:
        return cand[0]
    ctx = (hp, free, loose, horizon, slope, lead)
    if horizon < 0:
        return cand[flat_pick(tb, st, worlds, cand, m, st.actor, budget, ctx)]
    return cand[halving_pick(tb, st, worlds, cand, m, st.actor, budget, ctx)]


@jit_inline
def search(lineup, j, tb, st, worlds, strict) -> np.int64:
    """``search``: flat Monte Carlo, every playout to the end."""
    p = lineup.params[j]
    rollouts, limit = np.int64(p[SEARCH_AT.rollouts]), np.int64(p[SEARCH_AT.candidates])
    feed = p[SEARCH_AT.feed] >= 0.5
    return pick(lineup, j, tb, st, worlds, strict, rollouts, limit, feed, np.int64(-1), 0.0, 0.0)


@jit_inline
def strong(lineup, j, tb, st, worlds, strict) -> np.int64:
    """``strong``: sequential halving over short playouts scored by :func:`evaluate`."""
    p = lineup.params[j]
    playouts, limit = np.int64(p[STRONG_AT.playouts]), np.int64(p[STRONG_AT.candidates])
    feed = p[STRONG_AT.feed] >= 0.5
    horizon, slope, lead = np.int64(p[STRONG_AT.horizon]), p[STRONG_AT.slope], p[STRONG_AT.lead]
    return pick(lineup, j, tb, st, worlds, strict, playouts, limit, feed, horizon, slope, lead)
