"""``dinolab ladder``: a game's bots on one strength scale against its default heuristic.

The composition root of the ladder: ``simulate.study.ladder`` plays the rungs, ``reports``
measures each rung's win share and rates the bots; :func:`ladder_ratings` hands the second the
first's runs (also the entry point from Python).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from simulate.cli.app import app, echo, warn
from simulate.cli.common import Progress, Workers

if TYPE_CHECKING:
    from simulate.study.ladder import LadderPlan, LadderRequest


def ladder_ratings(
    request: LadderRequest,
    *,
    workers: int | None = None,
    progress: bool | None = False,
    echo: Callable[[str], None] = lambda line: None,
    warn: Callable[[str], None] = lambda line: None,
) -> LadderPlan:
    """Play a ladder (:func:`simulate.study.ladder.ladder`), ``echo`` each rung's win share
    against the field with its 95% interval, and rate every bot on one scale
    (:func:`simulate.cli.analysis_commands.rate_runs`: ratings.html and ratings.md beside the
    rungs); from Python as from ``dinolab ladder``."""
    from reports.measure import measure_run
    from reports.metrics import Context, resolve
    from simulate.cli.analysis_commands import rate_runs
    from simulate.rundir import Run
    from simulate.study.ladder import POSITION_0, ladder

    plan = ladder(request, workers=workers, progress=progress, echo=echo, warn=warn)
    n = plan.players
    echo(f"\nwin share against {n - 1} x {plan.field} (95% interval; fair {1 / n:.1%}):")
    for r in plan.rungs:
        run = Run(r.out)
        e = measure_run(run, [resolve(POSITION_0, Context.of(run))])[POSITION_0]
        echo(f"  {r.bot:30s} {e.value:7.2%} [{e.lo:.2%}, {e.hi:.2%}]")
    echo("")
    rate_runs(plan.dirs, plan.base, echo)
    return plan


@app.command()
def ladder(
    game: Annotated[str, typer.Argument(help="Game name or alias, e.g. evo.")],
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder of the rung runs and ratings.html.")
    ] = Path("runs/ladder"),
    rung: Annotated[
        list[str] | None,
        typer.Option(
            "--rung",
            help="A rung, BOT:GAMES (repeatable; default: the game's declared ladder).",
        ),
    ] = None,
    players: Annotated[
        int | None, typer.Option("--players", "-p", help="Players (default: the ladder's).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Root seed of every rung's run.")] = 2027,
    scale: Annotated[
        float, typer.Option(help="Multiply every rung's games (0.05 for a quick look).")
    ] = 1.0,
    workers: Workers = None,
    progress: Progress = None,
    force: Annotated[bool, typer.Option(help="Replay rungs already in --out.")] = False,
) -> None:
    """Put a game's bots on one strength scale: each rung against the default heuristic.

    Each rung plays lineup position 0 against the game's default heuristic in every other
    seat, seats rotated, on the same seed; the runs go to OUT/GAME/<bot>/. Each rung's win
    share against the field is printed with its 95% interval, and `dinolab rate` puts every
    bot (the heuristic included) on one Plackett-Luce scale with 95% intervals,
    written to OUT/GAME/ratings.html and ratings.md. A rung already played with the same
    configuration is kept (the ladder resumes); a rung whose games changed needs --force.

    The declared ladder (`dinolab games GAME` shows it): random, the default heuristic (the
    field), tuned, and search at two budgets.

    Examples:

      dinolab ladder dkd

      dinolab ladder evo --scale 0.1 --rung tuned:20000 --rung "search\\[rollouts=2]:500"
    """
    from simulate.study.ladder import LadderRequest

    request = LadderRequest(
        game=game,
        out=str(out),
        rungs=tuple(rung or ()),
        players=players,
        seed=seed,
        scale=scale,
        force=force,
    )
    ladder_ratings(request, workers=workers, progress=progress, echo=echo, warn=warn)
