"""Recording each game's compile plan, and running a first compile's helper.

``python -m simulate.kit.compile_plans record [--stale] [GAME ...]`` (``make compile-plans``)
compiles each game's kernel in a fresh process on an empty cache (one game a core) and keeps
the functions it compiled, in order, with their nesting and seconds, as the game's plan
(:mod:`simulate.kit.parallel_compile`). ``help GAME PLAN PART PARTS PARENT`` is a helper process.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numba

from rules.core.errors import DinolabError
from simulate.kit.parallel_compile import (
    helping,
    kernel_digest,
    load_plan,
    plan_file,
    read,
    recorded_from_current_sources,
)
from simulate.kit.spec import GameSpec


def record(game: GameSpec, path: Path | None = None) -> int:
    """Compile ``game``'s kernel in a fresh process on an empty cache and write what it
    compiled to its plan (``path``, else :func:`plan_file`). Returns the number of entries."""
    path = path or plan_file(game)
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "DINOLAB_CACHE_DIR": cache, "DINOLAB_COMPILE_HELPERS": "0"}
        cmd = [sys.executable, "-m", "simulate.kit.compile_plans", "observe", game.name]
        subprocess.run([*cmd, str(path)], env=env, check=True)
    return len(pickle.loads(read(path)["entries"]))


def _observe(game: GameSpec, path: Path) -> None:
    """Compile ``game``'s kernel here (on an empty cache) and write its plan to ``path``."""
    from numba.core import caching, event

    from simulate.kit.play import warmup

    entries: list[tuple[str, str, tuple, int, float]] = []
    open_: list[list[float]] = []  # [start, seconds of the compiles inside] per open compile

    class Recorder(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            open_.append([time.perf_counter(), 0.0])

        def on_end(self, ev: event.Event) -> None:
            began, inside = open_.pop()
            took = time.perf_counter() - began
            if open_:
                open_[-1][1] += took
            fn = ev.data["dispatcher"]
            if fn is not game.kernel and not isinstance(fn._cache, caching.NullCache):
                py, depth = fn.py_func, len(open_)
                entries.append(
                    (py.__module__, py.__qualname__, ev.data["args"], depth, took - inside)
                )

    setup = game.setup(game.parameters(), game.demo.players, game.demo.strategy)
    with event.install_listener("numba:compile", Recorder()):
        warmup(setup)
    saved = {"digest": kernel_digest(game), "numba": numba.__version__}
    path.write_bytes(pickle.dumps({**saved, "entries": pickle.dumps(entries)}))


def _end_with_parent(parent: int) -> None:
    """A helper ends when the process it helps does, even killed (Linux: the kernel sends it
    SIGTERM), so a killed run leaves no compile behind."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # ended before the line above
        raise SystemExit(0)


def main(argv: list[str]) -> None:
    """``record [--stale] [GAME ...]``: record every game's plan (or the games named;
    ``--stale``: only plans recorded from other sources). ``help GAME PLAN PART PARTS PARENT``
    runs a helper for process ``PARENT``, ``observe GAME PLAN`` the compile :func:`record`
    starts."""
    from simulate.games import all_games, get_game

    command, rest = argv[0], argv[1:]
    if command == "help":
        _end_with_parent(int(rest[4]))
        plan = load_plan(get_game(rest[0]), Path(rest[1]))
        with helping(plan):
            plan.compile_all(int(rest[2]), int(rest[3]))
    elif command == "observe":
        _observe(get_game(rest[0]), Path(rest[1]))
    elif command == "record":
        only_stale = "--stale" in rest
        names = [n for n in rest if n != "--stale"]
        games = [get_game(n) for n in names] or all_games()
        games = [g for g in games if not only_stale or not recorded_from_current_sources(g)]
        with ThreadPoolExecutor(max(1, os.cpu_count() or 1)) as pool:  # one compile a core
            for game, n in zip(games, pool.map(record, games), strict=True):
                print(f"{game.name}: {n} functions in {plan_file(game)}", flush=True)
    else:
        raise DinolabError(f"unknown command '{command}' (known: record, help, observe)")


if __name__ == "__main__":
    try:
        main(sys.argv[1:] or ["record"])
    except DinolabError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
