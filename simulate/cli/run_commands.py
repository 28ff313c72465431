"""Commands that play or check runs: simulate, demo, replay, verify, bench."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rules.core.errors import DinolabError
from simulate.cli.app import app, echo, warn
from simulate.cli.common import Players, Progress, RuleChanges, Workers

Games = Annotated[int | None, typer.Option("--games", "-n", help="Games to play.")]
Seed = Annotated[int | None, typer.Option(help="Root seed: game i is keyed by (seed, i).")]
Lineup = Annotated[
    str | None,
    typer.Option(
        "--strategy",
        "-s",
        help="Bots: one name for every seat, or one per seat: greedy,random,cautious\\[aim=0.7]",
    ),
]
RotateRun = Annotated[
    bool | None,
    typer.Option(
        "--rotate/--no-rotate",
        help="Rotate the lineup round the table; each deal is played once per rotation.",
    ),
]
RuleSet = Annotated[
    list[str] | None,
    typer.Option("--set", help="Change a rule: --set hand_size=4 (repeatable)."),
]
RunDir = Annotated[
    str | None,
    typer.Option("--out", "-o", help="Run directory: a folder, or a URL such as s3://b/x."),
]
RunBackend = Annotated[
    str,
    typer.Option(
        help="Where chunks run: local processes; threads of this process (no workers to "
        "start: a short run on a few cores ends sooner); or dask (needs the dinolab[dask] "
        "extra)."
    ),
]
RunScheduler = Annotated[
    str | None,
    typer.Option(
        help="Dask scheduler address, e.g. tcp://host:8786 (or $DINOLAB_DASK_SCHEDULER); "
        "without one, --backend dask starts a local cluster."
    ),
]
ChunkSize = Annotated[
    int | None, typer.Option(help="Games per chunk (one Parquet part per table).")
]
LoggedTables = Annotated[
    str | None,
    typer.Option(
        help="Log only these tables, e.g. games,players (always logged) or "
        "games,players,turns: faster, smaller runs for the analyses that need only them "
        "(default: every table; `dinolab games GAME` lists them)."
    ),
]
ResumeRun = Annotated[
    bool, typer.Option(help="Finish an interrupted run; only missing chunks are played.")
]
Force = Annotated[bool, typer.Option(help="Replace an existing run in --out.")]


@app.command()
def simulate(
    game: Annotated[str, typer.Argument(help="Game name or alias, e.g. dkd.")],
    games: Games = None,
    players: Players = None,
    seed: Seed = None,
    strategy: Lineup = None,
    rotate: RotateRun = None,
    assignments: RuleSet = None,
    rules_file: RuleChanges = None,
    out: RunDir = None,
    workers: Workers = None,
    backend: RunBackend = "local",
    scheduler: RunScheduler = None,
    chunk_size: ChunkSize = None,
    tables: LoggedTables = None,
    resume: ResumeRun = False,
    force: Force = False,
    progress: Progress = None,
) -> None:
    """Play many games and log them to Parquet under --out.

    The run directory gets manifest.json, one folder per table (games/, players/, turns/ ...)
    of part-NNNNN.parquet files, and the data the games used. The same seed and configuration
    give the same rows whatever --workers or the executor; --chunk-size changes only how the
    rows are split into files.

    After a crash or Ctrl-C, run the same command with --resume (or just
    `dinolab simulate GAME --out DIR --resume`: missing options are read from the manifest).

    Examples:

      dinolab simulate dkd --games 1000000 --players 4 --seed 7 --out runs/dkd4

      dinolab simulate dkd -n 200000 -p 3 -s greedy,random,cautious --rotate --out runs/x

      dinolab simulate dkd -n 100000 --set hand_size=4 --rules variant.toml --out runs/v

      dinolab simulate dkd -n 100000000 --backend dask --scheduler tcp://head:8786 --out /shared/x
    """
    from simulate.session import RunRequest
    from simulate.session import simulate as simulate_run

    request = RunRequest(
        game=game,
        games=games,
        players=players,
        seed=seed,
        strategy=strategy,
        rotate=rotate,
        assignments=None if assignments is None else tuple(assignments),
        rules_file=str(rules_file) if rules_file else None,
        out=out,
        chunk_size=chunk_size,
        tables=tables,
        resume=resume,
        force=force,
    )
    done = simulate_run(
        request,
        workers=workers,
        backend=backend,
        scheduler=scheduler,
        progress=progress,
        echo=echo,
        warn=warn,
    )
    for line in done.lines():
        echo(line)


@app.command()
def replay(
    run_dir: Annotated[str, typer.Argument(help="A run directory (folder or URL).")],
    game_id: Annotated[int, typer.Option("--game", "-g", help="The game_id to replay.")],
) -> None:
    """Replay one logged game round by round, from (seed, game id), and check it against its log."""
    from simulate.replay import replay_game

    echo(replay_game(run_dir, game_id))


@app.command()
def verify(
    run_dir: Annotated[str, typer.Argument(help="A run directory (folder or URL).")],
) -> None:
    """Check a run: manifest, every chunk's files, checksums, row counts, schemas, game ids.

    Exit code 0 when everything holds, 1 when a problem was found (each is listed).
    """
    from simulate.verify import verify_run

    report = verify_run(run_dir)
    echo(report.text())
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def bench(
    game: Annotated[
        str | None, typer.Argument(help="Game name or alias (default: every game).")
    ] = None,
    games: Annotated[
        int | None, typer.Option("--games", "-n", help="Games for the end-to-end run.")
    ] = None,
    record: Annotated[
        Path | None, typer.Option(help="Append the results as Markdown to this file.")
    ] = None,
    study: Annotated[
        bool,
        typer.Option(
            "--study",
            help="Measure a sweep instead (the game's declared study benchmark): kernel-only "
            "time against the sweep through warm workers, and the cold command.",
        ),
    ] = False,
    strong: Annotated[
        bool,
        typer.Option(
            "--strong",
            help="Measure the strong bot instead: its games/s per core against the strongest "
            "ladder rung's (search; dkd: montecarlo), side by side, and its win share against "
            "that rung in every other seat (-n games per usual player count, seats rotated).",
        ),
    ] = False,
    scaling: Annotated[
        bool,
        typer.Option(
            "--scaling",
            help="Time the same run (-n games; default: the game's scaling workload) at 1, 2, "
            "4 ... workers up to the cores: wall time, speed-up over one worker, efficiency.",
        ),
    ] = False,
    backend: Annotated[
        str,
        typer.Option(
            help="With --scaling: 'threads' adds a run on a thread of every core, 'dask' a "
            "local Dask cluster of every core."
        ),
    ] = "local",
    compile_: Annotated[
        bool,
        typer.Option(
            "--compile",
            help="Time a first compile instead: the game's kernels on an empty cache in a "
            "fresh process, with the helper processes a first compile starts (one per other "
            "core) and alone.",
        ),
    ] = False,
) -> None:
    """Measure kernel and end-to-end throughput, the way docs/benchmarks.md records them.

    Per game: the kernel on one core with and without its log buffers (best of five), the
    game's own rows (dkd: the ratio to the C yardstick), the interpreted rate, and a whole
    `dinolab simulate` run with its wall time and peak memory. With --study: the game's
    declared sweep, its kernel-only time against the sweep through warm workers. With
    --strong: the strong bot's speed-up and strength against the strongest rung. With
    --scaling: the same run at 1, 2, 4 ... workers (and a Dask cluster with --backend dask).
    With --compile: the first compile, with its helper processes and alone.
    """
    from simulate.bench import run_bench
    from simulate.games import all_games, get_game

    if backend != "local" and not scaling:
        raise DinolabError("--backend is for --scaling (the other measures use one core)")
    for g in [get_game(game)] if game else all_games():
        if compile_:
            from simulate.bench_compile import run_compile_bench

            text = run_compile_bench(g.name)
        elif scaling:
            from simulate.bench_scaling import run_scaling_bench

            text = run_scaling_bench(g.name, games, backend)
        elif strong:
            from simulate.bench_strong import run_strong_bench

            text = run_strong_bench(g.name, games)
        elif study:
            from simulate.bench import run_study_bench
            from simulate.cli.study_reports import choose_metrics, metric_context

            def measurer(setup, names):
                from reports.measure import StudyMeasurer

                ctx = metric_context(setup, None)
                return StudyMeasurer(choose_metrics(ctx, ",".join(names) if names else None))

            text = run_study_bench(g.name, measurer, games)
        else:
            text = run_bench(g.name, games)
        echo(text)
        if record is not None:
            with open(record, "a", encoding="utf-8") as f:
                f.write("\n" + text + "\n")
            echo(f"appended to {record}")


@app.command()
def demo(
    out_dir: Annotated[
        Path, typer.Option("--out-dir", help="Folder for the runs: one demo-<game> per game.")
    ] = Path("runs"),
    only: Annotated[
        list[str] | None, typer.Option("--game", help="Only this game (repeatable).")
    ] = None,
    scale: Annotated[
        float, typer.Option(help="Multiply every game's demo size (0.01 for a quick look).")
    ] = 1.0,
    workers: Annotated[int | None, typer.Option(help="Worker processes.")] = None,
    progress: Annotated[bool | None, typer.Option("--progress/--no-progress")] = None,
    robustness: Annotated[
        bool,
        typer.Option(
            help="Check each report's conclusions with the game's stronger bots (at most "
            "20,000 games each, fewer for a slow bot as the game's demo declares; see dinolab "
            "report --help)."
        ),
    ] = True,
) -> None:
    """Play every game's demo configuration and write its report (what `make run` does).

    Each game declares its demo (players, bots, games); the runs go to OUT_DIR/demo-<game>/,
    replacing an earlier demo there, each with report.html and report.md. On a machine
    without compiled kernels, a background process compiles the later games' kernels while
    the first games play.
    """
    from simulate.executors import start_precompiling
    from simulate.games import all_games, get_game

    if not scale > 0:
        raise DinolabError(f"--scale must be positive, got {scale}")
    chosen = [get_game(name) for name in only] if only else all_games()
    compiling = start_precompiling([g.name for g in chosen])
    try:
        _demo_games(chosen, out_dir, scale, workers, progress, robustness)
    finally:
        if compiling is not None and compiling.is_alive():
            compiling.terminate()


def _demo_games(
    chosen: list,
    out_dir: Path,
    scale: float,
    workers: int | None,
    progress: bool | None,
    robustness: bool,
) -> None:
    """Play and report each demo in turn (see :func:`demo`): a game's run, its report's
    variants and its robustness companion through one pool of warm workers."""
    from simulate.backends import WarmPool
    from simulate.cli.analysis_commands import ROBUSTNESS_GAMES, write_report
    from simulate.session import RunRequest
    from simulate.session import simulate as simulate_run

    for g in chosen:
        d = g.demo
        out = out_dir / f"demo-{g.name}"
        n = max(1, round(d.games * scale))
        echo(f"{g.title}: {n:,} games, {d.players} players, {d.strategy}")
        request = RunRequest(
            g.name,
            games=n,
            players=d.players,
            seed=7,
            strategy=d.strategy,
            rotate=d.rotate,
            out=str(out),
            force=out.exists(),
        )
        with WarmPool(workers) as pool:
            done = simulate_run(request, pool(), progress=progress, echo=echo, warn=warn)
            for line in done.lines():
                echo(line)
            html, md = write_report(
                str(out),
                variant_games=max(1, n // 4),
                workers=workers,
                robustness=robustness,
                robustness_games=d.robust_games or ROBUSTNESS_GAMES,
                executor=pool,
            )
        echo(f"wrote {html} and {md}")
