"""A game's first compile on several cores.

numba compiles a kernel on one core: typing it compiles each separately jitted callee in turn,
depth first, 30-60 s for a game. Where this machine has not compiled the game,
:func:`helpers` starts processes that compile the same callees at the same time, from the
game's *plan*: every (function, argument types) its kernel compiled when the plan was
recorded, in that order, kept beside the kernel's module (``compile_plan.pkl``). A helper
walks the plan from its end (the kernel's compile starts at its beginning) and passes over a
function another process is compiling (:func:`rules.core.jit.signature_lock`); whoever needs a
function a helper compiled loads it from numba's cache.

The plan only says what to compile early. A stale entry (a function since changed) costs a
helper some work, never a wrong kernel: numba's cache is keyed by each function's sources and
argument types. Record the plans again after changing a kernel's functions:
``python -m simulate.kit.parallel_compile record`` (``make compile-plans``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import inspect
import os
import pickle
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numba

from rules.core import jit
from rules.core.jit import dependency_digest, signature_key, signature_lock
from simulate.kit.spec import GameSpec

PLAN = "compile_plan.pkl"
MAX_HELPERS = 7
"""Helpers beyond this many find little left to compile (a plan has 40-100 functions, the
deepest chain of them compiles one after another)."""


def plan_file(game: GameSpec) -> Path:
    """Where ``game``'s plan is kept: beside the module that defines its kernel."""
    return Path(inspect.getsourcefile(game.kernel.py_func) or "").with_name(PLAN)


def _dispatcher(module: str, qualname: str) -> Any:
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _kernel_digest(game: GameSpec) -> str:
    return dependency_digest(inspect.getsourcefile(game.kernel.py_func) or "")


@dataclasses.dataclass
class Plan:
    """The functions a kernel's compile compiled, in order: ``entries[i]`` is (dispatcher,
    argument types, depth, seconds), the depth counted from the kernel (1: called by it),
    each entry after the entries compiled inside it, with the seconds it took less theirs.
    ``fresh``: recorded from the sources as they are now, so that the entries right before
    ``i`` and deeper are functions entry ``i`` calls."""

    entries: list[tuple[Any, tuple, int, float]]
    fresh: bool
    _tried: set[int] = dataclasses.field(default_factory=set)

    @functools.cached_property
    def _index(self) -> dict[str, int]:
        return {signature_key(d, a): i for i, (d, a, _, _) in enumerate(self.entries)}

    def _compile(self, i: int) -> bool:
        """Compile entry ``i`` unless another process holds it; ``True`` if it was tried."""
        self._tried.add(i)
        dispatcher, args, _, _ = self.entries[i]
        with signature_lock(dispatcher, args, wait=False) as mine:
            if mine:
                with contextlib.suppress(Exception):  # a stale entry: its caller compiles it
                    dispatcher.compile(args)
            return mine

    def help(self, key: str) -> bool:
        """While another process compiles ``key``, compile one function it calls, from the
        deepest end of its calls (that process compiles them from the other end); ``False``
        when there is none left to take (or the plan is stale: then only waiting is safe)."""
        i = self._index.get(key)
        if not self.fresh or i is None:
            return False
        depth = self.entries[i][2]
        j = i - 1
        while j >= 0 and self.entries[j][2] > depth:
            if j not in self._tried and self._compile(j):
                return True
            j -= 1
        return False

    def compile_all(self, part: int = 0, parts: int = 1) -> int:
        """Compile the plan as helper ``part`` of ``parts - 1`` does (the kernel's compile is
        part 0): in order, callees before callers, from the point where ``part / parts`` of
        the plan's seconds lie before it, round to that point again, passing over what
        another process holds. Returns how many entries this process took."""
        total, start, spent = sum(e[3] for e in self.entries), 0, 0.0
        while start < len(self.entries) and spent + self.entries[start][3] <= total * part / parts:
            spent += self.entries[start][3]
            start += 1
        n = len(self.entries)
        order = [*range(start, n), *range(start)]
        return sum(self._compile(i) for i in order if i not in self._tried)


def load_plan(game: GameSpec, path: Path | None = None) -> Plan:
    """``game``'s plan (at ``path``, else :func:`plan_file`); entries whose function no
    longer exists are left out, and an unreadable plan (another numba's types) is empty."""
    try:
        saved = _read(path or plan_file(game))
        if saved["numba"] != numba.__version__:
            return Plan([], False)
        saved_entries = list(pickle.loads(saved["entries"]))
    except Exception:  # a plan is only a hint
        return Plan([], False)
    entries = []
    for module, qualname, args, depth, seconds in saved_entries:
        try:
            entries.append((_dispatcher(module, qualname), args, depth, seconds))
        except (ImportError, AttributeError):
            continue
    return Plan(entries, saved["digest"] == _kernel_digest(game))


def _read(path: Path) -> dict[str, Any]:
    """A plan file: its sources' digest and numba version as text, and its entries pickled
    on their own (numba's types may not load in another numba)."""
    return pickle.loads(path.read_bytes())


def recorded_from_current_sources(game: GameSpec) -> bool:
    """Whether ``game``'s plan exists and was recorded from the sources as they are now."""
    try:
        return _read(plan_file(game))["digest"] == _kernel_digest(game)
    except (OSError, pickle.UnpicklingError, KeyError):
        return False


@contextlib.contextmanager
def _helping(plan: Plan) -> Iterator[None]:
    previous, jit.while_waiting = jit.while_waiting, plan.help
    try:
        yield
    finally:
        jit.while_waiting = previous


def helper_count() -> int:
    """Helpers for a first compile: ``$DINOLAB_COMPILE_HELPERS``, else one per other core (at
    most :data:`MAX_HELPERS`)."""
    explicit = os.environ.get("DINOLAB_COMPILE_HELPERS")
    if explicit is not None:
        return max(0, int(explicit))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(MAX_HELPERS, max(0, (cores or 1) - 1))


@contextlib.contextmanager
def helpers(game: GameSpec, path: Path | None = None) -> Iterator[None]:
    """While the body compiles ``game``'s kernel, helper processes compile its plan (at
    ``path``, else :func:`plan_file`) beside it, and the body, where it waits for one of them,
    compiles what that one needs. The helpers are stopped when the body ends (what they
    compiled stays in the cache)."""
    path = path or plan_file(game)
    plan = load_plan(game, path)
    count = helper_count() if plan.entries else 0
    command = [sys.executable, "-m", "simulate.kit.parallel_compile", "help", game.name, str(path)]
    procs = [
        subprocess.Popen(
            [*command, str(part), str(count + 1)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for part in range(1, count + 1)
    ]
    try:
        with _helping(plan):
            yield
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait()


def record(game: GameSpec, path: Path | None = None) -> int:
    """Compile ``game``'s kernel in a fresh process on an empty cache and write what it
    compiled to its plan (``path``, else :func:`plan_file`). Returns the number of entries."""
    path = path or plan_file(game)
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "DINOLAB_CACHE_DIR": cache, "DINOLAB_COMPILE_HELPERS": "0"}
        cmd = [sys.executable, "-m", "simulate.kit.parallel_compile", "observe", game.name]
        subprocess.run([*cmd, str(path)], env=env, check=True)
    return len(pickle.loads(_read(path)["entries"]))


def _observe(game: GameSpec, path: Path) -> None:
    """Compile ``game``'s kernel here (on an empty cache) and write its plan to ``path``."""
    from numba.core import event

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
            if fn is not game.kernel and fn._cache.__class__.__name__ != "NullCache":
                py, depth = fn.py_func, len(open_)
                entries.append(
                    (py.__module__, py.__qualname__, ev.data["args"], depth, took - inside)
                )

    setup = game.setup(game.parameters(), game.demo.players, game.demo.strategy)
    with event.install_listener("numba:compile", Recorder()):
        warmup(setup)
    saved = {"digest": _kernel_digest(game), "numba": numba.__version__}
    path.write_bytes(pickle.dumps({**saved, "entries": pickle.dumps(entries)}))


def main(argv: list[str]) -> None:
    """``record [--stale] [GAME ...]``: record every game's plan (or the games named;
    ``--stale``: only plans recorded from other sources). ``help GAME PLAN PART PARTS`` runs
    a helper, ``observe GAME PLAN`` the compile :func:`record` starts."""
    from simulate.games import all_games, get_game

    command, rest = argv[0], argv[1:]
    if command == "help":
        plan = load_plan(get_game(rest[0]), Path(rest[1]))
        with _helping(plan):
            plan.compile_all(int(rest[2]), int(rest[3]))
    elif command == "observe":
        _observe(get_game(rest[0]), Path(rest[1]))
    elif command == "record":
        only_stale = "--stale" in rest
        names = [n for n in rest if n != "--stale"]
        for game in [get_game(n) for n in names] or all_games():
            if not only_stale or not recorded_from_current_sources(game):
                print(f"{game.name}: {record(game)} functions in {plan_file(game)}", flush=True)
    else:
        raise SystemExit(f"unknown command {command!r} (help, observe, record)")


if __name__ == "__main__":
    main(sys.argv[1:])
