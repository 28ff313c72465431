"""Compiled primitives of the table: animals, traits, links, food and attack legality.

Seats are numbered clockwise; a seat's animals are kept left to right in ``an_*[seat, :n_an]``
and its paired-trait cards in ``ln_*[seat, :n_ln]`` (both ends are always the seat's own
animals). Removing an animal closes the gap and renumbers the links. Single traits are bits of
``an_tr`` (never Fat Tissue or a paired trait: those are counted in ``an_fat_cards`` and the
links).
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.origin_of_species.constants import (
    BURROWING,
    CAMOUFLAGE,
    CARNIVORE,
    COMMUNICATION,
    FAT_TISSUE,
    HIGH_BODY_WEIGHT,
    LINK_COMM,
    LINK_SYMB,
    N_TRAITS,
    PARASITE,
    SHARP_VISION,
    SWIMMING,
    U_FAT_STORED,
)
from rules.origin_of_species.state import F_HIB, F_NO_RED

B_SWIM = np.int64(1) << SWIMMING
B_HBW = np.int64(1) << HIGH_BODY_WEIGHT
B_CAMO = np.int64(1) << CAMOUFLAGE
B_SHARP = np.int64(1) << SHARP_VISION
B_BURROW = np.int64(1) << BURROWING
B_CARN = np.int64(1) << CARNIVORE
B_PARA = np.int64(1) << PARASITE
YES = np.bool_(True)
NO = np.bool_(False)
ONE = np.int64(1)
"""Arguments for compiled calls: numpy scalars, not literals (numba compiles one copy of a
function per literal argument value)."""


@jit_inline
def popcount(x: np.int64) -> np.int64:
    """Set bits of a trait mask (< 2**24), by the SWAR sum."""
    x = x - ((x >> 1) & 0x555555)
    x = (x & 0x333333) + ((x >> 2) & 0x333333)
    x = (x + (x >> 4)) & 0x0F0F0F
    return (x + (x >> 8) + (x >> 16)) & 0x3F


@jit_inline
def use(st, s, u, k) -> None:
    """Count ``k`` uses of counter ``u`` for seat ``s`` (round and game)."""
    st.uses_r[s, u] += k
    st.uses[s, u] += k


# ---------------------------------------------------------------- food


@jit_inline
def is_fed(st, s, a) -> bool:
    """Fed: its need is met, or it hibernates (yellow fat alone does not feed)."""
    return st.an_food[s, a] >= st.an_need[s, a] or (st.an_flags[s, a] & F_HIB) != 0


@jit
def symb_ok(st, s, a) -> bool:
    """Every symbiont protecting ``a`` is fed, so ``a`` may eat."""
    if st.an_prot[s, a] == 0:
        return True
    for l in range(st.n_ln[s]):
        if (
            st.ln_kind[s, l] == LINK_SYMB
            and st.ln_b[s, l] == a
            and not is_fed(st, s, st.ln_a[s, l])
        ):
            return False
    return True


@jit
def room(st, s, a, fat: bool) -> np.int64:
    """Tokens ``a`` could receive now: the rest of its need, plus free fat when ``fat``;
    0 while it hibernates or waits for its symbiont."""
    if st.an_flags[s, a] & F_HIB:
        return 0
    r = np.int64(st.an_need[s, a]) - st.an_food[s, a]
    if r < 0:
        r = 0
    if fat:
        r += st.an_fat_cards[s, a] - st.an_fat[s, a]
    if r > 0 and st.an_prot[s, a] > 0 and not symb_ok(st, s, a):
        return 0
    return r


@jit
def red_ok(tb, st, s, a) -> bool:
    """``a`` may take a red token from the bank now (the bank is not empty)."""
    if st.bank <= 0:
        return False
    if st.an_flags[s, a] & F_NO_RED and not tb.red_after_attack:
        return False
    return room(st, s, a, YES) > 0


@jit
def give(st, s, a, k, fat: bool) -> np.int64:
    """Put up to ``k`` tokens on ``a``: its need first, then (when ``fat``) empty Fat Tissue as
    yellow fat. Returns how many it took; the rest go back to the supply."""
    d = np.int64(0)
    if st.an_flags[s, a] & F_HIB:
        return d
    while k > 0 and st.an_food[s, a] < st.an_need[s, a]:
        st.an_food[s, a] += 1
        k -= 1
        d += 1
    if fat:
        stored = 0
        while k > 0 and st.an_fat[s, a] < st.an_fat_cards[s, a]:
            st.an_fat[s, a] += 1
            k -= 1
            stored += 1
        if stored:
            use(st, s, U_FAT_STORED, stored)
        d += stored
    return d


@jit
def set_need(tb, st, s, a) -> None:
    """Recompute the food need of ``a`` (1 plus its traits' extra food); food beyond a smaller
    need goes back to the supply."""
    m = st.an_tr[s, a]
    need = np.int64(1)
    for t in (CARNIVORE, HIGH_BODY_WEIGHT, PARASITE):
        if m >> t & 1:
            need += tb.food[t]
    st.an_need[s, a] = need
    if st.an_food[s, a] > need:
        st.an_food[s, a] = need


# ---------------------------------------------------------------- traits and links


@jit
def full_mask(st, s, a) -> np.int64:
    """Every trait of ``a`` as a bitmask (single traits, Fat Tissue, paired traits)."""
    m = st.an_tr[s, a]
    if st.an_fat_cards[s, a] > 0:
        m |= np.int64(1) << FAT_TISSUE
    if st.an_links[s, a] > 0:
        for l in range(st.n_ln[s]):
            if st.ln_a[s, l] == a or st.ln_b[s, l] == a:
                m |= np.int64(1) << (COMMUNICATION + st.ln_kind[s, l])
    return m


@jit
def trait_cards(st, s, a) -> np.int64:
    """Trait cards on ``a`` (each Fat Tissue and each paired card it joins counts one)."""
    return popcount(st.an_tr[s, a]) + st.an_fat_cards[s, a] + st.an_links[s, a]


@jit
def has_link(st, s, kind, a, b) -> bool:
    """The pair {a, b} already carries a paired trait of ``kind``."""
    for l in range(st.n_ln[s]):
        if st.ln_kind[s, l] == kind:
            x, y = st.ln_a[s, l], st.ln_b[s, l]
            if (x == a and y == b) or (x == b and y == a):
                return True
    return False


@jit
def add_link(st, s, kind, a, b) -> None:
    l = st.n_ln[s]
    st.ln_kind[s, l] = kind
    st.ln_a[s, l] = a
    st.ln_b[s, l] = b
    st.ln_used[s, l] = 0
    st.ln_armed[s, l] = 0
    st.ln_also[s, l] = 0
    st.n_ln[s] = l + 1
    st.an_links[s, a] += 1
    st.an_links[s, b] += 1
    if kind == LINK_SYMB:
        st.an_prot[s, b] += 1


@jit
def remove_link(st, s, l) -> None:
    """Take link ``l`` off the table (the caller discards its card)."""
    a, b = st.ln_a[s, l], st.ln_b[s, l]
    st.an_links[s, a] -= 1
    st.an_links[s, b] -= 1
    if st.ln_kind[s, l] == LINK_SYMB:
        st.an_prot[s, b] -= 1
    last = st.n_ln[s] - 1
    for k in range(l, last):
        st.ln_kind[s, k] = st.ln_kind[s, k + 1]
        st.ln_a[s, k] = st.ln_a[s, k + 1]
        st.ln_b[s, k] = st.ln_b[s, k + 1]
        st.ln_used[s, k] = st.ln_used[s, k + 1]
        st.ln_armed[s, k] = st.ln_armed[s, k + 1]
        st.ln_also[s, k] = st.ln_also[s, k + 1]
    st.n_ln[s] = last


@jit
def new_animal(st, s) -> np.int64:
    """A new animal at the right end of ``s``'s row; returns its index."""
    a = st.n_an[s]
    st.an_tr[s, a] = 0
    st.an_fat_cards[s, a] = 0
    st.an_fat[s, a] = 0
    st.an_food[s, a] = 0
    st.an_need[s, a] = 1
    st.an_flags[s, a] = 0
    st.an_links[s, a] = 0
    st.an_prot[s, a] = 0
    st.n_an[s] = a + 1
    return a


@jit
def remove_animal(st, s, a) -> np.int64:
    """Discard ``a`` with all its traits and every paired trait joined to it, into its owner's
    pile (a Parasite too); returns the cards discarded."""
    cards = 1 + popcount(st.an_tr[s, a]) + st.an_fat_cards[s, a]
    l = np.int64(0)
    while l < st.n_ln[s]:
        if st.ln_a[s, l] == a or st.ln_b[s, l] == a:
            remove_link(st, s, l)
            cards += 1
        else:
            l += 1
    last = st.n_an[s] - 1
    for k in range(a, last):
        st.an_tr[s, k] = st.an_tr[s, k + 1]
        st.an_fat_cards[s, k] = st.an_fat_cards[s, k + 1]
        st.an_fat[s, k] = st.an_fat[s, k + 1]
        st.an_food[s, k] = st.an_food[s, k + 1]
        st.an_need[s, k] = st.an_need[s, k + 1]
        st.an_flags[s, k] = st.an_flags[s, k + 1]
        st.an_links[s, k] = st.an_links[s, k + 1]
        st.an_prot[s, k] = st.an_prot[s, k + 1]
    st.n_an[s] = last
    for l in range(st.n_ln[s]):
        if st.ln_a[s, l] > a:
            st.ln_a[s, l] -= 1
        if st.ln_b[s, l] > a:
            st.ln_b[s, l] -= 1
    st.discard_n[s] += cards
    return cards


@jit
def drop_trait(tb, st, s, a, trait, link) -> None:
    """Discard one trait card of ``a`` (Tail Loss): a single trait, one Fat Tissue (its fat
    token, if the others cannot hold it, goes back) or paired card ``link`` (off both
    animals). Food beyond a smaller need goes back to the supply."""
    if trait == FAT_TISSUE:
        st.an_fat_cards[s, a] -= 1
        if st.an_fat[s, a] > st.an_fat_cards[s, a]:
            st.an_fat[s, a] = st.an_fat_cards[s, a]
    elif trait >= COMMUNICATION:
        remove_link(st, s, link)
    else:
        st.an_tr[s, a] &= ~(np.int64(1) << trait)
        set_need(tb, st, s, a)
    st.discard_n[s] += 1


@jit
def n_droppable(tb, st, s, a) -> np.int64:
    """Trait cards Tail Loss may drop from ``a`` (distinct choices)."""
    m = st.an_tr[s, a]
    if not tb.tail_parasite:
        m &= ~B_PARA
    c = popcount(m) + (1 if st.an_fat_cards[s, a] > 0 else 0)
    if tb.tail_parasite and st.an_links[s, a] > 0:
        c += st.an_links[s, a]
    return c


@jit
def kth_droppable(tb, st, s, a, k) -> tuple[np.int64, np.int64]:
    """The ``k``-th choice of :func:`n_droppable` as (trait, link index or 0): single traits by
    id, then Fat Tissue, then the paired cards in link order."""
    m = st.an_tr[s, a]
    if not tb.tail_parasite:
        m &= ~B_PARA
    for t in range(N_TRAITS):
        if m >> t & 1:
            if k == 0:
                return np.int64(t), np.int64(0)
            k -= 1
    if st.an_fat_cards[s, a] > 0:
        if k == 0:
            return np.int64(FAT_TISSUE), np.int64(0)
        k -= 1
    for l in range(st.n_ln[s]):
        if st.ln_a[s, l] == a or st.ln_b[s, l] == a:
            if k == 0:
                return np.int64(COMMUNICATION + st.ln_kind[s, l]), np.int64(l)
            k -= 1
    return np.int64(-1), np.int64(0)


# ---------------------------------------------------------------- attacks


@jit
def burrowed(tb, st, o, t) -> bool:
    """A fed burrower (hibernating counts as fed when ``hib_burrow``)."""
    if st.an_food[o, t] >= st.an_need[o, t]:
        return True
    return tb.hib_burrow != 0 and (st.an_flags[o, t] & F_HIB) != 0


@jit
def target_ok(tb, st, s, a, o, t) -> bool:
    """Carnivore (s, a) may attack (o, t) as far as the target's passive traits go: not itself;
    Swimming on both or neither; High Body Weight only by High Body Weight; Camouflage only
    with Sharp Vision; not a fed burrower; not a Symbiosis partner while its symbiont lives."""
    if o == s and t == a:
        return False
    ta = st.an_tr[o, t]
    aa = st.an_tr[s, a]
    if (ta ^ aa) & B_SWIM:
        return False
    if ta & B_HBW and not aa & B_HBW:
        return False
    if ta & B_CAMO and not aa & B_SHARP:
        return False
    if ta & B_BURROW and burrowed(tb, st, o, t):
        return False
    return st.an_prot[o, t] == 0


@jit
def link_target(st, s, l, back) -> np.int64:
    """The animal armed link ``l`` would feed: away from the end that triggered it first, or,
    with ``back``, towards it (it was triggered from the other end too)."""
    if (st.ln_armed[s, l] == 1) != (back != 0):
        return np.int64(st.ln_b[s, l])
    return np.int64(st.ln_a[s, l])


@jit
def can_pass(tb, st, s, l, x) -> bool:
    """Link ``l`` can pass its food on to ``x`` now."""
    if st.ln_kind[s, l] == LINK_COMM:
        return red_ok(tb, st, s, x)
    return room(st, s, x, YES) > 0


@jit
def link_ways(tb, st, s, l) -> np.int64:
    """How armed link ``l`` can pass food on now: bit 1 away from its first trigger, bit 2
    back (triggered from both ends, with ``paired_direction=either``); 0 when it cannot."""
    if st.ln_armed[s, l] == 0:
        return 0
    w = np.int64(0)
    if can_pass(tb, st, s, l, link_target(st, s, l, NO)):
        w |= 1
    if st.ln_also[s, l] and tb.link_either and can_pass(tb, st, s, l, link_target(st, s, l, YES)):
        w |= 2
    return w


@jit
def arm(st, s, a, red: bool) -> None:
    """``a`` received a token: arm its unused Cooperation links, and its Communication links
    when the token was red from the bank. A link armed from its other end remembers this
    trigger too (``ln_also``; whether it counts is ``paired_direction``)."""
    if st.an_links[s, a] == 0:
        return
    for l in range(st.n_ln[s]):
        if st.ln_used[s, l]:
            continue
        k = st.ln_kind[s, l]
        if k == LINK_SYMB or (k == LINK_COMM and not red):
            continue
        if st.ln_armed[s, l]:
            if link_target(st, s, l, NO) == a:
                st.ln_also[s, l] = 1
        elif st.ln_a[s, l] == a:
            st.ln_armed[s, l] = 1
        elif st.ln_b[s, l] == a:
            st.ln_armed[s, l] = 2
