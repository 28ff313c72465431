"""Board primitives of the EVO engine: dinos on regions, climate zones, combat.

Every function takes the :data:`~rules.evo.state.TABLE` record ``tb`` and/or the
:data:`~rules.evo.state.STATE` record ``st`` and is compiled with :data:`rules.core.jit.jit`.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit
from rules.core.rng import bounded
from rules.evo.constants import COLD, FUR, HORN, PARASOL, WARM
from rules.evo.state import (
    E_BIG_BROTHER,
    E_GIANT,
    E_HEAT_SKIN,
    E_NEOPRENE,
    S_COMBAT,
    emit_combat,
    emit_death,
)

UNLIMITED = 1 << 20


@jit
def add_dino(st, seat: int, r: int) -> None:
    """Put one of ``seat``'s dinos from its supply on the empty region ``r``."""
    k = st.n_dinos[seat]
    st.owner[r] = seat
    st.slot[r] = k
    st.pieces[seat, k] = r
    st.n_dinos[seat] = k + 1


@jit
def remove_dino(st, r: int) -> None:
    """Return the dino on ``r`` to its owner's supply."""
    seat = st.owner[r]
    k = st.slot[r]
    last = st.n_dinos[seat] - 1
    moved = st.pieces[seat, last]
    st.pieces[seat, k] = moved
    st.slot[moved] = k
    st.n_dinos[seat] = last
    st.owner[r] = -1
    st.fresh[r] = 0


@jit
def kill(st, r: int, cause: int) -> None:
    """Remove the dino on ``r`` and count the loss (0 climate, 1 combat, 2 card)."""
    seat = st.owner[r]
    if cause == 0:
        st.died_climate[seat] += 1
    elif cause == 1:
        st.died_combat[seat] += 1
    else:
        st.died_card[seat] += 1
    emit_death(st, seat=seat, region=r, cause=cause)
    remove_dino(st, r)


@jit
def move_dino(st, frm: int, to: int) -> None:
    """Move the dino on ``frm`` to the empty region ``to``."""
    seat = st.owner[frm]
    k = st.slot[frm]
    st.pieces[seat, k] = to
    st.slot[to] = k
    st.owner[to] = seat
    st.fresh[to] = st.fresh[frm]
    st.owner[frm] = -1
    st.fresh[frm] = 0


@jit
def set_climate(tb, st, field: int) -> None:
    """Put the climate marker on ``field`` and work out every region's zone."""
    st.climate = field
    for r in range(tb.n_regions):
        st.rzone[r] = tb.zone[field, tb.terrain[r]]


@jit
def zone_of(tb, st, r: int) -> int:
    """Climate zone of region ``r`` this round (constants.TEMPERATE ...)."""
    return st.rzone[r]


@jit
def allowance(st, seat: int, zone: int) -> int:
    """How many of ``seat``'s dinos may survive in the cold (furs) or warm (parasols) zone."""
    if zone == COLD:
        if st.eff[seat] & E_NEOPRENE:
            return UNLIMITED
        return max(0, st.genes[seat, FUR] - st.fur_minus)
    if zone == WARM:
        if st.eff[seat] & E_HEAT_SKIN:
            return UNLIMITED
        return max(0, st.genes[seat, PARASOL] - st.parasol_minus)
    return UNLIMITED


@jit
def attack_horns(tb, st, seat: int, extra: int) -> int:
    """Effective horns of ``seat`` attacking (Óriásgén; ``extra`` for a tough newborn)."""
    h = st.genes[seat, HORN] + extra
    if st.eff[seat] & E_GIANT:
        h += tb.giant_horns
    return h


@jit
def defence_horns(tb, st, seat: int) -> int:
    """Effective horns of ``seat`` defending (Nagytestvér)."""
    h = st.genes[seat, HORN]
    if st.eff[seat] & E_BIG_BROTHER:
        h += tb.big_brother_horns
    return h


@jit
def win_up_to(tb, diff: int) -> int:
    """The attacker wins on a roll up to this for horn difference ``diff`` (0: no attack)."""
    k = diff + 2
    if k < 0:
        k = 0
    if k > 4:
        k = 4
    return tb.combat_odds[k]


@jit
def attack_odds(tb, st, att: int, dfd: int, extra: int) -> int:
    """Winning faces for ``att`` attacking ``dfd`` (0 when the attack is not allowed: Vegetáriánus
    étrend, a truce, or too few horns)."""
    if st.peace or st.truce[att] == dfd:
        return 0
    return win_up_to(tb, attack_horns(tb, st, att, extra) - defence_horns(tb, st, dfd))


@jit
def fight(tb, st, att: int, r: int, extra: int, phase: int) -> bool:
    """``att`` attacks the dino on ``r``: the attacker rolls; log it; return True if it won.

    Removes nobody: the caller moves or places the winner and removes the loser.
    """
    dfd = st.owner[r]
    ah = attack_horns(tb, st, att, extra)
    dh = defence_horns(tb, st, dfd)
    roll = 1 + bounded(st.rng, S_COMBAT, 6)
    won = roll <= win_up_to(tb, ah - dh)
    emit_combat(
        st,
        attacker_seat=att,
        defender_seat=dfd,
        attacker_horns=ah,
        defender_horns=dh,
        roll=roll,
        attacker_won=np.int64(won),
        region=r,
        phase=phase,
    )
    return won
