"""Restrictable options of Dinosaur Table Battles (restricted play, Jaffe et al. 2012).

``OPTIONS``: the three reaction kinds, then every dino of the provisional pool by name
(drafting it = placing it in the draft; using it = attacking with it or placing dice on it;
Treetops is Brachiosaurus's). A bot forbidden an option never takes an action that uses it
unless every legal action of the decision does. A designer's card file may name other dinos:
those have no option (``option_of`` gives -1 for them).
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit_inline
from rules.table_battles.constants import (
    ATTACK,
    D_PLACE,
    DRAFT,
    PLACE,
    REACT,
    RK_ABSORB,
    RK_BLOCK,
    RK_COUNTER,
)

REACTION_OPTIONS = ("absorb", "block", "counter")
DINO_OPTIONS = (
    "stegosaurus",
    "triceratops",
    "utahraptor",
    "velociraptors",
    "pteranodon",
    "spinosaurus",
    "tyrannosaurus-rex",
    "brachiosaurus",
    "pachycephalosaurus",
    "stygimoloch",
    "deinocheirus",
    "therizinosaurus",
    "quetzalcoatlus",
    "microraptor",
    "mosasaurus",
    "elasmosaurus",
)
OPTIONS: tuple[str, ...] = REACTION_OPTIONS + DINO_OPTIONS
OPT_ABSORB, OPT_BLOCK, OPT_COUNTER = 0, 1, 2


def slug(name: str) -> str:
    return "-".join(name.lower().split())


def dino_option(name: str) -> int:
    """The option id of the dino called ``name``, or -1."""
    s = slug(name)
    return OPTIONS.index(s) if s in DINO_OPTIONS else -1


@jit_inline
def option_of(tb, st, action: int) -> np.int64:
    """The option the pending decision's ``action`` uses, or -1 when it uses none."""
    if action < 0:
        return np.int64(-1)
    kind = st.kind
    s = st.actor
    if kind == DRAFT:
        if (action & 0xFFFF) == D_PLACE:
            return np.int64(tb.d_option[action >> 16])
        return np.int64(-1)
    if kind == ATTACK:
        card = st.slot_card[s, action >> 16]
        return np.int64(tb.d_option[tb.c_dino[card]])
    if kind == PLACE:
        card = st.slot_card[s, action >> 16]
        return np.int64(tb.d_option[tb.c_dino[card]])
    if kind == REACT:
        card = st.slot_card[s, action]
        rk = tb.c_rkind[card]
        if rk == RK_ABSORB:
            return np.int64(OPT_ABSORB)
        if rk == RK_BLOCK:
            return np.int64(OPT_BLOCK)
        if rk == RK_COUNTER:
            return np.int64(OPT_COUNTER)
        return np.int64(tb.d_option[tb.c_dino[card]])  # Treetops: Brachiosaurus's passive
    return np.int64(-1)
