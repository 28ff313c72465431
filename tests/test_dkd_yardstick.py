"""The compiled kernel against the plain C yardstick (shared/bench), game for game.

With the yardstick's deck, 4 players, greedy bots and seat 0 holding the figure first, our
kernel must reproduce the C program's winner, length and event counts of every game: the same
RNG, deal, bot, tie-break and scoring.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from simulate.games import get_game
from simulate.games.dino_kontra_dino.yardstick import SOURCE as YARDSTICK_SOURCE
from simulate.games.dino_kontra_dino.yardstick import build as build_yardstick
from simulate.kit.play import columns

pytestmark = pytest.mark.skipif(
    shutil.which("gcc") is None or not YARDSTICK_SOURCE.is_file(),
    reason="needs gcc and ../shared/bench/dkd_reference.c",
)


def test_kernel_matches_the_c_yardstick_game_for_game(tmp_path):
    exe = build_yardstick(tmp_path)
    n, seed = 3000, 20261129
    out = subprocess.run(
        [str(exe), str(n), str(seed), str(n)], capture_output=True, text=True, check=True
    ).stdout
    c_games = np.array(
        [list(map(int, line.split()[2:])) for line in out.splitlines() if line.startswith("G ")]
    )
    g = get_game("dkd")
    setup = g.setup(g.parameters().with_values({"deck": "yardstick"}), 4, "greedy")
    logs = columns(setup, seed, False, 0, n)
    ours = np.column_stack(
        [logs.games.winner_seat, logs.games.rounds, logs.players.events_won.reshape(n, 4)]
    )
    assert c_games.shape == ours.shape
    mismatch = np.nonzero((c_games != ours).any(axis=1))[0]
    assert mismatch.size == 0, f"first differing game: {mismatch[:5]}"
