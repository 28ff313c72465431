"""One run from a request: what ``dinolab simulate`` does, also for ``demo``, ``ladder`` and
Python.

A :class:`RunRequest` holds the command's arguments (``None``: the default, or on ``resume``
the value the run's manifest recorded); :func:`plan_run` turns it into a checked
configuration and run folder without writing anything, :func:`simulate` plays it through an
executor (its own, or one its caller keeps warm across several runs) and
:meth:`RunOutcome.lines` says what was done, as the command prints it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from rules.core.errors import DinolabError
from simulate.config import RunConfig, build_config
from simulate.executors import Executor
from simulate.kit.spec import GameSpec, Setup
from simulate.runner import RunSummary, check_out_dir, fresh_notice, run

DEFAULT_GAMES = 10_000
"""Games of a run when none are asked for."""


@dataclasses.dataclass(frozen=True)
class RunRequest:
    """What ``dinolab simulate`` asks for (the same arguments from Python). ``None`` means the
    default, or with ``resume`` what the run in ``out`` recorded."""

    game: str
    games: int | None = None
    players: int | None = None
    seed: int | None = None
    strategy: str | None = None
    """Bots: one spec for every seat, or one per seat separated by commas."""
    rotate: bool | None = None
    assignments: tuple[str, ...] | None = None
    """Rule changes, ``key=value``."""
    rules_file: str | None = None
    out: str | None = None
    """The run folder (default ``runs/<game>-<P>p-seed<S>-<N>``)."""
    chunk_size: int | None = None
    tables: str | None = None
    """The tables to log, e.g. ``games,players`` (default: every table)."""
    resume: bool = False
    force: bool = False


@dataclasses.dataclass(frozen=True)
class RunSession:
    """A checked run, nothing written yet: its configuration, folder and what to do there
    (:func:`simulate.runner.check_out_dir`'s 'new', 'resume' or 'replace')."""

    request: RunRequest
    game: GameSpec
    config: RunConfig
    setup: Setup
    out: str
    mode: str

    @property
    def chunks(self) -> int:
        return -(-self.config.games // self.config.chunk_size)


@dataclasses.dataclass(frozen=True)
class RunOutcome:
    """A played run: its session, what :func:`simulate.runner.run` did, and the workers that
    played it."""

    session: RunSession
    summary: RunSummary
    workers: int

    def lines(self) -> list[str]:
        """What ``dinolab simulate`` prints when the run is done."""
        from simulate.progress import rate_text

        s, out, config = self.summary, self.session.out, self.session.config
        if s.chunks_run == 0:
            return [f"{out}: all {config.games:,} games were already done"]
        return [
            f"wrote {s.games_run:,} games to {out} in {s.seconds:.1f} s "
            f"({rate_text(s.games_per_second)}, {self.workers} worker"
            f"{'s' if self.workers != 1 else ''})",
            f"data: {self.session.setup.describe_data()}",
            f"next: dinolab report {out}",
        ]


def plan_run(request: RunRequest) -> RunSession:
    """Validate ``request`` (with ``resume``, the options not given come from the run's
    manifest) and decide what to do with its folder; nothing is written, no worker started."""
    from simulate.games import get_game
    from simulate.manifest import read_manifest, run_config
    from simulate.storage import open_store

    r = request
    g = get_game(r.game)
    previous: RunConfig | None = None
    if r.resume and r.out is not None and open_store(r.out).exists("manifest.json"):
        previous = run_config(read_manifest(r.out))
    if previous is not None and previous.game != g.name:
        raise DinolabError(f"{r.out} holds a {previous.game} run, not {g.name}")
    assignments = None if r.assignments is None else list(r.assignments)
    if previous is not None and assignments is None and r.rules_file is None:
        assignments = [f"{k}={_text(v)}" for k, v in previous.params.items()]

    def pick(value, key, default):
        if value is not None:
            return value
        return getattr(previous, key) if previous is not None else default

    n_players = pick(r.players, "n_players", g.default_players)
    n_games = pick(r.games, "games", DEFAULT_GAMES)
    root_seed = pick(r.seed, "seed", 0)
    config, setup = build_config(
        g.name,
        n_players=n_players,
        strategies=r.strategy
        if r.strategy is not None
        else (",".join(previous.strategies) if previous else None),
        rotate=pick(r.rotate, "rotate", False),
        seed=root_seed,
        games=n_games,
        chunk_size=pick(r.chunk_size, "chunk_size", None),
        assignments=assignments,
        rules_file=r.rules_file,
        tables=r.tables if r.tables is not None else (previous.tables if previous else None),
    )
    out = r.out
    if out is None:
        out = str(Path("runs") / f"{g.name}-{n_players}p-seed{root_seed}-{n_games}")
    mode = check_out_dir(out, config, resume=r.resume, force=r.force)
    return RunSession(r, g, config, setup, out, mode)


def _text(value) -> str:
    """A manifest's rule value as ``--set`` spells it."""
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def simulate(
    request: RunRequest,
    executor: Executor | None = None,
    *,
    workers: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    progress: bool | None = False,
    echo: Callable[[str], None] = lambda line: None,
    warn: Callable[[str], None] = lambda line: None,
) -> RunOutcome:
    """Play one run (from Python as from ``dinolab simulate``): :func:`plan_run`, then the
    games. Without an ``executor`` one is made for the run (``workers``, ``backend``,
    ``scheduler``; no more workers than chunks, one chunk in this process) and closed after
    it; a given one is left open for the runs to come. ``echo`` gets the line saying that
    ``--resume`` found nothing to resume, ``warn`` the one saying the kernels compile."""
    from simulate.backends import make_executor
    from simulate.kit.compiled import compiling_notice
    from simulate.progress import progress_bar, want_progress

    session = plan_run(request)  # before starting any worker
    if notice := fresh_notice(request.resume, session.mode, session.out):
        echo(notice)
    if notice := compiling_notice(session.game, session.setup.searches):
        warn(notice)
    own = executor is None
    if executor is None:
        executor = make_executor(workers, backend, scheduler, tasks=session.chunks)
        executor.warm(session.setup)  # workers load while this process opens the run
    label = f"{session.game.name} {session.config.n_players}p"
    with progress_bar(label, want_progress(progress)) as update:
        summary = run(
            session.config,
            session.setup,
            session.out,
            executor,
            resume=request.resume,
            force=request.force,
            on_chunk=update,
            close=own,
        )
    busy = executor.workers if own else max(1, min(executor.workers, session.chunks))
    return RunOutcome(session, summary, busy)
