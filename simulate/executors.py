"""Where chunks run: behind one small seam, so the runner does not care.

* :class:`InlineExecutor` runs chunks in this process (``--workers 1``; tests; debugging).
* :class:`ThreadExecutor` runs them on threads of this process (``--backend threads``): the
  kernels release the GIL, and there is no worker to start, no import and no kernel load
  beyond this process's own, so a short run on a few cores finishes sooner. A crash in a
  chunk is this process's crash (the run stays resumable), and Ctrl-C waits for the chunks in
  play.
* :class:`ProcessExecutor` runs them in ``spawn``-ed worker processes, a bounded window of
  chunks in flight so memory does not grow with the number of chunks. A worker that dies
  (killed, out of memory) breaks the pool; the executor starts a new one and runs the chunks
  that had not finished again. Chunks are deterministic, so a retried chunk writes the same rows.

A task is a validated :class:`~simulate.kit.spec.Setup` and a :class:`ChunkJob`; the setups
of one stream may differ (a study's points), and a worker keeps the setups it has seen by
their :attr:`~simulate.kit.spec.Setup.key`, so a setup's kernel inputs are built once per
worker and thread, and the pool stays warm from one run (or study point) to the next until
:meth:`Executor.close`. Kernels are compiled once per machine: workers warm up under
a per-game file lock (:func:`simulate.kit.compiled.first_call`), so the first compiles into the
on-disk cache and the others load it instead of compiling it again. The parent
process never compiles, which keeps its memory small. A chunk's kernel state and buffers belong
to the thread that plays it (:mod:`simulate.kit.play`), so a worker may run chunks on several
threads.

A job may carry a ``measure``: a function the worker applies to the chunk's tables right after
playing them (a study's metrics, computed where the rows are; only its small result travels
back). A job without a ``run_dir`` writes nothing: its tables exist only for ``measure``.
"""

from __future__ import annotations

import abc
import atexit
import dataclasses
import hashlib
import multiprocessing as mp
import os
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pyarrow as pa

from rules.core.errors import DinolabError
from rules.core.jit import jit_disabled
from simulate.kit.compiled import is_compiled
from simulate.kit.play import play, warmup
from simulate.kit.spec import Setup
from simulate.parquet import encode, part_name
from simulate.storage import open_store

Measure = Callable[["Setup", "ChunkJob", dict], object]
"""``measure(setup, job, tables)``: what a worker computes from a chunk's Arrow tables."""


@dataclasses.dataclass(frozen=True)
class ChunkJob:
    """What a worker needs besides the setup: where to write and which games to play."""

    run_dir: str | None
    """Where the chunk's part files go; ``None``: write nothing (the tables are measured)."""
    seed: int
    rotate: bool
    index: int
    start: int
    stop: int
    tables: tuple[str, ...] | None = None
    """The tables to log (``None``: every logged table of the game)."""
    measure: Measure | None = None
    tag: str = ""
    """The caller's name for the run this chunk belongs to (a study's point)."""


@dataclasses.dataclass(frozen=True)
class ChunkResult:
    index: int
    start: int
    stop: int
    rows: dict[str, int]
    sha256: dict[str, str]
    seconds: float
    measured: object = None
    """What the job's ``measure`` returned."""
    tag: str = ""

    def to_manifest(self) -> dict:
        return {
            "start": self.start,
            "stop": self.stop,
            "rows": self.rows,
            "sha256": self.sha256,
            "seconds": round(self.seconds, 3),
        }


class ChunkWriteError(DinolabError):
    """A chunk could not be written (disk full, permissions): the run stays resumable."""


class ChunkFailed(DinolabError):
    """A chunk raised an unexpected error in a worker: named in one line, the run resumable."""


def chunk_failure(job: ChunkJob, exc: BaseException) -> DinolabError:
    """One line for an error a chunk raised (a user error passes through unchanged); the full
    traceback is printed on stderr when ``DINOLAB_DEBUG`` is set."""
    if isinstance(exc, DinolabError):
        return exc
    if os.environ.get("DINOLAB_DEBUG"):
        traceback.print_exception(exc)
    text = " ".join(str(exc).split()) or "no message"
    return ChunkFailed(
        f"chunk {job.index} (games {job.start}..{job.stop - 1}) failed: "
        f"{type(exc).__name__}: {text}; the run is resumable with --resume "
        f"(DINOLAB_DEBUG=1 prints the traceback)"
    )


_warmed: set[str] = set()
_setups: OrderedDict[str, Setup] = OrderedDict()
_setups_lock = threading.Lock()
KEPT_SETUPS = 16
"""Setups a worker keeps (with their kernel inputs, per thread) for the tasks to come."""


WORKERS_ENV = "DINOLAB_WORKERS"
"""The default of ``--workers`` where it is set (a shared machine, a test run spread over
the cores already); every core where it is not."""


def default_workers() -> int:
    """Workers when ``--workers`` is not given: ``$DINOLAB_WORKERS``, else every core."""
    text = os.environ.get(WORKERS_ENV, "").strip()
    if not text:
        return os.cpu_count() or 1
    try:
        n = int(text)
    except ValueError:
        raise DinolabError(f"{WORKERS_ENV} must be a whole number, got {text!r}") from None
    if n < 1:
        raise DinolabError(f"{WORKERS_ENV} must be at least 1, got {n}")
    return n


def ensure_compiled(setup: Setup) -> None:
    """Compile (or load) the game's kernel once per process, before its first chunk is timed
    (once per machine: :func:`simulate.kit.compiled.first_call`). Every setup of a game has
    the same kernel argument types, so once per game is enough."""
    if setup.game.name not in _warmed:
        warmup(setup)
        _warmed.add(setup.game.name)


def watch_parent(interval: float = 0.5) -> None:
    """Exit this worker soon after its parent dies (a killed driver must not leave workers
    behind, idle or still playing a chunk nobody will record)."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="dinolab-parent-watch", daemon=True).start()


def kept(setup: Setup) -> Setup:
    """The setup this worker already holds with ``setup``'s key (so its kernel inputs are
    reused), else ``setup``, now kept; the least recently used is dropped past a few."""
    with _setups_lock:
        have = _setups.pop(setup.key, setup)
        _setups[setup.key] = have
        while len(_setups) > KEPT_SETUPS:
            _setups.popitem(last=False)
        return have


def init_pool_worker() -> None:
    """Start of a local pool worker: watch the parent, and leave at the pool's end without
    tearing the interpreter down (a third of a second of every run's end, numba's and
    polars' modules freed one by one): a worker has written and synced every file it
    reported before its pool is shut down."""
    watch_parent()
    atexit.register(os._exit, 0)


def warm_worker(setup: Setup) -> None:
    """A worker's first task (:meth:`Executor.warm`): keep ``setup`` and load its kernels."""
    ensure_compiled(kept(setup))


def run_task(setup: Setup, job: ChunkJob) -> ChunkResult:
    """A worker's task (any executor): the kept setup, compiled once, then the chunk."""
    setup = kept(setup)
    ensure_compiled(setup)
    return run_chunk(setup, job)


def run_chunk(setup: Setup, job: ChunkJob) -> ChunkResult:
    """Play one chunk, write its tables' part files and measure them; return what was
    written."""
    t0 = time.perf_counter()
    digests: dict[str, str] = {}
    # reuse: this thread's buffers of the last chunk; its tables were written before this one
    tables = play(setup, job.seed, job.rotate, job.start, job.stop, reuse=True, tables=job.tables)
    if job.run_dir is not None:
        rows, digests = write_tables(setup, job, tables)
    else:
        rows = {name: table.num_rows for name, table in tables.items()}
    measured = job.measure(setup, job, tables) if job.measure is not None else None
    del tables
    seconds = time.perf_counter() - t0
    return ChunkResult(job.index, job.start, job.stop, rows, digests, seconds, measured, job.tag)


def write_tables(
    setup: Setup, job: ChunkJob, tables: dict[str, pa.Table]
) -> tuple[dict[str, int], dict[str, str]]:
    """Write a chunk's tables (columns derived on read left out); return their rows and the
    sha256 of each file. This thread encodes (so the bytes never depend on timing) while a
    writer thread stores and fsyncs the previous table: the disk's wait overlaps the work."""
    store = open_store(job.run_dir)
    declared = {t.name: t for t in setup.game.logged_tables}
    rows, digests, pending = {}, {}, {}
    with ThreadPoolExecutor(1, thread_name_prefix="dinolab-writer") as writer:
        for name, table in tables.items():
            stored = table.drop_columns(list(declared[name].derived(tables)))
            data = encode(stored)
            rows[name], digests[name] = stored.num_rows, hashlib.sha256(data).hexdigest()
            pending[name] = writer.submit(store.write_bytes, f"{name}/{part_name(job.index)}", data)
        for name, done in pending.items():
            try:
                done.result()
            except OSError as exc:
                raise ChunkWriteError(
                    f"cannot write chunk {job.index} of table {name} in {store}: "
                    f"{exc.strerror or exc}"
                ) from None
    return rows, digests


Task = tuple[Setup, ChunkJob]


class Executor(abc.ABC):
    """Runs chunk tasks and yields their results as they finish (in any order)."""

    workers: int

    @abc.abstractmethod
    def run_tasks(self, tasks: Iterable[Task]) -> Iterator[ChunkResult]:
        """Play every task (each with its own setup), consumed lazily, a bounded number in
        flight; yield the results as they come."""

    def run(self, setup: Setup, jobs: Iterable[ChunkJob]) -> Iterator[ChunkResult]:
        """The chunks of one run."""
        return self.run_tasks((setup, job) for job in jobs)

    def warm(self, setup: Setup) -> None:  # noqa: B027 - optional hook
        """Start the workers and have each load ``setup``'s kernels now, without waiting, so
        that they are ready by the time the driver has opened the run (a worker otherwise
        spends its first second importing and loading before its first chunk)."""

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """``fn`` over ``items``, results in order, on this executor's workers where it has
        any (a study's report drawing its figures on the workers that played its points).
        ``fn`` must be a module-level function: workers receive it by name."""
        return [fn(x) for x in items]

    def close(self) -> None:  # noqa: B027 - optional hook
        pass


class InlineExecutor(Executor):
    """Chunks one after another in this process."""

    workers = 1

    def run_tasks(self, tasks: Iterable[Task]) -> Iterator[ChunkResult]:
        for setup, job in tasks:
            try:
                result = run_task(setup, job)
            except Exception as exc:  # one line for the user, whatever the chunk raised
                raise chunk_failure(job, exc) from None
            yield result


class ProcessExecutor(Executor):
    """Chunks in parallel worker processes (``spawn``), retried if a worker dies. The pool
    starts with the first task and stays up (warm workers, kernels loaded) until
    :meth:`close`, so one executor can play many runs one after another."""

    def __init__(self, workers: int, max_restarts: int = 3):
        self.workers = workers
        self.max_restarts = max_restarts
        self.restarts = 0
        self._live: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        if self._live is None:
            self._live = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=mp.get_context("spawn"),
                initializer=init_pool_worker,
            )
        return self._live

    def _drop_pool(self) -> None:
        if self._live is not None:
            self._live.shutdown(wait=True, cancel_futures=True)
            self._live = None

    def run_tasks(self, tasks: Iterable[Task]) -> Iterator[ChunkResult]:
        queue = iter(tasks)  # consumed lazily: a plan of many chunks is never held whole
        pending = next(queue, None)
        retry: list[Task] = []
        window = 2 * self.workers
        while pending is not None or retry:
            pool = self._pool()
            running: dict[Future, Task] = {}
            broken = False
            try:
                while (pending is not None or retry or running) and not broken:
                    while len(running) < window and (retry or pending is not None):
                        if retry:
                            task = retry.pop()
                        else:
                            task, pending = pending, next(queue, None)
                        try:
                            running[pool.submit(run_task, *task)] = task
                        except BrokenProcessPool:  # a worker died since the last result
                            retry.append(task)
                            broken = True
                            break
                    if broken:
                        break
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for fut in done:
                        task = running.pop(fut)
                        try:
                            result = fut.result()
                        except BrokenProcessPool:
                            broken = True
                            retry.append(task)
                            continue
                        except Exception as exc:
                            raise chunk_failure(task[1], exc) from None
                        yield result
                if broken:
                    retry.extend(running.values())
                    running.clear()
                    self._drop_pool()
                    self.restarts += 1
                    if self.restarts > self.max_restarts:
                        raise DinolabError(
                            f"worker processes died {self.restarts} times; giving up "
                            f"(the run is resumable with --resume)"
                        )
            except BaseException:
                self._drop_pool()  # a failed or abandoned stream leaves no task running
                raise
            finally:
                if running:  # the consumer stopped early (a generator closed mid-stream)
                    self._drop_pool()

    def warm(self, setup: Setup) -> None:
        pool = self._pool()
        for _ in range(self.workers):
            pool.submit(warm_worker, setup)

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        items = list(items)
        if len(items) > 1:
            try:
                return list(self._pool().map(fn, items))
            except BrokenProcessPool:  # a worker died: the next run starts a new pool
                self._drop_pool()
        return [fn(x) for x in items]

    def close(self) -> None:
        self._drop_pool()


class ThreadExecutor(Executor):
    """Chunks on a pool of threads of this process, a bounded window in flight. A chunk's
    kernel state and buffers belong to its thread, so the rows are those of any other
    executor; a study's figures are drawn here, one after another (matplotlib is not
    thread-safe)."""

    def __init__(self, workers: int):
        self.workers = workers
        self._live: ThreadPoolExecutor | None = None

    def _pool(self) -> ThreadPoolExecutor:
        if self._live is None:
            self._live = ThreadPoolExecutor(self.workers, thread_name_prefix="dinolab-chunk")
        return self._live

    def run_tasks(self, tasks: Iterable[Task]) -> Iterator[ChunkResult]:
        queue = iter(tasks)
        pool = self._pool()
        running: dict[Future, Task] = {}
        pending = next(queue, None)
        try:
            while pending is not None or running:
                while len(running) < 2 * self.workers and pending is not None:
                    running[pool.submit(run_task, *pending)] = pending
                    pending = next(queue, None)
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    task = running.pop(fut)
                    try:
                        result = fut.result()
                    except Exception as exc:
                        raise chunk_failure(task[1], exc) from None
                    yield result
        finally:  # a failed or abandoned stream: start nothing more, let the rest finish
            for fut in running:
                fut.cancel()
            wait(running)

    def warm(self, setup: Setup) -> None:
        self._pool().submit(warm_worker, setup)

    def close(self) -> None:
        if self._live is not None:
            self._live.shutdown(wait=True, cancel_futures=True)
            self._live = None


def precompile(names: list[str]) -> None:
    """Compile the kernels of games ``names`` in order, those this machine lacks (a background
    process's work, each game under its compile lock)."""
    from simulate.games import get_game

    watch_parent()
    for name in names:
        game = get_game(name)
        if not is_compiled(game):
            ensure_compiled(game.setup(game.parameters(), game.demo.players, game.demo.strategy))


def start_precompiling(names: list[str]) -> mp.process.BaseProcess | None:
    """Compile the kernels of games ``names[1:]`` in a background process while this one
    compiles and plays ``names[0]`` (a first run compiles for about three minutes on one
    core). ``None`` when there is nothing to compile."""
    from simulate.games import get_game

    names = [n for n in names[1:] if not is_compiled(get_game(n))]
    if jit_disabled() or not names:
        return None
    process = mp.get_context("spawn").Process(
        target=precompile, args=(names,), name="dinolab-precompile", daemon=True
    )
    process.start()
    return process
