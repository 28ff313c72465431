"""Monte Carlo search for Dinosaur Table Battles, compiled: the engine plays the rollouts
(the search itself is :mod:`strategies.core.montecarlo`; this module gives it the game).

``search`` (battle): at every attack, dice placement, reaction and flip-or-pay decision with
more than one candidate it plays each candidate out ``rollouts`` times to the end of the game
with the default heuristic in both seats and takes the best mean result (1 win, 0.5 for a
game stopped by the turn cap, 0 loss, plus a hundredth of the marker margin). Candidates: for
attacks, not attacking and the legal attacks best by the heuristic's value, up to
``candidates``; for placements, stopping and the best (card, face) placements with as many dice
as the area takes; every reaction and flip. It drafts with the heuristic.

``drafter``: the same over every legal draft action, battles with the heuristic.

``strong``: the search's candidates (fewer by default) compared by sequential halving over a
total of ``playouts`` playouts, each cut off after ``horizon`` turns and scored by
:func:`evaluate`, a logistic model of the winner fitted on logged games
(:mod:`reports.evaluation`); the heuristic drafts.

Rollouts never see hidden information: each starts from a *determinised* copy of the state
(:func:`determinise`): every random stream, dice included, is reseeded from the bot's own
stream (dice not yet rolled are unknown; the current roll is public), and in the draft the
opponent's cards this seat has not seen (its hand before the first pass) are dealt again at
random from the dinos this seat has not seen, and the opponent's hidden simultaneous choice is
forgotten (it chooses again in the rollout). The i-th rollout of every candidate uses the same
determinisation (common random numbers). Rollouts follow the battle's calm turn by turn, so
the heuristic steps out of locked battles in them as it does at the table; equal candidates
(scores when cutting the list to ``candidates``, mean results when choosing) are broken at
random with the bot's own stream.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.core.rng import bounded, mix64
from rules.table_battles.constants import (
    ATTACK,
    BREAK,
    DRAFT,
    GAME_OVER,
    KIND_DICE,
    PAIR_AREA,
    PASS,
    PLACE,
    REACT,
    ROUND_DONE,
)
from rules.table_battles.engine import (
    actions,
    advance,
    apply,
    can_attack_with,
    dice_on_cards,
    face_up_cards,
    pack,
    pack_place,
    place_ok,
    target_ok,
)
from rules.table_battles.state import CHANCE, N_STREAMS, STATE
from strategies.core.montecarlo import SALT, instantiate
from strategies.table_battles.allowed import forbidden
from strategies.table_battles.heuristic import (
    DEFAULT,
    DEFAULTS,
    LOCK_TURNS,
    NO_TOTAL,
    ROLLOUT,
    attack_value,
    board_total,
    calm_after,
    heuristic,
    keep_tie,
    place_value,
)
from strategies.table_battles.params import HP, STRONG_AT

MAX_CAND = 64
NO_WEIGHTS = (0.0, 0.0, 0.0, 0.0)
"""The evaluation's weights where every playout runs to the end (``search``, ``drafter``)."""
SCRATCH = np.dtype(
    [
        ("worlds", STATE, (2,)),
        ("m_rng", np.uint64, (2,)),
        ("m_turn", np.int64, (2,)),
        ("m_total", np.int64, (2,)),
        ("m_since", np.int64, (2,)),
    ],
    align=True,
)
"""The bots' scratch, one record: two spare states for the search bots' rollouts (``worlds[0]``
the determinised copy, ``worlds[1]`` the copy a candidate is played out on) and, per seat, the
memory that tells a locked battle (:func:`~strategies.table_battles.heuristic.stalled`: the bot
stream after the seat's last decision, its turn and board total, and the turn the calm counts
from). One record, not an array of states, so the kernel's hot loop carries one pointer through
the dispatch."""


@jit
def determinise(tb, sim, seat: int, key: np.uint64) -> None:
    """Resample what ``seat`` cannot know: future dice, and in the draft the opponent's unseen
    cards and its pending (hidden) choice."""
    for k in range(N_STREAMS):
        x = mix64(key ^ (np.uint64(k + 1) * SALT))
        sim.rng[k] = x if x != np.uint64(0) else np.uint64(1)
    o = 1 - seat
    if sim.hand_len[o] == 0 and sim.hand_len[seat] == 0:
        return
    sim.has_pend[o] = 0
    seen = sim.seen[seat]
    unseen = np.empty(tb.n_pool, dtype=np.int64)
    m = 0
    for i in range(tb.n_pool):
        d = tb.pool[i]
        if not seen >> d & 1:
            unseen[m] = d
            m += 1
    for i in range(m - 1, 0, -1):
        k = bounded(sim.rng, CHANCE, i + 1)
        x = unseen[i]
        unseen[i] = unseen[k]
        unseen[k] = x
    i = 0
    for k in range(sim.hand_len[o]):
        if not seen >> sim.hand[o, k] & 1:
            sim.hand[o, k] = unseen[i]
            i += 1


@jit
def rollout(tb, sim, lu, j: int, total: int, since: int, horizon: int) -> bool:
    """Play ``sim`` on with the default heuristic in both seats, to the end or (``horizon``
    >= 0) until ``horizon`` turns have ended (the states the evaluation was fitted on);
    whether the game ended. ``total`` and ``since``:
    the board total before the candidate was applied (:data:`NO_TOTAL` in the draft) and the
    turn the battle's calm counts from (:func:`~strategies.table_battles.heuristic.stalled`),
    both kept up to date after every turn."""
    left = horizon
    while True:
        kind = advance(tb, sim)
        sim.n_ev = 0
        if kind == GAME_OVER:
            return True
        if kind == ROUND_DONE:
            now = board_total(sim)
            since = calm_after(since, sim.turn, total, now)
            total = now
            left -= 1
            if left == 0:
                return False
            continue
        calm = 0 if kind == DRAFT else sim.turn - since
        apply(tb, sim, heuristic(tb, sim, lu, j, np.int64(ROLLOUT), np.int64(calm)))


@jit
def result(sim, seat: int) -> float:
    v = 0.5 if sim.winner < 0 else (1.0 if sim.winner == seat else 0.0)
    return v + 0.01 * (sim.markers[seat] - sim.markers[1 - seat])


@jit
def evaluate(tb, sim, seat: int, w) -> float:
    """``seat``'s chance of winning an unfinished battle by the fitted evaluation
    (:func:`reports.evaluation.fit_battle`): a logistic model of the winner on what it has
    ahead in hit markers, face-up action cards and dice on them, and on who moves next
    (``w``: their weights), plus :func:`result`'s hundredth of the marker margin."""
    w_markers, w_cards, w_dice, w_turn = w
    o = 1 - seat
    margin = sim.markers[seat] - sim.markers[o]
    z = w_markers * margin + w_cards * (face_up_cards(tb, sim, seat) - face_up_cards(tb, sim, o))
    z += w_dice * (dice_on_cards(sim, seat) - dice_on_cards(sim, o))
    z += w_turn if sim.active == seat else -w_turn
    return 1.0 / (1.0 + np.exp(-z)) + 0.01 * margin


@jit_inline
def mc_play(tb, sim, a: int, seat: int, ctx) -> float:
    """Candidate ``a`` played out; ``ctx``: (lineup, position, board total, calm start,
    horizon, the evaluation's weights)."""
    lu, j, total, since, horizon, w = ctx
    apply(tb, sim, a)
    if rollout(tb, sim, lu, j, total, since, horizon):
        return result(sim, seat)
    return evaluate(tb, sim, seat, w)


@jit_inline
def mc_best(st, seat: int, value, m: int) -> np.int64:
    """The best mean result, equal ones broken at random with the bot's stream."""
    best = 0
    ties = 1
    for c in range(1, m):
        if value[c] > value[best]:
            best = c
            ties = 1
        elif value[c] == value[best]:
            ties += 1
            if keep_tie(st, seat, ties):
                best = c
    return best


flat_pick, halving_pick = instantiate(mc_determinise=determinise, mc_play=mc_play, mc_best=mc_best)


@jit
def mc_pick(
    tb,
    st,
    lu,
    j: int,
    worlds,
    cand,
    m: int,
    rollouts: int,
    calm: int,
    horizon: int,
    w,
) -> np.int64:
    """The candidate with the best rollout results (:mod:`strategies.core.montecarlo`):
    ``rollouts`` playouts each played to the end (``horizon`` < 0), or, with ``horizon`` >= 0,
    about ``rollouts`` playouts in all by sequential halving, each cut off after ``horizon``
    turns and scored by :func:`evaluate` with weights ``w``. ``worlds``: the :data:`SCRATCH`
    record's two spare states; ``calm``: turns the battle has gone without progress."""
    if m == 1:
        return cand[0]
    seat = st.actor
    total = NO_TOTAL if st.kind == DRAFT else board_total(st)
    ctx = (lu, j, total, st.turn - calm, horizon, w)
    if horizon < 0:
        return cand[flat_pick(tb, st, worlds, cand, m, seat, rollouts, ctx)]
    return cand[halving_pick(tb, st, worlds, cand, m, seat, rollouts, ctx)]


@jit_inline
def swap_pair(cand, score, a: int, b: int) -> None:
    """Swap candidates ``a`` and ``b`` with their scores."""
    cand[a], cand[b] = cand[b], cand[a]
    score[a], score[b] = score[b], score[a]


@jit
def top_k(st, cand, score, m: int, limit: int) -> int:
    """Keep the ``limit`` best-scoring candidates (selection sort on the small list, after a
    shuffle with the bot's stream so that equal scores are kept at random, not by list order)."""
    seat = st.actor
    for a in range(m - 1, 0, -1):
        swap_pair(cand, score, a, bounded(st.rng, 1 + seat, a + 1))
    for a in range(m):
        b = a
        for c in range(a + 1, m):
            if score[c] > score[b]:
                b = c
        if b != a:
            swap_pair(cand, score, a, b)
    return min(m, limit)


@jit
def all_candidates(tb, st, lu, j: int, cand) -> int:
    m = 0
    for k in range(actions(tb, st, np.int64(-1))):
        a = actions(tb, st, k)
        if not forbidden(lu, j, tb, st, a) and m < MAX_CAND:
            cand[m] = a
            m += 1
    return m


@jit
def battle_candidates(tb, st, lu, j: int, cand, limit: int, calm: int) -> int:
    kind = st.kind
    score = np.zeros(MAX_CAND)
    s = st.actor
    if kind == ATTACK:
        fv, provoke = DEFAULTS[HP.flip_value], DEFAULTS[HP.provoke]
        cand[0] = PASS
        score[0] = DEFAULTS[HP.threshold]
        m = 1
        for slot in range(st.n_slots[s]):
            if not can_attack_with(tb, st, s, slot):
                continue
            for t in range(st.n_team[1 - s]):
                if not target_ok(tb, st, s, st.slot_team[s, slot], st.dice[s, slot, 0], t):
                    continue
                a = pack(slot, t)
                if forbidden(lu, j, tb, st, a) or m >= MAX_CAND:
                    continue
                cand[m] = a
                score[m] = attack_value(tb, st, slot, t, fv, provoke)
                m += 1
        return top_k(st, cand, score, np.int64(m), np.int64(limit))
    if kind == PLACE:
        cand[0] = PASS
        score[0] = 0.0
        m = 1
        for slot in range(st.n_slots[s]):
            card = st.slot_card[s, slot]
            if not st.up[s, slot] or tb.c_kind[card] != KIND_DICE:
                continue
            for f in range(1, 7):
                c = st.rolled[f]
                if c <= 0:
                    continue
                if tb.c_faces[card] == PAIR_AREA:
                    c = 2
                elif tb.c_bracket[card]:
                    c = 1
                if not place_ok(tb, st, slot, f, np.int64(c)):
                    continue
                a = pack_place(slot, f, c)
                if forbidden(lu, j, tb, st, a) or m >= MAX_CAND:
                    continue
                cand[m] = a
                score[m] = place_value(
                    tb, st, slot, f, np.int64(c), DEFAULTS[HP.react], calm >= LOCK_TURNS
                )
                m += 1
        return top_k(st, cand, score, np.int64(m), np.int64(limit))
    return all_candidates(tb, st, lu, j, cand)


@jit_inline
def search(tb, st, lu, j: int, worlds, rollouts: int, limit: int, calm: int) -> np.int64:
    """Flat Monte Carlo in the battle; the heuristic drafts. ``calm``: turns the battle has
    gone without progress (:func:`~strategies.table_battles.heuristic.stalled`)."""
    kind = st.kind
    if kind != ATTACK and kind != PLACE and kind != REACT and kind != BREAK:
        return heuristic(tb, st, lu, j, np.int64(DEFAULT), np.int64(calm))
    cand = np.empty(MAX_CAND, dtype=np.int64)
    m = battle_candidates(tb, st, lu, j, cand, limit, calm)
    if m == 0:
        return heuristic(tb, st, lu, j, np.int64(DEFAULT), np.int64(calm))
    return mc_pick(tb, st, lu, j, worlds, cand, m, rollouts, calm, np.int64(-1), NO_WEIGHTS)


@jit_inline
def drafter(tb, st, lu, j: int, worlds, rollouts: int, calm: int) -> np.int64:
    """Flat Monte Carlo over the draft actions; the heuristic battles."""
    if st.kind != DRAFT:
        return heuristic(tb, st, lu, j, np.int64(DEFAULT), np.int64(calm))
    cand = np.empty(MAX_CAND, dtype=np.int64)
    m = all_candidates(tb, st, lu, j, cand)
    if m == 0:
        return heuristic(tb, st, lu, j, np.int64(DEFAULT), np.int64(0))
    return mc_pick(tb, st, lu, j, worlds, cand, m, rollouts, np.int64(0), np.int64(-1), NO_WEIGHTS)


@jit_inline
def strong(tb, st, lu, j: int, worlds, calm: int) -> np.int64:
    """``strong``: the search's candidates compared by sequential halving over short
    playouts scored by the fitted evaluation (:func:`mc_pick`); the heuristic drafts."""
    kind = st.kind
    if kind != ATTACK and kind != PLACE and kind != REACT and kind != BREAK:
        return heuristic(tb, st, lu, j, np.int64(DEFAULT), np.int64(calm))
    p = lu.params[j]
    cand = np.empty(MAX_CAND, dtype=np.int64)
    m = battle_candidates(tb, st, lu, j, cand, np.int64(p[STRONG_AT.candidates]), calm)
    if m == 0:
        return heuristic(tb, st, lu, j, np.int64(DEFAULT), np.int64(calm))
    playouts, horizon = np.int64(p[STRONG_AT.playouts]), np.int64(p[STRONG_AT.horizon])
    w = (p[STRONG_AT.w_markers], p[STRONG_AT.w_cards], p[STRONG_AT.w_dice], p[STRONG_AT.w_turn])
    return mc_pick(tb, st, lu, j, worlds, cand, m, playouts, calm, horizon, w)
