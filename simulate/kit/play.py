"""Playing chunks: the one driver every game's kernel runs under.

:func:`play_logs` allocates (or reuses) the column buffers, calls the game's compiled kernel,
grows the buffers when the kernel stops for room and calls it again, and checks what came back;
:func:`play` turns the buffers into Arrow tables. What the kernel mutates (state records,
scratch, buffers) belongs to a :class:`KernelContext` of the calling *thread*: two threads of
one process never share one, which is what makes a Dask worker with several threads safe.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
import pyarrow as pa

from rules.core.errors import DinolabError
from rules.core.jit import jit_disabled
from simulate.kit.buffers import CAPACITY, ROWS, allocate, arrow_tables, grow, reset, view
from simulate.kit.compiled import first_call
from simulate.kit.spec import Setup


class KernelError(DinolabError):
    """A kernel broke its contract (a bug, not the user's input): named in one line."""


@dataclasses.dataclass
class KernelContext:
    """One thread's kernel inputs for one setup and the buffers it may reuse."""

    setup: Setup
    inputs: tuple
    buffers: dict[tuple, Any] = dataclasses.field(default_factory=dict)


_local = threading.local()


def context(setup: Setup) -> KernelContext:
    """This thread's context for ``setup`` (built once per setup and thread: rebuilding the
    inputs every chunk cost ~30 ms, a tenth of a chunk)."""
    ctx = getattr(_local, "context", None)
    if ctx is None or ctx.setup is not setup:
        ctx = KernelContext(setup, setup.game.build_inputs(setup))
        _local.context = ctx
    return ctx


def play_logs(
    setup: Setup,
    seed: int,
    rotate: bool,
    start: int,
    stop: int,
    *,
    detail: bool = True,
    trace: bool = False,
    reuse: bool = False,
    poison: Any = None,
    tables: Sequence[str] | None = None,
) -> Any:
    """Play games ``start .. stop-1`` into column buffers and return them (detail tables only
    those named in ``tables``, if given).

    ``reuse``: take the buffers of this thread's previous call of the same shape, so the
    buffers returned before become invalid (the chunk runner writes each chunk's tables before
    playing the next and so skips ~30 MB of fresh, page-faulting allocations per chunk).
    """
    ctx = context(setup)
    n = stop - start
    key = (n, detail, trace, None if tables is None else tuple(tables))
    logs = ctx.buffers.pop(key, None) if reuse and poison is None else None
    if logs is None:
        ctx.buffers.clear()
        logs = allocate(setup, n, detail=detail, trace=trace, poison=poison, tables=tables)
    else:
        reset(logs)
    kernel = setup.game.kernel
    nxt = start
    with np.errstate(over="ignore"):
        while True:
            call = partial(kernel, *ctx.inputs, np.uint64(seed), rotate, start, nxt, stop, logs)
            nxt = int(first_call(setup, call))
            if nxt >= stop:
                break
            logs, grown = grow(logs)
            if not grown or nxt < start:
                raise KernelError(f"{setup.game.name} kernel stopped at game {nxt} with room left")
    _check_rows(setup, logs, n)
    if reuse:
        ctx.buffers[key] = logs
    return logs


def _check_rows(setup: Setup, logs: Any, n_games: int) -> None:
    """One games row per game, one players row per seat, no table past its capacity: a kernel
    that breaks this is a bug (a table's declared ``rows_per_game`` is too small)."""
    want = {"games": n_games, "players": n_games * setup.n_players}
    for t, buf in zip(setup.game.tables, logs[2:], strict=True):
        if int(buf.meta[ROWS]) > int(buf.meta[CAPACITY]):
            raise KernelError(
                f"{setup.game.name} kernel wrote {int(buf.meta[ROWS])} {t.name} rows into room "
                f"for {int(buf.meta[CAPACITY])}: its declared rows per game are too few"
            )
        if t.name in want and int(buf.meta[ROWS]) != want[t.name]:
            raise KernelError(
                f"{setup.game.name} kernel wrote {int(buf.meta[ROWS])} {t.name} rows for "
                f"{n_games} games, expected {want[t.name]}"
            )


def play(
    setup: Setup,
    seed: int,
    rotate: bool,
    start: int,
    stop: int,
    *,
    reuse: bool = False,
    tables: Sequence[str] | None = None,
) -> dict[str, pa.Table]:
    """Play games ``start .. stop-1`` and return one Arrow table per logged table (only
    ``tables``, if given; the shared ``games`` and ``players`` are always there)."""
    logs = play_logs(setup, seed, rotate, start, stop, reuse=reuse, tables=tables)
    keep = None if tables is None else {*tables, "games", "players"}
    return arrow_tables(setup, logs, start, keep)


def columns(setup: Setup, seed: int, rotate: bool, start: int, stop: int, **kw: Any) -> Any:
    """Games ``start .. stop-1`` as numpy columns: ``columns(...).turns.seat`` (for tests and
    notebooks; ``trace=True`` adds the trace tables, ``detail=False`` skips detail tables)."""
    return view(setup, play_logs(setup, seed, rotate, start, stop, **kw), start)


def replay_text(setup: Setup, seed: int, rotate: bool, game_id: int) -> str:
    """Game ``game_id`` played again with its trace, as text a person can follow."""
    logs = play_logs(setup, seed, rotate, game_id, game_id + 1, trace=True)
    return setup.game.render(setup, seed, game_id, view(setup, logs, game_id))


def warmup(setup: Setup) -> None:
    """Compile (or load) the game's kernel: buffer types do not depend on their sizes, so two
    traced games compile what every later call runs."""
    if not jit_disabled():
        play_logs(setup, 0, False, 0, 2, trace=True)


def kernel_seconds(setup: Setup, n_games: int, log: bool) -> float:
    """Kernel seconds for ``n_games`` in chunks of the game's chunk size, as a run's workers
    play them (buffers reused between chunks; Arrow and Parquet not included)."""
    warmup(setup)
    total = 0.0
    chunk = setup.game.default_chunk
    for start in range(0, n_games, chunk):
        stop = min(n_games, start + chunk)
        t0 = time.perf_counter()
        play_logs(setup, 1, False, start, stop, detail=log, reuse=True)
        total += time.perf_counter() - t0
    return total
