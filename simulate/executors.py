"""Where chunks run: behind one small seam, so the runner does not care.

* :class:`InlineExecutor` runs chunks in this process (``--workers 1``; tests; debugging).
* :class:`ProcessExecutor` runs them in ``spawn``-ed worker processes, a bounded window of
  chunks in flight so memory does not grow with the number of chunks. A worker that dies
  (killed, out of memory) breaks the pool; the executor starts a new one and runs the chunks
  that had not finished again. Chunks are deterministic, so a retried chunk writes the same rows.

Every executor receives the validated :class:`~simulate.kit.spec.Setup` once per worker
and then only chunk coordinates. Kernels are compiled once per machine: workers warm up under
a file lock (:func:`compile_lock`), so the first compiles into the on-disk cache and the others
load it (concurrent first-time cache writes break numba's cache). The parent process never
compiles, which keeps its memory small. A chunk's kernel state and buffers belong to the thread
that plays it (:mod:`simulate.kit.play`), so a worker may run chunks on several threads.
"""

from __future__ import annotations

import abc
import contextlib
import dataclasses
import fcntl
import multiprocessing as mp
import os
import threading
import time
import traceback
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool

from rules.core.errors import DinolabError
from rules.core.jit import cache_dir
from simulate.kit.compiled import mark_compiled
from simulate.kit.play import play, warmup
from simulate.kit.spec import Setup
from simulate.parquet import write_part
from simulate.storage import open_store


@dataclasses.dataclass(frozen=True)
class ChunkJob:
    """What a worker needs besides the setup: where to write and which games to play."""

    run_dir: str
    seed: int
    rotate: bool
    index: int
    start: int
    stop: int


@dataclasses.dataclass(frozen=True)
class ChunkResult:
    index: int
    start: int
    stop: int
    rows: dict[str, int]
    sha256: dict[str, str]
    seconds: float

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


_POOL_SETUP: Setup | None = None
"""The setup of this pool worker process, set once by its initializer."""
_warmed: set[str] = set()
_warm_lock = threading.Lock()


@contextlib.contextmanager
def compile_lock() -> Iterator[None]:
    """One process per machine compiles at a time: numba's cache breaks under concurrent
    first-time writes. Others wait, then load what the first one wrote."""
    path = cache_dir()
    path.mkdir(parents=True, exist_ok=True)
    with open(path / ".compile.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def ensure_compiled(setup: Setup) -> None:
    """Compile (or load) the game's kernel once per process; other threads wait for it.

    Every setup of a game has the same kernel argument types, so once per game is enough.
    """
    with _warm_lock:
        if setup.game.name in _warmed:
            return
        with compile_lock():
            warmup(setup)
            mark_compiled(setup.game)
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


def init_pool_worker(setup: Setup) -> None:
    """Start of a local pool worker: watch the parent, keep the setup, compile once."""
    global _POOL_SETUP
    watch_parent()
    ensure_compiled(setup)
    _POOL_SETUP = setup


def run_pool_chunk(job: ChunkJob) -> ChunkResult:
    """A pool worker's chunk, with the setup its initializer received."""
    if _POOL_SETUP is None:
        raise RuntimeError("pool worker not initialised")
    return run_chunk(_POOL_SETUP, job)


def run_chunk(setup: Setup, job: ChunkJob) -> ChunkResult:
    """Play one chunk and write every table's part file; return what was written."""
    t0 = time.perf_counter()
    rows, digests = {}, {}
    store = open_store(job.run_dir)
    # reuse: this thread's buffers of the last chunk; its tables were written before this one
    tables = play(setup, job.seed, job.rotate, job.start, job.stop, reuse=True)
    for name, table in tables.items():
        try:
            rows[name], digests[name] = write_part(store, name, job.index, table)
        except OSError as exc:
            raise ChunkWriteError(
                f"cannot write chunk {job.index} of table {name} in {store}: {exc.strerror or exc}"
            ) from None
    del tables
    return ChunkResult(job.index, job.start, job.stop, rows, digests, time.perf_counter() - t0)


class Executor(abc.ABC):
    """Runs chunk jobs and yields their results as they finish (in any order)."""

    workers: int

    @abc.abstractmethod
    def run(self, setup: Setup, jobs: Iterable[ChunkJob]) -> Iterator[ChunkResult]: ...

    def close(self) -> None:  # noqa: B027 - optional hook
        pass


class InlineExecutor(Executor):
    """Chunks one after another in this process."""

    workers = 1

    def run(self, setup: Setup, jobs: Iterable[ChunkJob]) -> Iterator[ChunkResult]:
        ensure_compiled(setup)
        for job in jobs:
            try:
                result = run_chunk(setup, job)
            except Exception as exc:  # one line for the user, whatever the chunk raised
                raise chunk_failure(job, exc) from None
            yield result


class ProcessExecutor(Executor):
    """Chunks in parallel worker processes (``spawn``), retried if a worker dies."""

    def __init__(self, workers: int, max_restarts: int = 3):
        self.workers = workers
        self.max_restarts = max_restarts
        self.restarts = 0

    def _pool(self, setup: Setup) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=mp.get_context("spawn"),
            initializer=init_pool_worker,
            initargs=(setup,),
        )

    def run(self, setup: Setup, jobs: Iterable[ChunkJob]) -> Iterator[ChunkResult]:
        queue = iter(jobs)  # consumed lazily: a plan of many chunks is never held whole
        pending = next(queue, None)
        retry: list[ChunkJob] = []
        window = 2 * self.workers
        while pending is not None or retry:
            pool = self._pool(setup)
            running: dict[Future, ChunkJob] = {}
            broken = False
            try:
                while (pending is not None or retry or running) and not broken:
                    while len(running) < window and (retry or pending is not None):
                        if retry:
                            job = retry.pop()
                        else:
                            job, pending = pending, next(queue, None)
                        running[pool.submit(run_pool_chunk, job)] = job
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for fut in done:
                        job = running.pop(fut)
                        try:
                            result = fut.result()
                        except BrokenProcessPool:
                            broken = True
                            retry.append(job)
                            continue
                        except Exception as exc:
                            raise chunk_failure(job, exc) from None
                        yield result
                if broken:
                    retry.extend(running.values())
                    running.clear()
                    self.restarts += 1
                    if self.restarts > self.max_restarts:
                        raise DinolabError(
                            f"worker processes died {self.restarts} times; giving up "
                            f"(the run is resumable with --resume)"
                        )
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
