"""``montecarlo``: flat Monte Carlo over determinised rollouts, using the rules engine itself.

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

from rules.core.jit import jit
from rules.core.rng import bounded
from rules.dino_kontra_dino.engine import final_result, game_over, play_round
from rules.dino_kontra_dino.state import STATE
from strategies.core.registry import MAX_SEATS
from strategies.dino_kontra_dino.allowed import ALL, may_play
from strategies.dino_kontra_dino.bots import play_greedy, unseen_by

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
def rollout_share(tb, world, seat: int, first_slot: int) -> float:
    """Play ``world`` out with ``seat`` opening on ``first_slot`` and greedy play after."""
    n = tb.n_players
    slots = np.zeros(n, np.int64)
    for p in range(n):
        slots[p] = play_greedy(tb, world, p, ALL)
    slots[seat] = first_slot
    play_round(tb, world, slots)
    while not game_over(tb, world):
        for p in range(n):
            slots[p] = play_greedy(tb, world, p, ALL)
        play_round(tb, world, slots)
    winners = np.zeros(n, np.bool_)
    final_result(tb, world, winners)
    if not winners[seat]:
        return 0.0
    return 1.0 / winners.sum()


@jit
def play_montecarlo(tb, st, seat: int, rollouts: float, scratch, allowed: int) -> int:
    """The allowed hand slot with the best mean rollout win share (ties: the earlier slot);
    the :data:`SCRATCH` record holds two spare states for the imagined games."""
    hl = st.hand_len
    if hl == 1:
        return 0
    worlds = scratch.worlds
    base, world = worlds[0], worlds[1]
    total = np.zeros(hl)
    for _ in range(max(1, int(rollouts))):
        worlds[0] = st
        determinise(tb, st, seat, base, 1 + seat)
        for k in range(hl):
            if may_play(allowed, k):
                worlds[1] = worlds[0]
                total[k] += rollout_share(tb, world, seat, k)
    best = -1
    for k in range(hl):
        if may_play(allowed, k) and (best < 0 or total[k] > total[best]):
            best = k
    return best
