"""Run a configuration into a run directory: chunk it, execute, write, record, resume.

The order of work guarantees that bad input or a crash never damages earlier results:

1. Everything is validated before anything is written (:func:`check_out_dir` and the config).
2. A new run writes its data files and a manifest listing no finished chunks.
3. Each finished chunk's part files are renamed into place, then the chunk is appended to the
   journal (``chunks.jsonl``). A chunk is either recorded with complete files, or redone on
   resume. At the end the manifest is rewritten once, listing every chunk.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from rules.core.errors import DinolabError
from simulate.config import RunConfig
from simulate.executors import ChunkJob, ChunkResult, Executor, Measure, Task
from simulate.kit.spec import Setup
from simulate.manifest import (
    MANIFEST,
    new_manifest,
    read_manifest,
    record_chunk,
    run_config,
    write_manifest,
)
from simulate.storage import RunStore, open_store


@dataclasses.dataclass
class RunSummary:
    run_dir: str
    games: int
    games_run: int
    chunks_run: int
    seconds: float
    complete: bool

    @property
    def games_per_second(self) -> float:
        return self.games_run / self.seconds if self.seconds > 0 else float("nan")


def check_out_dir(
    out: str | Path | RunStore, config: RunConfig, *, resume: bool, force: bool
) -> str:
    """Decide what to do with ``out`` without touching it: 'new', 'resume' or 'replace'.
    ``--resume`` on an empty or missing folder starts the run ('new': a run killed before its
    first files leaves nothing to resume, and the same command must still get it done)."""
    out = open_store(out)
    if resume and force:
        raise DinolabError("--resume and --force contradict each other; choose one")
    if out.exists() and not out.is_dir():
        raise DinolabError(f"--out {out} exists and is not a directory")
    empty = out.is_empty()
    if resume and not empty:
        previous = run_config(read_manifest(out))
        if previous.fingerprint() != config.fingerprint():
            diff = "; ".join(config.differences(previous))
            raise DinolabError(f"{out} was made with a different configuration ({diff})")
        return "resume"
    if empty:
        return "new"
    if not force:
        raise DinolabError(
            f"{out} is not empty; use --resume to finish that run or --force to replace it"
        )
    if not out.exists(MANIFEST):
        raise DinolabError(f"refusing to replace {out}: it is not a dinolab run directory")
    read_manifest(out)
    return "replace"


def fresh_notice(resume: bool, mode: str, out: object) -> str | None:
    """The line saying that ``--resume`` found nothing to resume in ``out`` (``mode``: what
    :func:`check_out_dir` decided) and starts the work instead; ``None`` otherwise."""
    if resume and mode == "new":
        return f"nothing to resume in {out} (empty or missing): starting from the beginning"
    return None


def _clear_run(out: RunStore, setup: Setup) -> None:
    """Remove what a previous run wrote (tables, data, variants, robustness companion,
    report), nothing else."""
    manifest = read_manifest(out)
    names = set(manifest.get("tables", {})) | {t.name for t in setup.game.logged_tables}
    files = [*manifest.get("data", {}).get("files", {}), "report.html", "report.md", "metrics.json"]
    for name in [*sorted(names), *files, "variants", "robustness"]:
        out.remove(name)
    out.clear_journal()
    out.remove(MANIFEST)


@dataclasses.dataclass
class RunPlan:
    """One run being played: its configuration, store and manifest, and what is left to do.

    :func:`run` plays one plan; a study plays many through one executor (warm workers), each
    chunk recorded in its own run as it finishes.
    """

    config: RunConfig
    setup: Setup
    store: RunStore
    manifest: dict
    measure: Measure | None = None
    tag: str = ""

    @property
    def done(self) -> dict:
        return self.manifest["chunks"]

    @property
    def games_done(self) -> int:
        return sum(c["stop"] - c["start"] for c in self.done.values())

    @property
    def complete(self) -> bool:
        return len(self.done) >= self.config.n_chunks

    def jobs(self) -> Iterator[ChunkJob]:
        """The chunks still to play, lazily."""
        c = self.config
        for i, start, stop in c.chunks():
            if str(i) not in self.done:
                yield ChunkJob(
                    self.store.url,
                    c.seed,
                    c.rotate,
                    i,
                    start,
                    stop,
                    c.tables,
                    self.measure,
                    self.tag,
                )

    def tasks(self) -> Iterator[Task]:
        """:meth:`jobs` with this run's setup, for an executor playing several runs."""
        return ((self.setup, job) for job in self.jobs())

    def record(self, result: ChunkResult) -> None:
        """A finished chunk, recorded after its files are in place."""
        self.done[str(result.index)] = result.to_manifest()
        record_chunk(self.store, result.index, self.done[str(result.index)])

    def finish(self) -> None:
        """Every chunk is in place and no worker is left, so any temporary file is an orphan
        of a worker killed mid-write (its chunk was redone): sweep it, then mark the run
        complete."""
        self.store.remove_temporaries()
        self.manifest["status"] = "complete"
        write_manifest(self.store, self.manifest)
        self.store.clear_journal()  # the manifest now lists every chunk


def open_run(
    config: RunConfig,
    setup: Setup,
    out: str | Path | RunStore,
    *,
    resume: bool = False,
    force: bool = False,
    measure: Measure | None = None,
    tag: str = "",
) -> RunPlan:
    """Check ``out`` (:func:`check_out_dir`), then start the run there: a new run writes its
    data files and a manifest listing no chunks; a resumed one drops its temporary files."""
    out = open_store(out)
    mode = check_out_dir(out, config, resume=resume, force=force)
    if mode == "replace":
        _clear_run(out, setup)
    if mode == "resume":
        manifest = read_manifest(out)
        out.remove_temporaries()
    else:
        files = setup.game.data_files(setup)
        digests = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
        manifest = new_manifest(config, setup, digests)
        created = not out.exists()
        try:
            for name, data in files.items():
                out.write_bytes(name, data)
            write_manifest(out, manifest)
        except OSError as exc:
            if created:  # leave nothing half-made behind
                out.remove("")
            raise DinolabError(f"cannot write the run directory {out}: {exc.strerror}") from None
    return RunPlan(config, setup, out, manifest, measure, tag)


def run(
    config: RunConfig,
    setup: Setup,
    out: str | Path | RunStore,
    executor: Executor,
    *,
    resume: bool = False,
    force: bool = False,
    on_chunk: Callable[[int, int], None] | None = None,
    close: bool = True,
) -> RunSummary:
    """Play ``config`` into ``out``. ``on_chunk(games_done, games_total)`` reports progress.
    ``close``: close the executor at the end; ``False`` when its owner plays more runs through
    it (warm workers: a demo's run, its variants and its robustness companion)."""
    plan = open_run(config, setup, out, resume=resume, force=force)
    games_done = plan.games_done
    if on_chunk:
        on_chunk(games_done, config.games)
    t0 = time.perf_counter()
    games_run = chunks_run = 0
    try:
        if not plan.complete:
            for result in executor.run(setup, plan.jobs()):
                plan.record(result)
                games_run += result.stop - result.start
                games_done += result.stop - result.start
                chunks_run += 1
                if on_chunk:
                    on_chunk(games_done, config.games)
    finally:
        if close:
            executor.close()
    plan.finish()
    seconds = time.perf_counter() - t0
    return RunSummary(plan.store.url, config.games, games_run, chunks_run, seconds, True)
