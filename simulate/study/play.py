"""Playing a study's configurations through one executor: warm workers, nothing per point.

:func:`play_runs` streams the chunks of many runs (a sweep's points, a search's finalists)
through one executor, in order, a bounded window in flight across run boundaries: the worker
processes start once, load the kernels once and keep each configuration's inputs, so a point
costs only its games. Each chunk is recorded in its own run as it finishes (a killed study
resumes like a killed run); when a run's last chunk is in, the run is finished and handed to
``on_complete`` with what the workers measured on its chunks.

:func:`play_blocks` plays seed blocks of configurations without writing anything: only what
the workers measure comes back (a search's trials).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from simulate.executors import ChunkJob, ChunkResult, Executor, Measure, Task
from simulate.kit.spec import Setup
from simulate.runner import RunPlan

Progress = Callable[[int, int], None]


def play_runs(
    plans: Sequence[RunPlan],
    executor: Executor,
    on_complete: Callable[[RunPlan, dict[int, Any]], None],
    progress: Progress | None = None,
) -> None:
    """Play every unfinished chunk of ``plans``; ``on_complete(plan, measured)`` for each run
    that finishes (``measured``: chunk index -> its measure, for the chunks played now; runs
    complete already are handed over at once with nothing measured)."""
    by_tag = {p.tag: p for p in plans}
    if len(by_tag) != len(plans):
        raise ValueError("every run of a study needs its own tag")
    measured: dict[str, dict[int, Any]] = {p.tag: {} for p in plans}
    total = sum(p.config.games for p in plans)
    done = sum(p.games_done for p in plans)
    if progress:
        progress(done, total)
    for p in plans:
        if p.complete:
            p.finish()
            on_complete(p, {})

    def tasks() -> Iterator[Task]:
        for p in plans:
            if not p.complete:
                yield from p.tasks()

    left = {p.tag: sum(1 for _ in p.jobs()) for p in plans if not p.complete}
    for result in executor.run_tasks(tasks()):
        plan = by_tag[result.tag]
        plan.record(result)
        measured[plan.tag][result.index] = result.measured
        done += result.stop - result.start
        if progress:
            progress(done, total)
        left[plan.tag] -= 1
        if left[plan.tag] == 0:
            plan.finish()
            on_complete(plan, measured.pop(plan.tag))


@dataclasses.dataclass(frozen=True)
class Block:
    """Games ``start .. stop-1`` of seed ``seed`` for one configuration, played in chunks of
    at most ``chunk`` games and measured, nothing written."""

    setup: Setup
    seed: int
    rotate: bool
    start: int
    stop: int
    chunk: int
    tag: str

    def jobs(self, measure: Measure, tables: tuple[str, ...] | None) -> Iterator[ChunkJob]:
        for i, a in enumerate(range(self.start, self.stop, self.chunk)):
            b = min(self.stop, a + self.chunk)
            yield ChunkJob(None, self.seed, self.rotate, i, a, b, tables, measure, self.tag)


def play_blocks(
    blocks: Iterable[Block],
    executor: Executor,
    measure: Measure,
    tables: tuple[str, ...] | None,
) -> dict[str, list[ChunkResult]]:
    """Play the blocks; each block's chunk results by tag, in chunk order."""
    out: dict[str, list[ChunkResult]] = {}
    tasks = ((b.setup, job) for b in blocks for job in b.jobs(measure, tables))
    for result in executor.run_tasks(tasks):
        out.setdefault(result.tag, []).append(result)
    return {tag: sorted(rs, key=lambda r: r.index) for tag, rs in out.items()}
