"""Compiling a game's kernels once per machine, and knowing whether it has been done.

numba compiles a kernel on its first call, 20-70 s for a game, and keeps it in the on-disk cache
(:func:`rules.core.jit.cache_dir`). A process's first kernel call of a game this machine has not
compiled runs under the game's file lock (:func:`first_call`), so of the processes that start it
at once (a run's workers, test workers) one compiles and the others load what it wrote. It then
leaves a stamp named after the digest of every source the kernel depends on; the driver looks
for it before starting workers and, when it is missing, says what the wait is. A game has two
kernels, with the search bots and without (:mod:`strategies.core.scratch`), each with its stamp.
"""

from __future__ import annotations

import contextlib
import fcntl
import inspect
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import numba

from rules.core.jit import cache_dir, dependency_digest, jit_disabled
from simulate.kit.parallel_compile import helper_count, helpers
from simulate.kit.spec import GameSpec, Setup

T = TypeVar("T")


def stamp(game: GameSpec, searches: bool = False) -> Path:
    """The stamp file of ``game``'s current kernel sources on this machine (the kernel with
    the search bots where ``searches``)."""
    source = inspect.getsourcefile(game.kernel.py_func)
    digest = dependency_digest(source or "")[:16]
    kind = "-search" if searches else ""
    return cache_dir() / f"compiled-{game.name}{kind}-{numba.__version__}-{digest}"


def is_compiled(game: GameSpec, searches: bool = False) -> bool:
    return stamp(game, searches).exists()


def mark_compiled(game: GameSpec, searches: bool = False) -> None:
    """Record that ``game``'s kernel (with the search bots where ``searches``) is in this
    machine's cache."""
    path = stamp(game, searches)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(exist_ok=True)


@contextlib.contextmanager
def compile_lock(game: str) -> Iterator[None]:
    """One process per machine compiles a game at a time: the others wait, then load what the
    first one wrote (compiling takes 20-70 s of a core).

    The lock is per game, so two games may compile at once (a first run compiles the next
    game in the background). Correctness does not rest on it: numba's cache index is written
    under its own lock (:func:`rules.core.jit.configure_numba_cache`), so processes that
    compile the same functions at once (tests calling a bot's functions directly) are safe.
    """
    path = cache_dir()
    path.mkdir(parents=True, exist_ok=True)
    with open(path / f".compile-{game}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


_loaded: set[tuple[str, bool]] = set()
_loading = threading.Lock()


def first_call(setup: Setup, call: Callable[[], T]) -> T:
    """``call()``, a call of ``setup``'s kernel: this process's first one runs alone (other
    threads wait for it) and, where this machine has not compiled the kernel, under the game's
    compile lock with helper processes compiling beside it
    (:mod:`simulate.kit.parallel_compile`), then stamps it compiled. Later calls run at once."""
    game, kind = setup.game, (setup.game.name, setup.searches)
    if kind in _loaded:
        return call()
    with _loading:
        if kind not in _loaded:
            if jit_disabled() or is_compiled(game, setup.searches):
                out = call()  # only loads: no need to wait for another process
            else:
                with compile_lock(game.name), helpers(game):
                    out = call()
                    mark_compiled(game, setup.searches)
            _loaded.add(kind)
            return out
    return call()


def compiling_notice(game: GameSpec, searches: bool = False) -> str | None:
    """On a machine without ``game``'s compiled kernels (with the search bots where
    ``searches``), the line that says why the start is slow (``None`` where they are
    compiled). A bad ``$DINOLAB_COMPILE_HELPERS`` fails here, before a run starts."""
    helper_count()
    if is_compiled(game, searches):
        return None
    return (
        f"compiling the {game.title} kernels, once per machine (up to a minute; later runs "
        "start in seconds) ..."
    )
