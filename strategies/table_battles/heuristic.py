"""The parameterised Dinosaur Table Battles heuristic, compiled.

It sees what a player at the table sees: both sides' cards (face up or flipped), the dice on
them, the markers, the current roll, its own draft hand and the public draft picks; never
the opponent's draft hand before it is passed, the secret removals or future dice.
Parameters (``lineup.params[j, :]`` read by name, :func:`hp`; :data:`DEFAULTS` in rollouts;
declared in :mod:`strategies.table_battles.params`):

``threshold``  attack when the best attack's value reaches this (attack timing)
``flip_value`` what a face-up action card is worth in markers (flip or pay)
``provoke``    value of forcing the opponent to react (they lose those dice and their next
               attack phase)
``react``      weight of a card's reaction against its attack when placing dice
``rating``     weight of the printed draft rating
``synergy``    weight of each die face a dino adds to the team's accepted faces
``deny``       weight of the opponent's gain when removing a dino in the draft

Battle: every legal attack is scored by the markers it costs the opponent minus what it costs
the attacker ("1 self", Counter hits), assuming the defender picks its least bad mandatory
reaction (the hit arithmetic is the engine's own :func:`rules.table_battles.engine.outcome`);
a loss the owner can flip away costs the cheapest card instead; a hit that ends the game is
worth 100. The defender reacts with the card that costs it least; flip-or-pay takes the
cheaper; dice go where they add the most expected hits (attack) and reaction value, on up to
two dinos (before the first, of two equal placements the one that leaves the dice other dinos
could take). Draft: printed rating plus the new dice faces a dino brings (synergy), removing
the card it values least (or, by ``deny``, the one the opponent would value most).

Locked battles: every dice card is also a reaction, and reacting is mandatory, so a player who
attacks every turn with a cheap attack (free at one marker, where "self" hits are ignored)
keeps an opponent that re-arms its Blocks and Absorbs reacting, and skipping its own attack
phase, for ever. The bots count the turns the battle has gone without a marker or a face-up
card lost (:func:`stalled`, remembered in the scratch record); from :data:`LOCK_TURNS` on, a
Block's or an Absorb's reaction value counts against a placement (:func:`place_value`), so the
locked player lets its reactions run out, takes the small hits and attacks again.

Seat symmetry: no choice depends on a seat's number (the two seats are "this seat" and "the
other"), and every argmax (or argmin) breaks ties between equally good candidates at random
with the bot's own stream (:func:`keep_tie`), never by card slot, face, target or hand order.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.core.rng import uniform
from rules.table_battles.constants import (
    ABS_FULL,
    ABS_MINUS1,
    ABS_MINUS_DICE,
    ABS_ONLY1,
    ATK_NONE,
    ATTACK,
    BLK,
    BREAK,
    CTR_1_MINUS1,
    CTR_1_MINUS_DICE,
    CTR_1_NORMAL,
    CTR_PER_DIE_NORMAL,
    D_PLACE,
    D_REMOVE_OPEN,
    D_REMOVE_SECRET,
    DRAFT,
    KIND_DICE,
    P_GLIDE,
    PAIR_AREA,
    PASS,
    PLACE,
    REACT,
    RK_ABSORB,
    RK_BLOCK,
)
from rules.table_battles.engine import (
    actions,
    base_hits,
    can_attack_with,
    draft_ok,
    modifiers,
    outcome,
    pack,
    pack_place,
    passive_up,
    place_ok,
    react_ok,
    self_of,
    target_ok,
)
from strategies.core.registry import defaults
from strategies.table_battles.allowed import forbidden
from strategies.table_battles.params import HEURISTIC, HP

DEFAULTS = np.array(defaults(HEURISTIC))
"""The heuristic's default parameters, in its vector's order (the search bots' own moves and
rollouts)."""
LOSE = 100.0
LOCK_TURNS = 20
"""Turns without progress (:func:`stalled`) after which the heuristic treats the battle as
locked: it stops arming Blocks and Absorbs (see :func:`place_value`)."""
LOCKED_REACT = -1.0
"""Weight of a Block's or an Absorb's reaction value when placing dice in a locked battle."""
NO_TOTAL = np.int64(1) << 40
SPARE = 0.001
"""What using a face another dino could take costs a placement (a tie-break, below the 0.01
per die that :func:`place_value` adds)."""


OWN, DEFAULT, ROLLOUT = 0, 1, 2
"""Heuristic modes: the position's own parameters; the defaults (the search bots' own moves);
the defaults without restrictions (rollouts)."""


@jit_inline
def hp(lu, j: int, mode: int, i: int) -> float:
    """The heuristic's parameter at position ``i`` (an :data:`HP` index) in ``mode``."""
    return DEFAULTS[i] if mode != OWN else lu.params[j, i]


@jit_inline
def keep_tie(st, seat: int, ties: int) -> bool:
    """Reservoir tie-breaking: whether the ``ties``-th candidate as good as the best so far
    replaces it (probability 1 / ``ties``, drawn from ``seat``'s bot stream), so each of k
    equal candidates is chosen with probability 1/k whatever their order."""
    return uniform(st.rng, 1 + seat) * ties < 1.0


# ---------------------------------------------------------------- locked games


@jit
def board_total(st) -> int:
    """Both sides' hit markers plus their face-up action cards in play. It never rises in a
    battle (Egg Thieves move at most the markers just removed) and falls with every marker
    removed and every card flipped: a battle whose total stays put is not progressing."""
    c = st.markers[0] + st.markers[1]
    for s in range(2):
        for t in range(st.n_team[s]):
            if st.alive[s, t]:
                c += st.team_up[s, t]
    return c


@jit_inline
def calm_after(since: int, turn: int, before: int, total: int) -> int:
    """The turn the calm is counted from once the board total went from ``before`` to
    ``total``: progress halves the calm instead of ending it, so a lock that forms again is
    recognised at once (and a battle that keeps progressing soon counts from near zero)."""
    if total < before:
        return turn - (turn - since) // 2
    return since


@jit
def stalled(st, memo, seat: int) -> np.int64:
    """Turns the battle has gone without progress (see :func:`board_total`) as ``seat``'s bot
    has watched it, kept in the scratch record ``memo`` (``m_*`` fields, one per seat) across
    its decisions; 0 in the draft. The memory belongs to the game whose bot stream it last
    saw (:func:`remember`): another stream, an earlier turn or a higher total start it afresh,
    so a game's play never depends on the games played before it with the same scratch."""
    if st.kind == DRAFT:
        memo.m_total[seat] = NO_TOTAL
        memo.m_turn[seat] = 0
        memo.m_since[seat] = 0
        return np.int64(0)
    total = board_total(st)
    before = memo.m_total[seat]
    if st.rng[1 + seat] != memo.m_rng[seat] or st.turn < memo.m_turn[seat] or total > before:
        memo.m_since[seat] = st.turn
    else:
        memo.m_since[seat] = calm_after(memo.m_since[seat], st.turn, before, total)
    memo.m_total[seat] = total
    memo.m_turn[seat] = st.turn
    return np.int64(st.turn - memo.m_since[seat])


@jit_inline
def remember(st, memo, seat: int) -> None:
    """After ``seat``'s decision: the bot stream as the decision left it (the game's mark)."""
    memo.m_rng[seat] = st.rng[1 + seat]


# ---------------------------------------------------------------- valuing losses


@jit
def flip_cost(tb, st, s: int, t: int, fv: float) -> float:
    """What flipping the cheapest face-up card of (``s``, ``t``) costs, in markers: a card
    with dice on it costs more; the dino's last card removes it (a dino lost; the game lost
    when it leaves one dino)."""
    if st.team_up[s, t] <= 1:
        return LOSE if st.n_alive[s] <= 2 else 2.5 * fv
    best = LOSE
    first = st.team_slot[s, t]
    for k in range(tb.d_cards[st.team[s, t]]):
        slot = first + k
        if st.up[s, slot]:
            c = fv + 0.3 * st.dice[s, slot, 0]
            if tb.c_kind[st.slot_card[s, slot]] != KIND_DICE:
                c += 0.5  # a passive ability lost
            best = min(best, c)
    return best


@jit
def loss(tb, st, s: int, t: int, hits: int, attacked: int, fv: float) -> float:
    """What ``hits`` on (``s``, ``t``) cost seat ``s`` if it resolves them the cheaper way."""
    if hits <= 0 or t < 0:
        return 0.0
    pay = LOSE if hits >= st.markers[s] else float(hits)
    flip_ok = hits >= tb.d_bp[st.team[s, t]]
    if attacked and st.markers[s] == 1:
        flip_ok = True
    if not attacked:
        flip_ok = flip_ok and tb.counter_bp != 0
        if tb.one_marker_counter and st.markers[s] == 1:
            flip_ok = True
    if flip_ok:
        return min(pay, flip_cost(tb, st, s, t, fv))
    return pay


@jit
def react_result(tb, st, r: int, fv: float, provoke: float) -> float:
    """The defender's net loss (its loss minus the attacker's) if it reacts with ``r``."""
    a = st.active
    o = 1 - a
    res = outcome(tb, st, r)
    h_team = (res & 0xFF) - 1
    hits = (res >> 8) & 0xFF
    counter = res >> 16
    v = loss(tb, st, o, h_team, hits, np.int64(1), fv)
    v -= loss(tb, st, a, st.a_team, counter, np.int64(0), fv)
    if r >= 0:
        v += provoke + 0.3 * st.dice[o, r, 0]
    return v


@jit
def defender_choice(tb, st, fv: float, provoke: float) -> np.int64:
    """The reaction the defender would pick: the least bad of the mandatory options (or none
    where only optional ones exist and reacting is worse)."""
    o = 1 - st.active
    best = 1e9
    pick = -2
    optional_only = True
    for slot in range(st.n_slots[o]):
        r = react_ok(tb, st, slot)
        if r == 1:
            optional_only = False
        if r > 0:
            v = react_result(tb, st, slot, fv, provoke)
            if v < best:
                best = v
                pick = slot
    if pick == -2 or (optional_only and react_result(tb, st, np.int64(-1), fv, provoke) <= best):
        return np.int64(-1)
    return np.int64(pick)


@jit
def attack_value(tb, st, slot: int, t: int, fv: float, provoke: float) -> float:
    """Markers the attack costs the opponent minus what it costs the attacker."""
    a = st.active
    o = 1 - a
    card = st.slot_card[a, slot]
    st.a_slot = slot
    st.a_team = st.slot_team[a, slot]
    st.a_dice = st.dice[a, slot, 0]
    st.tgt = t
    r = np.int64(-1)
    pre = base_hits(tb.c_attack[card], st.a_dice) + modifiers(tb, st, a, st.a_team, o, t)
    if pre > 0:
        r = defender_choice(tb, st, fv, provoke)
    v = react_result(tb, st, r, fv, provoke)
    n_self = self_of(tb.c_attack[card])
    if st.markers[a] == 1 or passive_up(tb, st, a, st.a_team, P_GLIDE):
        n_self = 0
    if r >= 0 and not tb.self_when_blocked and outcome(tb, st, r) == 0:
        n_self = 0  # a blocked attack costs its attacker nothing (outcome 0: blocked)
    v -= n_self * (LOSE if n_self >= st.markers[a] else 1.0)
    st.a_slot = -1
    st.a_team = -1
    st.a_dice = 0
    st.tgt = -1
    return v


# ---------------------------------------------------------------- the battle decisions


@jit
def h_attack(tb, st, lu, j: int, mode: int) -> np.int64:
    fv = hp(lu, j, mode, HP.flip_value)
    provoke = hp(lu, j, mode, HP.provoke)
    s = st.active
    best = -1e9
    pick = np.int64(PASS)
    ties = 0
    for slot in range(st.n_slots[s]):
        if not can_attack_with(tb, st, s, slot):
            continue
        t0 = st.slot_team[s, slot]
        n = st.dice[s, slot, 0]
        for t in range(st.n_team[1 - s]):
            if not target_ok(tb, st, s, t0, n, t):
                continue
            a = pack(slot, t)
            if mode != ROLLOUT and forbidden(lu, j, tb, st, a):
                continue
            v = attack_value(tb, st, slot, t, fv, provoke)
            if v > best:
                best = v
                pick = a
                ties = 1
            elif v == best:
                ties += 1
                if keep_tie(st, s, ties):
                    pick = a
    # Timing: wait for ``threshold`` while dice can still grow the attacks; the fewer free
    # dice are left, the lower the bar (down to -1 with every die committed, so that a
    # locked board is broken open instead of waiting forever).
    free = st.free[s] / max(tb.dice, 1)
    bar = hp(lu, j, mode, HP.threshold)
    bar = bar * free - (1.0 - free)
    if best < bar:
        return np.int64(PASS)
    return pick


@jit
def h_react(tb, st, lu, j: int, mode: int) -> np.int64:
    fv = hp(lu, j, mode, HP.flip_value)
    o = st.actor
    best = 1e9
    pick = np.int64(-2)
    ties = 0
    optional_only = True
    for slot in range(st.n_slots[o]):
        r = react_ok(tb, st, slot)
        if r == 0 or (mode != ROLLOUT and forbidden(lu, j, tb, st, np.int64(slot))):
            continue
        if r == 1:
            optional_only = False
        v = react_result(tb, st, slot, fv, 0.0)
        if v < best:
            best = v
            pick = np.int64(slot)
            ties = 1
        elif v == best:
            ties += 1
            if keep_tie(st, o, ties):
                pick = np.int64(slot)
    if pick == -2:
        return actions(tb, st, np.int64(0))
    if optional_only and react_result(tb, st, np.int64(-1), fv, 0.0) <= best:
        return np.int64(PASS)
    return pick


@jit
def h_break(tb, st, lu, j: int, mode: int) -> np.int64:
    fv = hp(lu, j, mode, HP.flip_value)
    s = st.actor
    t = st.bk_team
    hits = st.bk_hits
    pay = LOSE if hits >= st.markers[s] else float(hits)
    best = 1e9
    pick = np.int64(PASS)
    ties = 0
    first = st.team_slot[s, t]
    alone = st.team_up[s, t] <= 1
    for k in range(tb.d_cards[st.team[s, t]]):
        slot = first + k
        if not st.up[s, slot]:
            continue
        if alone:
            c = LOSE if st.n_alive[s] <= 2 else 2.5 * fv
        else:
            c = fv + 0.3 * st.dice[s, slot, 0]
            if tb.c_kind[st.slot_card[s, slot]] != KIND_DICE:
                c += 0.5
        if c < best:
            best = c
            pick = np.int64(slot)
            ties = 1
        elif c == best:
            ties += 1
            if keep_tie(st, s, ties):
                pick = np.int64(slot)
    if best < pay or (best == pay and pay >= LOSE and pick >= 0):
        return pick
    return np.int64(PASS)


@jit
def react_worth(tmpl: int, n: int) -> float:
    """Rough value, in markers, of a reaction holding ``n`` dice."""
    if n <= 0:
        return 0.0
    if tmpl == ABS_ONLY1:
        return 2.0
    if tmpl == ABS_MINUS1:
        return 1.0
    if tmpl == ABS_MINUS_DICE:
        return min(n, 4) * 1.0
    if tmpl == ABS_FULL:
        return 0.5
    if tmpl == BLK:
        return 2.5
    if tmpl == CTR_1_NORMAL:
        return 1.0
    if tmpl == CTR_PER_DIE_NORMAL:
        return float(n)
    if tmpl == CTR_1_MINUS_DICE:
        return 1.0 + min(n, 4)
    if tmpl == CTR_1_MINUS1:
        return 2.0
    return 0.0


@jit
def place_value(tb, st, slot: int, face: int, count: int, w_react: float, locked: bool) -> float:
    """Attack hits the dice add to card ``slot`` plus ``w_react`` times the reaction value they
    add. In a ``locked`` battle a Block's or an Absorb's reaction value counts
    :data:`LOCKED_REACT` times instead: an armed one must answer the opponent's next attack,
    however small, and so costs its owner the next attack phase again and again."""
    s = st.active
    card = st.slot_card[s, slot]
    n = st.dice[s, slot, 0]
    v = 0.0
    tmpl = tb.c_attack[card]
    if tmpl != ATK_NONE:
        now = base_hits(tmpl, n)
        then = base_hits(tmpl, n + count)
        if tb.c_apair[card]:
            pair_now = False
            for f in range(1, 7):
                if st.dice[s, slot, f] >= 2:
                    pair_now = True
            pair_then = pair_now or st.dice[s, slot, face] + count >= 2
            now = now if pair_now else 0
            then = then if pair_then else 0
        v += then - now
    rt = tb.c_react[card]
    if rt != 0:
        if locked and tb.c_rkind[card] in (RK_BLOCK, RK_ABSORB):
            w_react = LOCKED_REACT
        v += w_react * (
            react_worth(np.int64(rt), np.int64(n + count)) - react_worth(np.int64(rt), np.int64(n))
        )
    return v + 0.01 * count


@jit
def face_wants(tb, st, s: int) -> np.int64:
    """Bit ``7 t + f``: team member ``t`` of seat ``s``, not yet given dice this turn, has a
    face-up dice area that would take the roll's dice of face ``f``."""
    one = np.int64(0)  # faces rolled at least once, at least twice
    two = np.int64(0)
    for f in range(1, 7):
        if st.rolled[f] >= 1:
            one |= np.int64(1) << f
        if st.rolled[f] >= 2:
            two |= np.int64(1) << f
    m = np.int64(0)
    for slot in range(st.n_slots[s]):
        card = st.slot_card[s, slot]
        t = st.slot_team[s, slot]
        if not st.up[s, slot] or tb.c_kind[card] != KIND_DICE or st.placed_mask >> t & 1:
            continue
        faces = np.int64(tb.c_faces[card])
        m |= (two if faces == PAIR_AREA else faces & one) << (7 * t)
    return m


@jit
def h_place(tb, st, lu, j: int, mode: int, locked: bool) -> np.int64:
    """The best placement by :func:`place_value`. Before the turn's first placement, taking
    every die of a face that other dinos could also take costs a little (:data:`SPARE` per
    such dino): of two otherwise equal placements the one that leaves the more useful dice for
    the second is taken. Remaining ties are broken at random (:func:`keep_tie`)."""
    w_react = hp(lu, j, mode, HP.react)
    s = st.active
    best = 0.0
    pick = np.int64(PASS)
    ties = 0  # placements as good as ``best`` (0: none yet, stopping is the pick)
    wants = face_wants(tb, st, s) if st.n_placed == 0 else np.int64(0)
    for slot in range(st.n_slots[s]):
        card = st.slot_card[s, slot]
        if not st.up[s, slot] or tb.c_kind[card] != KIND_DICE:
            continue
        if st.placed_mask >> st.slot_team[s, slot] & 1:
            continue
        pair = tb.c_faces[card] == PAIR_AREA
        one = tb.c_bracket[card] != 0
        for f in range(1, 7):
            c = st.rolled[f]
            if c <= 0:
                continue
            if pair:
                c = 2
            elif one:
                c = 1
            if not place_ok(tb, st, slot, f, np.int64(c)):
                continue
            a = pack_place(slot, f, c)
            if mode != ROLLOUT and forbidden(lu, j, tb, st, a):
                continue
            v = place_value(tb, st, slot, f, np.int64(c), w_react, locked)
            if wants != 0 and c == st.rolled[f]:  # no die of this face left for the others
                t = st.slot_team[s, slot]
                for u in range(st.n_team[s]):
                    if u != t and wants >> (7 * u + f) & 1:
                        v -= SPARE
            if v > best:
                best = v
                pick = a
                ties = 1
            elif v == best and ties > 0:
                ties += 1
                if keep_tie(st, s, ties):
                    pick = a
    return pick


# ---------------------------------------------------------------- the draft


@jit
def popcount(x: int) -> int:
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@jit
def team_faces(tb, st, s: int) -> int:
    m = 0
    for t in range(st.n_team[s]):
        m |= tb.d_faces[st.team[s, t]]
    return m


@jit
def dino_score(tb, st, s: int, d: int, w_rating: float, w_syn: float) -> float:
    """Printed rating plus the dice faces ``d`` adds to seat ``s``'s team."""
    new = popcount(tb.d_faces[d] & ~team_faces(tb, st, s))
    return w_rating * tb.d_rating[d] + w_syn * new


@jit
def h_draft(tb, st, lu, j: int, mode: int) -> np.int64:
    w_rating = hp(lu, j, mode, HP.rating)
    w_syn = hp(lu, j, mode, HP.synergy)
    deny = hp(lu, j, mode, HP.deny)
    s = st.actor
    o = 1 - s
    best = -1e9
    pick = np.int64(-1)
    if st.dstep == 0:  # secret removal: keep the best; remove the least valued (or, by deny,
        # the one the opponent would like most) of the others
        top = -1e9
        keep = -1
        ties = 0
        for i in range(st.hand_len[s]):
            v = dino_score(tb, st, s, np.int64(st.hand[s, i]), w_rating, w_syn)
            if v > top:
                top = v
                keep = i
                ties = 1
            elif v == top:
                ties += 1
                if keep_tie(st, s, ties):
                    keep = i
        ties = 0
        for i in range(st.hand_len[s]):
            d = st.hand[s, i]
            a = pack(d, D_REMOVE_SECRET)
            if i == keep and st.hand_len[s] > 1:
                continue
            if mode != ROLLOUT and forbidden(lu, j, tb, st, a):
                continue
            v = (2.0 * deny - 1.0) * dino_score(tb, st, o, np.int64(d), w_rating, w_syn)
            if v > best:
                best = v
                pick = a
                ties = 1
            elif v == best:
                ties += 1
                if keep_tie(st, s, ties):
                    pick = a
    else:
        ties = 0
        for i in range(st.hand_len[s]):
            d = st.hand[s, i]
            if draft_ok(tb, st, s, np.int64(d), np.int64(D_PLACE)):
                a = pack(d, D_PLACE)
                if mode == ROLLOUT or not forbidden(lu, j, tb, st, a):
                    v = dino_score(tb, st, s, np.int64(d), w_rating, w_syn)
                    if v > best:
                        best = v
                        pick = a
                        ties = 1
                    elif v == best:
                        ties += 1
                        if keep_tie(st, s, ties):
                            pick = a
            if draft_ok(tb, st, s, np.int64(d), np.int64(D_REMOVE_OPEN)):
                a = pack(d, D_REMOVE_OPEN)
                if mode == ROLLOUT or not forbidden(lu, j, tb, st, a):
                    v = deny * dino_score(tb, st, o, np.int64(d), w_rating, w_syn)
                    if v > best:
                        best = v
                        pick = a
                        ties = 1
                    elif v == best:
                        ties += 1
                        if keep_tie(st, s, ties):
                            pick = a
    if pick < 0:
        return actions(tb, st, np.int64(0))
    return pick


@jit
def heuristic(tb, st, lu, j: int, mode: int, calm: int) -> np.int64:
    """The heuristic's action for the pending decision in ``mode`` (OWN, DEFAULT, ROLLOUT);
    ``calm``: turns the battle has gone without progress (:func:`stalled`)."""
    kind = st.kind
    if kind == PLACE:
        return h_place(tb, st, lu, j, mode, calm >= LOCK_TURNS)
    if kind == ATTACK:
        return h_attack(tb, st, lu, j, mode)
    if kind == REACT:
        return h_react(tb, st, lu, j, mode)
    if kind == BREAK:
        return h_break(tb, st, lu, j, mode)
    if kind == DRAFT:
        return h_draft(tb, st, lu, j, mode)
    return np.int64(PASS)
