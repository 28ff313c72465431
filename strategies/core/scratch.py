"""The bots' scratch: a bot's scratch array laid out by name, and spare states only for search.

A compiled bot that must allocate nothing per decision keeps its working values in a flat
array the game state lends it. :func:`scratch_layout` declares that array's regions once, by
name and length (``need=MAX_PLAYERS, stakes=MAX_ANIMALS``), places them one after another and
returns their start offsets as a named tuple the compiled code reads as constants
(``st.bot_f[F.stakes + a]``). It refuses a layout that does not fit its array, so raising a
game limit such as ``MAX_ANIMALS`` past what the state lends fails at import, by name, rather
than writing over the next region.

The search bots play games out on spare states, the ``worlds`` field of the game's scratch
record; no other bot touches them. :func:`scratch_dtype` leaves them out of the record of a
lineup without a search bot, and a game's one ``choose`` reaches its search bots through
:func:`search_bots`, which calls them only where the record has them: numba compiles a kernel
for each record type it receives, so a run of cheap bots compiles (and caches) a kernel without
the search bots, about a third less to compile (``docs/benchmarks.md``, *A first compile
without the search bots*).
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import numpy as np

WORLDS = "worlds"
"""The scratch record's field of spare states, which only the search bots use."""
NOT_DECLARED = "a search bot played without spare states: declare it with searches=True"


def scratch_layout(array: str, size: int, **regions: int) -> Any:
    """Start offsets of ``regions`` (name: length, in order) packed into ``array`` of ``size``.

    Raises ``ValueError`` naming the array when a length is negative or the regions together
    need more than ``size`` slots."""
    bad = [name for name, length in regions.items() if length < 0]
    if bad:
        raise ValueError(f"{array}: negative length for {', '.join(bad)}")
    need = sum(regions.values())
    if need > size:
        lengths = ", ".join(f"{name} {length}" for name, length in regions.items())
        raise ValueError(f"{array}: the layout needs {need} slots ({lengths}); it has {size}")
    starts, at = [], 0
    for length in regions.values():
        starts.append(at)
        at += length
    return collections.namedtuple(f"{array}_layout", list(regions))(*starts)


def scratch_dtype(full: np.dtype, searches: bool) -> np.dtype:
    """The scratch record of a lineup: ``full`` where it plays a search bot, else ``full``
    without its :data:`WORLDS` (one unused byte where nothing else is left)."""
    if searches:
        return full
    kept = [(name, full.fields[name][0]) for name in full.names if name != WORLDS]
    return np.dtype(kept or [("unused", np.uint8)], align=True)


def search_bots(play: Callable[..., Any]) -> Callable[..., Any]:
    """The game's call of its search bots, ``play(lineup, j, tb, st, seat, scratch)``, where the
    scratch record has spare states (:data:`WORLDS`); where it has none, a call that raises (a
    search bot not declared as one, ``StrategyInfo.searches``). Compiled, the choice is made by
    the record's type, so a kernel given the record without spare states has no search bot in
    it. The call is compiled on its own, not inlined: numba's inlining of a typed overload
    corrupted the kernel's rows."""
    from numba.extending import overload

    def searched(lineup, j, tb, st, seat, scratch):
        if WORLDS not in scratch.dtype.names:
            raise RuntimeError(NOT_DECLARED)
        return play(lineup, j, tb, st, seat, scratch)

    @overload(searched)
    def _typed(lineup, j, tb, st, seat, scratch):
        if WORLDS in scratch.fields:

            def typed(lineup, j, tb, st, seat, scratch):
                return play(lineup, j, tb, st, seat, scratch)

        else:

            def typed(lineup, j, tb, st, seat, scratch):
                if lineup.ids[j] >= 0:  # always: the condition keeps the type int64
                    raise RuntimeError(NOT_DECLARED)
                return np.int64(-1)

        return typed

    searched.__doc__ = play.__doc__
    return searched
