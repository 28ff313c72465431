"""Commands that read runs and write reports: report, compare.

This module is the composition root between ``simulate`` (which plays, opens runs and
variants) and ``reports`` (which only reads what it is handed): the one place that imports both.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Annotated

import typer

from rules.core.errors import DinolabError
from simulate.cli.app import app, echo
from simulate.cli.common import report_mapper

if TYPE_CHECKING:
    from simulate.executors import Executor

ROBUSTNESS_GAMES = 20_000
"""Games of a report's robustness companion by default (at most the run's)."""


def write_report(
    run_dir: str,
    variants: bool = True,
    variant_games: int = 50_000,
    workers: int | None = None,
    precision: float | None = None,
    mapper=None,
    robustness: bool = True,
    robustness_games: int = ROBUSTNESS_GAMES,
    executor: Callable[[], Executor] | None = None,
) -> tuple[str, str]:
    """Write RUN/report.html and RUN/report.md; return where. Plays the game's report
    variants first when ``variants`` and they are missing (at most ``variant_games`` games),
    and with ``robustness`` the run's companion with stronger bots (``simulate.robustness``: at
    most ``robustness_games`` games) when it is missing or was made for another configuration,
    both through ``executor()`` (a :class:`simulate.backends.WarmPool` its caller keeps for
    more runs; by default one of ``workers`` for this report, closed after it).
    """
    from reports.build import report as render_report
    from reports.compare import changed_rules
    from simulate.backends import WarmPool
    from simulate.cli.common import game_report
    from simulate.games import get_game
    from simulate.robustness import ensure_companion
    from simulate.rundir import Run
    from simulate.variants import ensure_report_variants, list_variants, variant_note

    if robustness_games < 1:
        raise DinolabError(f"--robustness-games must be at least 1, got {robustness_games}")
    run = Run(run_dir)
    spec = get_game(run.game)
    with WarmPool(workers) as own:
        pool = own if executor is None else executor
        if variants and run.complete:
            ensure_report_variants(run.store, spec, variant_games, pool)
        checked = None
        if robustness:
            found = ensure_companion(run.store, spec, robustness_games, pool, echo)
            checked = (None if found.store is None else Run(found.store), found.why_not)
    paired = []
    for folder in list_variants(run.store):
        variant = Run(folder)
        paired.append((variant, variant_note(spec, set(changed_rules(run, variant)))))
    html, md = render_report(run, game_report(spec), paired, mapper, precision, checked)
    return run.write_text("report.html", html), run.write_text("report.md", md)


@contextlib.contextmanager
def _mapped(backend: str, scheduler: str | None, workers: int | None) -> Iterator[object]:
    """The report's mapper (:func:`report_mapper`), closed after the report."""
    mapper = report_mapper(backend, scheduler, workers)
    try:
        yield mapper
    finally:
        close = getattr(mapper, "close", None)
        if close:
            close()


def report_folder(
    run_dir: str,
    *,
    variants: bool = True,
    variant_games: int = 50_000,
    precision: float | None = None,
    robustness: bool = True,
    robustness_games: int = ROBUSTNESS_GAMES,
    workers: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    target: str | None = None,
    echo: Callable[[str], None] = lambda line: None,
) -> list[str]:
    """The report of a run folder (:func:`write_report`) or a study folder (a sweep, search or
    strength curve: ``simulate.cli.study_reports.write_study_report``, ``echo`` getting the
    points meeting ``target``); returns what ``dinolab report`` prints when it is written:
    where, and with ``precision`` the games a run needs (:func:`precision_line`)."""
    from simulate.storage import open_store
    from simulate.study.folder import RECORD

    if open_store(run_dir).exists(RECORD):
        from simulate.cli.study_reports import write_study_report

        with _mapped(backend, scheduler, workers) as mapper:
            html, md = write_study_report(run_dir, target, mapper, echo)
        return [f"wrote {html} and {md}"]
    if target is not None:
        raise DinolabError("--target goes with a sweep folder (this is a run folder)")
    if precision is not None and not 0 < precision < 1:
        raise DinolabError(
            f"--precision must be a half-width in (0, 1), e.g. 0.005, got {precision}"
        )
    if robustness_games < 1:
        raise DinolabError(f"--robustness-games must be at least 1, got {robustness_games}")
    with _mapped(backend, scheduler, workers) as mapper:
        html, md = write_report(
            run_dir,
            variants,
            variant_games,
            workers,
            precision,
            mapper,
            robustness,
            robustness_games,
        )
    lines = [f"wrote {html} and {md}"]
    return lines if precision is None else [*lines, precision_line(run_dir, precision)]


def precision_line(run_dir: str, precision: float) -> str:
    """How many games the run's widest seat interval needs to reach ``±precision``."""
    from reports import common
    from simulate.rundir import Run

    run = Run(run_dir)
    conv = common.convergence(run)
    widest = float(conv.filter(conv["games"] == conv["games"].max())["half_width"].max())
    need = common.games_needed(widest, run.games_logged, precision)
    more = max(0, need - run.games_logged)
    return f"widest seat interval ±{widest * 100:.2f} pp with {run.games_logged:,} games; " + (
        f"±{precision * 100:g} pp needs about {need:,}: play about {more:,} more games"
        if more
        else f"±{precision * 100:g} pp is already reached"
    )


@app.command()
def report(
    run_dir: Annotated[str, typer.Argument(help="A run directory (folder or URL).")],
    variants: Annotated[
        bool,
        typer.Option(
            help="Play the paired rule variants the game's report asks for (EVO: initiative "
            "without tails) when they are missing."
        ),
    ] = True,
    variant_games: Annotated[
        int, typer.Option(help="Games for a missing paired variant (at most the run's).")
    ] = 50_000,
    precision: Annotated[
        float | None,
        typer.Option(
            help="A 95% half-width to reach for the seat win shares, e.g. 0.005: the report "
            "says how many more games that needs."
        ),
    ] = None,
    robustness: Annotated[
        bool,
        typer.Option(
            help="Re-measure the headline conclusions with stronger bots on the run's first "
            "games: the lineup kept, each seat's bot raised to its stronger counterpart (tuned, "
            "or search at a small budget) (played once, stored in RUN/robustness/)."
        ),
    ] = True,
    robustness_games: Annotated[
        int,
        typer.Option(
            help="Games of the robustness companion (at most the run's and the game's cap)."
        ),
    ] = ROBUSTNESS_GAMES,
    workers: Annotated[
        int | None, typer.Option(help="Workers for variant and robustness runs.")
    ] = None,
    backend: Annotated[
        str,
        typer.Option(
            help="Where the analyses read the chunks: local threads ('local' or 'threads'), "
            "or dask (tasks next to the data, for runs too large for one machine)."
        ),
    ] = "local",
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address (with --backend dask).")
    ] = None,
    target: Annotated[
        str | None,
        typer.Option(
            help="For a sweep folder: list the points meeting this target, e.g. "
            "first_share=0.5,capped<0.001 (terms M, M=V, M<V, M>V joined by commas)."
        ),
    ] = None,
) -> None:
    """Write RUN/report.html (plots and tables with 95% intervals) and RUN/report.md.

    The analyses read the run one chunk at a time, so memory does not grow with the run.
    Variants made with `dinolab compare` get a paired comparison section each. The section
    "Robustness: with stronger bots" says per headline conclusion whether it holds, changes or
    is undecided (and how many games would decide) with stronger bots: the run's lineup kept,
    each seat's bot raised to its stronger counterpart (tuned, or search at a small budget, as
    the game declares: `dinolab games GAME`), on the run's first --robustness-games games
    (fewer where the game caps a slow bot; played once and stored in RUN/robustness/;
    --no-robustness skips it). RUN may also be a study folder
    (`dinolab sweep`, `dinolab search`): its report compares the points.

    Examples:

      dinolab report runs/dkd4

      dinolab report runs/dkd4 --precision 0.005

      dinolab report runs/dkd4 --robustness-games 5000

      dinolab report runs/sweep-dtb --target first_share=0.5

      dinolab report /shared/runs/evo-1e9 --backend dask --scheduler tcp://head:8786
    """
    lines = report_folder(
        run_dir,
        variants=variants,
        variant_games=variant_games,
        precision=precision,
        robustness=robustness,
        robustness_games=robustness_games,
        workers=workers,
        backend=backend,
        scheduler=scheduler,
        target=target,
        echo=echo,
    )
    for line in lines:
        echo(line)


@app.command()
def compare(
    run_dirs: Annotated[
        list[str], typer.Argument(help="Run directories: one with --set, or several to compare.")
    ],
    assignments: Annotated[
        list[str] | None,
        typer.Option("--set", help="With one run: play this rule change paired (repeatable)."),
    ] = None,
    games: Annotated[
        int | None, typer.Option("--games", "-n", help="Games of the variant (default: all).")
    ] = None,
    out: Annotated[
        str | None, typer.Option("--out", help="Also write compare.html and compare.md here.")
    ] = None,
    workers: Annotated[int | None, typer.Option(help="Worker processes.")] = None,
    progress: Annotated[bool | None, typer.Option("--progress/--no-progress")] = None,
) -> None:
    """Compare runs: a rule variant played on a run's own seeds, or several existing runs.

    With one RUN and --set: play the variant on the same seeds and compare game by game; the
    variant is stored in RUN/variants/KEY=VALUE/ and appears in the run's report. Because game
    i of both starts from the same deal and dice, the paired differences need far fewer games
    than two independent runs.

    With several RUNs: their headline figures side by side, each with its difference from the
    first run and its 95% interval, naming what differs between the runs; runs that share
    their seeds (same seed, players and rotation) are compared game by game (paired).

    Examples:

      dinolab compare runs/evo4 --set initiative_tails=false --games 100000

      dinolab compare runs/dkd4 runs/dkd4-hand4 runs/dkd4-hand2 --out runs/hands
    """
    if assignments:
        if len(run_dirs) != 1:
            raise DinolabError("--set plays a variant of one run; give one run directory")
        _compare_variant(run_dirs[0], assignments, games, workers, progress)
        return
    if len(run_dirs) < 2:
        raise DinolabError("give two or more runs to compare, or one run and --set key=value")
    _compare_runs(run_dirs, out)


def _compare_variant(run_dir, assignments, games, workers, progress) -> None:
    from reports.compare import paired_by, share_moved
    from simulate.backends import make_executor
    from simulate.manifest import read_manifest, run_config
    from simulate.progress import progress_bar, want_progress
    from simulate.rundir import Run
    from simulate.variants import run_variant, variant_config

    variant_config(run_config(read_manifest(run_dir)), assignments, games)  # validate first
    with progress_bar("variant", want_progress(progress)) as update:
        out, _ = run_variant(run_dir, assignments, make_executor(workers), games, update)
    base, variant = Run(run_dir), Run(out)
    seats = paired_by(base, variant, "seat")
    echo(f"paired comparison over {variant.games_logged:,} games: {', '.join(assignments)}")
    for r in seats.iter_rows(named=True):
        echo(
            f"  seat {r['seat']}: {r['base']:.2%} -> {r['variant']:.2%}, change "
            f"{r['mean'] * 100:+.2f} pp [{r['lo'] * 100:+.2f}, {r['hi'] * 100:+.2f}]"
        )
    echo(f"win share moved between seats: {share_moved(seats) * 100:.2f} percentage points")
    echo(f"stored in {out.url}; dinolab report {run_dir} shows it")


def _compare_runs(run_dirs: list[str], out: str | None) -> None:
    from reports.build import comparison_page
    from reports.compare import compare_runs, describe_differences
    from simulate.cli.common import game_report
    from simulate.games import get_game
    from simulate.rundir import Run
    from simulate.storage import open_store

    runs = [Run(d) for d in run_dirs]
    games = sorted({r.game for r in runs})
    if len(games) > 1:
        raise DinolabError(f"runs of different games cannot be compared: {', '.join(games)}")
    table = compare_runs(runs, report=game_report(get_game(games[0])))
    for k, r in enumerate(runs):
        what = "the base" if k == 0 else describe_differences(runs[0], r)
        echo(f"run {k}: {run_dirs[k]} ({r.games_logged:,} games): {what}")
    for row in table.iter_rows(named=True):
        line = f"  run {row['run']} {row['figure']}: {row['value']:.4f}"
        line += f" [{row['lo']:.4f}, {row['hi']:.4f}]"
        if row["diff"] is not None:
            line += f", diff {row['diff']:+.4f} [{row['diff_lo']:+.4f}, {row['diff_hi']:+.4f}]"
            line += f" ({row['test']})"
        echo(line)
    if out:
        html, md = comparison_page(runs, run_dirs, table)
        store = open_store(out)
        store.write_bytes("compare.html", html.encode())
        store.write_bytes("compare.md", md.encode())
        echo(f"wrote {out}/compare.html and {out}/compare.md")


@app.command()
def rate(
    run_dirs: Annotated[list[str], typer.Argument(help="Runs of one game (any players, lineups).")],
    out: Annotated[
        str | None, typer.Option("--out", help="Also write ratings.html and ratings.md here.")
    ] = None,
) -> None:
    """Put every strategy of the given runs on one rating scale, with 95% intervals.

    A Plackett-Luce model of who wins each game (any player count, any lineup), fitted by
    maximum likelihood, with cluster-robust intervals; the scale is also shown as Elo points
    and as the expected win share of one seat against average opponents.

    Example: dinolab rate runs/dkd4-mixed runs/dkd3-mixed runs/dkd5-greedy-vs-cautious
    """
    rate_runs(run_dirs, out, echo)


def rate_runs(
    run_dirs: list[str], out: str | None = None, echo: Callable[[str], None] = lambda line: None
) -> object:
    """Rate every strategy of the runs on one Plackett-Luce scale (``reports.ratings.rate``),
    ``echo`` the table as ``dinolab rate`` prints it and, with ``out``, write ratings.html and
    ratings.md there; returns the table."""
    from reports.build import rating_section, render_html, render_markdown
    from reports.ratings import rate as fit
    from simulate.rundir import Run
    from simulate.storage import open_store

    runs = [Run(d) for d in run_dirs]
    games = sorted({r.game for r in runs})
    if len(games) > 1:
        raise DinolabError(f"ratings need runs of one game, got {', '.join(games)}")
    table = fit(runs)
    if table.is_empty():
        raise DinolabError("the runs hold one strategy only: nothing to rate against")
    echo(f"{'strategy':30s} {'games':>12s} {'elo':>6s} {'95% interval':>16s}  vs field")
    for r in table.iter_rows(named=True):
        echo(
            f"{r['strategy']:30s} {r['games']:12,d} {r['elo']:6.0f} "
            f"[{r['elo_lo']:6.0f}, {r['elo_hi']:6.0f}]  {r['win_share_vs_field']:.2%}"
        )
    if out:
        section = rating_section(runs)
        title = f"Strategy ratings from {len(runs)} {runs[0].title} run(s)"
        store = open_store(out)
        store.write_bytes("ratings.html", render_html(runs[0], [section], title).encode())
        store.write_bytes("ratings.md", render_markdown(runs[0], [section], title).encode())
        echo(f"wrote {out}/ratings.html and {out}/ratings.md")
    return table
