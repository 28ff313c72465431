"""EVO's vocabulary as small integers: terrains, climate zones, genes, decisions, limits.

Names follow the spec (``shared/rules/evo.md``); the Hungarian rulebook (the seed) is the
authority where the two differ. Every code here is what the compiled engine and the logs use.
"""

from __future__ import annotations

MIN_PLAYERS = 3
MAX_PLAYERS = 5
"""The seed sets up maps for 3, 4 and 5 players."""

TERRAINS = ("desert", "plains", "hills", "mountains")
"""Hottest to coldest (seed: yellow, green, brown, grey); a terrain's code is its index."""
DESERT, PLAINS, HILLS, MOUNTAINS = range(4)

ZONES = ("temperate", "warm", "cold", "scorching", "freezing")
TEMPERATE, WARM, COLD, SCORCHING, FREEZING = range(5)

GENES = ("tail", "leg", "horn", "egg", "fur", "parasol", "mutation", "card")
"""Gene kinds in the order of the spec's table; codes index ``genes`` in the engine state."""
TAIL, LEG, HORN, EGG, FUR, PARASOL, MUTATION, CARD = range(8)
N_GENES = 8

# What advance() stops for. Actions are one int64: -1 = pass/stop, else (a << 16) | b.
NO_DECISION = 0
CARD_PLAY = 1  # play an event card (card << 16 | target) or pass
MOVE = 2  # move/attack (from << 16 | to) or stop
PLACE = 3  # put a newborn on a region
CULL = 4  # choose a dino that dies in a cold or warm zone
BID = 5  # bid (row << 16 | value) or pass (only where passing is allowed)
ROUND_DONE = 6  # not a decision: a round ended, its counters can be logged
GAME_OVER = 7
PASS = -1

MAX_REGIONS = 160
"""Largest map (region numbers are int16 in the kernel)."""
MAX_DEGREE = 12
"""Most neighbours of one region."""
MAX_DINOS = 16
"""Largest ``dinos_per_player`` (the box holds 10 per colour)."""
MAX_BAG = 160
"""Most gene tiles in the bag."""
MAX_CYCLE = 12
"""Longest climate track."""
MAX_SPACES = 64
"""Longest meteor track."""
MAX_ROWS = MAX_PLAYERS
"""Genes on the bidding board at once."""


def pack(a: int, b: int) -> int:
    """The action ``(a, b)`` as one integer (the engine and bots use the jitted twin)."""
    return (a << 16) | b
