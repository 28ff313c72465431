"""The kernels give identical results compiled and as plain Python (NUMBA_DISABLE_JIT=1)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = """
import hashlib, sys
from simulate.games import get_game
from simulate.kit.play import play
g = get_game("dkd")
h = hashlib.sha256()
for players, lineup, games in (
    (5, "greedy,random,blind,cautious,cautious[aim=0.5,figure=3]", 300),
    (3, "montecarlo[rollouts=2],greedy,blind[memory=0]", 4),
):
    setup = g.setup(g.parameters().with_values({"first_holder": "-1"}), players, lineup)
    for name, table in sorted(play(setup, 42, True, 0, games).items()):
        h.update(name.encode())
        h.update(repr(table.to_pydict()).encode())
print(h.hexdigest())
"""


def run(disable_jit: bool) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_DISABLE_JIT": "1" if disable_jit else "0"}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.slow
def test_compiled_equals_interpreted():
    compiled, interpreted = run(False), run(True)
    assert len(compiled) == len(hashlib.sha256().hexdigest())
    assert compiled == interpreted
