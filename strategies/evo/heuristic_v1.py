"""Today's heuristic as of issue 10, kept as ``heuristic-v1`` so comparisons stay reproducible.

Its movement, culling and card-helper logic is the shared code of :mod:`strategies.evo.heuristic`;
what differs is kept here unchanged: gene values typed in as formulas over the expected rounds
left (egg 0.55, leg 0.35, fur and parasol 0.35, horn 0.15, tail 0.1 points per round, ...), the
lowest legal bid on the row with the best value for its price, newborns placed on foreign dinos
only by the combat odds, and its card rules (Génorzás at once, Osztódás on any card of a fixed
list). It honours restricted play like every EVO bot (:mod:`strategies.evo.allowed`).
Like the heuristic it is seat-symmetric since issue 16: equal candidates are chosen between at
random with its own stream, and players are scanned from its own left (the shared helpers).
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit
from rules.core.rng import uniform
from rules.evo.board import attack_odds, zone_of
from rules.evo.cards import (
    ACCIDENT,
    BIG_BROTHER,
    CATASTROPHE,
    CHANGELING,
    DOUBLING,
    FLOOD,
    FROST,
    GENE_GUARD,
    GIANT,
    HEAT_SKIN,
    INSTINCT,
    ME_FIRST,
    MISSING_LINK,
    NEOPRENE,
    NO_BIRTHS,
    OVERFLIER,
    PEACE,
    RAYS,
    SLEEP,
    SURPRISE,
    SURVIVAL_GENE,
    TOUGH_YOUNG,
    TRUCE,
    WANDERERS,
    WEATHER_GENE,
    WEATHER_SWAP,
)
from rules.evo.constants import (
    BID,
    CARD,
    CARD_PLAY,
    CULL,
    EGG,
    FUR,
    HORN,
    LEG,
    MOVE,
    MUTATION,
    PARASOL,
    PASS,
    PLACE,
    TAIL,
    TEMPERATE,
)
from rules.evo.engine import bid_cap, min_bid, pack
from strategies.evo.allowed import all_forbidden, forbidden, uses_forbidden
from strategies.evo.heuristic import (
    card_rule,
    census,
    choose_cull,
    choose_move,
    keep_tie,
    prospects,
    safe_in,
)
from strategies.evo.params import HP, V1_SLOTS


def _mask(*numbers: int) -> int:
    return sum(1 << (c - 1) for c in numbers)


USEFUL = (
    0,  # phase 1: Én jövök előbb! is saved for phase 3
    _mask(ACCIDENT, WEATHER_SWAP, CATASTROPHE, WEATHER_GENE, FLOOD),
    _mask(ME_FIRST, BIG_BROTHER, GIANT, INSTINCT, PEACE, TRUCE),
    _mask(NO_BIRTHS, TOUGH_YOUNG, WANDERERS),
    _mask(CHANGELING),
    _mask(FROST, RAYS, HEAT_SKIN, NEOPRENE),
    _mask(SURVIVAL_GENE),
    _mask(MISSING_LINK),
    _mask(GENE_GUARD),
    _mask(OVERFLIER),
    _mask(SURPRISE, SLEEP),
)
"""Cards v1 considers in each window (it passes at once otherwise)."""

VALUABLE = _mask(
    SURPRISE,
    OVERFLIER,
    WEATHER_GENE,
    CATASTROPHE,
    ACCIDENT,
    CHANGELING,
    HEAT_SKIN,
    NEOPRENE,
    INSTINCT,
)
"""Cards v1 takes with Osztódás."""


@jit
def set_params_v1(wk, params) -> None:
    """v1's parameter vector ``params`` into ``wk.hp``, each value where the heuristic keeps the
    parameter of its name (:data:`~strategies.evo.params.V1_SLOTS`): the shared code reads
    ``wk.hp`` by the heuristic's names."""
    for i in range(len(V1_SLOTS)):
        wk.hp[V1_SLOTS[i]] = params[i]


@jit
def choose_place_v1(tb, st, wk) -> np.int64:
    """The legal region where a newborn survives this round and, by foresight, next round
    (ties at random)."""
    s = st.actor
    prospects(tb, st, wk)
    census(tb, st, wk, s)
    fs = wk.hp[HP.foresight]
    best, pick, ties = -1e18, -1, 0
    for i in range(st.n_marked):
        r = st.marked[i]
        z = zone_of(tb, st, r)
        if z == TEMPERATE:
            base = 2.0
        elif safe_in(tb, st, wk, r, -1):
            base = 1.5
        else:
            base = -1.0
        score = base + fs * wk.pros[tb.terrain[r]]
        o = st.owner[r]
        if o >= 0:
            score = attack_odds(tb, st, s, o, tb.tough_young_horns) / 6.0 * (score + 0.5)
        if score > best:
            best, pick, ties = score, r, 1
        elif score == best:
            ties += 1
            if keep_tie(st, s, ties):
                pick = r
    return np.int64(pick)


@jit
def gene_value_v1(tb, st, wk, seat: int, gene: int) -> float:
    """Expected points one more ``gene`` brings over the expected rounds left."""
    left = tb.rounds_after[st.meteor]
    d = st.n_dinos[seat]
    if gene == EGG:
        room = 1.0 if d + st.genes[seat, EGG] < tb.max_dinos else 0.25
        return 0.55 * left * wk.hp[HP.egg] * room
    if gene == LEG:
        return 0.35 * left * wk.hp[HP.leg] * min(1.5, (d + 1.0) / (2.0 * st.genes[seat, LEG]))
    if gene == FUR or gene == PARASOL:  # noqa: SIM109
        return (
            0.35 * left * wk.hp[HP.guard] * min(1.2, (d + 1.0) / (3.0 * (st.genes[seat, gene] + 1)))
        )
    if gene == HORN:
        return 0.15 * left * wk.hp[HP.horn] * (0.5 + wk.hp[HP.aggression])
    if gene == TAIL:
        return 0.1 * left
    if gene == MUTATION:
        return 0.6 * max(0.0, left - 1.0)
    if gene == CARD:
        return (0.8 + 0.1 * left) * (0.3 + 0.7 * wk.hp[HP.cards])
    return 0.0


@jit
def choose_bid_v1(tb, st, wk, lu, j: int) -> np.int64:
    """The row with the best value minus price (equal rows at random), at the lowest legal bid;
    pass when allowed and nothing is worth its price."""
    s = st.actor
    cap = bid_cap(tb, st, s)
    mut = st.genes[s, MUTATION]
    best, action, ties = -1e18, np.int64(PASS), 0
    strict = not all_forbidden(lu, j, tb, st)
    for row in range(st.n_rows):
        lo = min_bid(tb, st, row)
        if lo > cap or (strict and uses_forbidden(lu, j, tb, st, pack(row, lo))):
            continue
        value = wk.hp[HP.bid] * gene_value_v1(tb, st, wk, s, st.offer[row])
        surplus = value - max(0, lo - mut)
        if surplus > best:
            best, action, ties = surplus, pack(row, lo), 1
        elif surplus == best:
            ties += 1
            if keep_tie(st, s, ties):
                action = pack(row, lo)
    if st.n_passed < st.max_pass and best < 0.0:
        return np.int64(PASS)
    return action


@jit
def card_target_v1(tb, st, wk, seat: int, card: int) -> int:
    """v1's target: Génőr always, the birth cards when it has fewer free neighbours than
    eggs, the others as today's heuristic judges them (:func:`card_rule`)."""
    if card == GENE_GUARD:
        return 0
    if card == TOUGH_YOUNG or card == WANDERERS:  # noqa: SIM109
        free = 0
        for k in range(st.n_dinos[seat]):
            r = st.pieces[seat, k]
            for i in range(tb.deg[r]):
                if st.owner[tb.adj[r, i]] < 0:
                    free += 1
        return 0 if free < st.genes[seat, EGG] else -1
    return card_rule(tb, st, wk, seat, card)


@jit
def choose_card_v1(tb, st, wk, lu, j: int) -> np.int64:
    """The first card it finds useful in this window (with probability ``cards``), else pass."""
    s = st.actor
    if wk.hp[HP.cards] <= 0.0 or (
        wk.hp[HP.cards] < 1.0 and uniform(st.rng, 1 + s) >= wk.hp[HP.cards]
    ):
        return np.int64(PASS)
    if st.react >= 0:
        take = pack(DOUBLING, st.react + 1)
        if VALUABLE & (1 << st.react) and not forbidden(lu, j, tb, st, take):
            return take
        return np.int64(PASS)
    m = st.options & USEFUL[st.window]
    for c in range(26):
        if m & (np.int64(1) << c):
            if uses_forbidden(lu, j, tb, st, pack(c + 1, 0)):
                continue  # passing is always allowed
            t = card_target_v1(tb, st, wk, s, c + 1)
            if t >= 0:
                return pack(c + 1, t)
    return np.int64(PASS)


@jit
def heuristic_v1(tb, st, wk, lu, j: int) -> np.int64:
    """v1's action for the pending decision (parameters in ``wk.hp``, placed there by name:
    :data:`~strategies.evo.params.V1_SLOTS`; ``lu``, ``j``: the lineup and position whose
    restrictions apply)."""
    kind = st.kind
    if kind == MOVE:
        return choose_move(tb, st, wk)
    if kind == PLACE:
        return choose_place_v1(tb, st, wk)
    if kind == CULL:
        return choose_cull(tb, st, wk)
    if kind == BID:
        return choose_bid_v1(tb, st, wk, lu, j)
    if kind == CARD_PLAY:
        return choose_card_v1(tb, st, wk, lu, j)
    return np.int64(PASS)
