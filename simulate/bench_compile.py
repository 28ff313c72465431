"""``dinolab bench GAME --compile``: a game's first compile, timed on an empty cache.

Each row compiles the game's benchmark setup in a fresh process on an empty kernel cache,
once with the helper processes a first compile starts (one per other core,
:mod:`simulate.kit.parallel_compile`) and once alone (``DINOLAB_COMPILE_HELPERS=0``), one
after the other. The time is the compile alone, from the kernel's first call to its return
(what a first run waits for beyond its usual start).
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
import sys
import tempfile

from simulate.games import get_game
from simulate.kit.parallel_compile import helper_count, load_plan

COLD = """
import sys, time
from simulate.games import get_game
from simulate.kit.play import warmup
game = get_game(sys.argv[1])
setup = game.setup(game.parameters(), game.bench.players, game.bench.lineup)
t = time.perf_counter()
warmup(setup)
print(time.perf_counter() - t)
"""


def cold_compile_seconds(game_name: str, helpers: int) -> float:
    """Seconds of ``game_name``'s first compile in a fresh process on an empty cache, with
    ``helpers`` helper processes."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "DINOLAB_CACHE_DIR": cache, "DINOLAB_COMPILE_HELPERS": str(helpers)}
        cmd = [sys.executable, "-c", COLD, game_name]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def run_compile_bench(game_name: str) -> str:
    """A game's first compile with its helpers and alone; a Markdown section."""
    game = get_game(game_name)
    plan = load_plan(game)
    helpers = helper_count() if plan.entries else 0
    rows = []
    if helpers:
        label = f"with {helpers} helper{'s' if helpers > 1 else ''}"
        rows.append((label, cold_compile_seconds(game.name, helpers)))
    rows.append(("one process", cold_compile_seconds(game.name, 0)))
    alone = rows[-1][1]
    table = ["| compile | wall | against one process |", "|---|---|---|"]
    table += [f"| {label} | {s:.1f} s | {alone / s:.2f}x |" for label, s in rows]
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if not plan.entries:
        state = "no compile plan (`make compile-plans`), so no helpers"
    elif plan.fresh:
        state = f"its compile plan: {len(plan.entries)} functions"
    else:
        state = f"a stale compile plan of {len(plan.entries)} functions (`make compile-plans`)"
    head = (
        f"### `dinolab bench {game_name} --compile`\n\n"
        f"{when}; {platform.node()}; {cores} cores; Python {platform.python_version()}; "
        f"`{game.bench.lineup}` x{game.bench.players} compiled on an empty cache; {state}\n\n"
    )
    return head + "\n".join(table)
