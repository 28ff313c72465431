"""``dinolab strength``: a game's metrics at each tier of bot strength, on the same deals.

The composition root of the strength study: ``simulate.study.strength`` plays the tiers,
``reports.strength`` measures the steps between them and judges each metric; this module hands
the second to the first (:func:`strength_curve`, also the entry point from Python).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from rules.core.errors import DinolabError
from simulate.cli.app import app, echo
from simulate.cli.common import (
    Backend,
    GameName,
    Players,
    Progress,
    RulesFile,
    Scheduler,
    Workers,
    report_mapper,
    run_study,
    say_if_compiling,
    say_if_fresh,
    study_executor,
)
from simulate.cli.study_reports import (
    HEADLINE,
    choose_metrics,
    metric_context,
    write_strength_outputs,
)

if TYPE_CHECKING:
    from reports.strength import Curve
    from simulate.study.strength import StrengthRequest


@dataclasses.dataclass(frozen=True)
class StrengthOutcome:
    """What :func:`strength_curve` made: the measured curve and the files written."""

    curve: Curve
    out: str
    files: tuple[str, ...]


def tier_measurer(metrics: tuple[str, ...]):
    """The metrics of one tier's configuration (``simulate.study.strength.MeasurerFor``): the
    named ones, or the headline ones the tier can measure; one line for a metric it cannot."""
    from reports.measure import StudyMeasurer
    from reports.metrics import MetricError, expand, split_names

    def measurer_for(setup):
        ctx = metric_context(setup, None)
        if metrics:
            asked = split_names(",".join(metrics))
            refs = choose_metrics(ctx, ",".join(asked))

            def order(ref) -> int:  # in the order asked for (a family at its bare name)
                for name in (ref.name, ref.metric.name):
                    if name in asked:
                        return asked.index(name)
                return len(asked)

            refs = sorted(refs, key=order)
        else:
            try:
                refs = expand(ctx, list(HEADLINE), strict=False)
            except MetricError as exc:  # pragma: no cover (the headline names are known)
                raise DinolabError(str(exc)) from None
        if not refs:
            raise DinolabError("no metric to measure; name one with --metric")
        return StudyMeasurer(refs)

    return measurer_for


def strength_curve(
    request: StrengthRequest,
    *,
    workers: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    progress: bool | None = False,
    echo: Callable[[str], None] = lambda line: None,
) -> StrengthOutcome:
    """Play a strength study (a :class:`simulate.study.strength.StrengthRequest`), measure
    it and write its results; from Python as from ``dinolab strength``."""
    from simulate.progress import progress_bar, want_progress
    from simulate.study.strength import plan_strength, play_ratings, play_strength

    plan = plan_strength(request, tier_measurer(tuple(request.metrics)))
    say_if_fresh(request.resume, plan.mode, plan.out)
    executor = study_executor(workers, backend, scheduler)
    mapper = report_mapper(backend, scheduler, workers, executor)
    for t in plan.tiers:
        t.measurer.mapper = mapper
    g = plan.game
    size = (
        f"{plan.record['settings']['games']:,} games"
        if request.precision is None
        else f"rounds from {plan.record['settings']['first_round']:,} games until every 95% "
        f"interval is at most ±{request.precision:g} (at most {request.max_games:,})"
    )
    echo(
        f"{g.title}: strength curve at {plan.tiers[0].config.n_players} players, "
        f"{len(plan.tiers)} tiers x {size}, seed {request.seed} (the same deals at every tier)"
    )
    echo(f"tiers, weakest first: {', '.join(t.name for t in plan.tiers)}")
    say_if_compiling(g, [t.setup for t in plan.tiers])
    try:
        with progress_bar(f"strength {g.name}", want_progress(progress)) as update:
            play_strength(plan, executor, update, echo)
        if plan.pairs:
            echo(f"rating games: {request.rating_games:,} per pair of neighbouring tiers")
            with progress_bar(f"ratings {g.name}", want_progress(progress)) as update:
                play_ratings(plan, executor, update)
        curve, files = write_strength_outputs(plan.out, mapper)
    finally:
        executor.close()
    return StrengthOutcome(curve, plan.out, files)


Metrics = Annotated[
    list[str] | None,
    typer.Option(
        "--metric",
        "-m",
        help="A metric to follow along the tiers (repeatable, or several separated by "
        "commas; a family's bare name means every argument). Default: the headline metrics "
        "the game can measure. `dinolab games GAME` lists them.",
    ),
]
StrengthTiers = Annotated[
    list[str] | None,
    typer.Option(
        "--tier",
        "-t",
        help="A tier: one strategy spec played in every seat, e.g. random, heuristic, "
        "search\\[rollouts=2]. Repeatable, weakest first (default: the game's declared "
        "tiers).",
    ),
]
TierGames = Annotated[
    int | None,
    typer.Option("--games", "-n", help="Games per tier (default 10,000; not with --precision)."),
]
Precision = Annotated[
    float | None,
    typer.Option(
        help="Instead of -n: play each tier in doubling rounds until every metric's 95% "
        "interval at that tier is at most this half-width (in the metric's unit)."
    ),
]
MaxGames = Annotated[int, typer.Option(help="With --precision: the most games a tier may reach.")]
Seed = Annotated[int, typer.Option(help="Root seed, shared by every tier (paired).")]
Assignments = Annotated[
    list[str] | None, typer.Option("--set", help="A rule change for every tier (repeatable).")
]
Out = Annotated[
    str | None,
    typer.Option(
        "--out",
        "-o",
        help="Study folder: tiers/, strength.json, strength.html and strength.md "
        "(default runs/strength-GAME-seedSEED).",
    ),
]
ChunkSize = Annotated[
    int | None,
    typer.Option(help="Games per chunk (default: a sixteenth of a tier, 1,000 at least)."),
]
Resume = Annotated[
    bool, typer.Option(help="Finish an interrupted study; finished tiers are not played again.")
]
Force = Annotated[bool, typer.Option(help="Replace a strength study in --out.")]
RatingGames = Annotated[
    int,
    typer.Option(
        help="Also play each tier against the next (bots alternating round the table, "
        "seats rotated) this many games, to rate the tiers on one Elo scale: the plots' "
        "x axis and strength.json's 'ratings' (0: none; the plots order the tiers)."
    ),
]


@app.command()
def strength(
    game: GameName,
    metric: Metrics = None,
    tier: StrengthTiers = None,
    games: TierGames = None,
    precision: Precision = None,
    max_games: MaxGames = 200_000,
    players: Players = None,
    seed: Seed = 0,
    assignments: Assignments = None,
    rules_file: RulesFile = None,
    out: Out = None,
    workers: Workers = None,
    backend: Backend = "local",
    scheduler: Scheduler = None,
    chunk_size: ChunkSize = None,
    resume: Resume = False,
    force: Force = False,
    rating_games: RatingGames = 0,
    progress: Progress = None,
) -> None:
    """Follow a game's metrics up the strength tiers of its bots, on the same deals.

    A balance figure describes the game as its bots play it: a first-player edge that random
    bots show may vanish among strong ones. Each tier plays one bot in every seat, and every
    tier plays the same games (seed, rules, players), so the step from one tier to the next is
    paired game by game. For each metric the command prints every tier's value with its 95%
    interval and the step from the tier below, then a verdict:

      settled: the step between the two strongest tiers lies within the metric's tolerance
          (95%): the strongest tier's value is the answer;
      moving:  otherwise, with its direction (up, down); "not settled: needs more games" when
          the step's interval holds 0 but is wider than the tolerance.

    Each tier is an ordinary run folder under DIR/tiers/ (report, verify and replay work on
    it); DIR/strength.json holds every number, DIR/strength.html plots each metric against the
    tiers (strength.md: its tables). With --precision a tier grows in rounds that keep its games;
    when --max-games stops it short the command says which metric and tier, keeps what it
    played, and --resume with a larger cap goes on. After a crash or Ctrl-C the same command
    with --resume finishes what is missing.

    Examples:

      dinolab strength dtb --metric first_share

      dinolab strength dkd -m first_share -m length --precision 0.005

      dinolab strength evo --tier random --tier heuristic --tier tuned
          --tier "search\\[rollouts=4]" -m balance -n 2000
    """
    from simulate.study.strength import StrengthRequest

    request = StrengthRequest(
        game=game,
        metrics=tuple(metric or ()),
        tiers=tuple(tier or ()),
        games=games,
        precision=precision,
        max_games=max_games,
        players=players,
        seed=seed,
        assignments=tuple(assignments or ()),
        rules_file=str(rules_file) if rules_file else None,
        chunk_size=chunk_size,
        out=out,
        resume=resume,
        force=force,
        rating_games=rating_games,
    )
    done = run_study(strength_curve, request, workers, backend, scheduler, progress)
    print_outcome(done)


def print_outcome(done: StrengthOutcome) -> None:
    """Print a finished study: each metric's tiers and verdict, then the files written."""
    from reports.strength import summary_lines

    echo()
    for line in summary_lines(done.curve):
        echo(line)
    echo(f"\nwrote {', '.join(done.files)}")
