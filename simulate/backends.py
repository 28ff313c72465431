"""``--backend`` and ``--workers`` to an executor: the one place that knows every backend."""

from __future__ import annotations

from rules.core.errors import DinolabError
from simulate.executors import (
    Executor,
    InlineExecutor,
    ProcessExecutor,
    ThreadExecutor,
    default_workers,
)

BACKENDS = ("local", "threads", "dask")
"""``--backend``: local worker processes, threads of this process, or a Dask cluster."""


def check_backend(backend: str, scheduler: str | None = None) -> None:
    """A one-line error for an unknown ``--backend``, or a ``--scheduler`` without dask."""
    if backend not in BACKENDS:
        raise DinolabError(f"unknown backend '{backend}' (known: {', '.join(BACKENDS)})")
    if scheduler and backend != "dask":
        raise DinolabError("--scheduler needs --backend dask")


def make_executor(
    workers: int | None,
    backend: str = "local",
    scheduler: str | None = None,
    tasks: int | None = None,
) -> Executor:
    """The executor for ``--backend`` and ``--workers`` (default: :func:`default_workers`).
    ``tasks``: the most chunks the run can hand out; a local pool (of processes or threads)
    gets no more workers than that, and a run of one chunk plays in this process, without
    starting a worker (a 1,000-game run then takes about as long as importing and loading its
    kernel)."""
    if workers is not None and workers < 1:
        raise DinolabError(f"--workers must be at least 1, got {workers}")
    check_backend(backend, scheduler)
    if backend == "dask":
        from simulate.dask_backend import DaskExecutor

        return DaskExecutor(scheduler, workers)
    n = default_workers() if workers is None else workers
    if tasks is not None:
        n = max(1, min(n, tasks))
    if n == 1:
        return InlineExecutor()
    return ThreadExecutor(n) if backend == "threads" else ProcessExecutor(n)


class WarmPool:
    """One executor for several runs, made when the first of them needs it and closed with
    :meth:`close` (or at the end of a ``with`` block): the worker processes start once and
    stay warm from a run to its report's variants and robustness companion. Calling it gives
    the executor, made on the first call (``make_executor(workers, backend, scheduler)``), so
    a report whose variants and companion are stored starts none."""

    def __init__(self, workers: int | None, backend: str = "local", scheduler: str | None = None):
        self.args = (workers, backend, scheduler)
        self.made: Executor | None = None

    def __call__(self) -> Executor:
        if self.made is None:
            self.made = make_executor(*self.args)
        return self.made

    def close(self) -> None:
        if self.made is not None:
            self.made.close()
            self.made = None

    def __enter__(self) -> WarmPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
