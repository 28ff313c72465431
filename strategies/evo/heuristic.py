"""The parameterised EVO heuristic, compiled: gene values from a fitted table, bids like a player.

It sees what a player at the table sees: the board, every portrait, the points, the climate and
meteor tracks, the genes on offer, the bids, how many cards each player holds, and its own hand
(never another hand, the bag order or future dice). Parameters (``wk.hp``, set per call and
read by name, ``wk.hp[HP.foresight]``; declared in :mod:`strategies.evo.params`):

``aggression``  how much an enemy dino's death is worth when deciding to attack (0..1)
``foresight``   weight of next round's likely climate when choosing regions
``bid``         multiplier on the table's gene values when bidding (1: as fitted)
``cards``       chance to play a card it finds useful (0: never plays cards)
``egg``, ``leg``, ``guard`` (fur and parasol), ``horn``: multipliers on those values
``jump``        1: bid at once the level no rival still to bid would beat, when the gene is
                worth it; 0: always the lowest legal bid

Gene values come from a value table (:mod:`strategies.evo.values`) fitted by self-play with
the report's own gene value model (``dinolab fit evo``): what one more gene is worth at this
round's auction, relative to the average gene, shifted by the buyer's species size and the
climate field. Bidding: the row with the best value for its price; then, rather than the lowest
legal bid, the lowest bid that none of the players still to bid (nor the holder it displaces)
would outbid by its own values and points (the same table read for their species), as long as
the gene is still the best buy at that price; bids up to its mutation count cost nothing and
are always made. Passing (where allowed) when no gene is worth its price.

Movement saves dinos that would die this round first (the climate is known after phase 2):
a breadth-first search through empty regions within the remaining leg points finds the
nearest safe region (temperate, or cold/warm while furs/parasols last); doomed dinos that
cannot escape attack when they can (they have nothing to lose); healthy dinos attack when the
expected gain beats the risk; spare points move dinos towards regions likely to stay
temperate next round. Newborns go where they survive this round and, by ``foresight``, the
next; with Kemény kölykök also onto an enemy dino when the odds times (the region plus the
kill) beat the best empty region. Cards are played by the rules of :func:`card_target`.

Seat symmetry: no choice depends on a seat's number. Choices among players scan them from the
bot's own left (seat + 1, seat + 2, ... modulo n), and every argmax (or argmin) breaks ties
between equally good candidates at random with the bot's own stream (:func:`keep_tie`), never
by seat, region, row or list order (equal positional moves are first told apart by their
:func:`room`). Loops over players that only sum or test need no order.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.core.rng import bounded, uniform
from rules.evo.board import allowance, attack_odds, zone_of
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
    W_GAME_END,
    W_MOVEMENT,
    W_PAYMENT,
    WANDERERS,
    WEATHER_GENE,
    WEATHER_SWAP,
)
from rules.evo.constants import (
    BID,
    CARD_PLAY,
    COLD,
    CULL,
    EGG,
    FREEZING,
    FUR,
    HORN,
    LEG,
    MAX_REGIONS,
    MOVE,
    MUTATION,
    N_GENES,
    PARASOL,
    PASS,
    PLACE,
    SCORCHING,
    TEMPERATE,
    WARM,
)
from rules.evo.engine import bid_cap, min_bid, pack, zone_count
from rules.evo.events import cards_open
from rules.evo.state import E_GENE_GUARD, E_HEAT_SKIN, E_NEOPRENE
from strategies.core.registry import defaults
from strategies.evo.allowed import all_forbidden, forbidden, uses_forbidden
from strategies.evo.params import HEURISTIC, HP
from strategies.evo.values import relative_value

MAX_CAND = 32
DEFAULTS = defaults(HEURISTIC)
"""Default heuristic parameters (also the rollout policy of the search bot)."""
INDIFFERENT = 0.25
"""Points of surplus below which a rival is assumed not to bother outbidding."""

WORK = np.dtype(
    [
        ("hp", np.float64, (len(HEURISTIC),)),  # parameters of the current call, by HP
        ("pros", np.float64, (4,)),  # next-round prospect of each terrain
        ("pros_of", np.int64),  # climate field + 1 that ``pros`` was computed for (0: none)
        ("zc", np.int64, (5,)),  # the actor's dinos in each climate zone
        ("allow", np.int64, (5,)),  # how many may survive in each zone
        ("per_seat", np.int64, (8,)),
        ("queue", np.int16, (MAX_REGIONS,)),
        ("first", np.int16, (MAX_REGIONS,)),
        ("depth", np.int16, (MAX_REGIONS,)),
        ("seen", np.int64, (MAX_REGIONS,)),
        ("stamp", np.int64),
        ("cand", np.int64, (MAX_CAND,)),  # search: candidate actions
        ("value", np.float64, (MAX_CAND,)),
        ("top", np.float64, (2, 16)),  # best placement scores (with and without a card)
        ("worth", np.float64, (8, 8)),  # gene worth by seat (this auction), for bidding
    ],
    align=True,
)
"""Scratch space of the bots (a record, so passing it costs nothing)."""


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
"""Cards the heuristic considers in each window (it passes at once otherwise)."""

TAKE = _mask(
    SURPRISE,
    OVERFLIER,
    WEATHER_GENE,
    CATASTROPHE,
    ACCIDENT,
    CHANGELING,
    HEAT_SKIN,
    NEOPRENE,
    INSTINCT,
    GIANT,
    BIG_BROTHER,
    TOUGH_YOUNG,
    WANDERERS,
    FROST,
    RAYS,
    SURVIVAL_GENE,
    NO_BIRTHS,
    GENE_GUARD,
    FLOOD,
    TRUCE,
    PEACE,
)
"""Cards worth taking with Osztódás (which has no other use): every card the heuristic plays to
an effect of its own later; not Alvógén, Én jövök előbb!, Bolond időjárás (often useless) or
Hiányzó láncszem."""


@jit_inline
def keep_tie(st, seat: int, ties: int) -> bool:
    """Reservoir tie-breaking: whether the ``ties``-th candidate as good as the best so far
    replaces it (probability 1 / ``ties``, drawn from ``seat``'s bot stream), so each of k
    equal candidates is chosen with probability 1/k whatever their order."""
    return bounded(st.rng, 1 + seat, ties) == 0


@jit
def set_params(wk, params) -> None:
    """The heuristic's parameter vector ``params`` into ``wk.hp`` (the same order, :data:`HP`)."""
    for i in range(wk.hp.shape[0]):
        wk.hp[i] = params[i]


@jit
def set_defaults(wk) -> None:
    for i in range(len(DEFAULTS)):
        wk.hp[i] = DEFAULTS[i]


@jit
def prospects(tb, st, wk) -> None:
    """``wk.pros[t]``: how safe terrain ``t`` is likely to be next round (1 temperate, 0.4 warm
    or cold, 0 deadly), by the climate die."""
    c = st.climate
    if wk.pros_of == c + 1:
        return
    wk.pros_of = c + 1
    for t in range(4):
        v = 0.0
        for b in range(tb.cycle_len):
            p = tb.climate_next[c, b]
            if p > 0.0:
                z = tb.zone[b, t]
                if z == TEMPERATE:
                    v += p
                elif z < SCORCHING:
                    v += 0.4 * p
        wk.pros[t] = v


@jit
def census(tb, st, wk, seat: int) -> None:
    """``wk.zc``: ``seat``'s dinos per climate zone; ``wk.allow``: how many may survive there."""
    for z in range(5):
        wk.zc[z] = 0
    for k in range(st.n_dinos[seat]):
        wk.zc[zone_of(tb, st, st.pieces[seat, k])] += 1
    wk.allow[TEMPERATE] = 1 << 20
    wk.allow[WARM] = allowance(st, seat, WARM)
    wk.allow[COLD] = allowance(st, seat, COLD)
    wk.allow[SCORCHING] = 0
    wk.allow[FREEZING] = 0


@jit
def safe_in(tb, st, wk, r: int, leaving: int) -> bool:
    """A dino of the census seat on ``r`` would survive this round, if the dino on ``leaving``
    (or -1) left its zone."""
    z = zone_of(tb, st, r)
    used = wk.zc[z]
    if leaving >= 0 and zone_of(tb, st, leaving) == z:
        used -= 1
    return used < wk.allow[z]


@jit
def doomed(tb, st, wk, r: int) -> bool:
    """The census seat's dino on ``r`` dies this round where it stands (deadly zone, or more
    dinos in its cold/warm zone than furs/parasols)."""
    z = zone_of(tb, st, r)
    return wk.zc[z] > wk.allow[z]


# ---------------------------------------------------------------- movement


@jit
def escape(tb, st, wk, r: int, mp: int) -> tuple[float, int]:
    """Best safe empty region within ``mp`` steps of ``r`` through empty regions: (score, first
    step), score -1 when none."""
    wk.stamp += 1
    stamp = wk.stamp
    wk.seen[r] = stamp
    head, tail = 0, 0
    for i in range(tb.deg[r]):
        x = tb.adj[r, i]
        if st.owner[x] < 0 and wk.seen[x] != stamp:
            wk.seen[x] = stamp
            wk.queue[tail] = x
            wk.first[x] = x
            wk.depth[x] = 1
            tail += 1
    best, step, ties = -1.0, -1, 0
    fs = wk.hp[HP.foresight]
    horizon = mp  # once a safe region is found, look at most this much deeper
    while head < tail:
        x = wk.queue[head]
        head += 1
        if wk.depth[x] > horizon:
            break
        if safe_in(tb, st, wk, x, r):
            score = 10.0 - wk.depth[x] + fs * wk.pros[tb.terrain[x]]
            if zone_of(tb, st, x) == TEMPERATE:
                score += 0.5
            if score > best:
                best, step, ties = score, wk.first[x], 1
                horizon = min(mp, wk.depth[x] + np.int64(fs + 0.5))
            elif score == best:
                ties += 1
                if keep_tie(st, st.actor, ties):
                    step = wk.first[x]
        if wk.depth[x] < mp:
            for i in range(tb.deg[x]):
                y = tb.adj[x, i]
                if st.owner[y] < 0 and wk.seen[y] != stamp:
                    wk.seen[y] = stamp
                    wk.queue[tail] = y
                    wk.first[y] = wk.first[x]
                    wk.depth[y] = wk.depth[x] + 1
                    tail += 1
    return best, step


@jit
def room(tb, st, r: int, x: int) -> int:
    """Empty regions around ``x`` once the dino on ``r`` has stepped there (``r`` included):
    room for the newborns next to it."""
    free = 0
    for i in range(tb.deg[x]):
        y = tb.adj[x, i]
        if st.owner[y] < 0 or y == r:
            free += 1
    return free


@jit
def choose_move(tb, st, wk) -> np.int64:
    """Save doomed dinos, then attack with positive expected value, then improve positions.

    One pass over the dinos' neighbours scores all three kinds of step (escapes first, then
    attacks, then positional moves); the breadth-first :func:`escape` runs only for a doomed
    dino with no safe neighbour when more than one leg point is left. A step must score above
    0 (else it stops). Of equal positional moves the one into more :func:`room` is taken;
    otherwise equal steps are chosen between at random (issue 16: a fixed order, such as the
    lowest region, is a bias of its own).
    """
    s = st.actor
    prospects(tb, st, wk)
    census(tb, st, wk, s)
    agg, fs = wk.hp[HP.aggression], wk.hp[HP.foresight]
    best, action, ties = 0.0, np.int64(PASS), 0  # ties: steps scoring ``best`` (0: none)
    best_room = -1  # the best positional move's room (-1: escapes and attacks)
    stuck = 0  # doomed dinos without a safe neighbour
    for k in range(st.n_dinos[s]):
        r = st.pieces[s, k]
        z = st.rzone[r]
        dm = wk.zc[z] > wk.allow[z]
        lost = 0.0 if dm else 1.0
        here = wk.pros[tb.terrain[r]]
        saved = False
        for i in range(tb.deg[r]):
            x = tb.adj[r, i]
            o = st.owner[x]
            space = -1
            if o < 0:
                zx = st.rzone[x]
                used = wk.zc[zx] - (1 if zx == z else 0)
                if used >= wk.allow[zx]:
                    continue
                if dm:  # an escape
                    saved = True
                    score = 1009.0 + fs * wk.pros[tb.terrain[x]] + (0.5 if zx == TEMPERATE else 0.0)
                else:  # a move towards next round's likely climate
                    score = fs * (wk.pros[tb.terrain[x]] - here) - 0.15
                    if score > 0.0 and score >= best:
                        space = room(tb, st, r, x)
            elif o != s:
                odds = attack_odds(tb, st, s, o, 0)
                if odds == 0:
                    continue
                p = odds / 6.0
                stay = 1.0 if safe_in(tb, st, wk, x, r) else 0.0
                score = p * (0.5 + agg) - (1.0 - p) * lost + p * (stay - lost)
                if score > 0.0:
                    score += 100.0
            else:
                continue
            if score > best or (score == best and ties > 0 and space > best_room):
                best, action, ties, best_room = score, pack(r, x), 1, space
            elif score == best and ties > 0 and space == best_room:
                ties += 1
                if keep_tie(st, s, ties):
                    action = pack(r, x)
        if dm and not saved:
            stuck += 1
    if best < 1000.0 and stuck and st.mp >= 2:
        for k in range(st.n_dinos[s]):
            r = st.pieces[s, k]
            if not doomed(tb, st, wk, r):
                continue
            score, step = escape(tb, st, wk, r, st.mp)
            if step < 0:
                continue
            if 1000.0 + score > best:
                best, action, ties, best_room = 1000.0 + score, pack(r, step), 1, -1
            elif 1000.0 + score == best and ties > 0 and best_room < 0:
                ties += 1
                if keep_tie(st, s, ties):
                    action = pack(r, step)
    return action


# ---------------------------------------------------------------- reproduction


@jit
def kill_value(tb, st, wk, o: int) -> float:
    """What removing one of ``o``'s dinos is worth in placement-score units: 0.5 + aggression,
    and 0.5 more against the points leader."""
    v = 0.5 + wk.hp[HP.aggression]
    for q in range(tb.n_players):
        if q != o and st.points[q] > st.points[o]:
            return v
    return v + 0.5


@jit
def place_score(tb, st, wk, s: int, r: int) -> float:
    """A newborn of ``s`` on region ``r`` (census and prospects of ``s`` taken): 2 temperate,
    1.5 safe in the cold or warm, -1 doomed, plus foresight; on an enemy dino (Kemény kölykök)
    the odds times that plus the kill."""
    z = st.rzone[r]
    if z == TEMPERATE:
        base = 2.0
    elif safe_in(tb, st, wk, r, -1):
        base = 1.5
    else:
        base = -1.0
    score = base + wk.hp[HP.foresight] * wk.pros[tb.terrain[r]]
    o = st.owner[r]
    if o >= 0:
        p = attack_odds(tb, st, s, o, tb.tough_young_horns) / 6.0
        kill = kill_value(tb, st, wk, o) if z < SCORCHING else 0.0
        score = p * (score + kill)
    return score


@jit
def choose_place(tb, st, wk) -> np.int64:
    """The legal region with the best :func:`place_score` (ties at random)."""
    s = st.actor
    prospects(tb, st, wk)
    census(tb, st, wk, s)
    best, pick, ties = -1e18, -1, 0
    for i in range(st.n_marked):
        r = st.marked[i]
        score = place_score(tb, st, wk, s, r)
        if score > best:
            best, pick, ties = score, r, 1
        elif score == best:
            ties += 1
            if keep_tie(st, s, ties):
                pick = r
    return np.int64(pick)


@jit
def push_top(wk, k: int, e: int, v: float) -> None:
    """Insert ``v`` into the descending list ``wk.top[k, :e]``."""
    if v <= wk.top[k, e - 1]:
        return
    i = e - 1
    while i > 0 and wk.top[k, i - 1] < v:
        wk.top[k, i] = wk.top[k, i - 1]
        i -= 1
    wk.top[k, i] = v


@jit
def birth_gain(tb, st, wk, s: int, card: int) -> float:
    """How much better ``s``'s newborns this round would be placed with ``card`` (Kemény
    kölykök: onto enemy dinos; Vándorló ivadékok: up to ``wander_reach`` regions away): the
    sum of the best placement scores, one per egg, with the card minus without."""
    if st.no_births or st.n_dinos[s] == 0:
        return 0.0
    e = min(st.genes[s, EGG], tb.max_dinos - st.n_dinos[s], 16)
    if e <= 0:
        return 0.0
    prospects(tb, st, wk)
    census(tb, st, wk, s)
    for k in range(2):
        for i in range(e):
            wk.top[k, i] = -1e9
    wk.stamp += 1
    stamp = wk.stamp
    if card == TOUGH_YOUNG:
        for d in range(st.n_dinos[s]):
            x = st.pieces[s, d]
            for i in range(tb.deg[x]):
                r = tb.adj[x, i]
                if wk.seen[r] == stamp:
                    continue
                wk.seen[r] = stamp
                o = st.owner[r]
                if o == s:
                    continue
                if o >= 0 and attack_odds(tb, st, s, o, tb.tough_young_horns) == 0:
                    continue
                v = place_score(tb, st, wk, s, r)
                if o < 0:
                    push_top(wk, 0, e, v)
                push_top(wk, 1, e, v)
    else:
        for r in range(tb.n_regions):
            if st.owner[r] >= 0:
                continue
            near = 127
            for d in range(st.n_dinos[s]):
                near = min(near, tb.dist[st.pieces[s, d], r])
            if near > tb.wander_reach:
                continue
            v = place_score(tb, st, wk, s, r)
            if near <= 1:
                push_top(wk, 0, e, v)
            push_top(wk, 1, e, v)
    gain = 0.0
    for i in range(e):
        if wk.top[1, i] > -1e8:
            gain += wk.top[1, i]
        if wk.top[0, i] > -1e8:
            gain -= wk.top[0, i]
    return gain


# ---------------------------------------------------------------- survival


@jit
def choose_cull(tb, st, wk) -> np.int64:
    """Lose the dino with the worst prospects and fewest empty neighbours (ties at random)."""
    s = st.actor
    prospects(tb, st, wk)
    worst, pick, ties = 1e18, -1, 0
    for k in range(st.n_dinos[s]):
        r = st.pieces[s, k]
        if zone_of(tb, st, r) != st.cull_zone:
            continue
        free = 0
        for i in range(tb.deg[r]):
            if st.owner[tb.adj[r, i]] < 0:
                free += 1
        score = wk.pros[tb.terrain[r]] + 0.05 * free
        if score < worst:
            worst, pick, ties = score, r, 1
        elif score == worst:
            ties += 1
            if keep_tie(st, s, ties):
                pick = r
    return np.int64(pick)


# ---------------------------------------------------------------- auction


@jit
def worth(tb, st, wk, vt, seat: int, gene: int) -> float:
    """Points one more ``gene`` is worth to ``seat`` at this auction: the table's relative
    value for its species size and the climate, plus the round's average price, times the
    bot's multipliers."""
    r = st.rnd
    v = relative_value(vt, r, gene, st.n_dinos[seat], st.climate)
    v += vt.price[min(r, vt.rounds - 1)]
    m = wk.hp[HP.bid]
    if gene == EGG:
        m *= wk.hp[HP.egg]
    elif gene == LEG:
        m *= wk.hp[HP.leg]
    elif gene == FUR or gene == PARASOL:  # noqa: SIM109
        m *= wk.hp[HP.guard]
    elif gene == HORN:
        m *= wk.hp[HP.horn]
    return v * m


@jit
def discount(tb, st, lu, j: int, seat: int) -> int:
    """What ``seat``'s own payment will be reduced by: its mutations, and Genetikai fölény's
    points when it holds one it may play (it plays it when paying)."""
    d = st.genes[seat, MUTATION]
    b = np.int64(1) << (OVERFLIER - 1)
    held = st.hand[seat] & ~st.locked[seat] & tb.window_mask[W_PAYMENT] & b
    allowed = j < 0 or lu.forbid[j, N_GENES + OVERFLIER - 1] == 0
    if held and allowed and cards_open(tb, st):
        d += tb.overflier_points
    return d


@jit
def rival_top(tb, st, wk, vt, seat: int, row: int) -> int:
    """The highest bid on ``row`` any rival would still make, by the rival's values (the same
    table, read for its species), points and mutations: the players who have not bid yet in
    this auction and the row's holder (who bids again when displaced). -1: nobody."""
    n = tb.n_players
    g = st.offer[row]
    top = -1
    for i in range(n):
        q = st.order[i]
        if q == seat or st.passed[q]:
            continue
        if not (st.holder[row] == q or (i >= st.auction_next and st.bid_row[q] < 0)):
            continue
        mut = st.genes[q, MUTATION]
        cap = bid_cap(tb, st, q)
        alt = 0.0 if st.n_passed < st.max_pass else -1e18
        for r2 in range(st.n_rows):
            if r2 == row:
                continue
            lo2 = min_bid(tb, st, r2)
            if lo2 > cap:
                continue
            a = worth(tb, st, wk, vt, q, st.offer[r2]) - max(0, lo2 - mut)
            if a > alt:
                alt = a
        wtp = worth(tb, st, wk, vt, q, g) - alt if alt > -1e17 else 1e9
        if wtp <= INDIFFERENT:
            continue
        x = min(np.int64(np.ceil(wtp - INDIFFERENT + mut)) - 1, cap)
        if x > top:
            top = x
    return top


@jit
def best_row(tb, st, wk, vt, lu, j: int, seat: int) -> tuple[int, float, float]:
    """``seat``'s best row at the lowest legal bids: (row or -1, its surplus, the next best
    row's surplus), among rows it may bid on; equal rows are chosen between at random."""
    cap = bid_cap(tb, st, seat)
    disc = discount(tb, st, lu, j, seat)
    strict = not all_forbidden(lu, j, tb, st)
    best, second, brow, ties = -1e18, -1e18, -1, 0
    for row in range(st.n_rows):
        lo = min_bid(tb, st, row)
        if lo > cap or (strict and uses_forbidden(lu, j, tb, st, pack(row, lo))):
            continue
        sur = worth(tb, st, wk, vt, seat, st.offer[row]) - max(0, lo - disc)
        if sur > best:
            second, best, brow, ties = best, sur, row, 1
        else:
            second = max(second, sur)
            if sur == best:
                ties += 1
                if keep_tie(st, seat, ties):
                    brow = row
    return brow, best, second


@jit
def choose_bid(tb, st, wk, vt, lu, j: int) -> np.int64:
    """The row with the best value for its price; the bid: the lowest that no rival would
    beat, if the row is still the best buy at that price (``jump``), else the lowest legal
    bid; never below its mutation count (such bids cost nothing). Pass (where allowed) when
    nothing is worth its price."""
    s = st.actor
    brow, best, second = best_row(tb, st, wk, vt, lu, j, s)
    can_pass = st.n_passed < st.max_pass
    if brow < 0:
        return np.int64(PASS) if can_pass else actions_first(tb, st)
    if can_pass and best < 0.0:
        return np.int64(PASS)
    cap = bid_cap(tb, st, s)
    lo = min_bid(tb, st, brow)
    b = lo
    if wk.hp[HP.jump] > 0.0:
        disc = discount(tb, st, lu, j, s)
        inc = tb.guard_raise if st.eff[s] & E_GENE_GUARD else 1
        d = max(lo, rival_top(tb, st, wk, vt, s, brow) - inc + 1)
        if lo < d <= cap:
            keep = best + max(0, lo - disc) - max(0, d - disc)  # surplus at the higher bid
            if keep > second and (keep >= 0.0 or not can_pass):
                b = d
    b = max(b, min(cap, st.genes[s, MUTATION]))
    return pack(brow, b)


@jit
def actions_first(tb, st) -> np.int64:
    """Bid on an affordable row (one at random) at its lowest bid (no row the bot may take)."""
    s = st.actor
    cap = bid_cap(tb, st, s)
    action, ties = np.int64(PASS), 0
    for row in range(st.n_rows):
        lo = min_bid(tb, st, row)
        if lo <= cap:
            ties += 1
            if keep_tie(st, s, ties):
                action = pack(row, lo)
    return action


# ---------------------------------------------------------------- event cards


@jit
def safe_count(tb, st, seat: int, climate: int) -> int:
    """Dinos of ``seat`` that would survive where they stand with the marker on ``climate``."""
    cold, warm, ok = 0, 0, 0
    for k in range(st.n_dinos[seat]):
        z = tb.zone[climate, tb.terrain[st.pieces[seat, k]]]
        if z == TEMPERATE:
            ok += 1
        elif z == COLD:
            cold += 1
        elif z == WARM:
            warm += 1
    return ok + min(cold, allowance(st, seat, COLD)) + min(warm, allowance(st, seat, WARM))


@jit
def climate_edge(tb, st, seat: int, climate: int) -> float:
    """Own safe dinos minus the others' mean with the marker on ``climate``."""
    n = tb.n_players
    others = 0.0
    for q in range(n):
        if q != seat:
            others += safe_count(tb, st, q, climate)
    return safe_count(tb, st, seat, climate) - others / (n - 1)


@jit
def rolled_edge(tb, st, seat: int, climate: int) -> float:
    """Expected :func:`climate_edge` when the die moves the marker from ``climate``."""
    v = 0.0
    L = tb.cycle_len
    for step in range(-2, 3):  # each distinct step once, weighted by its faces
        w = 0
        for f in range(6):
            if tb.die_step[f] == step:
                w += 1
        if w:
            v += climate_edge(tb, st, seat, ((climate + step) % L + L) % L) * w / 6.0
    return v


@jit
def extra_losses(tb, st, seat: int, zone: int) -> int:
    """1 when one fur (parasol) fewer costs ``seat`` a dino this round."""
    a = allowance(st, seat, zone)
    if a == 0 or a > 100:
        return 0
    return 1 if zone_count(tb, st, seat, zone) >= a else 0


@jit
def threats(tb, st, wk, seat: int) -> int:
    """Enemy dinos that could attack ``seat``'s dinos now: the total, and per attacking seat
    in ``wk.per_seat``."""
    for q in range(tb.n_players):
        wk.per_seat[q] = 0
    total = 0
    for k in range(st.n_dinos[seat]):
        r = st.pieces[seat, k]
        for i in range(tb.deg[r]):
            o = st.owner[tb.adj[r, i]]
            if o >= 0 and o != seat and attack_odds(tb, st, o, seat, 0) > 0:
                wk.per_seat[o] += 1
                total += 1
    return total


@jit
def victim(tb, st, seat: int, card: int) -> int:
    """Baleset / Kire ütött: a dino (newborn) of the player with the most points among the
    targets (:func:`rules.evo.events.targets`: another player's, with at least ``victim_min``
    dinos), players scanned from ``seat``'s left, ties at random; -1: no target."""
    n = tb.n_players
    best, pick, ties = -(1 << 40), -1, 0
    for d in range(1, n):
        q = (seat + d) % n
        if st.n_dinos[q] < tb.victim_min:
            continue
        for i in range(st.n_dinos[q]):
            r = st.pieces[q, i]
            if card == CHANGELING and not st.fresh[r]:
                continue
            if st.points[q] > best:
                best, pick, ties = st.points[q], r, 1
            elif st.points[q] == best:
                ties += 1
                if keep_tie(st, seat, ties):
                    pick = r
    return pick


@jit
def weather_face(tb, st, seat: int) -> int:
    """Meteorológus-gén: the die face (1-6) whose climate gives ``seat`` the best
    :func:`climate_edge` (equal climates at random), if it beats the roll's expectation by a
    dino or more; else -1."""
    L = tb.cycle_len
    c = st.climate
    base = rolled_edge(tb, st, seat, c)
    best, face, ties = -1e18, 0, 0
    for f in range(6):
        if f > 0 and tb.die_step[f] == tb.die_step[f - 1]:
            continue  # same step as the face before: same climate
        v = climate_edge(tb, st, seat, ((c + tb.die_step[f]) % L + L) % L)
        if v > best:
            best, face, ties = v, f + 1, 1
        elif v == best:
            ties += 1
            if keep_tie(st, seat, ties):
                face = f + 1
    return face if best - base >= 1.0 else -1


@jit
def truce_target(tb, st, wk, seat: int) -> int:
    """Védelmi gáz: the player with the most dinos able to attack ``seat``'s now, scanned from
    ``seat``'s left, ties at random; -1 when nobody can attack."""
    threats(tb, st, wk, seat)
    n = tb.n_players
    best, pick, ties = 0, -1, 0
    for d in range(1, n):
        q = (seat + d) % n
        if wk.per_seat[q] > best:
            best, pick, ties = wk.per_seat[q], q, 1
        elif wk.per_seat[q] == best and ties > 0:
            ties += 1
            if keep_tie(st, seat, ties):
                pick = q
    return pick


@jit
def card_target(tb, st, wk, vt, lu, j: int, seat: int, card: int) -> int:
    """The target the heuristic picks, or -1 when the card is not worth playing now: its own
    judgement of Génőr (``GENE_GUARD``) and of the birth cards, :func:`card_rule` for the
    others."""
    if card == GENE_GUARD:  # the best row is contested and clearly the best buy
        brow, best, second = best_row(tb, st, wk, vt, lu, j, seat)
        if brow < 0 or best - second < 1.0:
            return -1
        return 0 if rival_top(tb, st, wk, vt, seat, brow) >= min_bid(tb, st, brow) + 1 else -1
    if card == TOUGH_YOUNG or card == WANDERERS:  # noqa: SIM109
        return 0 if birth_gain(tb, st, wk, seat, card) >= 0.5 else -1
    return card_rule(tb, st, wk, seat, card)


@jit
def card_rule(tb, st, wk, seat: int, card: int) -> int:
    """The target for every card both heuristics judge alike (``heuristic-v1`` too), or -1
    when it is not worth playing now."""
    n = tb.n_players
    L = tb.cycle_len
    c = st.climate
    if card == SURPRISE:
        return 0
    if card == SLEEP:  # at the very end, after its own Váratlan gén, to block the others'
        if st.window != W_GAME_END or st.hand[seat] & (1 << (SURPRISE - 1)):
            return -1
        for q in range(n):
            if q != seat and st.hand[q] != 0:
                return 0
        return -1
    if card == ACCIDENT or card == CHANGELING:  # noqa: SIM109
        return victim(tb, st, seat, card)
    if card == WEATHER_GENE:
        return weather_face(tb, st, seat)
    if card == CATASTROPHE:
        to = ((c + tb.catastrophe_steps) % L + L) % L
        return 0 if climate_edge(tb, st, seat, to) - rolled_edge(tb, st, seat, c) >= 1.0 else -1
    if card == WEATHER_SWAP:
        tw = tb.twin[c]
        if tw < 0:
            return -1
        return 0 if rolled_edge(tb, st, seat, tw) - rolled_edge(tb, st, seat, c) >= 1.0 else -1
    if card == FLOOD:
        mine, others = 0.0, 0.0
        for r in range(tb.n_regions):
            q = st.owner[r]
            if q >= 0 and tb.coast[r]:
                p = max(0, min(6, tb.flood_dies_up_to - st.genes[q, PARASOL])) / 6.0
                if q == seat:
                    mine += p
                else:
                    others += p
        return 0 if others / (n - 1) - mine >= 0.5 else -1
    if card == ME_FIRST:
        if st.window != W_MOVEMENT or st.order[0] == seat:
            return -1
        census(tb, st, wk, seat)
        need = 0
        for k in range(st.n_dinos[seat]):
            if doomed(tb, st, wk, st.pieces[seat, k]):
                need += 1
        return 0 if need >= 2 else -1
    if card == OVERFLIER:
        if st.window != W_PAYMENT or st.bid_row[seat] < 0:
            return -1
        return 0 if st.bid_val[seat] > st.genes[seat, MUTATION] else -1
    if card == FROST or card == RAYS:  # noqa: SIM109
        zone = COLD if card == FROST else WARM
        others = 0
        for q in range(n):
            if q != seat:
                others += extra_losses(tb, st, q, zone)
        return 0 if others >= 1 and extra_losses(tb, st, seat, zone) == 0 else -1
    if card == MISSING_LINK:
        for q in range(n):
            if q != seat and st.points[q] >= st.points[seat]:
                return -1
        return 0
    if card == HEAT_SKIN or card == NEOPRENE:  # noqa: SIM109
        zone = WARM if card == HEAT_SKIN else COLD
        bit = E_HEAT_SKIN if card == HEAT_SKIN else E_NEOPRENE
        if st.eff[seat] & bit:
            return -1
        return 0 if zone_count(tb, st, seat, zone) > allowance(st, seat, zone) else -1
    if card == BIG_BROTHER or card == PEACE:  # noqa: SIM109
        danger = threats(tb, st, wk, seat)
        return 0 if danger >= (1 if card == BIG_BROTHER else 2) else -1
    if card == TRUCE:
        return truce_target(tb, st, wk, seat)
    if card == GIANT:
        for k in range(st.n_dinos[seat]):
            r = st.pieces[seat, k]
            for i in range(tb.deg[r]):
                o = st.owner[tb.adj[r, i]]
                fair = o >= 0 and o != seat and not st.peace and st.truce[seat] != o
                if fair and st.genes[seat, HORN] + tb.giant_horns - st.genes[o, HORN] >= 1:
                    return 0
        return -1
    if card == INSTINCT:
        return 0 if st.n_dinos[seat] > st.genes[seat, LEG] + 1 else -1
    if card == NO_BIRTHS:
        most = 0
        for q in range(n):
            if q != seat:
                most = max(most, min(st.genes[q, EGG], tb.max_dinos - st.n_dinos[q]))
        return 0 if most > min(st.genes[seat, EGG], tb.max_dinos - st.n_dinos[seat]) else -1
    if card == SURVIVAL_GENE:
        lost = 0
        for q in range(n):
            if q != seat:
                lost += st.died_climate[q]
        return 0 if lost >= 2 else -1
    return -1


@jit
def choose_card(tb, st, wk, vt, lu, j: int) -> np.int64:
    """The first card it finds useful in this window (with probability ``cards``), else pass.
    Osztódás takes a card of :data:`TAKE`, never at the end of the last round (a card taken
    there could never be played)."""
    s = st.actor
    if wk.hp[HP.cards] <= 0.0 or (
        wk.hp[HP.cards] < 1.0 and uniform(st.rng, 1 + s) >= wk.hp[HP.cards]
    ):
        return np.int64(PASS)
    if st.react >= 0:
        take = pack(DOUBLING, st.react + 1)
        if st.window == W_GAME_END or not TAKE & (1 << st.react):
            return np.int64(PASS)
        return np.int64(PASS) if forbidden(lu, j, tb, st, take) else take
    m = st.options & USEFUL[st.window]
    for c in range(26):
        if m & (np.int64(1) << c):
            if uses_forbidden(lu, j, tb, st, pack(c + 1, 0)):
                continue  # passing is always allowed
            t = card_target(tb, st, wk, vt, lu, j, s, c + 1)
            if t >= 0:
                return pack(c + 1, t)
    return np.int64(PASS)


@jit
def heuristic(tb, st, wk, vt, lu, j: int) -> np.int64:
    """The heuristic's action for the pending decision (parameters in ``wk.hp``, gene values
    in the table ``vt``; ``lu``, ``j``: the lineup and position whose restrictions apply, -1
    for none)."""
    kind = st.kind
    if kind == MOVE:
        return choose_move(tb, st, wk)
    if kind == PLACE:
        return choose_place(tb, st, wk)
    if kind == CULL:
        return choose_cull(tb, st, wk)
    if kind == BID:
        return choose_bid(tb, st, wk, vt, lu, j)
    if kind == CARD_PLAY:
        return choose_card(tb, st, wk, vt, lu, j)
    return np.int64(PASS)
