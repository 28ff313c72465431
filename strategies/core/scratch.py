"""A bot's scratch array laid out by name.

A compiled bot that must allocate nothing per decision keeps its working values in a flat
array the game state lends it. :func:`scratch_layout` declares that array's regions once, by
name and length (``need=MAX_PLAYERS, stakes=MAX_ANIMALS``), places them one after another and
returns their start offsets as a named tuple the compiled code reads as constants
(``st.bot_f[F.stakes + a]``). It refuses a layout that does not fit its array, so raising a
game limit such as ``MAX_ANIMALS`` past what the state lends fails at import, by name, rather
than writing over the next region.
"""

from __future__ import annotations

import collections
from typing import Any


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
