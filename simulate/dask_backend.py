"""Run chunks on a Dask cluster (``--backend dask``), the same rows as a local run.

Installed with the optional extra ``dinolab[dask]``. ``--scheduler tcp://host:8786`` (or
``$DINOLAB_DASK_SCHEDULER``) joins an existing cluster; without an address a ``LocalCluster``
of worker processes is started for a quick try.

* One task per chunk, a bounded window of tasks in flight; each setup is sent to the workers
  once (``scatter``) and each worker process compiles (or loads) the kernels once, under a file
  lock per machine, then keeps them for every later task (a study's many points included).
* A worker may run tasks on several threads (``dask worker --nthreads 4``): each thread plays
  with its own kernel state and buffers (:mod:`simulate.kit.play`), so the rows are the same.
* Workers write the part files themselves, so the run directory must be reachable from every
  worker at the same path (a local disk for a ``LocalCluster``, a shared filesystem for a
  cluster). The driver only records finished chunks in the manifest.
* A worker that dies mid-chunk: the scheduler runs the chunk again on another worker (up to
  ``distributed.scheduler.allowed-failures`` times); chunks are deterministic, so the rows are
  those of an uninterrupted run. A chunk that fails for good ends the run with one line naming
  it; the run stays resumable.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from rules.core.errors import DinolabError
from simulate.executors import (
    ChunkJob,
    ChunkResult,
    Executor,
    Task,
    chunk_failure,
    default_workers,
    run_task,
)
from simulate.kit.spec import Setup

SCHEDULER_ENV = "DINOLAB_DASK_SCHEDULER"
INSTALL_HINT = "the dask backend needs the optional extra: pip install 'dinolab[dask]'"


def dask_chunk(setup: Setup, job: ChunkJob) -> ChunkResult:
    """The task each chunk becomes on a Dask worker (any of its threads)."""
    return run_task(setup, job)


class DaskExecutor(Executor):
    """Chunks as Dask tasks on an existing cluster or a LocalCluster."""

    def __init__(self, scheduler: str | None = None, workers: int | None = None):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise DinolabError(INSTALL_HINT) from None
        address = scheduler or os.environ.get(SCHEDULER_ENV)
        self.cluster = None
        try:
            if address:
                self.client = Client(address, timeout="20s")
            else:
                self.cluster = LocalCluster(
                    n_workers=workers or default_workers(),
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",  # any free port: clusters may run side by side
                    silence_logs=40,
                )
                self.client = Client(self.cluster)
        except (OSError, TimeoutError, ValueError) as exc:
            where = address or "a local cluster"
            raise DinolabError(f"cannot reach the Dask scheduler {where}: {exc}") from None
        self.workers = sum(
            w.get("nthreads", 1) for w in self.client.scheduler_info()["workers"].values()
        ) or (workers or 1)
        self._scattered: dict[str, object] = {}

    def _remote(self, setup: Setup):
        """The setup's future on the cluster, scattered once per executor."""
        if setup.key not in self._scattered:
            try:
                self._scattered[setup.key] = self.client.scatter(setup, broadcast=True, hash=False)
            except Exception as exc:  # the cluster went away, or cannot take the setup
                raise DinolabError(f"cannot send the setup to the Dask cluster: {exc}") from None
        return self._scattered[setup.key]

    def run_tasks(self, tasks: Iterable[Task]) -> Iterator[ChunkResult]:
        from distributed import as_completed

        queue = iter(tasks)  # consumed lazily, a bounded window of tasks in flight
        first = next(queue, None)
        if first is None:
            return
        window = 2 * max(self.workers, 1)
        pending = as_completed()
        jobs_of: dict[str, ChunkJob] = {}

        def submit(task: Task) -> None:
            setup, job = task
            future = self.client.submit(dask_chunk, self._remote(setup), job, pure=False)
            jobs_of[future.key] = job
            pending.add(future)

        for task in [first, *itertools.islice(queue, window - 1)]:
            submit(task)
        for future in pending:
            job = jobs_of.pop(future.key)
            try:
                result = future.result()
            except Exception as exc:  # a failed task, a killed worker, a cancelled future
                raise chunk_failure(job, exc) from None
            future.release()
            nxt = next(queue, None)
            if nxt is not None:
                submit(nxt)
            yield result

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        return self.client.gather(self.client.map(fn, list(items), pure=False))

    def close(self) -> None:
        self._scattered.clear()
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


class DaskMapper:
    """A ``map`` for the report's analyses: one task per chunk, on the cluster, in order.

    The tasks read their chunk where the workers are (the run directory must be reachable
    from them, as for simulating), and only the small per-chunk sums travel back.
    """

    def __init__(
        self,
        scheduler: str | None = None,
        workers: int | None = None,
        executor: DaskExecutor | None = None,
    ):
        self.executor = executor if executor is not None else DaskExecutor(scheduler, workers)

    def __call__(self, fn, items):
        client = self.executor.client
        futures = client.map(fn, list(items), pure=False)
        return client.gather(futures)

    def close(self) -> None:
        self.executor.close()
