"""``--backend`` and ``--workers`` to an executor: the one place that knows every backend."""

from __future__ import annotations

from rules.core.errors import DinolabError
from simulate.executors import Executor, InlineExecutor, ProcessExecutor, default_workers


def make_executor(
    workers: int | None, backend: str = "local", scheduler: str | None = None
) -> Executor:
    """The executor for ``--backend`` and ``--workers`` (default: :func:`default_workers`)."""
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
    return InlineExecutor() if n == 1 else ProcessExecutor(n)
