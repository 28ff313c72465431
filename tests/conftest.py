"""Shared fixtures: small runs made once per session, and an in-process CLI runner."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from simulate.cli import main

# Under pytest-xdist the test processes already fill the cores: a run without --workers plays
# in its test's process instead of starting a pool (tests of pools pass --workers themselves).
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("DINOLAB_WORKERS", "1")

SLOWEST_COMPILE_FIRST = ("origin-of-species", "evo", "table-battles", "dino-kontra-dino")
_played: dict[str, object] = {}


def pytest_collection_modifyitems(config, items):
    """Note the games whose conformance tests run (the games this session plays)."""
    for item in items:
        spec = getattr(item, "callspec", None)
        module = getattr(getattr(item, "module", None), "__name__", "")
        if module.endswith("test_conformance") and spec and "game" in spec.params:
            game = spec.params["game"]
            _played[game.name] = game


def share(names: list, worker: int, workers: int) -> list:
    """Worker ``worker``'s share of ``names`` (slowest first), dealt back and forth so that
    the slow ones spread: with 2 workers, the first and fourth to one, the second and third to
    the other."""
    mine = []
    for i, name in enumerate(names):
        row, col = divmod(i, workers)
        if (col if row % 2 == 0 else workers - 1 - col) == worker:
            mine.append(name)
    return mine


@pytest.fixture(scope="session", autouse=True)
def kernels_compiled_side_by_side():
    """Before its first test, each test process compiles its share of the kernels the session
    plays, where this machine has not compiled them (20-60 s of a core each): every game's
    kernel without the search bots, slowest first, then those with them. Each kernel then
    compiles once, and the processes compile different ones at the same time. Otherwise each
    compiles in whichever test plays it first, and a process that needs a kernel another
    process is compiling waits on its compile lock, with its core idle."""
    from simulate.kit.compiled import is_compiled
    from simulate.kit.play import warmup

    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    slowest = list(SLOWEST_COMPILE_FIRST)  # a game not listed yet comes last
    names = sorted(_played, key=lambda n: (slowest.index(n) if n in slowest else len(slowest), n))
    kernels = [(n, False) for n in names] + [(n, True) for n in names if _search_bot(_played[n])]
    for name, searches in share(kernels, worker, workers):
        game = _played[name]
        if not is_compiled(game, searches):
            bots = _search_bot(game) if searches else game.demo.strategy
            warmup(game.setup(game.parameters(), game.demo.players, bots))


def _search_bot(game) -> str | None:
    """The cheapest search bot of ``game`` (``None`` if it has none)."""
    bots = [i for i in game.registry.by_name.values() if i.searches]
    return min(bots, key=lambda i: i.cost).name if bots else None


# Kernels compile (or load from the cache) on first call; time limits per example make no sense.
settings.register_profile("dinolab", deadline=None, print_blob=True)
settings.load_profile("dinolab")


class CliResult:
    def __init__(self, code: int, out: str, err: str):
        self.code, self.out, self.err = code, out, err


def run_cli(*args: str) -> CliResult:
    """Run ``dinolab`` in this process, capturing its output."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return CliResult(code, out.getvalue(), err.getvalue())


@pytest.fixture
def cli():
    """Run ``dinolab`` in this process; returns exit code, stdout and stderr."""
    return run_cli


@pytest.fixture(scope="module")
def cli_module():
    return run_cli


@pytest.fixture(scope="session")
def dkd_run(tmp_path_factory) -> Path:
    """4,000 four-player games, mixed bots, rotated seats, 3 chunks, 1 worker."""
    out = tmp_path_factory.mktemp("runs") / "dkd"
    try:
        main(
            [
                "simulate",
                "dkd",
                "--games",
                "4000",
                "--players",
                "4",
                "--seed",
                "11",
                "--strategy",
                "greedy,cautious,blind,random",
                "--rotate",
                "--chunk-size",
                "1500",
                "--workers",
                "1",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
    except SystemExit as exc:
        assert exc.code in (0, None)
    return out


@pytest.fixture(scope="session")
def evo_run(tmp_path_factory) -> Path:
    """600 four-player EVO games, heuristic against random, rotated, 1 worker."""
    out = tmp_path_factory.mktemp("runs") / "evo"
    r = run_cli(
        "simulate",
        "evo",
        "--games",
        "600",
        "--players",
        "4",
        "--seed",
        "3",
        "--strategy",
        "heuristic,heuristic,random,random",
        "--rotate",
        "--chunk-size",
        "200",
        "--workers",
        "1",
        "--out",
        str(out),
        "--no-progress",
    )
    assert r.code == 0, r.err
    return out


_DEMO_RUNS: dict[str, Path] = {}


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory):
    """``demo_run(game)``: a small run of the game's demo lineup (its ``test_games``, 3 chunks),
    made once per session."""
    from simulate.config import build_config
    from simulate.executors import InlineExecutor
    from simulate.runner import run

    def make(game) -> Path:
        if game.name not in _DEMO_RUNS:
            d = game.demo
            cfg, setup = build_config(
                game.name,
                n_players=d.players,
                strategies=d.strategy,
                rotate=d.rotate,
                seed=11,
                games=d.test_games,
                chunk_size=-(-d.test_games // 3),
            )
            out = tmp_path_factory.mktemp("demo") / game.name
            run(cfg, setup, out, InlineExecutor())
            _DEMO_RUNS[game.name] = out
        return _DEMO_RUNS[game.name]

    return make
