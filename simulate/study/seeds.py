"""Seeds a study plays: the search's blocks and a re-measurement seed that shares none of their
games."""

from __future__ import annotations

MASK = 2**64 - 1


def fresh_seed(seed: int) -> int:
    """The seed of the final re-measurement, whose games the search never plays.

    Game ``i`` of seed ``s`` is keyed by ``mix64(s + (i + 1) * GOLDEN)``
    (:func:`rules.core.rng.game_key`), so a seed that differs from ``s`` by a multiple of
    ``GOLDEN`` replays ``s``'s games shifted (``s + GOLDEN`` is ``s`` one game on). The fresh
    seed is the splitmix64 output of ``s`` with a constant: its offset from ``s`` is a
    pseudo-random 64-bit number, a multiple ``k * GOLDEN`` with ``|k|`` below 10^12 games only
    by a 1 in 10^7 chance (checked for the seed in use: :func:`shares_games`)."""
    z = (seed ^ 0xD1B54A32D192ED03) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


GOLDEN = 0x9E3779B97F4A7C15


def game_offset(a: int, b: int) -> int:
    """``k`` such that game ``i`` of seed ``b`` is game ``i + k`` of seed ``a`` (seeds whose
    games are the same up to a shift), as the signed number nearest 0."""
    k = ((b - a) * pow(GOLDEN, -1, 2**64)) & MASK
    return k - 2**64 if k >= 2**63 else k


def shares_games(a: int, b: int, games: int) -> bool:
    """Seeds ``a`` and ``b`` have a game in common among their first ``games``."""
    return abs(game_offset(a, b)) < games
