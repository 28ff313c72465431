"""How strong a bot is: the win share of lineup position 0 against a field, seats rotated."""

from __future__ import annotations

import numpy as np

from simulate.kit.play import columns


def position_share(game, lineup: str, n: int, games: int, seed: int) -> tuple[float, float]:
    """Lineup position 0's mean win share (a shared win counts 1/k) over ``games`` rotated
    games of ``lineup``, and its standard error clustered by deal (the rotated games of one
    deal); ``games`` a multiple of ``n``."""
    setup = game.setup(game.parameters(), n, lineup)
    logs = columns(setup, seed, True, 0, games, detail=False)
    won = logs.players.winner.reshape(games, n).astype(float)
    share = won / np.maximum(won.sum(axis=1, keepdims=True), 1.0)
    y = share[logs.players.strategy.reshape(games, n) == 0]  # lineup position 0 in every game
    deals = np.arange(games) // n
    sums = np.bincount(deals, weights=y)
    sizes = np.bincount(deals)
    c = len(sums)
    se = np.sqrt(((sums - sizes * y.mean()) ** 2).sum() * c / (c - 1)) / y.size
    return float(y.mean()), float(se)
