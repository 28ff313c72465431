"""The ``dinolab`` command line.

Every user error (unknown game, strategy or rule key, a value out of range, a malformed data
file, a run directory from another configuration) ends in one line, ``error: ...``, and exit
code 2, before anything is written.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import click
import typer

from rules.core.errors import DinolabError

try:  # typer >= 0.20 vendors its own click; older typer uses click itself
    from typer._click.exceptions import ClickException as _TyperClickError
    from typer._click.exceptions import UsageError as _TyperUsageError
except ImportError:  # pragma: no cover
    _TyperClickError, _TyperUsageError = click.ClickException, click.UsageError

USAGE_ERRORS = (click.exceptions.UsageError, _TyperUsageError)
CLICK_ERRORS = (click.exceptions.ClickException, _TyperClickError)
EXITS = (click.exceptions.Exit, typer.Exit)
ABORTS = (KeyboardInterrupt, click.exceptions.Abort, typer.Abort)

app = typer.Typer(
    name="dinolab",
    help=(
        "Monte Carlo balance analysis for dinosaur games.\n\n"
        "Typical loop: [bold]dinolab games[/] to see what is there; "
        "[bold]dinolab simulate dkd --games 1000000 --out runs/dkd4[/] to play; "
        "[bold]dinolab report runs/dkd4[/] for the HTML report; "
        "[bold]dinolab replay runs/dkd4 --game 123[/] to read one game."
    ),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode="rich",
)


def _echo(text: str = "") -> None:
    typer.echo(text)


@app.command()
def games(
    game: Annotated[
        str | None, typer.Argument(help="Show one game in detail (name or alias).")
    ] = None,
) -> None:
    """List the games, their player counts, strategies and rule keys.

    With a GAME: every rule key with its default, allowed values and source; every strategy
    with its parameters; every logged table with its columns.
    """
    from simulate.games import all_games, get_game

    if game is None:
        for g in all_games():
            aliases = f" (alias {', '.join(g.aliases)})" if g.aliases else ""
            _echo(f"{g.name}{aliases}: {g.title}, {g.min_players}-{g.max_players} players")
            _echo(f"  strategies: {', '.join(g.registry.names())}")
            _echo(f"  rule keys:  {', '.join(g.parameters.info())}")
            _echo(f"  tables:     {', '.join(t.name for t in g.tables)}")
        _echo("\n`dinolab games <game>` shows one game in detail.")
        return
    g = get_game(game)
    _echo(f"{g.title} ({g.name}), {g.min_players}-{g.max_players} players")
    _echo("\nrule keys (--set key=value, or key = value in a --rules TOML file):")
    for p in g.parameters.info().values():
        _echo(f"  {p.name} = {p.default!r}  [{p.allowed()}]  {p.doc}  (source: {p.source})")
    _echo("\nstrategies (--strategy a,b,... one per seat; name[key=value,...] sets parameters):")
    for info in g.registry.by_name.values():
        _echo(f"  {info.usage()}: {info.doc}")
        for sp in info.params:
            _echo(f"      {sp.name} in {sp.lo:g}..{sp.hi:g}: {sp.doc}")
    _echo("\ntables:")
    for t in g.tables:
        _echo(f"  {t.name}/ ({t.doc})")
        for c in t.columns:
            _echo(f"      {c.name} ({c.type}): {c.doc}")


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
            help="Bots: one name for every seat, or one per seat: greedy,random,cautious[aim=0.7]",
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
        int | None, typer.Option(help="Worker processes (default: every core).")
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
    from simulate.progress import progress_bar, want_progress
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
    )
    if out is None:
        out = str(Path("runs") / f"{g.name}-{n_players}p-seed{root_seed}-{n_games}")
    check_out_dir(out, config, resume=resume, force=force)  # before starting any worker
    executor = make_executor(workers, backend, scheduler)
    show = want_progress(progress)
    label = f"{g.name} {n_players}p"
    with progress_bar(label, show) as update:
        summary = run(config, setup, out, executor, resume=resume, force=force, on_chunk=update)
    if summary.chunks_run == 0:
        _echo(f"{out}: all {config.games:,} games were already done")
        return
    _echo(
        f"wrote {summary.games_run:,} games to {out} in {summary.seconds:.1f} s "
        f"({summary.games_per_second:,.0f} games/s, {executor.workers} worker"
        f"{'s' if executor.workers != 1 else ''})"
    )
    _echo(f"data: {setup.describe_data()}")
    _echo(f"next: dinolab report {out}")


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

    _echo(replay_game(run_dir, game_id))


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
    workers: Annotated[int | None, typer.Option(help="Workers for variant runs.")] = None,
) -> None:
    """Write RUN/report.html (plots and tables with 95% intervals) and RUN/report.md.

    Variants made with `dinolab compare` get a paired comparison section each.
    """
    from reports.build import write_report

    html, md = write_report(
        run_dir, variants=variants, variant_games=variant_games, workers=workers
    )
    _echo(f"wrote {html} and {md}")


@app.command()
def compare(
    run_dir: Annotated[str, typer.Argument(help="A run directory (folder or URL).")],
    assignments: Annotated[
        list[str], typer.Option("--set", help="The rule change: --set key=value (repeatable).")
    ],
    games: Annotated[
        int | None, typer.Option("--games", "-n", help="Games (default: all the run's).")
    ] = None,
    workers: Annotated[int | None, typer.Option(help="Worker processes.")] = None,
    progress: Annotated[bool | None, typer.Option("--progress/--no-progress")] = None,
) -> None:
    """Play a rule variant on the same seeds as the run and compare, game by game.

    The variant is stored in RUN/variants/KEY=VALUE/ and appears in the run's report. Because
    game i of both starts from the same deal and dice, the paired differences need far fewer
    games than two independent runs.

    Example: dinolab compare runs/evo4 --set initiative_tails=false --games 100000
    """
    from reports.compare import paired_by, share_moved
    from reports.load import Run
    from simulate.backends import make_executor
    from simulate.manifest import read_manifest, run_config
    from simulate.progress import progress_bar, want_progress
    from simulate.variants import run_variant, variant_config

    variant_config(run_config(read_manifest(run_dir)), assignments, games)  # validate first
    with progress_bar("variant", want_progress(progress)) as update:
        out, _ = run_variant(run_dir, assignments, make_executor(workers), games, update)
    base, variant = Run(run_dir), Run(out)
    seats = paired_by(base, variant, "seat")
    _echo(f"paired comparison over {variant.games_logged:,} games: {', '.join(assignments)}")
    for r in seats.iter_rows(named=True):
        _echo(
            f"  seat {r['seat']}: {r['base']:.2%} -> {r['variant']:.2%}, change "
            f"{r['mean'] * 100:+.2f} pp [{r['lo'] * 100:+.2f}, {r['hi'] * 100:+.2f}]"
        )
    _echo(f"win share moved between seats: {share_moved(seats) * 100:.2f} percentage points")
    _echo(f"stored in {out.url}; dinolab report {run_dir} shows it")


@app.command()
def verify(
    run_dir: Annotated[str, typer.Argument(help="A run directory (folder or URL).")],
) -> None:
    """Check a run: manifest, every chunk's files, checksums, row counts, schemas, game ids.

    Exit code 0 when everything holds, 1 when a problem was found (each is listed).
    """
    from simulate.verify import verify_run

    report = verify_run(run_dir)
    _echo(report.text())
    if not report.ok:
        raise typer.Exit(1)


@app.command()
def bench(
    game: Annotated[str, typer.Argument(help="Game name or alias.")] = "dkd",
    games: Annotated[
        int | None, typer.Option("--games", "-n", help="Games for the end-to-end run.")
    ] = None,
    record: Annotated[
        Path | None, typer.Option(help="Append the results as Markdown to this file.")
    ] = None,
) -> None:
    """Measure kernel and end-to-end throughput (and, for dkd, the ratio to the C yardstick)."""
    from simulate.bench import run_bench

    text = run_bench(game, games)
    _echo(text)
    if record is not None:
        with open(record, "a", encoding="utf-8") as f:
            f.write("\n" + text + "\n")
        _echo(f"appended to {record}")


def fail(message: str) -> None:
    """Print ``error: message`` on one line (line breaks in user input are escaped); exit 2."""
    one_line = message.replace("\r", "\\r").replace("\n", "\\n")
    typer.echo(f"error: {one_line}", err=True)
    sys.exit(2)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: one-line errors with exit code 2, never a traceback for bad input."""
    try:
        rv = app(args=argv, prog_name="dinolab", standalone_mode=False)
    except USAGE_ERRORS as exc:
        ctx = getattr(exc, "ctx", None)
        where = ctx.command_path if ctx is not None else "dinolab"
        fail(f"{' '.join(exc.format_message().split())} (see {where} --help)")
    except DinolabError as exc:
        fail(str(exc))
    except BrokenPipeError:  # output piped into head and the like
        sys.exit(0)
    except OSError as exc:  # files and folders the user pointed at
        fail(f"{exc.strerror or exc}" + (f" ({exc.filename})" if exc.filename else ""))
    except CLICK_ERRORS as exc:
        fail(" ".join(exc.format_message().split()))
    except ABORTS:
        typer.echo("interrupted; finish the run with the same command and --resume", err=True)
        sys.exit(130)
    except EXITS as exc:
        sys.exit(getattr(exc, "exit_code", 0))
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    main()
