"""The bots' scratch: a bot's scratch array laid out by name, and the search bots' own compile.

A compiled bot that must allocate nothing per decision keeps its working values in a flat
array the game state lends it. :func:`scratch_layout` declares that array's regions once, by
name and length (``need=MAX_PLAYERS, stakes=MAX_ANIMALS``), places them one after another and
returns their start offsets as a named tuple the compiled code reads as constants
(``st.bot_f[F.stakes + a]``). It refuses a layout that does not fit its array, so raising a
game limit such as ``MAX_ANIMALS`` past what the state lends fails at import, by name, rather
than writing over the next region.

The search bots play games out on spare states (the game's scratch record's ``worlds``) and
are the largest part of a game's bots to compile. A game's kernel does not contain them: its
one ``choose`` reaches them through :func:`search_bots`, a call through the address of their
own compiled entry (a numba ``cfunc``, cached on disk like the kernel), which the scratch
record carries (:data:`ENTRY`, set by :func:`lend_search`). So a run of cheap bots never
compiles them, and the first run with a search bot compiles them alone, not the kernel again
(``docs/benchmarks.md``, *The search bots compiled on their own*). Where the address is not
set, the call raises (a search bot not declared as one, ``StrategyInfo.searches``).
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import carray, cfunc, types
from numba.core.compiler_lock import global_compiler_lock
from numba.extending import intrinsic, overload

from rules.core.jit import jit_disabled, jit_inline, signature_lock

WORLDS = "worlds"
"""The scratch record's field of spare states, which only the search bots use."""
ENTRY = "entry"
"""The scratch record's field holding the address of the search bots' compiled entry (0: not
lent, :func:`lend_search`)."""
NOT_DECLARED = "a search bot played without its compiled entry: declare it with searches=True"
FAILED = np.int64(-(2**62))
"""What a search bots' entry returns where the search raised (its message cannot cross the
call)."""
FAILED_MESSAGE = (
    "a search bot failed inside its compiled entry; NUMBA_DISABLE_JIT=1 runs it in Python and "
    "shows where"
)


def scratch_layout(array: str, size: int, **regions: int) -> Any:
    """Start offsets of ``regions`` (name: length, in order) packed into ``array`` of ``size``.

    Raises ``ValueError`` naming the array when a length is negative or the regions together
    need more than ``size`` slots."""
    bad = [name for name, length in regions.items() if length < 0]
    if bad:
        raise ValueError(f"{array}: negative length for {', '.join(bad)}")
    need = sum(regions.values())
    if need > size:
        lengths = ", ".join(f"{name} {length}" for name, length in regions.items())
        raise ValueError(f"{array}: the layout needs {need} slots ({lengths}); it has {size}")
    starts, at = [], 0
    for length in regions.values():
        starts.append(at)
        at += length
    return collections.namedtuple(f"{array}_layout", list(regions))(*starts)


def scratch_dtype(fields: list[tuple]) -> np.dtype:
    """A game's scratch record: its ``fields`` and :data:`ENTRY`."""
    return np.dtype([*fields, (ENTRY, np.int64)], align=True)


@jit_inline
def record_at(pointer):
    """The record a search bots' entry receives by ``pointer``."""
    return carray(pointer, 1)[0]


def search_bots(play: Callable[..., Any], entry: Callable[..., Any]) -> Callable[..., Any]:
    """The game's call of its search bots, ``play(lineup, j, tb, st, seat, scratch)``, through
    the address of ``entry`` in ``scratch`` (:data:`ENTRY`); where it is 0, a call that
    raises.

    ``entry`` is ``play`` taking its records by pointer (:func:`record_at`) and returning
    :data:`FAILED` where ``play`` raises. It is a plain function of the game's module, so
    numba's cache stamps it with that module's sources; ``play`` is compiled out of line
    (``@jit``), since numba's ``except`` misses a ``raise`` inlined into the entry.
    The returned function's ``lend(tb, lineup, st, scratch)`` compiles (or loads) the entry
    for these record arrays' types and puts its address into ``scratch``."""

    def searched(lineup, j, tb, st, seat, scratch):
        if not scratch[ENTRY]:
            raise RuntimeError(NOT_DECLARED)
        return play(lineup, j, tb, st, seat, scratch)

    @overload(searched)
    def _typed(lineup, j, tb, st, seat, scratch):
        def typed(lineup, j, tb, st, seat, scratch):
            at = scratch.entry
            if at == 0:
                raise RuntimeError(NOT_DECLARED)
            out = _call(at, lineup, j, tb, st, seat, scratch)
            if out == FAILED:
                raise RuntimeError(FAILED_MESSAGE)
            return out

        return typed

    def lend(tb: np.ndarray, lineup: np.ndarray, st: np.ndarray, scratch: np.ndarray) -> None:
        scratch[0][ENTRY] = 1 if jit_disabled() else _address(entry, tb, lineup, st, scratch)

    searched.__doc__ = play.__doc__
    searched.lend = lend  # type: ignore[attr-defined]
    return searched


_entries: dict[tuple, Any] = {}


def _address(entry: Any, tb: np.ndarray, lineup: np.ndarray, st: np.ndarray, sc: np.ndarray) -> int:
    """The address of ``entry`` compiled for these record arrays' types, once per process (or
    loaded from numba's cache), under the signature's lock as every compile is."""
    kinds = tuple(numba.from_dtype(a.dtype) for a in (lineup, tb, st, sc))
    key = (entry, *kinds)
    lu_t, tb_t, st_t, sc_t = (types.CPointer(k) for k in kinds)
    signature = types.int64(lu_t, types.int64, tb_t, st_t, types.int64, sc_t)
    with global_compiler_lock:
        if key not in _entries:
            with signature_lock(SimpleNamespace(py_func=entry), kinds):
                _entries[key] = cfunc(signature, cache=True, nopython=True)(entry)
    return int(_entries[key].address)


@intrinsic
def _call(typingctx, at, lineup, j, tb, st, seat, scratch):
    """``entry(lineup, j, tb, st, seat, scratch)`` for the entry at address ``at``: each
    record passed as the pointer to its data, ``j`` and ``seat`` as int64."""

    def codegen(context, builder, signature, args):
        bytes_, i64 = ir.IntType(8).as_pointer(), ir.IntType(64)
        kind = ir.FunctionType(i64, [bytes_, i64, bytes_, bytes_, i64, bytes_])
        fn = builder.inttoptr(args[0], kind.as_pointer())
        pointer = [builder.bitcast(args[k], bytes_) for k in (1, 3, 4, 6)]
        j64, seat64 = (
            context.cast(builder, args[k], signature.args[k], types.int64) for k in (2, 5)
        )
        return builder.call(fn, [pointer[0], j64, pointer[1], pointer[2], seat64, pointer[3]])

    return types.int64(at, lineup, j, tb, st, seat, scratch), codegen
