"""The compiled forward model of Evolution: The Origin of Species, resumable.

As in EVO, :func:`advance` runs the automatic rules until somebody must decide and returns the
kind of decision (``st.actor`` decides); :func:`apply` applies the chosen action; the next
:func:`advance` continues. A kernel, a test or a search rollout is the same short loop::

    deal(tb, st)
    while (kind := advance(tb, st)) != GAME_OVER:
        if kind != ROUND_DONE:
            apply(tb, st, bot_choice(tb, st))

:func:`actions` enumerates the legal actions of the pending decision (``k < 0``: how many, else
the ``k``-th); the random bot samples it uniformly, the tests and :func:`is_legal` check against
it. Actions are packed by :func:`pack` (``constants.OP_*``; -1 = pass / end the turn).

One round, as the seed plays it (``RULES.md`` quotes the seed rule by rule):

1. Development: in turn from the first player, each plays one card (a new animal, or a trait on
   an own animal; Parasite only on another player's animal; paired traits between two own
   animals) or passes for the rest of the phase (DEVELOP decisions).
2. Food bank: ``food_dice`` d6 + ``food_add`` red tokens.
3. Feeding: in turn, each takes one red token for an animal, or attacks with a carnivore, or
   converts fat (the turn's one main action), and may use Piracy, Hibernation and Grazing
   before or after it, or instead of it (FEED decisions, ``PASS`` ends the turn). Paired
   traits pass food on at once (LINK decisions when several could); an attack is resolved by
   the target's owner (DEFEND decisions) and feeds one scavenger (SCAVENGE when a player has
   several). The phase ends when a whole go-around passes without anybody acting.
4. Extinction and draw: unfed and poisoned animals die with their traits; each player draws
   1 + surviving animals (6 with no animals and no cards) one card at a time from the first
   player; food (not fat) goes back; the first player moves one seat clockwise. When the
   deck is empty the last round is played; then the scores (:func:`final_scores`).

Each step is one function, inlined into :func:`advance`, which only orders them: 1
:func:`development`; 2 :func:`food_bank`; 3 :func:`feeding_turn`, :func:`feeding_goes_on`,
:func:`link_chain`, :func:`defence`, :func:`scavenge`; 4 :func:`extinction`,
:func:`round_end`, :func:`next_round`.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.core.rng import bounded, mix64, shuffle
from rules.origin_of_species.board import (
    B_BURROW,
    B_CAMO,
    B_CARN,
    B_HBW,
    B_PARA,
    B_SHARP,
    B_SWIM,
    NO,
    ONE,
    YES,
    add_link,
    arm,
    burrowed,
    drop_trait,
    full_mask,
    give,
    has_link,
    is_fed,
    kth_droppable,
    link_target,
    link_ways,
    n_droppable,
    new_animal,
    popcount,
    red_ok,
    remove_animal,
    room,
    set_need,
    symb_ok,
    target_ok,
    use,
)
from rules.origin_of_species.constants import (
    BURROWING,
    CAMOUFLAGE,
    CARNIVORE,
    COMMUNICATION,
    DEF_MIMICRY,
    DEF_NONE,
    DEF_RUNNING,
    DEF_TAIL_LOSS,
    DEFEND,
    DEVELOP,
    FAT_TISSUE,
    FEED,
    GAME_OVER,
    GRAZING,
    HIBERNATION,
    HIGH_BODY_WEIGHT,
    LINK,
    LINK_COMM,
    LINK_SYMB,
    MAX_ANIMALS,
    MAX_FAT,
    MAX_LINKS,
    MIMICRY,
    NO_DECISION,
    OP_ACCEPT,
    OP_ANIMAL,
    OP_ATTACK,
    OP_FAT,
    OP_GRAZE,
    OP_HIBERNATE,
    OP_LINK,
    OP_MIMIC,
    OP_PIRACY,
    OP_RED,
    OP_RUN,
    OP_SCAVENGE,
    OP_TAIL,
    OP_TOP,
    OUT_ESCAPED,
    OUT_KILLED,
    OUT_TAIL_LOST,
    PARASITE,
    PASS,
    PIRACY,
    POISONOUS,
    ROUND_DONE,
    RUNNING,
    SCAVENGE,
    SCAVENGER,
    SHARP_VISION,
    SWIMMING,
    SYMBIOSIS,
    TAIL_LOSS,
    U_RUN_ESCAPES,
)
from rules.origin_of_species.state import (
    CHANCE,
    F_ATTACKED,
    F_HIB,
    F_HIB_PREV,
    F_MIMIC,
    F_NO_RED,
    F_PIRATED,
    F_POISONED,
    S_FOOD,
    S_ORDER,
    S_RUN,
    emit_animal,
    emit_attack,
    emit_draw,
    emit_extinct,
    emit_fat,
    emit_food,
    emit_graze,
    emit_hibernate,
    emit_link,
    emit_pass,
    emit_piracy,
    emit_red,
    emit_scavenge,
    emit_trait,
)

(
    ST_ROUND,
    ST_DEV,
    ST_FOOD,
    ST_TURN,
    ST_TURN_CONT,
    ST_DEFEND,
    ST_SCAV,
    ST_CHAIN,
    ST_EXTINCT,
    ST_ROUND_DONE,
    ST_NEXT,
    ST_OVER,
) = range(12)
_STREAM_SALT = np.uint64(0xA0761D6478BD642F)
COUNT = np.int64(-1)
"""``k`` of :func:`actions` asking for the number of legal actions (an int64, not a literal:
numba compiles a separate copy of a function for every literal argument)."""
FIRST = np.int64(0)
B_SCAV = np.int64(1) << SCAVENGER
B_RUN = np.int64(1) << RUNNING
B_MIMIC = np.int64(1) << MIMICRY
B_TAIL = np.int64(1) << TAIL_LOSS
B_POISON = np.int64(1) << POISONOUS
B_PIRACY = np.int64(1) << PIRACY
B_HIB = np.int64(1) << HIBERNATION
B_GRAZE = np.int64(1) << GRAZING


@jit_inline
def pack(op, ty, seat, a, b) -> np.int64:
    """An action: ``(op << 32) | (card type or trait << 24) | (seat << 16) | (a << 8) | b``."""
    return (
        (np.int64(op) << 32)
        | (np.int64(ty) << 24)
        | (np.int64(seat) << 16)
        | (np.int64(a) << 8)
        | np.int64(b)
    )


@jit_inline
def op_of(action) -> np.int64:
    return np.int64(action) >> 32 if action >= 0 else np.int64(0)


@jit_inline
def field(action, shift) -> np.int64:
    return (np.int64(action) >> shift) & 0xFF


# ---------------------------------------------------------------- setup


@jit
def draw_card(st, s) -> None:
    t = st.deck[st.deck_top]
    st.deck_top += 1
    st.hand[s, t] += 1
    st.n_hand[s] += 1


@jit
def roll_first(tb, st) -> np.int64:
    """Everyone rolls a die; the highest starts; tied highest roll again."""
    n = tb.n_players
    roll = st.first_roll
    for s in range(n):
        roll[s] = 1
    while True:
        best = 0
        for s in range(n):
            if roll[s] > 0:
                roll[s] = 1 + bounded(st.rng, S_ORDER, 6)
                if roll[s] > best:
                    best = roll[s]
        tied = 0
        winner = -1
        for s in range(n):
            if roll[s] == best:
                tied += 1
                winner = s
            else:
                roll[s] = 0
        if tied == 1:
            return np.int64(winner)


@jit
def deal(tb, st) -> None:
    """Setup for a state whose ``rng[0]`` holds the game key and bot streams are seeded:
    derive the dedicated dice streams, shuffle the deck, deal the hands one card at a time
    round the table, and roll for the first player."""
    key = st.rng[CHANCE]
    for k in range(3):
        x = mix64(key ^ (np.uint64(k + 1) * _STREAM_SALT))
        st.rng[S_FOOD + k] = x if x != np.uint64(0) else np.uint64(1)
    n = tb.n_players
    i = 0
    for t in range(tb.n_types):
        for _ in range(tb.type_copies[t]):
            st.deck[i] = t
            i += 1
        st.public_out[t] = 0
    st.deck_len = tb.n_cards
    st.deck_top = 0
    shuffle(st.deck[: tb.n_cards], st.rng, CHANCE)
    for s in range(n):
        for t in range(tb.n_types):
            st.hand[s, t] = 0
            st.animal_out[s, t] = 0
        st.n_hand[s] = 0
        st.discard_n[s] = 0
        st.n_an[s] = 0
        st.n_ln[s] = 0
        st.score[s] = 0
        st.extra[s] = 0
        st.end_animals[s] = 0
        st.end_traits[s] = 0
        for u in range(st.uses.shape[1]):
            st.uses[s, u] = 0
    for _ in range(tb.hand_size):
        for s in range(n):
            draw_card(st, s)
    st.first = tb.first_player if tb.first_player >= 0 else roll_first(tb, st)
    st.rnd = 0
    st.step = ST_ROUND
    st.kind = NO_DECISION
    st.over = 0
    st.n_ev = 0
    st.ev_lost = 0
    st.ln_dirty = 0


@jit
def start_round(tb, st) -> None:
    n = tb.n_players
    st.last = 1 if st.deck_top >= st.deck_len else 0
    for s in range(n):
        st.dev_passed[s] = 0
        st.f_passed[s] = 0
        st.carn_phase[s] = 0
        st.grazed[s] = 0
        st.r_animals[s] = 0
        st.r_survivors[s] = 0
        st.r_traits[s] = 0
        st.r_red[s] = 0
        st.r_blue[s] = 0
        st.r_kills[s] = 0
        st.r_drawn[s] = 0
        st.r_hand[s] = st.n_hand[s]
        st.r_need[s] = 0
        st.r_starved[s] = 0
        st.r_poisoned[s] = 0
        for u in range(st.uses_r.shape[1]):
            st.uses_r[s, u] = 0
    st.r_bank = 0
    st.r_deck_left = st.deck_len - st.deck_top
    st.pos = 0


# ---------------------------------------------------------------- development


@jit
def trait_targets(tb, st, s, tr, k) -> np.int64:
    """Where ``s`` may play trait ``tr``: with ``k`` < 0 how many places, else the ``k``-th as
    ``(seat << 16) | (a << 8) | b``. Parasite: another player's animal without one; paired:
    two own animals (Symbiosis ordered: symbiont, partner) not yet joined by that trait;
    Fat Tissue: any own animal; others: an own animal without it (Carnivore and Scavenger
    exclude each other)."""
    c = np.int64(0)
    if tr == PARASITE:
        for o in range(tb.n_players):
            if o == s:
                continue
            for a in range(st.n_an[o]):
                if not st.an_tr[o, a] & B_PARA:
                    if c == k:
                        return (np.int64(o) << 16) | (np.int64(a) << 8)
                    c += 1
    elif tr >= COMMUNICATION:
        if st.n_ln[s] >= MAX_LINKS:
            return -1 if k >= 0 else 0
        kind = tr - COMMUNICATION
        n = st.n_an[s]
        for a in range(n):
            for b in range(n):
                if a == b or (kind != LINK_SYMB and b < a):
                    continue
                if has_link(st, s, kind, a, b):
                    continue
                if c == k:
                    return (np.int64(s) << 16) | (np.int64(a) << 8) | np.int64(b)
                c += 1
    elif tr == FAT_TISSUE:
        for a in range(st.n_an[s]):
            if st.an_fat_cards[s, a] < MAX_FAT:
                if c == k:
                    return (np.int64(s) << 16) | (np.int64(a) << 8)
                c += 1
    else:
        bt = np.int64(1) << tr
        for a in range(st.n_an[s]):
            m = st.an_tr[s, a]
            if m & bt:
                continue
            if (tr == CARNIVORE and m & B_SCAV) or (tr == SCAVENGER and m & B_CARN):
                continue
            if c == k:
                return (np.int64(s) << 16) | (np.int64(a) << 8)
            c += 1
    return -1 if k >= 0 else c


@jit
def dev_actions(tb, st, s, k) -> np.int64:
    """Development: pass, then per card type in hand: as an animal, its top trait's places,
    its bottom trait's places."""
    if k == 0:
        return np.int64(PASS)
    c = np.int64(1)
    for ty in range(tb.n_types):
        if st.hand[s, ty] == 0:
            continue
        if st.n_an[s] < MAX_ANIMALS:
            if c == k:
                return pack(OP_ANIMAL, ty, s, 0, 0)
            c += 1
        for side in range(2):
            tr = tb.type_top[ty] if side == 0 else tb.type_bot[ty]
            if tr < 0:
                continue
            m = trait_targets(tb, st, s, tr, COUNT)
            if k >= c and k < c + m:
                return pack(OP_TOP + side, ty, 0, 0, 0) | trait_targets(tb, st, s, tr, k - c)
            c += m
    return c


@jit
def can_develop(tb, st, s) -> bool:
    if st.n_hand[s] == 0:
        return False
    if st.n_an[s] < MAX_ANIMALS:
        return True
    return dev_actions(tb, st, s, COUNT) > 1


@jit
def play_card(tb, st, s, action) -> None:
    op = op_of(action)
    ty = field(action, 24)
    o = field(action, 16)
    a = field(action, 8)
    b = field(action, 0)
    st.hand[s, ty] -= 1
    st.n_hand[s] -= 1
    if op == OP_ANIMAL:
        new_animal(st, s)
        st.animal_out[s, ty] += 1
        emit_animal(st, seat=s, card=ty)
        return
    side = op - OP_TOP
    tr = tb.type_top[ty] if side == 0 else tb.type_bot[ty]
    st.public_out[ty] += 1
    partner = -1
    if tr >= COMMUNICATION:
        add_link(st, s, tr - COMMUNICATION, a, b)
        partner = b
    elif tr == FAT_TISSUE:
        st.an_fat_cards[s, a] += 1
    else:
        st.an_tr[o, a] |= np.int64(1) << tr
        set_need(tb, st, o, a)
    emit_trait(st, seat=s, trait=tr, target_owner=o, card=ty, side=side, animal=a, partner=partner)


# ---------------------------------------------------------------- feeding: legality


@jit
def carn_ready(tb, st, s, a) -> bool:
    """(s, a) may attack this turn: a carnivore not used this round (nor another of the seat
    this phase when ``one_carn_phase``), not fully fed with full fat."""
    if not st.an_tr[s, a] & B_CARN or st.an_flags[s, a] & F_ATTACKED:
        return False
    if tb.one_carn_phase and st.carn_phase[s]:
        return False
    return room(st, s, a, YES) > 0


@jit
def fat_max(tb, st, s, a) -> np.int64:
    """Most fat tokens (s, a) can usefully convert now: up to the food it still needs (0 when
    fed, or waiting for its symbiont when ``symbiosis_blocks_fat``)."""
    f = np.int64(st.an_fat[s, a])
    if f == 0 or is_fed(st, s, a):
        return 0
    if tb.symb_fat and not symb_ok(st, s, a):
        return 0
    r = np.int64(st.an_need[s, a]) - st.an_food[s, a]
    return min(f, r)


@jit
def fat_options(tb, st, s, a) -> np.int64:
    """Most fat tokens (s, a) may convert now: :func:`fat_max`, or with ``fat_conversion=any``
    all its fat (what it does not need goes back to the supply)."""
    if not tb.fat_any:
        return fat_max(tb, st, s, a)
    if tb.symb_fat and not symb_ok(st, s, a):
        return 0
    return np.int64(st.an_fat[s, a])


@jit
def hib_ok(tb, st, s, a) -> bool:
    """(s, a) may hibernate: it has the trait, did not hibernate last round, is not fed, and
    this is not the last round (unless ``hib_last``)."""
    if not st.an_tr[s, a] & B_HIB or st.an_flags[s, a] & (F_HIB | F_HIB_PREV):
        return False
    if st.last and not tb.hib_last:
        return False
    return not is_fed(st, s, a)


@jit
def pirate_ok(tb, st, s, a) -> bool:
    """(s, a) may use Piracy now (a victim is checked apart)."""
    if not st.an_tr[s, a] & B_PIRACY or st.an_flags[s, a] & F_PIRATED:
        return False
    if tb.pirate_hunger and st.an_food[s, a] >= st.an_need[s, a]:
        return False
    return room(st, s, a, tb.pirate_fat != 0) > 0


@jit_inline
def victim_ok(st, o, t) -> bool:
    """(o, t) holds a token and is not fed."""
    return st.an_food[o, t] > 0 and not is_fed(st, o, t)


@jit
def any_feed(tb, st, s) -> bool:
    """``s`` has some action besides ending the turn."""
    n = tb.n_players
    na = st.n_an[s]
    if not st.main_done:
        bank = st.bank > 0
        for a in range(na):
            if (bank and red_ok(tb, st, s, a)) or (
                st.an_fat[s, a] > 0 and fat_options(tb, st, s, a) > 0
            ):
                return True
        for a in range(na):
            if st.an_tr[s, a] & B_CARN and carn_ready(tb, st, s, a):
                for o in range(n):
                    for t in range(st.n_an[o]):
                        if target_ok(tb, st, s, a, o, t):
                            return True
    for a in range(na):
        m = st.an_tr[s, a]
        if m & B_HIB and hib_ok(tb, st, s, a):
            return True
        if m & B_GRAZE and st.bank > 0 and not (st.grazed[s] >> a) & 1:
            return True
        if m & B_PIRACY and pirate_ok(tb, st, s, a):
            for o in range(n):
                for t in range(st.n_an[o]):
                    if (o != s or t != a) and victim_ok(st, o, t):
                        return True
    return False


@jit
def feed_actions(tb, st, s, k) -> np.int64:
    """Feeding turn of ``s``: end the turn; then (until the main action) red tokens by
    animal, attacks by carnivore and target, fat conversions by animal and count; then the
    free actions: Hibernation, Piracy by pirate and victim, Grazing."""
    if k == 0:
        return np.int64(PASS)
    c = np.int64(1)
    n = tb.n_players
    na = st.n_an[s]
    if not st.main_done:
        if st.bank > 0:
            for a in range(na):
                if red_ok(tb, st, s, a):
                    if c == k:
                        return pack(OP_RED, 0, s, a, 0)
                    c += 1
        for a in range(na):
            if carn_ready(tb, st, s, a):
                for o in range(n):
                    for t in range(st.n_an[o]):
                        if target_ok(tb, st, s, a, o, t):
                            if c == k:
                                return pack(OP_ATTACK, 0, o, a, t)
                            c += 1
        for a in range(na):
            m = fat_options(tb, st, s, a)
            if k >= c and k < c + m:
                return pack(OP_FAT, 0, s, a, 1 + k - c)
            c += m
    for a in range(na):
        if hib_ok(tb, st, s, a):
            if c == k:
                return pack(OP_HIBERNATE, 0, s, a, 0)
            c += 1
    for a in range(na):
        if pirate_ok(tb, st, s, a):
            for o in range(n):
                for t in range(st.n_an[o]):
                    if (o != s or t != a) and victim_ok(st, o, t):
                        if c == k:
                            return pack(OP_PIRACY, 0, o, a, t)
                        c += 1
    if st.bank > 0:
        for a in range(na):
            if st.an_tr[s, a] & B_GRAZE and not (st.grazed[s] >> a) & 1:
                if c == k:
                    return pack(OP_GRAZE, 0, s, a, 0)
                c += 1
    return c


# ---------------------------------------------------------------- feeding: resolution


@jit_inline
def start_chain(st, ret) -> None:
    st.ch_i = 0
    st.ret = ret
    st.step = ST_CHAIN


@jit
def fire(tb, st, s, l, back) -> None:
    """Paired trait ``l`` of ``s`` passes food on: Communication a red token from the bank,
    Cooperation a blue one from the supply; the receiver's own links arm in turn."""
    x = link_target(st, s, l, back)
    frm = link_target(st, s, l, 1 - back)
    kind = st.ln_kind[s, l]
    st.ln_used[s, l] = 1
    st.ln_dirty = 1
    st.ln_armed[s, l] = 0
    st.ln_also[s, l] = 0
    if kind == LINK_COMM:
        st.bank -= 1
        st.r_red[s] += 1
        give(st, s, x, ONE, YES)
        use(st, s, COMMUNICATION, 1)
        arm(st, s, x, YES)
        emit_red(st, seat=s, animal=x, via=1, into_fat=0)
    else:
        st.r_blue[s] += give(st, s, x, ONE, YES)
        use(st, s, COMMUNICATION + 1, 1)
        arm(st, s, x, NO)
    emit_link(st, seat=s, link=kind, origin=frm, destination=x)


@jit
def note_shields(tb, st, s, a, o, t) -> None:
    """Count the passive traits that mattered when (s, a) declared an attack on (o, t)."""
    aa = st.an_tr[s, a]
    ta = st.an_tr[o, t]
    if ta & B_HBW:
        use(st, s, HIGH_BODY_WEIGHT, 1)
    if ta & B_CAMO:
        use(st, s, SHARP_VISION, 1)
    if ta & B_SWIM:
        use(st, s, SWIMMING, 1)
    for q in range(tb.n_players):
        for x in range(st.n_an[q]):
            if q == s and x == a:
                continue
            xa = st.an_tr[q, x]
            if xa & B_SWIM and not aa & B_SWIM:
                use(st, q, SWIMMING, 1)
            if xa & B_HBW and not aa & B_HBW:
                use(st, q, HIGH_BODY_WEIGHT, 1)
            if xa & B_CAMO and not aa & B_SHARP:
                use(st, q, CAMOUFLAGE, 1)
            if xa & B_BURROW and burrowed(tb, st, q, x):
                use(st, q, BURROWING, 1)
            if st.an_prot[q, x] > 0:
                use(st, q, SYMBIOSIS, 1)


@jit
def declare(tb, st, s, a, o, t) -> None:
    st.at_s, st.at_a, st.tg_s, st.tg_a = s, a, o, t
    st.an_flags[s, a] |= F_ATTACKED | F_NO_RED
    st.carn_phase[s] = 1
    st.at_mask = full_mask(st, s, a)
    st.tg_mask = full_mask(st, o, t)
    st.at_used = 0
    st.at_all = 0
    st.at_last = DEF_NONE
    st.at_redirects = 0
    st.at_roll = 0
    st.at_dropped = -1
    st.at_scav = -1
    st.at_poison = 0
    use(st, s, CARNIVORE, 1)
    note_shields(tb, st, s, a, o, t)
    st.step = ST_DEFEND


@jit
def mimic_target(tb, st, b) -> bool:
    """The attack may be redirected to the defender's own animal ``b``."""
    o, t = st.tg_s, st.tg_a
    if b == t or (o == st.at_s and b == st.at_a):
        return False
    return target_ok(tb, st, st.at_s, st.at_a, o, b)


@jit
def defend_actions(tb, st, k) -> np.int64:
    """Defences of the attacked animal, its owner's choice: Running (once per target; it cannot
    be declined), Mimicry by new target, Tail Loss by trait card, and accepting the attack
    (only when Running is spent and no mandatory Mimicry is open)."""
    o, t = st.tg_s, st.tg_a
    m = st.an_tr[o, t]
    c = np.int64(0)
    run = (m & B_RUN) != 0 and not st.at_used & 1
    if run:
        if c == k:
            return pack(OP_RUN, 0, o, t, 0)
        c += 1
    mimics = 0
    if (
        m & B_MIMIC
        and not st.an_flags[o, t] & F_MIMIC
        and (tb.mimic_chain != 0 or st.at_redirects == 0)
    ):
        for b in range(st.n_an[o]):
            if mimic_target(tb, st, b):
                if c == k:
                    return pack(OP_MIMIC, 0, o, t, b)
                c += 1
                mimics += 1
    if m & B_TAIL and not st.at_used & 4:
        nd = n_droppable(tb, st, o, t)
        if k >= c and k < c + nd:
            tr, l = kth_droppable(tb, st, o, t, k - c)
            return pack(OP_TAIL, tr, o, t, l)
        c += nd
    if not run and not (mimics > 0 and tb.mimic_mandatory):
        if c == k:
            return pack(OP_ACCEPT, 0, o, t, 0)
        c += 1
    return c


@jit
def finish_attack(tb, st, outcome) -> None:
    emit_attack(
        st,
        attacker_seat=st.at_s,
        attacker_traits=st.at_mask,
        defender_seat=st.tg_s,
        defender_traits=st.tg_mask,
        defence_used=st.at_last,
        outcome=outcome,
        defences=st.at_all,
        redirects=st.at_redirects,
        running_roll=st.at_roll,
        scavenger_seat=st.at_scav,
        poisoned=st.at_poison,
        dropped=st.at_dropped,
    )
    start_chain(st, ST_TURN_CONT)


@jit
def eat(tb, st) -> None:
    """The attack succeeds: the prey and its cards go to its owner's pile; the carnivore gets
    ``kill_food`` blue tokens (need first, then fat); poison marks it; then a scavenger."""
    s, a, o, t = st.at_s, st.at_a, st.tg_s, st.tg_a
    if st.an_tr[o, t] & B_POISON:
        st.an_flags[s, a] |= F_POISONED
        st.at_poison = 1
        use(st, o, POISONOUS, 1)
    remove_animal(st, o, t)
    if o == s and t < a:
        a -= 1
        st.at_a = a
    st.r_kills[s] += 1
    d = give(st, s, a, tb.kill_food, YES)
    st.r_blue[s] += d
    if d > 0:
        arm(st, s, a, NO)
    st.sc_i = 0
    st.step = ST_SCAV


@jit
def scav_ok(tb, st, q, x) -> bool:
    return (st.an_tr[q, x] & B_SCAV) != 0 and room(st, q, x, tb.scav_fat != 0) > 0


@jit
def scav_feed(tb, st, q, x) -> None:
    d = give(st, q, x, tb.scav_food, tb.scav_fat != 0)
    st.r_blue[q] += d
    use(st, q, SCAVENGER, d)
    if d > 0:
        arm(st, q, x, NO)
    st.at_scav = q
    emit_scavenge(st, seat=q, scavenger=x)
    finish_attack(tb, st, np.int64(OUT_KILLED))


@jit
def apply_defence(tb, st, action) -> None:
    op = op_of(action)
    o, t = st.tg_s, st.tg_a
    if op == OP_RUN:
        st.at_used |= 1
        st.at_all |= 1
        st.at_last = DEF_RUNNING
        roll = 1 + bounded(st.rng, S_RUN, 6)
        st.at_roll = roll
        use(st, o, RUNNING, 1)
        if roll >= tb.run_from:
            use(st, o, U_RUN_ESCAPES, 1)
            finish_attack(tb, st, np.int64(OUT_ESCAPED))
    elif op == OP_MIMIC:
        b = field(action, 0)
        st.an_flags[o, t] |= F_MIMIC
        st.at_all |= 2
        st.at_last = DEF_MIMICRY
        st.at_redirects += 1
        use(st, o, MIMICRY, 1)
        st.tg_a = b
        st.tg_mask = full_mask(st, o, b)
        st.at_used = 0
    elif op == OP_TAIL:
        tr = field(action, 24)
        st.at_dropped = tr
        drop_trait(tb, st, o, t, tr, field(action, 0))
        st.at_used |= 4
        st.at_all |= 4
        st.at_last = DEF_TAIL_LOSS
        use(st, o, TAIL_LOSS, 1)
        d = give(st, st.at_s, st.at_a, tb.tail_food, YES)
        st.r_blue[st.at_s] += d
        if d > 0:
            arm(st, st.at_s, st.at_a, NO)
        finish_attack(tb, st, np.int64(OUT_TAIL_LOST))
    else:
        eat(tb, st)


@jit
def scav_actions(tb, st, k) -> np.int64:
    q = (st.at_s + st.sc_i) % tb.n_players
    c = np.int64(0)
    for x in range(st.n_an[q]):
        if scav_ok(tb, st, q, x):
            if c == k:
                return pack(OP_SCAVENGE, 0, q, x, 0)
            c += 1
    return c


@jit
def link_actions(tb, st, k) -> np.int64:
    """The ready paired traits of the seat whose chain is resolving: by link, away from its
    first trigger (a = 0), then back (a = 1)."""
    s = (st.turn + st.ch_i) % tb.n_players
    c = np.int64(0)
    for l in range(st.n_ln[s]):
        w = link_ways(tb, st, s, l)
        for back in range(2):
            if w >> back & 1:
                if c == k:
                    return pack(OP_LINK, 0, s, back, l)
                c += 1
    return c


@jit
def end_turn(tb, st) -> None:
    if st.turn_did:
        st.idle = 0
    else:
        st.idle += 1
    st.pos = (st.pos + 1) % tb.n_players
    st.step = ST_TURN


@jit
def feed_apply(tb, st, s, action) -> None:
    if action < 0:
        if not st.turn_did:
            if tb.pass_final:
                st.f_passed[s] = 1
            emit_pass(st, seat=s, phase=1)
        end_turn(tb, st)
        return
    op = op_of(action)
    o = field(action, 16)
    a = field(action, 8)
    b = field(action, 0)
    st.turn_did = 1
    st.step = ST_TURN_CONT
    if op == OP_RED:
        st.main_done = 1
        st.bank -= 1
        st.r_red[s] += 1
        into = 1 if st.an_food[s, a] >= st.an_need[s, a] else 0
        give(st, s, a, ONE, YES)
        arm(st, s, a, YES)
        emit_red(st, seat=s, animal=a, via=0, into_fat=into)
        start_chain(st, ST_TURN_CONT)
    elif op == OP_ATTACK:
        st.main_done = 1
        declare(tb, st, s, a, o, b)
    elif op == OP_FAT:
        st.main_done = 1
        st.an_fat[s, a] -= b
        st.an_food[s, a] = min(st.an_food[s, a] + b, st.an_need[s, a])  # the rest: supply
        use(st, s, FAT_TISSUE, b)
        emit_fat(st, seat=s, animal=a, tokens=b)
    elif op == OP_HIBERNATE:
        st.an_flags[s, a] |= F_HIB
        use(st, s, HIBERNATION, 1)
        emit_hibernate(st, seat=s, animal=a)
    elif op == OP_PIRACY:
        st.an_food[o, b] -= 1
        st.an_flags[s, a] |= F_PIRATED
        d = give(st, s, a, ONE, tb.pirate_fat != 0)
        use(st, s, PIRACY, 1)
        emit_piracy(st, seat=s, pirate=a, victim_seat=o, victim=b)
        if d > 0:
            arm(st, s, a, NO)
            start_chain(st, ST_TURN_CONT)
    elif op == OP_GRAZE:
        st.bank -= 1
        st.grazed[s] |= np.int64(1) << a
        use(st, s, GRAZING, 1)
        emit_graze(st, seat=s, grazer=a)


# ---------------------------------------------------------------- extinction, draw, scores


@jit
def extinction_and_draw(tb, st) -> None:
    n = tb.n_players
    for s in range(n):
        st.r_animals[s] = st.n_an[s]
        starved = 0
        poisoned = 0
        for a in range(st.n_an[s] - 1, -1, -1):
            if st.an_flags[s, a] & F_POISONED:
                remove_animal(st, s, a)
                poisoned += 1
            elif not is_fed(st, s, a):
                if st.an_tr[s, a] & B_PARA:
                    use(st, s, PARASITE, 1)
                remove_animal(st, s, a)
                starved += 1
        st.r_survivors[s] = st.n_an[s]
        st.r_starved[s] = starved
        st.r_poisoned[s] = poisoned
        pts, _, tc = seat_score(tb, st, s)
        st.r_traits[s] = tc
        st.r_score[s] = pts
        emit_extinct(st, seat=s, starved=starved, poisoned=poisoned, survivors=st.n_an[s])
    # the draw: one card at a time from the first player, while the deck lasts
    want = st.first_roll  # scratch: cards still owed
    for s in range(n):
        if st.n_an[s] == 0 and st.n_hand[s] == 0:
            want[s] = tb.empty_draw
        else:
            want[s] = 1 + st.n_an[s]
    more = True
    while more and st.deck_top < st.deck_len:
        more = False
        for i in range(n):
            s = (st.first + i) % n
            if want[s] > 0 and st.deck_top < st.deck_len:
                draw_card(st, s)
                st.r_drawn[s] += 1
                want[s] -= 1
                if want[s] > 0:
                    more = True
    for s in range(n):
        st.r_hand[s] = st.n_hand[s]
        emit_draw(st, seat=s, drawn=st.r_drawn[s], hand=st.n_hand[s])
        for a in range(st.n_an[s]):
            st.an_food[s, a] = 0
            f = st.an_flags[s, a]
            st.an_flags[s, a] = F_HIB_PREV if f & F_HIB else 0
    st.r_deck_left = st.deck_len - st.deck_top
    st.bank = 0


@jit
def animal_score(tb, st, s, a) -> tuple[np.int64, np.int64, np.int64]:
    """What surviving animal ``a`` of ``s`` scores: ``(points, extra, trait cards)``.

    ``animal_points``, plus ``trait_points`` per trait card on it (each Fat Tissue; a paired
    card for each animal it joins, or once per pair on its first animal), plus the extra
    points of Carnivore, High Body Weight and Parasite (``extra``, also in ``points``); trait
    cards as counted for the logs (a paired card once per animal it joins)."""
    m = st.an_tr[s, a]
    cards = popcount(m) + st.an_fat_cards[s, a] + st.an_links[s, a]
    traits = cards
    if not tb.paired_per_animal:
        cards -= st.an_links[s, a]
        for l in range(st.n_ln[s]):
            if st.ln_a[s, l] == a:
                cards += 1
    extra = np.int64(0)
    for t in (CARNIVORE, HIGH_BODY_WEIGHT, PARASITE):
        if m >> t & 1:
            extra += tb.bonus[t]
    return tb.animal_points + tb.trait_points * cards + extra, extra, traits


@jit
def seat_score(tb, st, s) -> tuple[np.int64, np.int64, np.int64]:
    """Seat ``s``'s points if the game ended now: ``(points, extra, trait cards)`` summed over
    its animals (:func:`animal_score`)."""
    pts = np.int64(0)
    extra = np.int64(0)
    traits = np.int64(0)
    for a in range(st.n_an[s]):
        p, e, t = animal_score(tb, st, s, a)
        pts += p
        extra += e
        traits += t
    return pts, extra, traits


@jit
def final_scores(tb, st) -> None:
    """Every seat's final points (:func:`seat_score`; Parasite points go to the host's owner,
    whose animal carries the trait)."""
    for s in range(tb.n_players):
        pts, extra, traits = seat_score(tb, st, s)
        st.score[s] = pts
        st.extra[s] = extra
        st.end_animals[s] = st.n_an[s]
        st.end_traits[s] = traits


@jit
def final_result(tb, st, winners) -> np.int64:
    """Mark every winner in ``winners`` (bool [P]); return the sole winner's seat or -1.

    Most points win; ties go to the most cards in the discard pile; then the win is shared."""
    n = tb.n_players
    best = 0
    for s in range(1, n):
        if st.score[s] > st.score[best] or (
            st.score[s] == st.score[best] and st.discard_n[s] > st.discard_n[best]
        ):
            best = s
    count = 0
    for s in range(n):
        w = st.score[s] == st.score[best] and st.discard_n[s] == st.discard_n[best]
        winners[s] = w
        count += w
    return np.int64(best) if count == 1 else np.int64(-1)


# ---------------------------------------------------------------- the steps of a round
# One function per step of the machine (``st.step``), inlined into :func:`advance`. Each
# returns the kind :func:`advance` hands back (a decision for ``st.actor``, ``ROUND_DONE``,
# or ``NO_DECISION`` at the pause before extinction), or ``GO_ON`` to run the next step.

GO_ON = np.int64(-1)
"""A step's return: nobody is asked yet, the machine goes on."""


@jit_inline
def development(tb, st) -> np.int64:
    """Development: in turn, each player who has not passed plays a card or passes for the
    phase (at once when it has nothing to play); when all have passed, the food bank."""
    n = tb.n_players
    done = True
    for q in range(n):
        if not st.dev_passed[q]:
            done = False
    if done:
        st.step = ST_FOOD
        return GO_ON
    s = (st.first + st.pos) % n
    st.pos = (st.pos + 1) % n
    if st.dev_passed[s]:
        return GO_ON
    if not can_develop(tb, st, s):
        st.dev_passed[s] = 1
        return GO_ON
    st.actor = s
    st.kind = DEVELOP
    return np.int64(DEVELOP)


@jit_inline
def food_bank(tb, st) -> np.int64:
    """Food bank: ``food_dice`` d6 plus ``food_add`` red tokens; feeding starts with the first
    player."""
    bank = tb.food_add
    for _ in range(tb.food_dice):
        bank += 1 + bounded(st.rng, S_FOOD, 6)
    st.bank = bank
    st.r_bank = bank
    for q in range(tb.n_players):
        need = np.int64(0)
        for a in range(st.n_an[q]):
            need += st.an_need[q, a]
        st.r_need[q] = need
    emit_food(st, bank=bank, first=st.first)
    st.pos = 0
    st.idle = 0
    st.step = ST_TURN
    return GO_ON


@jit_inline
def feeding_turn(tb, st) -> np.int64:
    """Feeding: the next player in turn starts a turn, or is skipped when it has passed or
    cannot feed; a go-around without an action (or, by rule, an empty bank) ends the phase."""
    n = tb.n_players
    if st.idle >= n or (tb.end_empty_bank and st.bank <= 0):
        st.step = ST_EXTINCT
        return GO_ON
    s = (st.first + st.pos) % n
    if st.ln_dirty and (tb.link_per_action != 0 or st.pos == 0):  # paired traits ready again
        st.ln_dirty = 0
        for q in range(n):
            for l in range(st.n_ln[q]):
                st.ln_used[q, l] = 0
    st.grazed[s] = 0
    st.turn = s
    st.turn_did = 0
    st.main_done = 0
    if st.f_passed[s] or not any_feed(tb, st, s):
        st.idle += 1
        st.pos = (st.pos + 1) % n
        return GO_ON
    st.actor = s
    st.kind = FEED
    return np.int64(FEED)


@jit_inline
def feeding_goes_on(tb, st) -> np.int64:
    """Feeding: after an action the player acts again while it can, but not after its main
    action unless free traits may follow it; else its turn ends."""
    s = st.turn
    if (not st.main_done or tb.free_after) and any_feed(tb, st, s):
        st.actor = s
        st.kind = FEED
        return np.int64(FEED)
    end_turn(tb, st)
    return GO_ON


@jit_inline
def link_chain(tb, st) -> np.int64:
    """Paired traits pass food on at once, each player from the one in turn firing its ready
    links (choosing when it has several); then the step the chain interrupted."""
    n = tb.n_players
    while st.ch_i < n:
        s = (st.turn + st.ch_i) % n
        c = link_actions(tb, st, COUNT)
        if c == 0:
            for l in range(st.n_ln[s]):
                st.ln_armed[s, l] = 0
                st.ln_also[s, l] = 0
            st.ch_i += 1
        elif c == 1:
            only = link_actions(tb, st, FIRST)
            fire(tb, st, s, field(only, 0), field(only, 8))
        else:
            st.actor = s
            st.kind = LINK
            return np.int64(LINK)
    st.step = st.ret
    return GO_ON


@jit_inline
def defence(tb, st) -> np.int64:
    """An attack: the target's owner chooses its defence, or the only one is taken for it."""
    if defend_actions(tb, st, COUNT) == 1:
        apply_defence(tb, st, defend_actions(tb, st, FIRST))
        return GO_ON
    st.actor = st.tg_s
    st.kind = DEFEND
    return np.int64(DEFEND)


@jit_inline
def scavenge(tb, st) -> np.int64:
    """A kill feeds one Scavenger: the first player from the attacker round the table who has
    one with room, choosing when it has several; nobody: the attack ends."""
    n = tb.n_players
    if st.sc_i >= n:
        finish_attack(tb, st, np.int64(OUT_KILLED))
        return GO_ON
    c = scav_actions(tb, st, COUNT)
    if c == 0:
        st.sc_i += 1
    elif c == 1:
        q = (st.at_s + st.sc_i) % n
        scav_feed(tb, st, q, field(scav_actions(tb, st, FIRST), 8))
    else:
        st.actor = (st.at_s + st.sc_i) % n
        st.kind = SCAVENGE
        return np.int64(SCAVENGE)
    return GO_ON


@jit_inline
def extinction(tb, st) -> np.int64:
    """Extinction and draw (:func:`extinction_and_draw`); with ``st.pause`` set, the machine
    first stops once with ``NO_DECISION`` so that checks see the table before it."""
    if st.pause == 1:
        st.pause = 2
        return np.int64(NO_DECISION)
    if st.pause == 2:
        st.pause = 1
    extinction_and_draw(tb, st)
    st.step = ST_ROUND_DONE
    return GO_ON


@jit_inline
def round_end(tb, st) -> np.int64:
    """The round is over: after the last round (the one after the deck ran out, or by rule the
    one that emptied it; a safety cap besides) the final scores, else the next round."""
    ending = st.last != 0 if tb.last_next != 0 else st.deck_top >= st.deck_len
    if st.rnd + 1 >= tb.max_rounds:  # reached only if nobody can draw
        ending = True
    if ending:
        final_scores(tb, st)
        st.over = 1
        st.step = ST_OVER
    else:
        st.step = ST_NEXT
    return np.int64(ROUND_DONE)


@jit_inline
def next_round(tb, st) -> np.int64:
    """A new round: the first player moves one seat clockwise."""
    st.rnd += 1
    st.first = (st.first + 1) % tb.n_players
    st.step = ST_ROUND
    return GO_ON


# ---------------------------------------------------------------- the resumable loop


@jit
def advance(tb, st) -> np.int64:
    """Run the automatic rules until a decision is needed; return its kind.

    Returns the pending kind again if called before :func:`apply`; ``ROUND_DONE`` once after
    every round (its counters are complete) and ``GAME_OVER`` at the end. With ``st.pause``
    set it also returns ``NO_DECISION`` once just before each extinction (for checks). Each
    step's rules are in its own function above (the most frequent steps tested first)."""
    if st.kind != NO_DECISION:
        return st.kind
    while True:
        step = st.step
        if step == ST_TURN:
            kind = feeding_turn(tb, st)
        elif step == ST_TURN_CONT:
            kind = feeding_goes_on(tb, st)
        elif step == ST_CHAIN:
            kind = link_chain(tb, st)
        elif step == ST_DEFEND:
            kind = defence(tb, st)
        elif step == ST_SCAV:
            kind = scavenge(tb, st)
        elif step == ST_DEV:
            kind = development(tb, st)
        elif step == ST_ROUND:
            start_round(tb, st)
            st.step = ST_DEV
            kind = GO_ON
        elif step == ST_FOOD:
            kind = food_bank(tb, st)
        elif step == ST_EXTINCT:
            kind = extinction(tb, st)
        elif step == ST_ROUND_DONE:
            kind = round_end(tb, st)
        elif step == ST_NEXT:
            kind = next_round(tb, st)
        else:
            return np.int64(GAME_OVER)
        if kind != GO_ON:
            return kind


# ---------------------------------------------------------------- applying a choice


@jit
def apply(tb, st, action) -> None:
    """Apply ``action`` (legal for the pending decision) for ``st.actor``."""
    kind = st.kind
    st.kind = NO_DECISION
    s = st.actor
    if kind == FEED:
        feed_apply(tb, st, s, action)
    elif kind == DEVELOP:
        if action < 0:
            st.dev_passed[s] = 1
            emit_pass(st, seat=s, phase=0)
        else:
            play_card(tb, st, s, action)
    elif kind == DEFEND:
        apply_defence(tb, st, action)
    elif kind == LINK:
        fire(tb, st, s, field(action, 0), field(action, 8))
    elif kind == SCAVENGE:
        scav_feed(tb, st, s, field(action, 8))


# ---------------------------------------------------------------- legal actions


@jit
def actions(tb, st, k) -> np.int64:
    """With ``k`` < 0 the number of legal actions of the pending decision, else the ``k``-th."""
    kind = st.kind
    if kind == FEED:
        return feed_actions(tb, st, st.actor, k)
    if kind == DEVELOP:
        return dev_actions(tb, st, st.actor, k)
    if kind == DEFEND:
        return defend_actions(tb, st, k)
    if kind == LINK:
        return link_actions(tb, st, k)
    if kind == SCAVENGE:
        return scav_actions(tb, st, k)
    return np.int64(0)


@jit
def is_legal(tb, st, action) -> bool:
    """``action`` is one of :func:`actions` (for tests and checks; linear in their number)."""
    for k in range(actions(tb, st, COUNT)):  # noqa: SIM110
        if actions(tb, st, k) == action:
            return True
    return False
