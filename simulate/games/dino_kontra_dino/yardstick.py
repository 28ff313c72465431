"""The plain C Dino Kontra Dino kernel in ``shared/bench``: the speed yardstick.

``dinolab bench dkd`` compiles it with ``gcc -O2`` and runs it in the same session as the numba
kernel on the same deck and bots, so the ratio between the two means something on a noisy
machine. The tests also check the two play the very same games (``tests/test_dkd_yardstick.py``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SOURCE = ROOT.parent / "shared" / "bench" / "dkd_reference.c"


def available() -> bool:
    return SOURCE.is_file() and shutil.which("gcc") is not None


def build(folder: Path) -> Path:
    """Compile the C yardstick with ``gcc -O2`` into ``folder``."""
    exe = Path(folder) / "dkd_reference"
    subprocess.run(["gcc", "-O2", "-o", str(exe), str(SOURCE)], check=True)
    return exe


def c_rate(exe: Path, games: int) -> float:
    """Games per second of the C program (its own measurement) for ``games`` games."""
    out = subprocess.run([str(exe), str(games), "1"], capture_output=True, text=True, check=True)
    return float(re.search(r"games_per_s=([0-9.]+)", out.stdout).group(1))


def bench_rows(n_games: int) -> list[tuple[str, str]]:
    """C and numba on the yardstick's deck and bots, best of several runs each, and the ratio."""
    from simulate.games import get_game
    from simulate.kit.play import kernel_seconds
    from simulate.progress import rate_text

    if not available():
        return [("C yardstick", f"skipped: needs gcc and {SOURCE}")]
    game = get_game("dkd")
    setup = game.setup(game.parameters().with_values({"deck": "yardstick"}), 4, "greedy")
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(Path(tmp))
        c = max(c_rate(exe, n_games) for _ in range(3))
    ours = max(n_games / kernel_seconds(setup, n_games, False) for _ in range(5))
    return [
        ("C yardstick (same deck and bots, no logs), 1 core", rate_text(c)),
        ("kernel on the yardstick's deck, no logs, 1 core", rate_text(ours)),
        ("ratio kernel / C", f"{ours / c:.2f}"),
    ]
