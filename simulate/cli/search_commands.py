"""``dinolab search``: which knob settings bring the game to a target (and its report)."""

from __future__ import annotations

import json
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
from simulate.cli.study_reports import metric_context, parse_target, write_search_report

if TYPE_CHECKING:
    from simulate.study.search import SearchRequest


def search_study(
    request: SearchRequest,
    *,
    workers: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    progress: bool | None = False,
    echo: Callable[[str], None] = lambda line: None,
) -> tuple[str, dict, tuple[str, str]]:
    """Run a search (a :class:`simulate.study.search.SearchRequest`) and write its report;
    returns the search folder, the search's summary and where the report's HTML and Markdown
    are. From Python as from ``dinolab search``."""
    from reports.metrics import MetricError
    from reports.targets import Target, TargetJudge
    from simulate.config import build_config, parse_tables
    from simulate.games import get_game
    from simulate.progress import progress_bar, want_progress
    from simulate.study.search import Searcher, plan_search, run_search
    from simulate.study.tiers import plan_tiers, refuse_other_lineups

    r = request
    g = get_game(r.game)
    fixed = list(r.assignments)
    common = dict(
        n_players=r.players,
        rotate=r.rotate,
        seed=r.seed,
        games=1,
        chunk_size=None,
        assignments=fixed,
        rules_file=r.rules_file,
    )

    def judge_for(setup) -> TargetJudge:
        try:
            Target.parse(r.target).require_objective()
            return TargetJudge(parse_target(r.target, metric_context(setup, None)))
        except MetricError as exc:
            raise DinolabError(str(exc)) from None

    tiers = []
    if r.tiers:
        refuse_other_lineups(r.strategy, r.rotate)
        tiers = plan_tiers(g, list(r.tiers), judge_for, **common)
        base = tiers[0].config, tiers[0].setup
        judges = [t.measurer for t in tiers]
    else:
        base = build_config(g.name, strategies=r.strategy, **common)
        judges = [judge_for(base[1])]
    judge = judges[0]
    tables = parse_tables(g, [x for j in judges for x in j.tables])
    out = r.out if r.out is not None else str(Path("runs") / f"search-{g.name}-seed{r.seed}")
    plan = plan_search(
        base,
        params=list(r.params),
        target=r.target,
        budget=r.budget,
        block=r.block,
        blocks=r.blocks,
        finalists=r.finalists,
        final_games=r.final_games,
        assignments=fixed,
        rules_file=r.rules_file,
        tables=tables,
        out=out,
        resume=r.resume,
        force=r.force,
        tiers=tiers,
    )
    say_if_fresh(r.resume, plan.mode, out)
    executor = study_executor(workers, backend, scheduler)
    s = plan.settings
    echo(
        f"{g.title}: search for {judge.bound.target.describe()} over "
        f"{', '.join(a.describe() for a in plan.axes)}; budget {r.budget:,} games (blocks of "
        f"{s['block']:,}, {s['blocks']} per trial)"
    )
    if tiers:
        echo(
            f"tiers: {', '.join(t.name for t in tiers)}; the search plays {tiers[0].name}, the "
            f"finalists are confirmed at every tier"
        )
    say_if_compiling(g, [plan.setup])
    try:
        with progress_bar(f"search {g.name}", want_progress(progress)) as update:
            searcher = Searcher(plan, executor, judge, echo, update)
            summary = run_search(plan, searcher)
        files = write_search_report(out, report_mapper(backend, scheduler, workers, executor))
    finally:
        executor.close()
    return out, summary, files


Target = Annotated[
    str,
    typer.Option(
        help="What to reach, terms joined by commas: M (minimise, e.g. seat_gap), M=V "
        "(e.g. first_share=0.5), constraints M<V or M>V (e.g. capped<0.001); M=V~S sets "
        "the term's scale. `dinolab games GAME` lists the metrics."
    ),
]
Params = Annotated[
    list[str],
    typer.Option(
        "--param",
        help="A knob and its range: KEY=LO..HI (integers, or a real range), "
        "KEY=LO..HI:STEPS, or KEY=V1,V2,... Repeatable.",
    ),
]
Budget = Annotated[
    int, typer.Option(help="Games to spend in all: search, answers and re-measurement.")
]
Block = Annotated[
    int | None,
    typer.Option(
        help="Games per seed block (default: the budget / 80). Every trial plays the same blocks."
    ),
]
Blocks = Annotated[
    int, typer.Option(help="Blocks of a full evaluation (a trial may stop earlier).")
]
Finalists = Annotated[int, typer.Option(help="Best configurations re-measured on fresh seeds.")]
FinalGames = Annotated[
    int | None, typer.Option(help="Games of each re-measurement (default: one full evaluation).")
]
Seed = Annotated[int, typer.Option(help="Root seed of the search's blocks.")]
Assignments = Annotated[
    list[str] | None, typer.Option("--set", help="A fixed rule change (repeatable).")
]
Out = Annotated[
    str | None,
    typer.Option(
        "--out",
        "-o",
        help="Search folder: search.db, recommendation.json, "
        "final/ and the report (a local folder).",
    ),
]
Resume = Annotated[
    bool, typer.Option(help="Finish an interrupted search (replayed from its kept blocks).")
]
Force = Annotated[bool, typer.Option(help="Replace a search in --out.")]


@app.command()
def search(
    game: GameName,
    target: Target,
    param: Params,
    budget: Budget = 400_000,
    block: Block = None,
    blocks: Blocks = 4,
    finalists: Finalists = 2,
    final_games: FinalGames = None,
    players: Players = None,
    strategy: Strategy = None,
    tier: Tiers = None,
    rotate: Rotate = False,
    seed: Seed = 0,
    assignments: Assignments = None,
    rules_file: RulesFile = None,
    out: Out = None,
    workers: Workers = None,
    backend: Backend = "local",
    scheduler: Scheduler = None,
    resume: Resume = False,
    force: Force = False,
    progress: Progress = None,
) -> None:
    """Search the knobs for the setting nearest a target, with paired seeds and intervals.

    Optuna's TPE sampler proposes settings; each trial plays the same seed blocks (common
    random numbers) and races the best so far, stopping once it is clearly worse. The best
    configurations and the current rules are then played again on fresh seeds, and the nearest
    is recommended. DIR/recommendation.json holds it ({"params": {knob: value}, "metrics":
    {name: {"value", "ci"}}, "games": N}); DIR/report.html compares it with the current rules,
    lists the minimal changes (the best change of 1, 2, ... knobs) and the one-step deviations,
    and shows the convergence. DIR/search.db is an Optuna study (optuna-dashboard
    sqlite:///DIR/search.db).

    With --tier (repeatable, cheapest first) the search plays the cheapest tier, and the
    finalists and the current rules are confirmed on the fresh seed at every tier
    (DIR/final/<i>-<tier>/): the recommendation meets the constraints at every tier and is
    nearest the target at its worst tier; it reports each tier's figures, and names the
    finalists the cheap tier preferred that a stronger tier set back.

    Examples:

      dinolab search dtb --target first_share=0.5 --param dice=3..9
          --param markers_per_dino=2..5 --param bonus_markers=0..4

      dinolab search dkd --target seat_gap --param hand_size=2..6
          --param first_holder=-1,0 --rotate --budget 2000000

      dinolab search oos --target "first_share=0.25,length=7~0.5"
          --param hand_size=4..8

      dinolab search dtb --target first_share=0.5 --param dice=3..8
          --tier heuristic --tier strong
    """
    from simulate.study.search import SearchRequest

    request = SearchRequest(
        game=game,
        target=target,
        params=tuple(param),
        budget=budget,
        block=block,
        blocks=blocks,
        finalists=finalists,
        final_games=final_games,
        players=players,
        strategy=strategy,
        tiers=tuple(tier or ()),
        rotate=rotate,
        seed=seed,
        assignments=tuple(assignments or ()),
        rules_file=str(rules_file) if rules_file else None,
        out=out,
        resume=resume,
        force=force,
    )
    where, summary, files = run_study(search_study, request, workers, backend, scheduler, progress)
    print_outcome(where, summary, files)


def print_outcome(where: str, summary: dict, files: tuple[str, str]) -> None:
    """Print a finished search: why it stopped, its recommendation, and the files written."""
    rec = json.loads(Path(where, "recommendation.json").read_text())
    echo(f"search stopped: {summary['stopped']}")
    for line in recommendation_lines(rec):
        echo(line)
    html, md = files
    echo(f"wrote {where}/recommendation.json, {html} and {md}")


def recommendation_lines(rec: dict) -> list[str]:
    """What a finished search prints of its ``recommendation.json`` (each tier's figures,
    and the finalists passed over, with tiers)."""
    change = ", ".join(f"{k}={v}" for k, v in rec["params"].items()) or "keep the current rules"
    d = rec["distance"]
    if "tiers" not in rec:
        head = f"distance {_ci(d, 3)} on {rec['measured_on']:,} fresh games"
        views = [("", rec)]
    else:
        head = (
            "distance "
            + ", ".join(f"{_ci(t['distance'], 3)} at {t['tier']}" for t in rec["tiers"])
            + f" on {rec['measured_on']:,} fresh games at each tier"
        )
        views = [(f" at {t['tier']}", t) for t in rec["tiers"]]
    lines = [f"recommendation: {change} ({head}; {rec['games']:,} games in all)"]
    if not rec["meets_constraints"]:
        every = " at every tier: no finalist did" if "tiers" in rec else ": no setting played did"
        lines.append(f"  it does NOT meet every constraint{every} (see the report)")
    for at, view in views:
        for name, m in view["metrics"].items():
            lines.append(f"  {name}{at}: {_ci(m, 4)}")
    for p in rec.get("passed_over", []):
        setting = ", ".join(f"{k}={v}" for k, v in p["params"].items()) or "the current rules"
        lines.append(f"  not recommended: {setting}: {p['why']}")
    return lines


def _ci(estimate: dict, digits: int) -> str:
    lo, hi = estimate["ci"]
    return f"{estimate['value']:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"
