"""Studies, which change fixes it: ``dinolab sweep``, a game played at many knob settings.

The composition root of the study layer: ``simulate.study`` plays configurations, ``reports``
declares and computes the metrics; this module hands the second to the first.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rules.core.errors import DinolabError
from simulate.cli.app import app, echo
from simulate.cli.common import (
    Backend,
    Players,
    Progress,
    Rotate,
    RulesFile,
    Scheduler,
    Strategy,
    Tiers,
    Workers,
    report_mapper,
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


@app.command()
def sweep(
    game: Annotated[str, typer.Argument(help="Game name or alias, e.g. dtb.")],
    param: Annotated[
        list[str],
        typer.Option(
            "--param",
            help="A knob and its values: KEY=V1,V2,... or KEY=LO..HI (every integer; a real "
            "knob in 5 steps) or KEY=LO..HI:STEPS. Repeatable. A knob is a rule key (dice), "
            "a named element (gene_bag.tail) or a data entry (deck.Tyrannosaurus.size).",
        ),
    ],
    games: Annotated[int, typer.Option("--games", "-n", help="Games per point.")] = 10_000,
    design: Annotated[
        str, typer.Option(help="grid (every combination) or lhs (a Latin hypercube sample).")
    ] = "grid",
    samples: Annotated[
        int | None, typer.Option(help="Points of a Latin hypercube (--design lhs).")
    ] = None,
    metrics: Annotated[
        str | None,
        typer.Option(
            help="Metrics to measure, separated by commas (default: every metric the tables "
            "allow; `dinolab games GAME` lists them)."
        ),
    ] = None,
    players: Players = None,
    strategy: Strategy = None,
    tier: Tiers = None,
    rotate: Rotate = False,
    seed: Annotated[int, typer.Option(help="Root seed, shared by every point (paired).")] = 0,
    assignments: Annotated[
        list[str] | None,
        typer.Option("--set", help="A fixed rule change for every point (repeatable)."),
    ] = None,
    rules_file: RulesFile = None,
    tables: Annotated[
        str | None,
        typer.Option(
            help="Tables each point logs, e.g. games,players (default: what the metrics read)."
        ),
    ] = None,
    out: Annotated[
        str | None,
        typer.Option("--out", "-o", help="Study folder: points/, results.csv and the report."),
    ] = None,
    workers: Workers = None,
    backend: Backend = "local",
    scheduler: Scheduler = None,
    chunk_size: Annotated[int | None, typer.Option(help="Games per chunk.")] = None,
    target: Annotated[
        str | None,
        typer.Option(
            help="Also list the points meeting this target in the report, e.g. "
            "first_share=0.5,capped<0.001."
        ),
    ] = None,
    resume: Annotated[
        bool, typer.Option(help="Finish an interrupted sweep; only missing points are played.")
    ] = False,
    force: Annotated[bool, typer.Option(help="Replace a sweep in --out.")] = False,
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
    from reports.measure import StudyMeasurer
    from simulate.config import build_config, parse_tables
    from simulate.games import get_game
    from simulate.progress import progress_bar, want_progress
    from simulate.study.sweep import plan_sweep, run_sweep
    from simulate.study.tiers import plan_tiers, refuse_other_lineups

    g = get_game(game)
    fixed = list(assignments or [])
    rules = str(rules_file) if rules_file else None
    chosen_tables = parse_tables(g, tables)
    common = dict(
        n_players=players,
        rotate=rotate,
        seed=seed,
        games=games,
        chunk_size=chunk_size,
        assignments=fixed,
        rules_file=rules,
    )
    asked = metrics

    def measurer_for(setup) -> StudyMeasurer:
        ctx = metric_context(setup, chosen_tables)
        refs = choose_metrics(ctx, asked)
        if not refs:
            raise DinolabError(
                "no metric can be measured from these tables; log more with --tables"
            )
        if target:
            parse_target(target, ctx)  # a bad target is refused before anything is played
        return StudyMeasurer(refs)

    tiers = []
    if tier:
        refuse_other_lineups(strategy, rotate)
        if asked is None:
            asked = tier_metrics(build_config(g.name, strategies=None, **common)[1], chosen_tables)
        tiers = plan_tiers(g, tier, measurer_for, **common)
        base = tiers[0].config, tiers[0].setup
        measurers = [t.measurer for t in tiers]
    else:
        base = build_config(g.name, strategies=strategy, **common)
        measurers = [measurer_for(base[1])]
    if chosen_tables is None:
        chosen_tables = parse_tables(g, [x for m in measurers for x in m.tables])
    if out is None:
        out = str(Path("runs") / f"sweep-{g.name}-seed{seed}")
    plan = plan_sweep(
        base,
        params=param,
        design=design,
        samples=samples,
        assignments=fixed,
        rules_file=rules,
        tables=chosen_tables,
        metrics=measurers[0].names,
        out=out,
        resume=resume,
        force=force,
        tiers=tiers,
    )
    say_if_fresh(resume, plan.mode, out)
    executor = study_executor(workers, backend, scheduler)
    at = f" at {len(tiers)} tiers ({', '.join(t.name for t in tiers)})" if tiers else ""
    echo(
        f"{g.title}: sweep of {len(plan.record['points'])} points{at} x {games:,} games "
        f"({', '.join(a.describe() for a in plan.axes)}), seed {seed} for every point"
    )
    say_if_compiling(g)
    mapper = report_mapper(backend, scheduler, workers, executor)
    for m in measurers:
        m.mapper = mapper
    try:
        with progress_bar(f"sweep {g.name}", want_progress(progress)) as update:
            run_sweep(plan, executor, measurers[0], update)
        html, md = write_study_report(out, target, mapper, echo)
    except KeyboardInterrupt:
        typer.echo("interrupted; run the same command with --resume to finish", err=True)
        raise typer.Exit(130) from None
    finally:
        executor.close()
    echo(f"wrote {out}/results.csv, {html} and {md}")
