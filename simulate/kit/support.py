"""Compiled helpers every chunk kernel uses: seeding a game, seat rotation, claiming log rows.

A chunk kernel has the signature ``kernel(*inputs, seed, rotate, start, first, stop, logs)``: it
plays games ``first .. stop-1`` of the chunk that starts at ``start`` and returns the index of
the first game it did not play. A game with tables that grow (``expected_rows``) calls
:func:`room` before each game and returns early when one might overflow; the kit grows the
buffers and calls again from there. Games are independent, so this never changes a row. The
other tables are allocated for the whole chunk, and a kernel without growing tables need not
check (the kit still verifies afterwards that no table went past its capacity).

Game ``gid`` is keyed by ``(seed, gid)``. With seat rotation the P games ``k*P .. k*P+P-1``
share one deal (chance stream keyed by ``(seed, k)``; bot streams by ``(seed, gid)``) and rotate
the lineup one seat each: lineup position ``j`` sits at seat ``(j + gid % P) % P``.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit_inline
from rules.core.rng import game_key, seed_streams


@jit_inline
def start_game(rng, n: int, seed, gid: int, rotate: bool) -> int:
    """Seed game ``gid``'s streams (chance, then one per seat) into ``rng``; return its rotation."""
    key = game_key(seed, np.uint64(gid // n if rotate else gid))
    seed_streams(rng[: 1 + n], key, game_key(seed, np.uint64(gid)) if rotate else key)
    return gid % n if rotate else 0


@jit_inline
def position(seat: int, rot: int, n: int) -> int:
    """The lineup position whose bot sits at ``seat`` in a game rotated by ``rot``."""
    return seat - rot if seat >= rot else seat - rot + n


@jit_inline
def room(logs) -> bool:
    """Every table that grows has room for one more game (the others were allocated for the
    whole chunk; ``logs.meta`` holds every table's row counts, ``logs.watch`` the growing ones)."""
    meta = logs.meta
    for i in range(logs.watch.shape[0]):
        t = logs.watch[i]
        if meta[t, 0] + meta[t, 2] > meta[t, 1]:
            return False
    return True


@jit_inline
def logging(t) -> bool:
    """The table is being logged (detail tables are off in the no-log benchmark)."""
    return t.meta[1] > 0


@jit_inline
def claim(t) -> int:
    """The next free row of table ``t`` (the caller fills it)."""
    r = t.meta[0]
    t.meta[0] = r + 1
    return r
