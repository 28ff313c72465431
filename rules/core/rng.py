"""Counter-based randomness: every game draws from streams keyed by (root seed, game index).

Game ``i`` of a run is therefore identical whatever the chunk size, worker count or backend, and
can be replayed alone from ``(seed, i)``.

* :func:`game_key` turns (seed, index) into a 64-bit key with splitmix64, exactly as the C speed
  yardstick in ``shared/bench`` does, so the two can be cross-checked game by game.
* Each game has several independent xorshift64* streams held in a small ``uint64`` array:
  stream 0 is *chance* (shuffles, dice), streams ``1 + seat`` belong to the bots. Keeping bots
  off the chance stream means changing a bot never changes the deal or the dice of a game
  (common random numbers for paired comparisons).

All arithmetic is on ``np.uint64`` so that numba and plain Python (``NUMBA_DISABLE_JIT=1``) give
the same bits; callers of interpreted kernels should silence numpy's overflow warnings with
``np.errstate(over="ignore")`` because wrap-around is intended.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit_inline

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_STAR = np.uint64(0x2545F4914F6CDD1D)
_STREAM = np.uint64(0xD1B54A32D192ED03)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S12 = np.uint64(12)
_S25 = np.uint64(25)
_S32 = np.uint64(32)
_S11 = np.uint64(11)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
CHANCE = 0
"""Index of the chance stream; bot streams follow at ``1 + seat``."""


@jit_inline
def mix64(z: np.uint64) -> np.uint64:
    """The splitmix64 output function."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@jit_inline
def game_key(seed: np.uint64, index: np.uint64) -> np.uint64:
    """The key of game ``index`` in a run seeded with ``seed`` (never zero)."""
    x = mix64(seed + index * GOLDEN + GOLDEN)
    if x == _ZERO:
        x = _ONE
    return x


@jit_inline
def seed_streams(rng: np.ndarray, key: np.uint64, bot_key: np.uint64) -> None:
    """Fill ``rng``: slot 0 with the chance stream of ``key``, slots 1.. with bot streams.

    ``bot_key`` keys the bot streams; it differs from ``key`` when several games share one deal
    (seat rotation), so that the bots of each rotation still draw independently.
    """
    rng[0] = key
    for s in range(1, rng.shape[0]):
        x = mix64(bot_key ^ (np.uint64(s) * _STREAM))
        if x == _ZERO:
            x = _ONE
        rng[s] = x


@jit_inline
def next_u64(rng: np.ndarray, k: int) -> np.uint64:
    """Next 64-bit output of xorshift64* stream ``k``."""
    v = rng[k]
    v ^= v >> _S12
    v ^= v << _S25
    v ^= v >> np.uint64(27)
    rng[k] = v
    return v * _STAR


@jit_inline
def bounded(rng: np.ndarray, k: int, n: int) -> int:
    """Uniform integer in ``[0, n)`` by Lemire's multiply-shift (``n`` < 2**32)."""
    return np.int64(((next_u64(rng, k) >> _S32) * np.uint64(n)) >> _S32)


@jit_inline
def uniform(rng: np.ndarray, k: int) -> float:
    """Uniform float in ``[0, 1)`` with 53 random bits."""
    return np.float64(next_u64(rng, k) >> _S11) * (1.0 / 9007199254740992.0)


@jit_inline
def shuffle(a: np.ndarray, rng: np.ndarray, k: int) -> None:
    """Fisher-Yates shuffle of ``a`` in place, drawing from stream ``k`` (inlined: games
    shuffle arrays of different types, and one cached function with several signatures
    would be written by two games compiling at once; see ``simulate.executors``)."""
    for i in range(a.shape[0] - 1, 0, -1):
        j = bounded(rng, k, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t
