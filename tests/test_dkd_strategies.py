"""The strength ladder, as statistical tests with fixed seeds and tolerances in standard errors.

Each bot plays against three ``greedy`` bots with seats rotated (so every bot meets every seat
on the same deals). Under the null hypothesis "as strong as greedy" its win share is 1/4; the
tests ask for a gap of at least five cluster-robust standard errors.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulate.games import get_game
from simulate.kit.play import columns

GAME = get_game("dkd")
Z = 5.0


def share_vs_greedy(bot: str, games: int, seed: int = 2026) -> tuple[float, float]:
    setup = GAME.setup(GAME.parameters(), 4, f"{bot},greedy,greedy,greedy")
    logs = columns(setup, seed, True, 0, games, detail=False)
    won = logs.players.winner.reshape(games, 4).astype(float)
    share = won / won.sum(axis=1, keepdims=True)
    y = share[logs.players.strategy.reshape(games, 4) == 0]  # lineup position 0 in every game
    deals = np.arange(games) // 4  # rotated games share a deal: one cluster
    sums = np.bincount(deals, weights=y)
    sizes = np.bincount(deals)
    c = len(sums)
    se = np.sqrt(((sums - sizes * y.mean()) ** 2).sum() * c / (c - 1)) / y.size
    return y.mean(), se


@pytest.mark.parametrize("bot", ["random", "blind"])
def test_uninformed_bots_lose_to_greedy(bot):
    mean, se = share_vs_greedy(bot, 20_000)
    assert mean < 0.25 - Z * se


def test_rotation_makes_identical_deterministic_bots_exactly_fair():
    # Each deal is played once per rotation by the same four greedy bots: every lineup
    # position sits in every seat of every deal, so its win share is exactly 1/4, not merely
    # within sampling error of it.
    mean, se = share_vs_greedy("greedy", 20_000)
    assert mean == pytest.approx(0.25, abs=1e-12) and se == pytest.approx(0.0, abs=1e-12)


def test_cautious_default_edges_out_greedy():
    mean, se = share_vs_greedy("cautious", 200_000)
    assert mean > 0.25 + Z * se


def test_montecarlo_beats_greedy():
    mean, se = share_vs_greedy("montecarlo", 4_000)
    assert mean > 0.25 + Z * se
