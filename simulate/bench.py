"""``dinolab bench``: kernel and end-to-end throughput, measured the same way every time.

* Kernel: one core, the game's benchmark lineup, with and without the log buffers, played in
  the game's chunk size into fresh buffers as a run plays it; the best of five repetitions
  (machines are noisy; the best run is the least disturbed one).
* Kernel on every core at once: the same, one thread a core (the kernels release the GIL),
  the best of three. Cores that share a memory bus, caches or a host do less together than
  their number times one core; this row is what the cores give with nothing else to do, and
  each end-to-end row says how close it comes.
* Each game's spec may add rows (``Bench.extra``): Dino Kontra Dino compiles and runs the plain
  C yardstick (``shared/bench/dkd_reference.c``) in the same session, so the ratio to C is
  meaningful even on a noisy machine.
* Interpreted: the same kernel under ``NUMBA_DISABLE_JIT=1`` (subprocess), for the speed-up.
* End to end: ``dinolab simulate`` with every table logged, all cores, in a subprocess; wall
  time, its rate against the cores' logged kernel rate, the bytes of its Parquet parts a
  game, and the peak resident memory of the whole process tree (sampled from ``/proc``). The
  best of up to three runs, as many as fit in a minute: the kernel rate it is compared with is
  a best repetition too, and one run against a best of five read the machine's noise as
  overhead.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from rules.core.errors import DinolabError
from simulate.games import get_game
from simulate.kit.play import kernel_seconds, warmup
from simulate.progress import rate_text

if TYPE_CHECKING:
    from simulate.config import RunConfig
    from simulate.kit.spec import Bench, Setup
    from simulate.study.sweep import Measurer, Sweep

ROOT = Path(__file__).resolve().parents[1]


def _interpreted_rate(game: str, lineup: str, players: int, games: int) -> float:
    script = (
        "import time\n"
        "from simulate.games import get_game\n"
        "from simulate.kit.play import play_logs\n"
        f"g = get_game({game!r}); s = g.setup(g.parameters(), {players}, {lineup!r})\n"
        "t = time.perf_counter()\n"
        f"play_logs(s, 1, False, 0, {games})\n"
        f"print({games} / (time.perf_counter() - t))\n"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    return float(out.stdout.split()[-1])


def _tree_rss(root_pid: int) -> int:
    """Resident bytes of ``root_pid`` and all its descendants (Linux /proc)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            pid = int(stat.parent.name)
            parents[pid] = int(fields[1])
            rss[pid] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    tree, frontier = {root_pid}, [root_pid]
    while frontier:
        p = frontier.pop()
        for child, parent in parents.items():
            if parent == p and child not in tree:
                tree.add(child)
                frontier.append(child)
    return sum(rss.get(p, 0) for p in tree)


def measure_simulate(args: list[str]) -> tuple[float, int]:
    """Wall seconds and peak tree RSS (bytes) of ``dinolab simulate <args>``."""
    cmd = [sys.executable, "-m", "simulate.entry", "simulate", *args, "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak = [0]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            stop.wait(0.1)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    _, err = proc.communicate()
    seconds = time.perf_counter() - t0
    stop.set()
    thread.join()
    if proc.returncode != 0:
        raise DinolabError(f"bench: simulate failed: {err.decode().strip()}")
    return seconds, peak[0]


E2E_RUNS = 3
E2E_BUDGET = 60.0
"""End to end: the best of at most :data:`E2E_RUNS` runs, another one started only when it
would end within this many seconds of the first (a 70-second EVO run is timed once)."""


def best_simulate(args: list[str]) -> tuple[float, int, int]:
    """The fastest wall time of up to :data:`E2E_RUNS` runs of ``dinolab simulate <args>
    --force`` within :data:`E2E_BUDGET`, the highest peak tree RSS, and how many ran."""
    times: list[float] = []
    peak = 0
    while len(times) < E2E_RUNS and sum(times) + (min(times) if times else 0) <= E2E_BUDGET:
        seconds, rss = measure_simulate([*args, "--force"])
        times.append(seconds)
        peak = max(peak, rss)
    return min(times), peak, len(times)


def at_once_rate(setup: Setup, n_games: int, threads: int) -> float:
    """Games a second of ``threads`` kernels playing ``n_games`` each at the same time, every
    log buffer on: the games over the slowest thread's kernel time (each thread has its own
    buffers; the kernels release the GIL)."""
    start = threading.Barrier(threads)

    def play(_: int) -> float:
        start.wait()
        return kernel_seconds(setup, n_games, True)

    with ThreadPoolExecutor(threads) as pool:
        return threads * n_games / max(pool.map(play, range(threads)))


def run_bench(game_name: str, games: int | None = None) -> str:
    """Run every measurement and return a Markdown section with the figures and the commands."""
    game = get_game(game_name)
    bench = game.bench
    lineup, players = bench.lineup, bench.players
    n_e2e = games or 1_000_000
    n_kernel = bench.kernel_games
    setup = game.setup(game.parameters(), players, lineup)
    warmup(setup)
    rows: list[tuple[str, str]] = []

    def best(log: bool) -> float:
        return max(n_kernel / kernel_seconds(setup, n_kernel, log) for _ in range(5))

    kernel_nolog = best(False)
    kernel_log = best(True)
    rows.append((f"kernel, {lineup} x{players}, no logs, 1 core", rate_text(kernel_nolog)))
    rows.append((f"kernel, {lineup} x{players}, all log buffers, 1 core", rate_text(kernel_log)))
    cores = os.cpu_count() or 1
    together = max(at_once_rate(setup, n_kernel, cores) for _ in range(3))
    rows.append(
        (
            f"kernel, all log buffers, {cores} cores at once (one thread each)",
            f"{rate_text(together)}: {together / (cores * kernel_log):.0%} of {cores} x 1 core",
        )
    )
    if bench.extra is not None:
        rows.extend(bench.extra(n_kernel))
    n_interp = bench.interpreted_games
    interp = _interpreted_rate(game.name, lineup, players, n_interp)
    rows.append((f"interpreted (NUMBA_DISABLE_JIT=1), {n_interp} games", rate_text(interp)))
    rows.append(("compiled speed-up over interpreted", f"{kernel_log / interp:,.0f}x"))
    args = [game.name, "--games", str(n_e2e), "--players", str(players), "--strategy", lineup]
    args += ["--seed", "1"]
    with tempfile.TemporaryDirectory() as tmp:
        seconds, peak, runs = best_simulate([*args, "--out", str(Path(tmp) / "run")])
        parts = sum(p.stat().st_size for p in (Path(tmp) / "run").glob("*/part-*.parquet"))
    rate = n_e2e / seconds
    rows.append(
        (
            f"end to end: simulate {n_e2e:,} games, every table, {cores} workers"
            + (f" (best of {runs} runs)" if runs > 1 else ""),
            f"{seconds:.1f} s wall, {rate_text(rate)}",
        )
    )
    rows.append(
        (
            f"end to end against {cores} cores' logged kernel rate",
            f"{rate / (cores * kernel_log):.0%} ({rate / together:.0%} of the cores at once)",
        )
    )
    rows.append(("Parquet parts on disk", f"{parts / n_e2e:.1f} bytes a game"))
    rows.append(("peak resident memory of the process tree", f"{peak / 2**20:,.0f} MiB"))
    with tempfile.TemporaryDirectory() as tmp:
        out = ["--out", str(Path(tmp) / "run"), "--backend", "threads"]
        seconds, _, runs = best_simulate([*args, *out])
    rate = n_e2e / seconds
    rows.append(
        (
            f"the same with --backend threads ({cores} threads, no worker processes)"
            + (f", best of {runs} runs" if runs > 1 else ""),
            f"{seconds:.1f} s wall, {rate_text(rate)}, {rate / (cores * kernel_log):.0%} of "
            f"{cores} cores' logged kernel rate ({rate / together:.0%} of the cores at once)",
        )
    )
    title = f"### `dinolab bench {game_name}" + (f" --games {games}" if games else "") + "`"
    return bench_section(title, cores, rows)


def bench_section(title: str, cores: int, rows: list[tuple[str, str]]) -> str:
    """A bench's Markdown section: ``title``, when and on which machine, and the table of
    ``rows`` (measure, value)."""
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    head = (
        f"{title}\n\n"
        f"{when}; {platform.node()}; {cores} cores; Python {platform.python_version()}\n\n"
        "| measure | value |\n|---|---|\n"
    )
    return head + "\n".join(f"| {k} | {v} |" for k, v in rows)


def run_study_bench(game_name: str, make_measurer, games: int | None = None) -> str:
    """The study benchmark of a game (its ``Bench.study`` knobs), for its default metrics and
    for the shared ones (the games and players tables only): the kernel-only time of the
    sweep's games (the same configurations and log buffers, one core's time divided by the
    cores) against the sweep through warm workers (started and loaded by a small sweep
    before), and the whole ``dinolab sweep`` command from a cold start (report included).
    ``make_measurer(setup, metrics)``: the CLI's metrics (``simulate`` never imports
    ``reports``)."""
    game = get_game(game_name)
    bench = game.bench
    if not bench.study:
        raise DinolabError(f"{game.name} declares no study benchmark")
    n = games or bench.study_games
    cores = os.cpu_count() or 1
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, names in (("default metrics", None), ("shared metrics", SHARED_METRICS)):
            measurer = make_measurer(_study_config(game.name, bench, n)[1], names)
            rows += _metric_set_rows(game.name, bench, n, cores, label, measurer, Path(tmp))
        seconds = _cold_sweep_seconds(game.name, bench, n, Path(tmp) / "cli")
        record = json.loads((Path(tmp) / "cli" / "study.json").read_text())
        total = len(record["points"]) * n
        alone = _cold_seconds(_simulate_args(game.name, bench, total, Path(tmp) / "one"))
        rows += [
            (
                "`dinolab sweep` (default metrics) from a cold start: workers started, "
                "kernels loaded, report written",
                f"{seconds:.1f} s",
            ),
            (
                f"`dinolab simulate` of the same {total:,} games in one run, every table, "
                "from a cold start",
                f"{alone:.1f} s: the sweep takes {seconds / alone:.2f}x",
            ),
        ]
    title = f"### `dinolab bench {game_name} --study`" + (f" (`--games {games}`)" if games else "")
    return bench_section(title, cores, rows)


def _study_config(
    game_name: str, bench: Bench, games_per_point: int, chunk: int | None = None
) -> tuple[RunConfig, Setup]:
    """The study benchmark's base configuration: the bench lineup, seed 1, not rotated."""
    from simulate.config import build_config

    return build_config(
        game_name,
        n_players=bench.players,
        strategies=bench.lineup,
        rotate=False,
        seed=1,
        games=games_per_point,
        chunk_size=chunk,
    )


def _study_sweep(
    game_name: str,
    bench: Bench,
    params: Sequence[str],
    games_per_point: int,
    measurer: Measurer,
    out: Path,
    chunk: int | None = None,
) -> Sweep:
    """A fresh grid sweep over ``params`` (``--param`` specs) in ``out``, logging the tables
    ``measurer`` needs."""
    from simulate.study.sweep import plan_sweep

    return plan_sweep(
        _study_config(game_name, bench, games_per_point, chunk),
        params=list(params),
        design="grid",
        samples=None,
        assignments=[],
        rules_file=None,
        tables=measurer.tables,
        metrics=measurer.names,
        out=str(out),
        resume=False,
        force=False,
    )


def _metric_set_rows(
    game_name: str,
    bench: Bench,
    n: int,
    cores: int,
    label: str,
    measurer: Measurer,
    tmp: Path,
) -> list[tuple[str, str]]:
    """The study benchmark's rows for one metric set: the sweep's kernel-only time against
    the sweep through warm workers."""
    sweep = _study_sweep(game_name, bench, bench.study, n, measurer, tmp / f"timed-{label}")
    log = set(measurer.tables) != {"games", "players"}
    kernel = 0.0
    for p in sweep.points:
        warmup(p.setup)
        kernel += min(kernel_seconds(p.setup, n, log) for _ in range(2))
    study = _warm_sweep_seconds(game_name, bench, sweep, measurer, cores, tmp / f"warm-{label}")
    return [
        (
            f"{label} ({', '.join(measurer.tables)}): {len(sweep.points)} points x {n:,} "
            f"games ({', '.join(bench.study)}); kernel only over {cores} cores",
            f"{kernel / cores:.2f} s ({kernel:.2f} s on one core)",
        ),
        (
            f"{label}: the sweep through {cores} warm workers (played, written, measured)",
            f"{study:.2f} s, {study * cores / kernel:.2f}x the kernel-only time",
        ),
    ]


def _warm_sweep_seconds(
    game_name: str, bench: Bench, sweep: Sweep, measurer: Measurer, cores: int, warm_out: Path
) -> float:
    """Seconds ``sweep`` takes through ``cores`` workers, every one started and its kernels
    loaded first by a small sweep of many small chunks (in ``warm_out``)."""
    from simulate.executors import ProcessExecutor
    from simulate.study.sweep import run_sweep

    executor = ProcessExecutor(cores)
    try:
        first = bench.study[0].split("..")[0].split(",")[0]
        warm = _study_sweep(game_name, bench, [first], 8 * cores * 50, measurer, warm_out, 50)
        run_sweep(warm, executor, measurer)
        t0 = time.perf_counter()
        run_sweep(sweep, executor, measurer)
        return time.perf_counter() - t0
    finally:
        executor.close()


def _cold_sweep_seconds(game_name: str, bench: Bench, n: int, out: Path) -> float:
    """Wall seconds of the whole ``dinolab sweep`` command of the study benchmark, from a
    cold start (a subprocess), writing into ``out``."""
    params = [a for spec in bench.study for a in ("--param", spec)]
    return _cold_seconds(["sweep", game_name, *params, *_lineup_args(bench, n, out)])


def _simulate_args(game_name: str, bench: Bench, n: int, out: Path) -> list[str]:
    """``dinolab simulate`` of ``n`` games of the bench lineup into ``out``, every table."""
    return ["simulate", game_name, *_lineup_args(bench, n, out)]


def _lineup_args(bench: Bench, n: int, out: Path) -> list[str]:
    return [
        "-n",
        str(n),
        "-p",
        str(bench.players),
        "-s",
        bench.lineup,
        "--no-progress",
        "--out",
        str(out),
    ]


def _cold_seconds(args: list[str]) -> float:
    """Wall seconds of ``dinolab ARGS`` from a cold start (a subprocess)."""
    cmd = [sys.executable, "-m", "simulate.entry", *args]
    t0 = time.perf_counter()
    subprocess.run(
        cmd, check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    return time.perf_counter() - t0


SHARED_METRICS = ("balance", "seat_gap", "seat_share", "length", "shared", "strategy_share")
"""The study benchmark's second metric set: those the games and players tables give."""
