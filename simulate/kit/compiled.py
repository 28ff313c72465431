"""Does this machine have a game's kernels compiled? (For the first run's "compiling ..." line.)

numba compiles a kernel on its first call, 20-70 s for a game, and keeps it in the on-disk cache
(:func:`rules.core.jit.cache_dir`). After a worker has compiled (or loaded) a game's kernel it
leaves a stamp named after the digest of every source the kernel depends on; the driver looks
for it before starting workers and, when it is missing, says what the wait is.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import numba

from rules.core.jit import cache_dir, dependency_digest
from simulate.kit.spec import GameSpec


def stamp(game: GameSpec) -> Path:
    """The stamp file of ``game``'s current kernel sources on this machine."""
    source = inspect.getsourcefile(game.kernel.py_func)
    digest = dependency_digest(source or "")[:16]
    return cache_dir() / f"compiled-{game.name}-{numba.__version__}-{digest}"


def is_compiled(game: GameSpec) -> bool:
    return stamp(game).exists()


def mark_compiled(game: GameSpec) -> None:
    """Record that ``game``'s kernel is in this machine's cache."""
    path = stamp(game)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(exist_ok=True)


def compiling_notice(game: GameSpec) -> str | None:
    """On a machine without ``game``'s compiled kernels, the line that says why the start is
    slow (``None`` where they are compiled)."""
    if is_compiled(game):
        return None
    return (
        f"compiling the {game.title} kernels, once per machine (up to a minute; later runs "
        "start in seconds) ..."
    )
