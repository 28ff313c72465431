"""Helpers every command shares: compile notices, a game's report, the report's mapper,
executors, and the options the study commands (sweep, search) declare alike."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from simulate.cli.app import echo, warn

if TYPE_CHECKING:
    from reports.game import GameReport
    from simulate.kit.spec import GameSpec, Setup


def say_if_compiling(game, setups: Iterable[Setup] = ()) -> None:
    """On a machine without the game's compiled kernels that ``setups`` play (by default the
    one without the search bots), say why the start is slow."""
    from simulate.kit.compiled import compiling_notice

    for searches in sorted({s.searches for s in setups} or {False}):
        if notice := compiling_notice(game, searches):
            typer.echo(notice, err=True)
            return


def say_if_fresh(resume: bool, mode: str, out: object) -> None:
    """Say that ``--resume`` found nothing to resume in ``out`` and starts the work instead."""
    from simulate.runner import fresh_notice

    if notice := fresh_notice(resume, mode, out):
        typer.echo(notice)


@contextlib.contextmanager
def exit_on_interrupt(hint: str) -> Iterator[None]:
    """On Ctrl-C, say on stderr how to finish the work (``hint``) and exit with code 130."""
    try:
        yield
    except KeyboardInterrupt:
        warn(f"interrupted; {hint}")
        raise typer.Exit(130) from None


T = TypeVar("T")


def run_study(
    study: Callable[..., T],
    request: object,
    workers: int | None,
    backend: str,
    scheduler: str | None,
    progress: bool | None,
) -> T:
    """``study(request)`` (a study's composition function, e.g. ``sweep_study``) with the
    command's execution options, echoing its lines; on Ctrl-C, the line that says how to finish
    it, and exit status 130."""
    with exit_on_interrupt("run the same command with --resume to finish"):
        return study(
            request,
            workers=workers,
            backend=backend,
            scheduler=scheduler,
            progress=progress,
            echo=echo,
        )


def game_report(game: GameSpec) -> GameReport:
    """The game's report plug-in (:class:`reports.game.GameReport`): the ``REPORT`` of the
    module its spec names (``GameSpec.report``), checked."""
    import importlib

    from reports.game import GameReport

    found = getattr(importlib.import_module(game.report), "REPORT", None)
    if not isinstance(found, GameReport):
        raise TypeError(f"{game.report}.REPORT must be a reports.game.GameReport ({game.name})")
    return found


def report_mapper(backend: str, scheduler: str | None, workers: int | None, executor=None):
    """How the report's analyses map over chunks: local threads (``local``, ``threads``), or
    Dask tasks."""
    from simulate.backends import check_backend

    check_backend(backend, scheduler)
    if backend != "dask":
        return None
    from simulate.dask_backend import DaskExecutor, DaskMapper

    if isinstance(executor, DaskExecutor):  # a study's cluster maps its analyses too
        return DaskMapper(executor=executor)
    return DaskMapper(scheduler, workers)


def study_executor(workers: int | None, backend: str, scheduler: str | None):
    """The executor of a study (one for all its configurations: warm workers)."""
    from simulate.backends import make_executor

    return make_executor(workers, backend, scheduler)


GameName = Annotated[str, typer.Argument(help="Game name or alias, e.g. dtb.")]
Players = Annotated[int | None, typer.Option("--players", "-p", help="Players per game.")]
Strategy = Annotated[str | None, typer.Option("--strategy", "-s", help="Bots, as for simulate.")]
Rotate = Annotated[
    bool, typer.Option("--rotate/--no-rotate", help="Rotate the lineup round the table.")
]
RulesFile = Annotated[
    Path | None, typer.Option("--rules", help="A TOML file of fixed rule changes.")
]
RuleChanges = Annotated[Path | None, typer.Option("--rules", help="A TOML file of rule changes.")]
Workers = Annotated[
    int | None,
    typer.Option(
        help="Worker processes, or threads with --backend threads (default: $DINOLAB_WORKERS, "
        "else every core)."
    ),
]
Backend = Annotated[str, typer.Option(help="local processes, threads of this process, or dask.")]
Scheduler = Annotated[
    str | None, typer.Option(help="Dask scheduler address (with --backend dask).")
]
Tiers = Annotated[
    list[str] | None,
    typer.Option(
        "--tier",
        "-t",
        help="A strength tier: one strategy spec played in every seat, e.g. heuristic or "
        "strong\\[playouts=16]. Repeatable, cheapest first: the study is played at each tier "
        "on the same games, and a target must hold at every one (not with --strategy).",
    ),
]
Progress = Annotated[
    bool | None,
    typer.Option("--progress/--no-progress", help="Progress bar (default: on a terminal)."),
]
