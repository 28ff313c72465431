"""``--backend`` and ``--workers`` to an executor: the one place that knows every backend."""

from __future__ import annotations

from rules.core.errors import DinolabError
from simulate.executors import Executor, InlineExecutor, ProcessExecutor, default_workers


def make_executor(
    workers: int | None,
    backend: str = "local",
    scheduler: str | None = None,
    tasks: int | None = None,
) -> Executor:
    """The executor for ``--backend`` and ``--workers`` (default: :func:`default_workers`).
    ``tasks``: the most chunks the run can hand out; a local pool gets no more workers than
    that, and a run of one chunk plays in this process, without starting a worker (a
    1,000-game run then takes about as long as importing and loading its kernel)."""
    if workers is not None and workers < 1:
        raise DinolabError(f"--workers must be at least 1, got {workers}")
    if backend == "dask":
        from simulate.dask_backend import DaskExecutor

        return DaskExecutor(scheduler, workers)
    if backend != "local":
        raise DinolabError(f"unknown backend '{backend}' (known: local, dask)")
    if scheduler:
        raise DinolabError("--scheduler needs --backend dask")
    n = default_workers() if workers is None else workers
    if tasks is not None:
        n = max(1, min(n, tasks))
    return InlineExecutor() if n == 1 else ProcessExecutor(n)
