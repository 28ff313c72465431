"""Run chunks on a Dask cluster (``--backend dask``), the same rows as a local run.

Installed with the optional extra ``dinolab[dask]``. ``--scheduler tcp://host:8786`` (or
``$DINOLAB_DASK_SCHEDULER``) joins an existing cluster; without an address a ``LocalCluster``
of worker processes is started for a quick try.

* One task per chunk, a bounded window of tasks in flight; the setup is sent to the workers
  once (``scatter``) and each worker compiles (or loads) the kernels once, under a file lock
  per machine, then keeps them for every later task.
* Workers write the part files themselves, so the run directory must be reachable from every
  worker at the same path (a local disk for a ``LocalCluster``, a shared filesystem for a
  cluster). The driver only records finished chunks in the manifest.
* A worker that dies mid-chunk: the scheduler runs the chunk again on another worker (up to
  ``distributed.scheduler.allowed-failures`` times); chunks are deterministic, so the rows are
  those of an uninterrupted run.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Iterator

from rules.core.errors import DinolabError
from simulate.executors import ChunkJob, ChunkResult, Executor, ensure_worker, run_chunk
from simulate.games.base import Setup

SCHEDULER_ENV = "DINOLAB_DASK_SCHEDULER"
INSTALL_HINT = "the dask backend needs the optional extra: pip install 'dinolab[dask]'"


def dask_chunk(setup: Setup, key: str, job: ChunkJob) -> ChunkResult:
    """The task each chunk becomes on a Dask worker."""
    ensure_worker(setup, key)
    return run_chunk(job)


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
                    n_workers=workers or os.cpu_count() or 1,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=40,
                )
                self.client = Client(self.cluster)
        except (OSError, TimeoutError) as exc:
            raise DinolabError(f"cannot reach the Dask scheduler {address}: {exc}") from None
        self.workers = len(self.client.scheduler_info()["workers"]) or (workers or 1)

    def run(self, setup: Setup, jobs: Iterable[ChunkJob]) -> Iterator[ChunkResult]:
        from distributed import as_completed

        queue = iter(jobs)  # consumed lazily, a bounded window of tasks in flight
        first = next(queue, None)
        if first is None:
            return
        key = f"{setup.game.name}-{id(setup)}-{os.getpid()}"
        remote = self.client.scatter(setup, broadcast=True, hash=False)
        window = 2 * max(self.workers, 1)
        pending = as_completed()
        for job in [first, *itertools.islice(queue, window - 1)]:
            pending.add(self.client.submit(dask_chunk, remote, key, job, pure=False))
        for future in pending:
            result = future.result()
            future.release()
            job = next(queue, None)
            if job is not None:
                pending.add(self.client.submit(dask_chunk, remote, key, job, pure=False))
            yield result

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()
