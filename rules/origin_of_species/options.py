"""Restrictable options of Origin of Species (restricted play, Jaffe et al. 2012).

An option is "animal" (playing a card as a new animal) or a trait by name: playing that trait
in development and actively using it in feeding (attacking with Carnivore, converting Fat
Tissue, Hibernation, Piracy, Grazing; Running, Mimicry and Tail Loss in defence;
Communication and Cooperation when their owner chooses which fires; Scavenger when it chooses
which scavenger eats). A bot forbidden an option chooses it only when every legal action of
the decision uses a forbidden option; passing, ending a turn, red tokens and accepting an
attack use none.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit
from rules.origin_of_species.constants import (
    CARNIVORE,
    COMMUNICATION,
    DEFEND,
    DEVELOP,
    FAT_TISSUE,
    FEED,
    GRAZING,
    HIBERNATION,
    LINK,
    MIMICRY,
    OP_ANIMAL,
    OP_ATTACK,
    OP_FAT,
    OP_GRAZE,
    OP_HIBERNATE,
    OP_MIMIC,
    OP_PIRACY,
    OP_RUN,
    OP_TAIL,
    OP_TOP,
    PIRACY,
    RUNNING,
    SCAVENGE,
    SCAVENGER,
    TAIL_LOSS,
    TRAITS,
)

OPTIONS: tuple[str, ...] = ("animal", *TRAITS)
"""Option ids: 0 = "animal", 1 + trait id = that trait."""
ANIMAL_OPTION = 0


@jit
def option_of(tb, st, action) -> np.int64:
    """The option id ``action`` uses for the pending decision, or -1 when it uses none."""
    if action < 0:
        return np.int64(-1)
    op = np.int64(action) >> 32
    kind = st.kind
    if kind == DEVELOP:
        if op == OP_ANIMAL:
            return np.int64(ANIMAL_OPTION)
        ty = (np.int64(action) >> 24) & 0xFF
        tr = tb.type_top[ty] if op == OP_TOP else tb.type_bot[ty]
        return np.int64(1 + tr)
    if kind == FEED:
        if op == OP_ATTACK:
            return np.int64(1 + CARNIVORE)
        if op == OP_FAT:
            return np.int64(1 + FAT_TISSUE)
        if op == OP_HIBERNATE:
            return np.int64(1 + HIBERNATION)
        if op == OP_PIRACY:
            return np.int64(1 + PIRACY)
        if op == OP_GRAZE:
            return np.int64(1 + GRAZING)
        return np.int64(-1)
    if kind == DEFEND:
        if op == OP_RUN:
            return np.int64(1 + RUNNING)
        if op == OP_MIMIC:
            return np.int64(1 + MIMICRY)
        if op == OP_TAIL:
            return np.int64(1 + TAIL_LOSS)
        return np.int64(-1)
    if kind == LINK:
        s = st.actor
        l = np.int64(action) & 0xFF
        return np.int64(1 + COMMUNICATION + st.ln_kind[s, l])
    if kind == SCAVENGE:
        return np.int64(1 + SCAVENGER)
    return np.int64(-1)
