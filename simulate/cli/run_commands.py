"""Commands that play or check runs: simulate, demo, replay, verify, bench."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rules.core.errors import DinolabError
from simulate.cli.app import app, echo
from simulate.cli.common import say_if_compiling, say_if_fresh


@app.command()
def simulate(
    game: Annotated[str, typer.Argument(help="Game name or alias, e.g. dkd.")],
    games: Annotated[int | None, typer.Option("--games", "-n", help="Games to play.")] = None,
    players: Annotated[
        int | None, typer.Option("--players", "-p", help="Players per game.")
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Root seed: game i is keyed by (seed, i).")
    ] = None,
    strategy: Annotated[
        str | None,
        typer.Option(
            "--strategy",
            "-s",
            help="Bots: one name for every seat, or one per seat: "
            "greedy,random,cautious\\[aim=0.7]",
        ),
    ] = None,
    rotate: Annotated[
        bool | None,
        typer.Option(
            "--rotate/--no-rotate",
            help="Rotate the lineup round the table; each deal is played once per rotation.",
        ),
    ] = None,
    assignments: Annotated[
        list[str] | None,
        typer.Option("--set", help="Change a rule: --set hand_size=4 (repeatable)."),
    ] = None,
    rules_file: Annotated[
        Path | None, typer.Option("--rules", help="A TOML file of rule changes.")
    ] = None,
    out: Annotated[
        str | None,
        typer.Option("--out", "-o", help="Run directory: a folder, or a URL such as s3://b/x."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(help="Worker processes (default: $DINOLAB_WORKERS, else every core)."),
    ] = None,
    backend: Annotated[
        str,
        typer.Option(
            help="Where chunks run: local processes, or dask (needs the dinolab[dask] extra)."
        ),
    ] = "local",
    scheduler: Annotated[
        str | None,
        typer.Option(
            help="Dask scheduler address, e.g. tcp://host:8786 (or $DINOLAB_DASK_SCHEDULER); "
            "without one, --backend dask starts a local cluster."
        ),
    ] = None,
    chunk_size: Annotated[
        int | None, typer.Option(help="Games per chunk (one Parquet part per table).")
    ] = None,
    tables: Annotated[
        str | None,
        typer.Option(
            help="Log only these tables, e.g. games,players (always logged) or "
            "games,players,turns: faster, smaller runs for the analyses that need only them "
            "(default: every table; `dinolab games GAME` lists them)."
        ),
    ] = None,
    resume: Annotated[
        bool, typer.Option(help="Finish an interrupted run; only missing chunks are played.")
    ] = False,
    force: Annotated[bool, typer.Option(help="Replace an existing run in --out.")] = False,
    progress: Annotated[
        bool | None,
        typer.Option("--progress/--no-progress", help="Progress bar (default: on a terminal)."),
    ] = None,
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
    from simulate.backends import make_executor
    from simulate.config import RunConfig, build_config
    from simulate.games import get_game
    from simulate.manifest import read_manifest, run_config
    from simulate.progress import progress_bar, rate_text, want_progress
    from simulate.runner import check_out_dir, run
    from simulate.storage import open_store

    g = get_game(game)
    previous: RunConfig | None = None
    if resume and out is not None and open_store(out).exists("manifest.json"):
        previous = run_config(read_manifest(out))
    if previous is not None and previous.game != g.name:
        raise DinolabError(f"{out} holds a {previous.game} run, not {g.name}")
    if previous is not None and assignments is None and rules_file is None:
        assignments = [f"{k}={_text(v)}" for k, v in previous.params.items()]

    def pick(value, key, default):
        if value is not None:
            return value
        return getattr(previous, key) if previous is not None else default

    n_players = pick(players, "n_players", g.default_players)
    n_games = pick(games, "games", 10_000)
    root_seed = pick(seed, "seed", 0)
    config, setup = build_config(
        g.name,
        n_players=n_players,
        strategies=strategy
        if strategy is not None
        else (",".join(previous.strategies) if previous else None),
        rotate=pick(rotate, "rotate", False),
        seed=root_seed,
        games=n_games,
        chunk_size=pick(chunk_size, "chunk_size", None),
        assignments=assignments,
        rules_file=str(rules_file) if rules_file else None,
        tables=tables if tables is not None else (previous.tables if previous else None),
    )
    if out is None:
        out = str(Path("runs") / f"{g.name}-{n_players}p-seed{root_seed}-{n_games}")
    mode = check_out_dir(out, config, resume=resume, force=force)  # before starting any worker
    say_if_fresh(resume, mode, out)
    chunks = -(-config.games // config.chunk_size)
    executor = make_executor(workers, backend, scheduler, tasks=chunks)
    say_if_compiling(g)
    show = want_progress(progress)
    label = f"{g.name} {n_players}p"
    with progress_bar(label, show) as update:
        summary = run(config, setup, out, executor, resume=resume, force=force, on_chunk=update)
    if summary.chunks_run == 0:
        echo(f"{out}: all {config.games:,} games were already done")
        return
    echo(
        f"wrote {summary.games_run:,} games to {out} in {summary.seconds:.1f} s "
        f"({rate_text(summary.games_per_second)}, {executor.workers} worker"
        f"{'s' if executor.workers != 1 else ''})"
    )
    echo(f"data: {setup.describe_data()}")
    echo(f"next: dinolab report {out}")


def _text(value) -> str:
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


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
        typer.Option(help="With --scaling: 'dask' adds a local Dask cluster of every core."),
    ] = "local",
) -> None:
    """Measure kernel and end-to-end throughput, the way docs/benchmarks.md records them.

    Per game: the kernel on one core with and without its log buffers (best of five), the
    game's own rows (dkd: the ratio to the C yardstick), the interpreted rate, and a whole
    `dinolab simulate` run with its wall time and peak memory. With --study: the game's
    declared sweep, its kernel-only time against the sweep through warm workers. With
    --strong: the strong bot's speed-up and strength against the strongest rung. With
    --scaling: the same run at 1, 2, 4 ... workers (and a Dask cluster with --backend dask).
    """
    from simulate.bench import run_bench
    from simulate.games import all_games, get_game

    if backend != "local" and not scaling:
        raise DinolabError("--backend is for --scaling (the other measures use one core)")
    for g in [get_game(game)] if game else all_games():
        if scaling:
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
    """Play and report each demo in turn (see :func:`demo`)."""
    from simulate.cli.analysis_commands import ROBUSTNESS_GAMES, report

    for g in chosen:
        d = g.demo
        out = out_dir / f"demo-{g.name}"
        n = max(1, round(d.games * scale))
        echo(f"{g.title}: {n:,} games, {d.players} players, {d.strategy}")
        simulate(
            g.name,
            games=n,
            players=d.players,
            seed=7,
            strategy=d.strategy,
            rotate=d.rotate,
            assignments=None,
            rules_file=None,
            out=str(out),
            workers=workers,
            backend="local",
            scheduler=None,
            chunk_size=None,
            tables=None,
            resume=False,
            force=out.exists(),
            progress=progress,
        )
        report(
            str(out),
            variants=True,
            variant_games=max(1, n // 4),
            workers=workers,
            robustness=robustness,
            robustness_games=d.robust_games or ROBUSTNESS_GAMES,
        )
