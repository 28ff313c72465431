"""Numba configuration shared by every kernel.

All kernels use :data:`jit` (``njit(cache=True, nogil=True)``). The cache lives in a
project-local directory so that the parent process compiles once and worker processes load the
compiled code instead of compiling concurrently (concurrent first-time writes break numba's cache).
``NUMBA_DISABLE_JIT=1`` runs the very same code as plain Python, for debugging and coverage.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

_PROJECT_ROOT = Path(__file__).resolve().parents[2]


def cache_dir() -> Path:
    """The directory numba writes compiled kernels to."""
    explicit = os.environ.get("DINOLAB_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    if explicit:
        return Path(explicit)
    local = _PROJECT_ROOT / ".numba_cache"
    if os.access(_PROJECT_ROOT, os.W_OK):
        return local
    return Path.home() / ".cache" / "dinolab" / "numba"


def configure_numba_cache() -> None:
    """Point numba's cache at :func:`cache_dir` (safe to call before or after importing numba)."""
    path = str(cache_dir())
    os.environ.setdefault("NUMBA_CACHE_DIR", path)
    import numba

    if not numba.config.CACHE_DIR:
        numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]


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

