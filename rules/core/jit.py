"""Numba configuration shared by every kernel.

All kernels use :data:`jit` (``njit(cache=True, nogil=True)``). The cache lives in a
project-local directory so that the parent process compiles once and worker processes load the
compiled code instead of compiling concurrently (concurrent first-time writes break numba's cache).
``NUMBA_DISABLE_JIT=1`` runs the very same code as plain Python, for debugging and coverage.

numba invalidates a cached function only when *its own* file changes, not when a function it
calls (and inlines) changes in another module: an edited rule in ``engine.py`` would leave the
cached chunk kernel playing the old rule. The cache directory is therefore keyed by a digest of
every source file of the kernel packages, so any edit starts a fresh cache.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

import numpy as np

_PROJECT_ROOT = Path(__file__).resolve().parents[2]
KERNEL_PACKAGES = ("rules", "strategies", "simulate/games")


def source_digest() -> str:
    """A digest of every Python file the compiled kernels may come from."""
    h = hashlib.sha256()
    for package in KERNEL_PACKAGES:
        for path in sorted((_PROJECT_ROOT / package).rglob("*.py")):
            h.update(str(path.relative_to(_PROJECT_ROOT)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_root() -> Path:
    """Where compiled kernels are kept: ``$DINOLAB_CACHE_DIR`` or ``.numba_cache`` here."""
    explicit = os.environ.get("DINOLAB_CACHE_DIR")
    if explicit:
        return Path(explicit)
    if os.access(_PROJECT_ROOT, os.W_OK):
        return _PROJECT_ROOT / ".numba_cache"
    return Path.home() / ".cache" / "dinolab" / "numba"


def cache_dir() -> Path:
    """The cache directory of this exact source tree."""
    return cache_root() / source_digest()


def configure_numba_cache() -> None:
    """Point numba's cache at :func:`cache_dir`; drop caches of other trees unused for a day."""
    path = cache_dir()
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    import numba

    numba.config.CACHE_DIR = str(path)
    root = path.parent
    if root.is_dir():
        for old in root.iterdir():
            stale = time.time() - old.stat().st_mtime > 86400
            if old.is_dir() and old.name != path.name and len(old.name) == 16 and stale:
                shutil.rmtree(old, ignore_errors=True)


def jit_disabled() -> bool:
    """True when kernels run as plain Python (``NUMBA_DISABLE_JIT=1``)."""
    import numba

    return bool(numba.config.DISABLE_JIT)


def _make_jit():
    from numba import njit

    return njit(cache=True, nogil=True)


jit = _make_jit()


def records(n: int, dtype: np.dtype) -> np.ndarray:
    """``n`` zeroed records of ``dtype`` as a ``np.recarray`` (attribute access in plain Python).

    Kernel state and rule tables are numpy *records* with nested array fields: numba passes a
    record by pointer with no reference counting, so a call costs what it costs in C, and a
    state is copied with one assignment (``buf[i] = st``). Field names must not shadow
    ``np.record`` methods (``round``, ``size``, ``min`` ...) so the same code runs interpreted.
    """
    return np.zeros(n, dtype).view(np.recarray)

