"""Studies, which change fixes it: ``dinolab sweep``, a game played at many knob settings.

The composition root of the study layer: ``simulate.study`` plays configurations, ``reports``
declares and computes the metrics; this module hands the second to the first.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rules.core.errors import DinolabError
from simulate.cli.app import app, echo
from simulate.cli.common import (
    Backend,
    GameName,
    Players,
    Progress,
    Rotate,
    RulesFile,
    Scheduler,
    Strategy,
    Tiers,
    Workers,
    report_mapper,
    run_study,
    say_if_compiling,
    say_if_fresh,
    study_executor,
)
from simulate.cli.study_reports import (
    choose_metrics,
    metric_context,
    parse_target,
    tier_metrics,
    write_study_report,
)

if TYPE_CHECKING:
    from simulate.study.sweep import SweepRequest


def sweep_study(
    request: SweepRequest,
    *,
    workers: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    progress: bool | None = False,
    echo: Callable[[str], None] = lambda line: None,
) -> tuple[str, str, str]:
    """Play a sweep (a :class:`simulate.study.sweep.SweepRequest`), measure every point and
    write its report; returns the study folder and where the report's HTML and Markdown are.
    From Python as from ``dinolab sweep``."""
    from reports.measure import StudyMeasurer
    from simulate.config import build_config, parse_tables
    from simulate.games import get_game
    from simulate.progress import progress_bar, want_progress
    from simulate.study.sweep import plan_sweep, run_sweep
    from simulate.study.tiers import plan_tiers, refuse_other_lineups

    r = request
    g = get_game(r.game)
    fixed = list(r.assignments)
    chosen_tables = parse_tables(g, r.tables)
    common = dict(
        n_players=r.players,
        rotate=r.rotate,
        seed=r.seed,
        games=r.games,
        chunk_size=r.chunk_size,
        assignments=fixed,
        rules_file=r.rules_file,
    )
    asked = r.metrics

    def measurer_for(setup) -> StudyMeasurer:
        ctx = metric_context(setup, chosen_tables)
        refs = choose_metrics(ctx, asked)
        if not refs:
            raise DinolabError(
                "no metric can be measured from these tables; log more with --tables"
            )
        if r.target:
            parse_target(r.target, ctx)  # a bad target is refused before anything is played
        return StudyMeasurer(refs)

    tiers = []
    if r.tiers:
        refuse_other_lineups(r.strategy, r.rotate)
        if asked is None:
            asked = tier_metrics(build_config(g.name, strategies=None, **common)[1], chosen_tables)
        tiers = plan_tiers(g, list(r.tiers), measurer_for, **common)
        base = tiers[0].config, tiers[0].setup
        measurers = [t.measurer for t in tiers]
    else:
        base = build_config(g.name, strategies=r.strategy, **common)
        measurers = [measurer_for(base[1])]
    if chosen_tables is None:
        chosen_tables = parse_tables(g, [x for m in measurers for x in m.tables])
    out = r.out if r.out is not None else str(Path("runs") / f"sweep-{g.name}-seed{r.seed}")
    plan = plan_sweep(
        base,
        params=list(r.params),
        design=r.design,
        samples=r.samples,
        assignments=fixed,
        rules_file=r.rules_file,
        tables=chosen_tables,
        metrics=measurers[0].names,
        out=out,
        resume=r.resume,
        force=r.force,
        tiers=tiers,
    )
    say_if_fresh(r.resume, plan.mode, out)
    executor = study_executor(workers, backend, scheduler)
    at = f" at {len(tiers)} tiers ({', '.join(t.name for t in tiers)})" if tiers else ""
    echo(
        f"{g.title}: sweep of {len(plan.record['points'])} points{at} x {r.games:,} games "
        f"({', '.join(a.describe() for a in plan.axes)}), seed {r.seed} for every point"
    )
    say_if_compiling(g, [p.setup for p in plan.points])
    mapper = report_mapper(backend, scheduler, workers, executor)
    for m in measurers:
        m.mapper = mapper
    try:
        with progress_bar(f"sweep {g.name}", want_progress(progress)) as update:
            run_sweep(plan, executor, measurers[0], update)
        html, md = write_study_report(out, r.target, mapper, echo, executor.map)
    finally:
        executor.close()
    return out, html, md


Params = Annotated[
    list[str],
    typer.Option(
        "--param",
        help="A knob and its values: KEY=V1,V2,... or KEY=LO..HI (every integer; a real "
        "knob in 5 steps) or KEY=LO..HI:STEPS. Repeatable. A knob is a rule key (dice), "
        "a named element (gene_bag.tail) or a data entry (deck.Tyrannosaurus.size).",
    ),
]
PointGames = Annotated[int, typer.Option("--games", "-n", help="Games per point.")]
Design = Annotated[
    str, typer.Option(help="grid (every combination) or lhs (a Latin hypercube sample).")
]
Samples = Annotated[int | None, typer.Option(help="Points of a Latin hypercube (--design lhs).")]
Metrics = Annotated[
    str | None,
    typer.Option(
        help="Metrics to measure, separated by commas (default: every metric the tables "
        "allow; `dinolab games GAME` lists them)."
    ),
]
Seed = Annotated[int, typer.Option(help="Root seed, shared by every point (paired).")]
Assignments = Annotated[
    list[str] | None,
    typer.Option("--set", help="A fixed rule change for every point (repeatable)."),
]
Tables = Annotated[
    str | None,
    typer.Option(
        help="Tables each point logs, e.g. games,players (default: what the metrics read)."
    ),
]
Out = Annotated[
    str | None,
    typer.Option("--out", "-o", help="Study folder: points/, results.csv and the report."),
]
ChunkSize = Annotated[int | None, typer.Option(help="Games per chunk.")]
Target = Annotated[
    str | None,
    typer.Option(
        help="Also list the points meeting this target in the report, e.g. "
        "first_share=0.5,capped<0.001."
    ),
]
Resume = Annotated[
    bool, typer.Option(help="Finish an interrupted sweep; only missing points are played.")
]
Force = Annotated[bool, typer.Option(help="Replace a sweep in --out.")]


@app.command()
def sweep(
    game: GameName,
    param: Params,
    games: PointGames = 10_000,
    design: Design = "grid",
    samples: Samples = None,
    metrics: Metrics = None,
    players: Players = None,
    strategy: Strategy = None,
    tier: Tiers = None,
    rotate: Rotate = False,
    seed: Seed = 0,
    assignments: Assignments = None,
    rules_file: RulesFile = None,
    tables: Tables = None,
    out: Out = None,
    workers: Workers = None,
    backend: Backend = "local",
    scheduler: Scheduler = None,
    chunk_size: ChunkSize = None,
    target: Target = None,
    resume: Resume = False,
    force: Force = False,
    progress: Progress = None,
) -> None:
    """Play a game at every point of a grid (or a Latin hypercube) of knob values, paired.

    Every point plays the same seed, so the differences between points are the rules', game by
    game. Each point is an ordinary run folder under DIR/points/ (verify, report and replay
    work on it) with metrics.json; DIR/results.csv has one row per point; DIR/report.html
    shows every metric against every knob with 95% bands, heat maps for two knobs, the paired
    steps between neighbouring points and, with --target, the points that meet it.

    With --tier (repeatable) every point is played at each tier, one bot in every seat, on
    the same games: DIR/tiers/<i>-<name>/points/ holds each tier's points, results.csv a row
    per point and tier, the report each metric per point per tier and the paired step from
    one tier to the next, and a point meets a --target only if it meets it at every tier.

    After a crash or Ctrl-C, the same command with --resume finishes the missing points with
    identical results.

    Examples:

      dinolab sweep dtb --param dice=4..8 --param markers_per_dino=2..4
          -n 20000 --out runs/s1

      dinolab sweep evo --param start_points=4,6,8 --param gene_bag.tail=3..9:3

      dinolab sweep dkd --param deck.Tyrannosaurus.size=1..5 --rotate

      dinolab sweep dtb --param dice=3..9 --param bonus_markers=0..4
          --design lhs --samples 12

      dinolab sweep dtb --param dice=4..7 --tier heuristic --tier strong
          --target first_share=0.5 -n 4000
    """
    from simulate.study.sweep import SweepRequest

    request = SweepRequest(
        game=game,
        params=tuple(param),
        games=games,
        design=design,
        samples=samples,
        metrics=metrics,
        players=players,
        strategy=strategy,
        tiers=tuple(tier or ()),
        rotate=rotate,
        seed=seed,
        assignments=tuple(assignments or ()),
        rules_file=str(rules_file) if rules_file else None,
        tables=tables,
        out=out,
        chunk_size=chunk_size,
        target=target,
        resume=resume,
        force=force,
    )
    where, html, md = run_study(sweep_study, request, workers, backend, scheduler, progress)
    echo(f"wrote {where}/results.csv, {html} and {md}")
