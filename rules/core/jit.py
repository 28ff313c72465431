"""Numba configuration shared by every kernel.

All kernels use :data:`jit` (``njit(cache=True, nogil=True)``). numba never inlines one
compiled function into another, so small functions on the hot path (the RNG, the Dino Kontra
Dino engine and its cheap bots) use :data:`jit_inline` (the same, inlined in numba's IR): in
Dino Kontra Dino the calls alone were a third of the kernel's time. The cache lives in a
project-local directory, so the first worker compiles (under a file lock) and the others load
the compiled code instead of compiling concurrently (concurrent first-time writes break
numba's cache).
``NUMBA_DISABLE_JIT=1`` runs the very same code as plain Python, for debugging and coverage.

numba invalidates a cached function only when *its own* file changes, not when a function it
calls (and inlines) changes in another module: an edited rule in ``engine.py`` would leave the
cached chunk kernel playing the old rule. :func:`_install_locator` therefore adds to each cached
function's freshness stamp a digest of every source it may inline (the shared core packages and
its own game's packages), so editing one game recompiles that game only.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

import numpy as np

_PROJECT_ROOT = Path(__file__).resolve().parents[2]
CORE_PACKAGES = ("rules/core", "strategies/core")
GAME_ROOTS = ("rules", "strategies", "simulate/games")


@functools.cache
def _digest(folders: tuple[str, ...], stamp: tuple[float, ...]) -> str:
    h = hashlib.sha256()
    for folder in folders:
        for path in sorted((_PROJECT_ROOT / folder).rglob("*.py")):
            h.update(str(path.relative_to(_PROJECT_ROOT)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def dependency_digest(py_file: str) -> str:
    """Digest of the sources a kernel in ``py_file`` may inline: the shared core packages and,
    for a game's module, that game's packages in every room."""
    try:
        rel = Path(py_file).resolve().relative_to(_PROJECT_ROOT)
    except ValueError:
        return ""
    folders = list(CORE_PACKAGES)
    for root in GAME_ROOTS:
        parts = Path(root).parts
        if rel.parts[: len(parts)] == parts and len(rel.parts) > len(parts) + 1:
            game = rel.parts[len(parts)]
            if game != "core":
                folders += [f"{r}/{game}" for r in GAME_ROOTS]
    folders = [f for f in folders if (_PROJECT_ROOT / f).is_dir()]
    stamp = tuple(
        p.stat().st_mtime for f in folders for p in sorted((_PROJECT_ROOT / f).rglob("*.py"))
    )
    return _digest(tuple(folders), stamp)


def _install_locator() -> None:
    """Make numba's cache freshness cover the sources a kernel inlines, not only its own file."""
    from numba.core import caching

    class DependencyAwareLocator(caching.UserProvidedCacheLocator):
        def get_source_stamp(self):
            return (super().get_source_stamp(), dependency_digest(self._py_file))

    if not any(c.__name__ == "DependencyAwareLocator" for c in caching.CacheImpl._locator_classes):
        caching.CacheImpl._locator_classes.insert(0, DependencyAwareLocator)


def cache_dir() -> Path:
    """Where compiled kernels are kept: ``$DINOLAB_CACHE_DIR`` or ``.numba_cache`` here."""
    explicit = os.environ.get("DINOLAB_CACHE_DIR")
    if explicit:
        return Path(explicit)
    if os.access(_PROJECT_ROOT, os.W_OK):
        return _PROJECT_ROOT / ".numba_cache"
    return Path.home() / ".cache" / "dinolab" / "numba"


def configure_numba_cache() -> None:
    """Point numba's cache at :func:`cache_dir` and install the dependency-aware locator."""
    path = cache_dir()
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    import numba

    numba.config.CACHE_DIR = str(path)
    _install_locator()


def jit_disabled() -> bool:
    """True when kernels run as plain Python (``NUMBA_DISABLE_JIT=1``)."""
    import numba

    return bool(numba.config.DISABLE_JIT)


def _make_jit(**options):
    from numba import njit

    return njit(cache=True, nogil=True, **options)


jit = _make_jit()
jit_inline = _make_jit(inline="always")


def records(n: int, dtype: np.dtype) -> np.ndarray:
    """``n`` zeroed records of ``dtype`` as a ``np.recarray`` (attribute access in plain Python).

    Kernel state and rule tables are numpy *records* with nested array fields: numba passes a
    record by pointer with no reference counting, so a call costs what it costs in C, and a
    state is copied with one assignment (``buf[i] = st``). Field names must not shadow
    ``np.record`` methods (``round``, ``size``, ``min`` ...) so the same code runs interpreted.
    """
    return np.zeros(n, dtype).view(np.recarray)
