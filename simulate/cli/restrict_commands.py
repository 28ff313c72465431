"""``dinolab restrict``: restricted play, what each option of a game is worth to a bot.

The composition root of the study: ``simulate.study.restrict`` plans and plays the runs,
``reports.restrict`` measures them (``simulate.cli.study_reports.write_restrict_report``);
:func:`restricted_play` hands the second the first's runs (also the entry point from Python).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from simulate.cli.app import app, echo, warn
from simulate.cli.common import (
    Backend,
    Players,
    Progress,
    RuleChanges,
    Scheduler,
    Workers,
    exit_on_interrupt,
)

if TYPE_CHECKING:
    from simulate.study.restrict import RestrictRequest


def restricted_play(
    request: RestrictRequest,
    *,
    workers: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    progress: bool | None = False,
    echo: Callable[[str], None] = lambda line: None,
    warn: Callable[[str], None] = lambda line: None,
) -> tuple[str, str, object]:
    """Play a restricted-play study (:func:`simulate.study.restrict.restrict`) and write its
    report; returns where the HTML and Markdown are, and the table of options."""
    from simulate.cli.study_reports import write_restrict_report
    from simulate.study.restrict import restrict

    plan = restrict(
        request,
        workers=workers,
        backend=backend,
        scheduler=scheduler,
        progress=progress,
        echo=echo,
        warn=warn,
    )
    return write_restrict_report(plan.store, plan.record)


@app.command()
def restrict(
    game: Annotated[str, typer.Argument(help="Game name or alias, e.g. evo.")],
    options: Annotated[
        str | None,
        typer.Option(
            help="Options to measure, separated by commas (default: every option of the game; "
            "`dinolab games GAME` lists them)."
        ),
    ] = None,
    games: Annotated[
        int, typer.Option("--games", "-n", help="Games per run (the baseline and each option).")
    ] = 10_000,
    players: Players = None,
    strategy: Annotated[
        str | None,
        typer.Option(
            "--strategy",
            "-s",
            help="The one bot every seat plays (default: heuristic, or the game's default bot).",
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Root seed of every run (paired runs).")] = 0,
    assignments: Annotated[
        list[str] | None,
        typer.Option("--set", help="Change a rule: --set start_points=8 (repeatable)."),
    ] = None,
    rules_file: RuleChanges = None,
    out: Annotated[
        str | None,
        typer.Option("--out", "-o", help="Study folder: runs/, restrict.json and the report."),
    ] = None,
    workers: Workers = None,
    backend: Backend = "local",
    scheduler: Scheduler = None,
    chunk_size: Annotated[
        int | None, typer.Option(help="Games per chunk (default: the game's).")
    ] = None,
    progress: Progress = None,
) -> None:
    """Restricted play: what each option is worth to a bot (Jaffe et al. 2012).

    Plays a baseline (--strategy in every seat) and, for each option, the same games with
    lineup position 0 forbidden the option (it takes an action using it only when nothing
    else is legal), seats rotated, paired seeds. The report ranks the options by the paired
    change in the restricted bot's win share, with 95% intervals: DIR/report.html and
    DIR/report.md. The same command again reuses the finished runs.

    Examples:

      dinolab restrict evo --games 100000 --out runs/restrict-evo

      dinolab restrict dkd --options Tyrannosaurus,figure -s cautious -n 50000 --out runs/r

      dinolab restrict oos --options Carnivore,animal --players 3 --set hand_size=8 --out runs/o
    """
    from simulate.study.restrict import RestrictRequest

    request = RestrictRequest(
        game=game,
        options=options,
        games=games,
        players=players,
        strategy=strategy,
        seed=seed,
        assignments=tuple(assignments or ()),
        rules_file=str(rules_file) if rules_file else None,
        out=out,
        chunk_size=chunk_size,
    )
    with exit_on_interrupt("run the same command again to finish the study"):
        html, md, table = restricted_play(
            request,
            workers=workers,
            backend=backend,
            scheduler=scheduler,
            progress=progress,
            echo=echo,
            warn=warn,
        )
    for r in table.head(5).iter_rows(named=True):
        echo(
            f"  {r['option']}: {r['change'] * 100:+.2f} pp [{r['lo'] * 100:+.2f}, "
            f"{r['hi'] * 100:+.2f}], {r['reading']}"
        )
    echo(f"wrote {html} and {md}")
