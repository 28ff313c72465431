"""A game's first compile on several cores.

numba compiles a kernel on one core: typing it compiles each separately jitted callee in turn,
depth first, 30-60 s for a game. Where this machine has not compiled the game,
:func:`helpers` starts processes that compile the same callees at the same time, from the
game's *plan*: every (function, argument types) its kernel compiled when the plan was
recorded, in that order, kept beside the kernel's module (``compile_plan.pkl``, written by
:mod:`simulate.kit.compile_plans`). Each helper starts at its own share of the plan, and each
compiled signature has a lock of its own (:func:`rules.core.jit.signature_lock`): whoever needs
a function another process compiled waits for it, then loads it from numba's cache.

The plan only says what to compile early. A stale entry (a function since changed) costs a
helper some work, never a wrong kernel: numba's cache is keyed by each function's sources and
argument types. Record the plans again after changing a kernel's functions
(``make compile-plans``; a test checks they are recorded from the current sources).
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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numba

from rules.core import jit
from rules.core.errors import DinolabError
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


def kernel_digest(game: GameSpec) -> str:
    """The digest of every source ``game``'s kernel depends on (as numba's cache stamps it)."""
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
        """Compile entry ``i`` unless another process holds it; ``True`` if this process
        took it (compiled it, or found it compiled)."""
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
        """Compile the plan as helper ``part`` does, of ``parts`` processes in all (the
        kernel's own compile is part 0): in order, callees before callers, from the point
        where ``part / parts`` of the plan's seconds lie before it, round to that point
        again, passing over what another process holds. Returns how many entries this
        process took."""
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
        saved = read(path or plan_file(game))
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
    return Plan(entries, saved["digest"] == kernel_digest(game))


def read(path: Path) -> dict[str, Any]:
    """A plan file: its sources' digest and numba version as text, and its entries pickled
    on their own (numba's types may not load in another numba)."""
    return pickle.loads(path.read_bytes())


def recorded_from_current_sources(game: GameSpec) -> bool:
    """Whether ``game``'s plan exists and was recorded from the sources as they are now."""
    try:
        return read(plan_file(game))["digest"] == kernel_digest(game)
    except (OSError, pickle.UnpicklingError, KeyError):
        return False


@contextlib.contextmanager
def helping(plan: Plan) -> Iterator[None]:
    """While the body runs, a compile that waits for another process's signature compiles
    from ``plan`` what that process needs (:meth:`Plan.help`)."""
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
        if not explicit.strip().isdigit():
            raise DinolabError(f"DINOLAB_COMPILE_HELPERS must be a whole number, not {explicit!r}")
        return int(explicit)
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
    command = [sys.executable, "-m", "simulate.kit.compile_plans", "help", game.name, str(path)]
    procs = [
        subprocess.Popen(
            [*command, str(part), str(count + 1), str(os.getpid())],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for part in range(1, count + 1)
    ]
    try:
        with helping(plan):
            yield
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait()
