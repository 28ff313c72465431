"""Event cards in the compiled engine: which may be played now, their targets, their effects.

Card numbers are 1-26 (see :mod:`rules.evo.cards`); a hand is a bit mask with bit ``n - 1``
for card ``n``. Timing choices the seed leaves open follow the spec (section 10.3) and are
listed in ``DEVIATIONS.md``.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit
from rules.core.rng import bounded
from rules.evo.board import kill, set_climate
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
from rules.evo.constants import PARASOL
from rules.evo.state import (
    CHANCE,
    E_BIG_BROTHER,
    E_GENE_GUARD,
    E_GIANT,
    E_HEAT_SKIN,
    E_INSTINCT,
    E_NEOPRENE,
    E_OVERFLIER,
    E_TOUGH_YOUNG,
    E_WANDERERS,
    emit_card,
)

ONE = np.int64(1)


@jit
def card_bit(number: int) -> np.int64:
    """The hand-mask bit of card ``number``."""
    return ONE << (number - 1)


@jit
def cards_open(tb, st) -> bool:
    """Cards may be played: not in the first rounds, not after Alvógén."""
    return st.rnd >= tb.no_card_rounds and st.sleep == 0


@jit
def has_victim(tb, st, seat: int, newborn: bool) -> bool:
    """Another player has at least ``victim_min`` dinos (and, if ``newborn``, one placed this
    round)."""
    for q in range(tb.n_players):
        if q == seat or st.n_dinos[q] < tb.victim_min:
            continue
        if not newborn:
            return True
        for k in range(st.n_dinos[q]):
            if st.fresh[st.pieces[q, k]]:
                return True
    return False


@jit
def playable(tb, st, seat: int, window: int) -> np.int64:
    """Mask of the cards ``seat`` may play in ``window`` now (0 when none)."""
    if not cards_open(tb, st):
        return np.int64(0)
    m = st.hand[seat] & ~st.locked[seat] & tb.window_mask[window]
    if m == 0:
        return m
    if st.climate_used >= tb.climate_cards:
        m &= ~tb.climate_mask
    if m & card_bit(WEATHER_SWAP) and tb.twin[st.climate] < 0:
        m &= ~card_bit(WEATHER_SWAP)  # only on green or brown (see DEVIATIONS.md)
    if m & card_bit(ACCIDENT) and not has_victim(tb, st, seat, False):
        m &= ~card_bit(ACCIDENT)
    if m & card_bit(CHANGELING) and (
        st.n_dinos[seat] >= tb.max_dinos or not has_victim(tb, st, seat, True)
    ):
        m &= ~card_bit(CHANGELING)
    return m


@jit
def reaction_holder(tb, st) -> int:
    """The seat that may answer the card just played with Osztódás, or -1."""
    if st.react < 0 or not cards_open(tb, st):
        return -1
    b = card_bit(DOUBLING)
    for s in range(tb.n_players):
        if s != st.react_by and st.hand[s] & ~st.locked[s] & b:
            return s
    return -1


@jit
def targets(tb, st, seat: int, card: int, k: int) -> int:
    """With ``k`` < 0 the number of targets card ``card`` has for ``seat``; else the ``k``-th.

    Baleset: regions of another player's dinos; Kire ütött: their newborns (both only for
    players with at least ``victim_min`` dinos); Meteorológus-gén: die faces 1-6; Védelmi gáz:
    another seat; every other card has the single target 0.
    """
    count = 0
    if card == ACCIDENT or card == CHANGELING:  # noqa: SIM109
        for q in range(tb.n_players):
            if q == seat or st.n_dinos[q] < tb.victim_min:
                continue
            for i in range(st.n_dinos[q]):
                r = st.pieces[q, i]
                if card == CHANGELING and not st.fresh[r]:
                    continue
                if count == k:
                    return r
                count += 1
        return count
    if card == WEATHER_GENE:
        return 6 if k < 0 else k + 1
    if card == TRUCE:
        for q in range(tb.n_players):
            if q == seat:
                continue
            if count == k:
                return q
            count += 1
        return count
    return 1 if k < 0 else 0


@jit
def lose_points(st, seat: int, amount: int) -> None:
    """Túlélőgén: lose up to ``amount`` points, never below 0."""
    take = min(max(st.points[seat], 0), amount)
    st.points[seat] -= take
    st.penalty[seat] += take


@jit
def play_card(tb, st, seat: int, card: int, target: int, window: int) -> None:
    """``seat`` plays ``card`` (number) on ``target``: the card leaves its hand, takes effect,
    and becomes the card Osztódás may take."""
    b = card_bit(card)
    st.hand[seat] &= ~b
    st.played[seat] += 1
    emit_card(st, seat=seat, card=card, window=window, target=target)
    if card == SLEEP:
        st.sleep = 1
    elif card == ACCIDENT:
        kill(st, target, 2)
    elif card == WEATHER_SWAP:
        st.climate_used += 1
        st.climate_card = card
        if tb.twin[st.climate] >= 0:
            set_climate(tb, st, tb.twin[st.climate])
    elif card == ME_FIRST:
        i = 0
        while st.order[i] != seat:
            i += 1
        while i > 0:
            st.order[i] = st.order[i - 1]
            i -= 1
        st.order[0] = seat
    elif card == OVERFLIER:
        st.eff[seat] |= E_OVERFLIER
    elif card == GENE_GUARD:
        st.eff[seat] |= E_GENE_GUARD
    elif card == FROST:
        st.fur_minus += 1
    elif card == RAYS:
        st.parasol_minus += 1
    elif card == MISSING_LINK:
        st.missing_link = 1
    elif card == HEAT_SKIN:
        st.eff[seat] |= E_HEAT_SKIN
    elif card == CATASTROPHE:
        st.climate_used += 1
        st.climate_card = card
        st.catastrophe = 1
    elif card == TOUGH_YOUNG:
        st.eff[seat] |= E_TOUGH_YOUNG
    elif card == CHANGELING:
        kill(st, target, 2)
        k = st.n_dinos[seat]
        st.owner[target] = seat
        st.slot[target] = k
        st.pieces[seat, k] = target
        st.n_dinos[seat] = k + 1
        st.fresh[target] = 1
        st.born[seat] += 1
    elif card == WEATHER_GENE:
        st.climate_used += 1
        st.climate_card = card
        st.forced_roll = target
    elif card == BIG_BROTHER:
        st.eff[seat] |= E_BIG_BROTHER
    elif card == GIANT:
        st.eff[seat] |= E_GIANT
    elif card == INSTINCT:
        st.eff[seat] |= E_INSTINCT
    elif card == NEOPRENE:
        st.eff[seat] |= E_NEOPRENE
    elif card == NO_BIRTHS:
        st.no_births = 1
    elif card == SURVIVAL_GENE:
        for q in range(tb.n_players):
            if q != seat:
                lost = st.died_climate[q]
                if tb.survival_all:
                    lost += st.died_combat[q] + st.died_card[q]
                lose_points(st, q, lost)
    elif card == WANDERERS:
        st.eff[seat] |= E_WANDERERS
    elif card == SURPRISE:
        st.bonus[seat] += tb.surprise_points
    elif card == PEACE:
        st.peace = 1
    elif card == TRUCE:
        st.truce[seat] = target
        st.truce[target] = seat
    elif card == FLOOD:
        for r in range(tb.n_regions):
            q = st.owner[r]
            if q >= 0 and tb.coast[r]:
                roll = 1 + bounded(st.rng, CHANCE, 6) + st.genes[q, PARASOL]
                if roll <= tb.flood_dies_up_to:
                    kill(st, r, 2)
    if card != DOUBLING:
        st.react = card - 1
        st.react_by = seat


@jit
def take_card(st, seat: int) -> None:
    """Osztódás: ``seat`` takes the card just played; it may play it from next round."""
    card = st.react + 1
    st.hand[seat] &= ~card_bit(DOUBLING)
    st.hand[seat] |= card_bit(card)
    st.locked[seat] |= card_bit(card)
    st.seen[seat] |= card_bit(card)
    st.played[seat] += 1
    emit_card(st, seat=seat, card=DOUBLING, window=st.window, target=card, reaction=1)
    st.react = -1
