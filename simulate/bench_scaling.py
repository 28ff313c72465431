"""``dinolab bench GAME --scaling``: the same run at 1, 2, 4 ... workers, up to the machine's cores.

Each row is a whole ``dinolab simulate`` in a subprocess (every table written, the game's
benchmark lineup, kernels compiled beforehand), so it includes what a user waits for: starting
the workers, loading their kernels, writing the logs. The speed-up is over one worker, the
efficiency the speed-up divided by the workers. ``--backend threads`` adds a row with a
thread of this process per core, ``--backend dask`` one with a local Dask cluster of as many
workers as cores. The last column is the game's kernel alone, on as many threads at once as
the row has workers (:func:`simulate.bench.at_once_rate`, the best of two), over one thread.
Cores that share caches, a memory bus or a host scale less than their number even with
nothing else to do; a run's efficiency is read against that.

A machine with fewer cores than the target's cannot show 16 workers; what it can show is
printed beside the times: the chunk plan (how many chunks each of 16 workers would get, which
depends on the run alone) and how long a run takes to start.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import shutil
import tempfile
from pathlib import Path

from simulate.backends import check_backend
from simulate.bench import at_once_rate, measure_simulate
from simulate.config import build_config
from simulate.games import get_game
from simulate.kit.play import warmup
from simulate.progress import rate_text

PLAN_WORKERS = 16
"""The worker count whose chunk plan is printed whatever the machine (issue 25's target)."""


def worker_counts(cores: int) -> list[int]:
    """1, 2, 4 ... and ``cores`` itself when it is not a power of two."""
    counts, w = [], 1
    while w < cores:
        counts.append(w)
        w *= 2
    return [*counts, cores]


def chunk_plan(chunks: int, workers: int) -> str:
    """How ``chunks`` equal chunks fall on ``workers``: ``'32 chunks: 2 per worker'`` or
    ``'20 chunks: 1 or 2 per worker (2 waves, 4 chunks in the last)'``."""
    low, extra = divmod(chunks, workers)
    if extra == 0:
        return f"{chunks} chunks: {low} per worker"
    if low == 0:
        return f"{chunks} chunks: {workers - chunks} of {workers} workers idle"
    return (
        f"{chunks} chunks: {low} or {low + 1} per worker "
        f"({low + 1} waves, {extra} chunks in the last)"
    )


def run_scaling_bench(game_name: str, games: int | None = None, backend: str = "local") -> str:
    """Time the game's scaling workload at each worker count; a Markdown section."""
    check_backend(backend)
    game = get_game(game_name)
    bench = game.bench
    n = games or bench.scaling_games
    cores = os.cpu_count() or 1
    config, setup = build_config(
        game.name,
        n_players=bench.players,
        strategies=bench.lineup,
        rotate=True,
        seed=1,
        games=n,
        chunk_size=None,
    )
    warmup(setup)  # compiled once here, so every row loads the kernels from the cache

    def simulate(out: Path, games_: int, *extra: str) -> float:
        """Wall seconds of one run into ``out``, removed after (Dino Kontra Dino's workload
        writes 2.6 GB)."""
        args = [game.name, "-n", str(games_), "-p", str(bench.players), "-s", bench.lineup]
        seconds = measure_simulate([*args, "--seed", "1", "--out", str(out), *extra])[0]
        shutil.rmtree(out, ignore_errors=True)
        return seconds

    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        start = simulate(Path(tmp) / "start", 1_000)
        for w in worker_counts(cores):
            rows.append(
                (
                    f"{w} worker{'s' if w > 1 else ''}",
                    simulate(Path(tmp) / f"w{w}", n, "--workers", str(w)),
                )
            )
        if backend != "local":
            rows.append(
                (
                    f"{backend}, {cores} workers",
                    simulate(Path(tmp) / backend, n, "--backend", backend, "--workers", str(cores)),
                )
            )
    at_once = {
        w: max(at_once_rate(setup, bench.kernel_games, w) for _ in range(2))
        for w in worker_counts(cores)
    }
    one = rows[0][1]
    table = [
        "| run | wall | games/s | speed-up over 1 worker | efficiency | kernels alone at once |",
        "|---|---|---|---|---|---|",
    ]
    for label, seconds in rows:
        workers = int(label.split()[-2] if "," in label else label.split()[0])
        speedup = one / seconds
        table.append(
            f"| {label} | {seconds:.1f} s | {rate_text(n / seconds)} | {speedup:.2f}x "
            f"| {speedup / workers:.0%} | {at_once[workers] / at_once[1]:.2f}x |"
        )
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    head = (
        f"### `dinolab bench {game_name} --scaling"
        + (f" --games {games}" if games else "")
        + (f" --backend {backend}" if backend != "local" else "")
        + "`\n\n"
        f"{when}; {platform.node()}; {cores} cores; Python {platform.python_version()}; "
        f"{n:,} games of `{bench.lineup}` x{bench.players}, every table\n\n"
    )
    notes = (
        f"\n\nChunks of {config.chunk_size:,} games; on {PLAN_WORKERS} workers: "
        f"{chunk_plan(config.n_chunks, PLAN_WORKERS)}. A 1,000-game run starts and finishes "
        f"in {start:.1f} s."
    )
    return head + "\n".join(table) + notes
