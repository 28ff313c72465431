"""``montecarlo`` and ``strong``: Monte Carlo over determinised rollouts, using the rules engine
itself (the search is :mod:`strategies.core.montecarlo`; this module gives it the game).

``strong`` plays ``tuned``'s card (``odds`` with the tuned parameters) wherever the odds
separate its cards by more than ``gate``. Where they do not, it compares the cards within
``gate`` of the best by sequential halving over a total of ``playouts`` imagined games, each
cut off after ``horizon`` rounds and scored by the events won ahead of the best opponent
through a logistic curve fitted on logged games (:mod:`reports.evaluation`). Searching every
card instead was both slower and weaker: a few dozen greedy playouts overturn the prior's
better choices (``docs/benchmarks.md``, issue 24).

``montecarlo``:

For each card it could play, the bot imagines ``rollouts`` complete games and plays the card
with the best mean win share. Each imagined game is a *determinisation* of what the bot does not
know: the cards it has not seen (opponents' hands and the pile, including the part that will be
set aside) are dealt at random, and the events not yet resolved are put in a random order. The
same determinisations are used for every candidate card (common random numbers), and every
seat then plays ``greedy`` to the end. Randomness comes from the bot's own stream, so searching
never disturbs the game's chance stream. Restricted play: only the slots ``allowed`` are
candidates; the imagined games after the first card are played unrestricted (they model the
table, not the restricted bot).
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.core.rng import bounded
from rules.dino_kontra_dino.engine import final_result, game_over, play_round
from rules.dino_kontra_dino.state import STATE
from strategies.core.montecarlo import instantiate, margin_value
from strategies.core.registry import MAX_SEATS
from strategies.dino_kontra_dino.allowed import ALL, may_play
from strategies.dino_kontra_dino.bots import odds_value, play_greedy, unseen_by
from strategies.dino_kontra_dino.params import STRONG_AT

SCRATCH = np.dtype(
    [("worlds", STATE, (2,)), ("free", np.uint8, (MAX_SEATS,))],
    align=True,
)
"""The bots' scratch: one record, so the hot loop carries a pointer, not an array (passing the
spare states as an array through the inlined dispatch cost the greedy kernel 7%). ``worlds``:
the search bot's two spare states; ``free[j]``: 1 when lineup position ``j`` is forbidden no
option (:func:`strategies.dino_kontra_dino.allowed.mark_free`), so its decisions skip the
restricted-play checks."""


@jit
def determinise(tb, st, seat: int, world, rng_slot: int) -> None:
    """Turn ``world`` (a copy of ``st``) into one game consistent with what ``seat`` knows."""
    n, hl = tb.n_players, st.hand_len
    unknown = np.empty(tb.n_dinos, np.int8)
    m = 0
    for d in range(tb.n_dinos):
        if unseen_by(st, seat, d):
            unknown[m] = d
            m += 1
    for i in range(m - 1, 0, -1):
        j = bounded(st.rng, rng_slot, i + 1)
        unknown[i], unknown[j] = unknown[j], unknown[i]
    u = 0
    for p in range(n):
        if p == seat:
            continue
        for k in range(hl):
            world.hands[p, k] = unknown[u]
            u += 1
    for d in range(st.draw, tb.n_dinos):
        world.deck[d] = unknown[u]
        u += 1
    for i in range(tb.n_events - 1, st.turn + 1, -1):
        j = st.turn + 1 + bounded(st.rng, rng_slot, i - st.turn)
        world.events[i], world.events[j] = world.events[j], world.events[i]


@jit
def rollout_share(
    tb, world, seat: int, first_slot: int, horizon: int, slope: float, lead: float
) -> float:
    """Play ``world`` on with ``seat`` opening on ``first_slot`` and greedy play after, to
    the end (``horizon`` < 0: the seat's win share) or for ``horizon`` rounds at most (an
    unfinished game is scored by the seat's events won over the best opponent's,
    :func:`~strategies.core.montecarlo.margin_value`)."""
    n = tb.n_players
    slots = np.zeros(n, np.int64)
    for p in range(n):
        slots[p] = play_greedy(tb, world, p, ALL)
    slots[seat] = first_slot
    play_round(tb, world, slots)
    left = horizon - 1
    while not game_over(tb, world):
        if left == 0:
            best_other = 0
            for p in range(n):
                if p != seat:
                    best_other = max(best_other, world.wins[p])
            return margin_value(world.wins[seat] - best_other, slope, lead, n)
        left -= 1
        for p in range(n):
            slots[p] = play_greedy(tb, world, p, ALL)
        play_round(tb, world, slots)
    winners = np.zeros(n, np.bool_)
    final_result(tb, world, winners)
    if not winners[seat]:
        return 0.0
    return 1.0 / winners.sum()


@jit_inline
def mc_base(st, seat: int) -> np.uint64:
    """No key: the determinisation draws from the seat's stream itself."""
    return np.uint64(0)


@jit_inline
def mc_world(tb, st, world, seat: int, base: np.uint64, i: int) -> None:
    determinise(tb, st, seat, world, 1 + seat)


@jit_inline
def mc_play(tb, world, slot: int, seat: int, ctx) -> float:
    """The hand slot ``slot`` played out; ``ctx``: (horizon, the evaluation's slope and lead)."""
    horizon, slope, lead = ctx
    return rollout_share(tb, world, seat, slot, horizon, slope, lead)


@jit_inline
def mc_best(st, seat: int, value, m: int) -> np.int64:
    """The best mean share; equal ones: the earlier hand slot (a hand's order is the deal's,
    not a seat's)."""
    best = 0
    for c in range(1, m):
        if value[c] > value[best]:
            best = c
    return best


flat_pick, halving_pick = instantiate(
    mc_base=mc_base, mc_world=mc_world, mc_play=mc_play, mc_best=mc_best
)


@jit
def play_searched(
    tb, st, seat: int, budget: int, horizon: int, slope: float, lead: float, scratch, allowed: int
) -> int:
    """The allowed hand slot with the best playouts (the :data:`SCRATCH` record holds two
    spare states): ``budget`` imagined games of each played to the end (``horizon`` < 0), or
    about ``budget`` in all by sequential halving, cut off after ``horizon`` rounds."""
    hl = st.hand_len
    if hl == 1:
        return 0
    cand = np.empty(hl, np.int64)
    m = 0
    for k in range(hl):
        if may_play(allowed, k):
            cand[m] = k
            m += 1
    ctx = (horizon, slope, lead)
    if horizon < 0:
        return cand[flat_pick(tb, st, scratch.worlds, cand, m, seat, budget, ctx)]
    return cand[halving_pick(tb, st, scratch.worlds, cand, m, seat, budget, ctx)]


@jit
def play_montecarlo(tb, st, seat: int, rollouts: float, scratch, allowed: int) -> int:
    """``montecarlo``: ``rollouts`` imagined games of each allowed slot, played to the end."""
    budget = np.int64(max(1, int(rollouts)))
    return play_searched(tb, st, seat, budget, np.int64(-1), 0.0, 0.0, scratch, allowed)


@jit
def prior_contenders(tb, st, seat: int, keep: float, field: float, gate: float, allowed: int):
    """The allowed slots whose :func:`~strategies.dino_kontra_dino.bots.odds_value` lies
    within ``gate`` of the best allowed one, as a bit mask."""
    value = np.full(st.hand_len, -1e18)
    for k in range(st.hand_len):
        if may_play(allowed, k):
            value[k] = odds_value(tb, st, seat, st.hands[seat, k], keep, field)
    best = value.max()
    close = 0
    for k in range(st.hand_len):
        if value[k] >= best - gate:
            close |= 1 << k
    return close


@jit
def play_strong(tb, st, seat: int, p, scratch, allowed: int) -> int:
    """``strong`` (``p``: its parameters): the ``odds`` prior's card, or, where the prior
    cannot separate its best cards (values within ``gate``), the best of those by sequential
    halving over imagined games cut off after a few rounds."""
    close = prior_contenders(
        tb, st, seat, p[STRONG_AT.keep], p[STRONG_AT.field], p[STRONG_AT.gate], allowed
    )
    if close & (close - 1) == 0:  # one contender: the prior's card
        k = 0
        while close > 1:
            close >>= 1
            k += 1
        return k
    budget, horizon = np.int64(p[STRONG_AT.playouts]), np.int64(p[STRONG_AT.horizon])
    slope, lead = p[STRONG_AT.slope], p[STRONG_AT.lead]
    return play_searched(tb, st, seat, budget, horizon, slope, lead, scratch, close)
