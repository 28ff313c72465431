"""``dinolab tune``: a bot's parameters tuned by self-play (a search over its parameters)."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from rules.core.errors import DinolabError
from simulate.cli.app import app, echo
from simulate.cli.common import (
    Backend,
    Players,
    Progress,
    RulesFile,
    Scheduler,
    Workers,
    report_mapper,
    run_study,
    say_if_compiling,
    study_executor,
)
from simulate.cli.study_reports import metric_context, parse_target, write_search_report

if TYPE_CHECKING:
    from simulate.study.tune import TuneRequest


def tune_bot(
    request: TuneRequest,
    *,
    workers: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    progress: bool | None = False,
    echo: Callable[[str], None] = lambda line: None,
) -> tuple[dict, str]:
    """Tune a bot (a :class:`simulate.study.tune.TuneRequest`), write its parameter file and
    the search's report; returns the file's contents and where the report's HTML is. From
    Python as from ``dinolab tune``."""
    from reports.metrics import MetricError
    from reports.targets import TargetJudge
    from simulate.config import parse_tables
    from simulate.games import get_game
    from simulate.progress import progress_bar, want_progress
    from simulate.study.search import Searcher, run_search
    from simulate.study.tune import TARGET, plan_tune, write_params

    r = request
    g = get_game(r.game)
    field = r.field(g)

    def judge_for(setup) -> TargetJudge:
        try:
            return TargetJudge(parse_target(TARGET, metric_context(setup, None)))
        except MetricError as exc:
            raise DinolabError(str(exc)) from None

    plan = plan_tune(
        g.name,
        strategy=r.strategy,
        against=field,
        players=r.players,
        params=list(r.params),
        budget=r.budget,
        block=r.block,
        seed=r.seed,
        assignments=list(r.assignments),
        rules_file=r.rules_file,
        tables=parse_tables(g, "games"),
        out=r.out,
        resume=r.resume,
        force=r.force,
        judge_for=judge_for,
        tiers=r.tiers,
    )
    judge = plan.tiers[0].measurer if plan.tiers else judge_for(plan.setup)
    executor = study_executor(workers, backend, scheduler)
    s = plan.settings
    echo(
        f"{g.title}: tuning {r.strategy} ({', '.join(a.describe() for a in plan.axes)}) "
        f"against {', '.join(s['field'])}, {s['players']} players, seats rotated; budget "
        f"{r.budget:,} games (blocks of {s['block']:,})"
        + (f"; confirmed against {', '.join(t.name for t in plan.tiers)}" if plan.tiers else "")
    )
    say_if_compiling(g, [plan.setup, *(t.setup for t in plan.tiers)])
    try:
        with progress_bar(f"tune {g.name}", want_progress(progress)) as update:
            run_search(plan, Searcher(plan, executor, judge, echo, update))
        html, _ = write_search_report(
            str(plan.store.local), report_mapper(backend, scheduler, workers, executor)
        )
    finally:
        executor.close()
    command = shlex.join(r.command(g, s["players"], field))
    return write_params(plan, r.out, command), html


def tuned_lines(request: TuneRequest, body: dict, html: str) -> list[str]:
    """What ``dinolab tune`` prints of the parameter file it wrote (``body``)."""
    name, out = request.strategy, request.out
    lines = [f"{name} tuned: " + ", ".join(f"{k}={v:g}" for k, v in body["params"].items())]
    fields = [(t["tier"], t) for t in body["tiers"]] if "tiers" in body else None
    for against_text, st in fields or [(", ".join(body["field"]), body["strength"])]:
        w, d = st["win_share"], st["change_from_defaults"]
        lines.append(
            f"  win share {w['value']:.2%} [{w['ci'][0]:.2%}, {w['ci'][1]:.2%}] against "
            f"{against_text} (fair {st['fair_share']:.2%}); change from the defaults "
            f"{d['value'] * 100:+.2f} pp [{d['ci'][0] * 100:+.2f}, {d['ci'][1] * 100:+.2f}] on "
            f"{st['measured_on']:,} fresh games"
        )
    lines.append(f'wrote {out} (play it: --strategy "{name}[params={out}]") and {html}')
    return lines


Against = Annotated[
    str,
    typer.Option(
        help="The field: one bot for every other seat, or one per other seat "
        "(default: the game's default bot).",
    ),
]
FieldTiers = Annotated[
    list[str] | None,
    typer.Option(
        "--tier",
        "-t",
        help="A field at a strength tier: one strategy spec in every other seat, e.g. "
        "greedy or strong\\[playouts=16]. Repeatable, cheapest first: the tuning plays "
        "the first, the best parameters are confirmed against each (not with --against).",
    ),
]
ParamsFile = Annotated[
    str,
    typer.Option(
        "--out",
        "-o",
        help="The parameter file to write (.json); its working folder is beside it (FILE.tune/).",
    ),
]
TunedParams = Annotated[
    list[str] | None,
    typer.Option(
        "--param",
        help="Tune only these parameters, or over a narrower range: KEY=LO..HI or "
        "KEY=V1,V2 (default: every declared parameter over its whole range).",
    ),
]
SeedBlock = Annotated[int | None, typer.Option(help="Games per seed block (default: budget / 80).")]
FixedRules = Annotated[list[str] | None, typer.Option("--set", help="A rule change (repeatable).")]
Resume = Annotated[
    bool, typer.Option(help="Finish an interrupted tuning (replayed from its blocks).")
]


@app.command()
def tune(
    game: Annotated[str, typer.Argument(help="Game name or alias, e.g. oos.")],
    strategy: Annotated[
        str,
        typer.Option("--strategy", "-s", help="The bot whose declared parameters are tuned."),
    ],
    against: Against = "",
    tier: FieldTiers = None,
    budget: Annotated[int, typer.Option(help="Games to spend in all.")] = 200_000,
    out: ParamsFile = "tuned.json",
    param: TunedParams = None,
    players: Players = None,
    seed: Annotated[int, typer.Option(help="Root seed of the tuning's seed blocks.")] = 0,
    block: SeedBlock = None,
    assignments: FixedRules = None,
    rules_file: RulesFile = None,
    workers: Workers = None,
    backend: Backend = "local",
    scheduler: Scheduler = None,
    resume: Resume = False,
    force: Annotated[bool, typer.Option(help="Replace a tuning's working folder.")] = False,
    progress: Progress = None,
) -> None:
    """Tune a bot's parameters by self-play: the most win share against a field.

    The bot plays lineup position 0 and the field the other seats, seats rotated; Optuna's
    TPE sampler proposes parameters, every proposal plays the same seed blocks and races the
    best so far, and the best and the default parameters are re-measured on fresh seeds. FILE
    holds the parameters, the field, the rules, the seeds and the measured strength (with
    its 95% interval and the paired change from the defaults); play it with
    --strategy "NAME[params=FILE]". The working folder FILE.tune/ holds the search (its
    report.html, search.db) and makes --resume possible.

    With --tier (repeatable, cheapest first) each tier is a field: the tuning plays against the
    first, and the finalists and the defaults are confirmed against every field on fresh
    seeds; the parameters with the best win share at their worst tier are chosen, and FILE
    gives the win share against each field.

    Examples:

      dinolab tune oos --strategy heuristic --against heuristic --budget 400000
          --out oos-tuned.json

      dinolab tune dkd -s cautious --against greedy --param aim=0.5..1 -p 3

      dinolab tune dkd -s cautious --tier greedy --tier strong --param aim=0.5..1
    """
    from simulate.study.tune import TuneRequest

    request = TuneRequest(
        game=game,
        strategy=strategy,
        against=against,
        tiers=tuple(tier or ()),
        budget=budget,
        out=out,
        params=tuple(param or ()),
        players=players,
        seed=seed,
        block=block,
        assignments=tuple(assignments or ()),
        rules_file=str(rules_file) if rules_file else None,
        resume=resume,
        force=force,
    )
    body, html = run_study(tune_bot, request, workers, backend, scheduler, progress)
    for line in tuned_lines(request, body, html):
        echo(line)
