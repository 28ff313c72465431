"""``dinolab restrict``: restricted play, what each option of a game is worth to a bot.

One baseline run (strategy ``S`` in every seat) and one run per option ``X`` with lineup
``S[forbid=X],S,...,S``, all with the same seed, games and rules and with seats rotated, so the
runs are paired game by game (the analysis: :mod:`reports.restrict`). The runs are ordinary run
directories under ``DIR/runs/`` (``baseline`` and ``forbid-<option>``), played by
:func:`simulate.runner.run`: each can be resumed, verified, replayed and reported on its own,
and running the same command again reuses the finished ones and finishes the others.
``DIR/restrict.json`` records the study; ``DIR/report.html`` and ``DIR/report.md`` its report.

Everything (game, strategy, options, rules, numbers, the folders already there) is validated
before anything is written.
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
import unicodedata
from pathlib import Path
from typing import Annotated

import typer

from rules.core.errors import DinolabError
from simulate.cli.app import app, echo

STUDY = "restrict.json"
RUNS = "runs"
BASELINE = "baseline"


@dataclasses.dataclass
class PlannedRun:
    """One run of a study: its option (``None`` for the baseline), folder and configuration."""

    option: str | None
    folder: str
    config: object
    setup: object
    store: object
    state: str
    """'new', 'resume' (a started run of the same configuration) or 'done'."""
    games_done: int = 0


def slug(option: str) -> str:
    """A folder-safe spelling of an option name (ASCII letters, digits, ``.``, ``_``, ``-``)."""
    ascii_text = unicodedata.normalize("NFKD", option).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9._]+", "-", ascii_text).strip("-.") or "option"


def option_folders(options: tuple[str, ...]) -> dict[str, str]:
    """Each of the game's options' run folder, ``forbid-<slug>``; an option whose slug another
    option shares gets its index appended, so the names never depend on --options."""
    slugs = [slug(o) for o in options]
    return {
        o: f"forbid-{s}" + (f"-{i}" if slugs.count(s) > 1 else "")
        for i, (o, s) in enumerate(zip(options, slugs, strict=True))
    }


def default_strategy(game) -> str:
    """``heuristic`` where the game has it, else the game's default bot."""
    return "heuristic" if "heuristic" in game.registry.by_name else game.default_strategy


def plan_study(
    game_name: str,
    *,
    options: str | None,
    games: int,
    players: int | None,
    strategy: str | None,
    seed: int,
    assignments: list[str] | None,
    rules_file: str | None,
    chunk_size: int | None,
    out: str,
):
    """Validate the whole study and decide each run's fate; nothing is written."""
    from simulate.config import build_config
    from simulate.games import get_game
    from simulate.manifest import read_manifest
    from simulate.runner import check_out_dir
    from simulate.storage import open_store
    from strategies.core.registry import StrategyError, split_lineup

    g = get_game(game_name)
    registry = g.registry
    if not registry.options:
        raise DinolabError(f"{g.name} declares no restrictable options; restricted play needs some")
    text = strategy if strategy is not None else default_strategy(g)
    parts = split_lineup(text)
    if len(parts) != 1:
        raise StrategyError(f"--strategy takes one strategy (every seat plays it), got {text!r}")
    base = registry.parse(parts[0])
    if options is None:
        chosen = registry.options
    else:
        names = [o for o in options.split(",") if o.strip()]
        if not names:
            raise DinolabError("--options needs option names separated by commas")
        chosen = registry.forbid_options(names)
    if already := [o for o in chosen if o in base.forbid]:
        raise StrategyError(f"--strategy {base.label} already forbids {', '.join(already)}")
    n_players = g.default_players if players is None else players
    store = open_store(out)
    if store.exists() and not store.is_dir():
        raise DinolabError(f"--out {store} exists and is not a directory")
    if not store.is_empty() and not store.exists(STUDY):
        raise DinolabError(
            f"--out {store} is not empty and holds no restricted-play study ({STUDY}); "
            "choose a new folder"
        )
    folders = option_folders(registry.options)
    lineups: list[tuple[str | None, str, str]] = [(None, BASELINE, base.spec)]
    for o in chosen:
        restricted = dataclasses.replace(base, forbid=registry.forbid_options((*base.forbid, o)))
        lineups.append((o, folders[o], restricted.spec))
    planned = []
    for option, folder, first in lineups:
        config, setup = build_config(
            g.name,
            n_players=n_players,
            strategies=",".join([first] + [base.spec] * (n_players - 1)),
            rotate=True,
            seed=seed,
            games=games,
            chunk_size=chunk_size,
            assignments=assignments,
            rules_file=rules_file,
        )
        child = store.child(f"{RUNS}/{folder}")
        started = child.exists("manifest.json")
        try:
            check_out_dir(child, config, resume=started, force=False)
        except DinolabError as exc:
            raise DinolabError(
                f"{exc}; that study was played with other settings: choose another --out"
            ) from None
        state, done = "new", 0
        if started:
            manifest = read_manifest(child)
            done = sum(c["stop"] - c["start"] for c in manifest["chunks"].values())
            state = "done" if manifest.get("status") == "complete" else "resume"
        planned.append(PlannedRun(option, folder, config, setup, child, state, done))
    return g, base, planned, store


def study_record(game, base, planned: list[PlannedRun]) -> dict:
    """What ``restrict.json`` holds: the study's settings and its runs."""
    c = planned[0].config
    return {
        "tool": "dinolab restrict",
        "game": game.name,
        "strategy": base.spec,
        "label": base.label,
        "n_players": c.n_players,
        "games": c.games,
        "seed": c.seed,
        "rotate": c.rotate,
        "params": c.params,
        "baseline": f"{RUNS}/{BASELINE}",
        "options": [{"option": p.option, "run": f"{RUNS}/{p.folder}"} for p in planned if p.option],
    }


class _Stopped(Exception):
    """Another run of the study failed or was interrupted: stop at the next chunk."""


def play_study(planned: list[PlannedRun], workers: int | None, backend: str, scheduler, show):
    """Play every run not done: with the local backend ``workers`` runs at a time, each in a
    thread of this process (the kernels release the GIL); with Dask one after another, each
    on the cluster."""
    from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

    from simulate.backends import make_executor
    from simulate.executors import InlineExecutor, default_workers
    from simulate.progress import progress_bar
    from simulate.runner import run

    todo = [p for p in planned if p.state != "done"]
    if not todo:
        return
    if workers is not None and workers < 1:
        raise DinolabError(f"--workers must be at least 1, got {workers}")
    local = backend == "local"
    if local and scheduler:
        raise DinolabError("--scheduler needs --backend dask")
    n_threads = max(1, min(len(todo), workers or default_workers())) if local else 1
    total = sum(p.config.games - p.games_done for p in todo)
    stop = threading.Event()
    lock = threading.Lock()
    played = {p.folder: 0 for p in todo}
    with progress_bar(f"restricted play: {len(todo)} runs", show) as update:

        def one(p: PlannedRun) -> None:
            if stop.is_set():
                raise _Stopped
            first = [None]

            def on_chunk(done: int, _total: int) -> None:
                if stop.is_set():
                    raise _Stopped
                if first[0] is None:
                    first[0] = done
                with lock:
                    played[p.folder] = done - first[0]
                    update(sum(played.values()), total)

            executor = InlineExecutor() if local else make_executor(workers, backend, scheduler)
            run(p.config, p.setup, p.store, executor, resume=p.state == "resume", on_chunk=on_chunk)

        with ThreadPoolExecutor(n_threads, thread_name_prefix="restrict") as pool:
            futures = [pool.submit(one, p) for p in todo]
            try:
                finished, _ = wait(futures, return_when=FIRST_EXCEPTION)
            except KeyboardInterrupt:
                stop.set()
                wait(futures)
                raise
            errors = [f.exception() for f in finished if f.exception() is not None]
            if errors:
                stop.set()
                wait(futures)
                first_error = next((e for e in errors if not isinstance(e, _Stopped)), errors[0])
                raise first_error


def write_study_report(store, record: dict, mapper=None) -> tuple[str, str, object]:
    """Analyse the study's runs; write report.html and report.md into the study folder."""
    from reports import restrict
    from reports.build import render_html, render_markdown
    from simulate.cli.common import game_report
    from simulate.games import get_game
    from simulate.rundir import Run

    game = get_game(record["game"])
    baseline = Run(store.child(record["baseline"]))
    runs = [(o["option"], Run(store.child(o["run"]))) for o in record["options"]]
    for _, r in [("baseline", baseline), *runs]:
        if not r.complete:
            raise DinolabError(f"{r.store} is not complete; run the same command again")
    try:
        table = restrict.restricted_play(baseline, runs, game_report(game), mapper)
    except restrict.NotPaired as exc:
        raise DinolabError(str(exc)) from None
    options = [o for o, _ in runs]
    sections = restrict.sections(baseline, table, record["label"], options)
    title = (
        f"Restricted play: {baseline.title}, {record['label']}, {record['n_players']} players, "
        f"{record['games']:,} games per run"
    )
    html = render_html(baseline, sections, title)
    md = render_markdown(baseline, sections, title)
    store.write_bytes("report.html", html.encode())
    store.write_bytes("report.md", md.encode())
    where = str(store.local or store.url).rstrip("/")
    return f"{where}/report.html", f"{where}/report.md", table


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
    players: Annotated[
        int | None, typer.Option("--players", "-p", help="Players per game.")
    ] = None,
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
    rules_file: Annotated[
        Path | None, typer.Option("--rules", help="A TOML file of rule changes.")
    ] = None,
    out: Annotated[
        str | None,
        typer.Option("--out", "-o", help="Study folder: runs/, restrict.json and the report."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(help="Runs played at once (default: $DINOLAB_WORKERS, else every core)."),
    ] = None,
    backend: Annotated[
        str, typer.Option(help="local (threads of this process) or dask (each run on a cluster).")
    ] = "local",
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address (with --backend dask).")
    ] = None,
    chunk_size: Annotated[
        int | None, typer.Option(help="Games per chunk (default: the game's).")
    ] = None,
    progress: Annotated[
        bool | None,
        typer.Option("--progress/--no-progress", help="Progress bar (default: on a terminal)."),
    ] = None,
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
    from simulate.cli.common import say_if_compiling
    from simulate.progress import want_progress

    if out is None:
        from simulate.games import get_game

        out = str(Path("runs") / f"restrict-{get_game(game).name}-seed{seed}-{games}")
    g, base, planned, store = plan_study(
        game,
        options=options,
        games=games,
        players=players,
        strategy=strategy,
        seed=seed,
        assignments=assignments,
        rules_file=str(rules_file) if rules_file else None,
        chunk_size=chunk_size,
        out=out,
    )
    if workers is not None and workers < 1:
        raise DinolabError(f"--workers must be at least 1, got {workers}")
    if backend not in ("local", "dask"):
        raise DinolabError(f"unknown backend '{backend}' (known: local, dask)")
    if backend == "local" and scheduler:
        raise DinolabError("--scheduler needs --backend dask")
    record = study_record(g, base, planned)
    store.write_bytes(STUDY, (json.dumps(record, indent=1, ensure_ascii=False) + "\n").encode())
    n_new = sum(p.state != "done" for p in planned)
    echo(
        f"{g.title}: {base.label} x{planned[0].config.n_players}, {len(planned) - 1} options, "
        f"{planned[0].config.games:,} games per run; {n_new} of {len(planned)} runs to play"
    )
    if n_new:
        say_if_compiling(g)
    try:
        play_study(planned, workers, backend, scheduler, want_progress(progress))
    except KeyboardInterrupt:
        typer.echo("interrupted; run the same command again to finish the study", err=True)
        raise typer.Exit(130) from None
    html, md, table = write_study_report(store, record)
    for r in table.head(5).iter_rows(named=True):
        echo(
            f"  {r['option']}: {r['change'] * 100:+.2f} pp [{r['lo'] * 100:+.2f}, "
            f"{r['hi'] * 100:+.2f}], {r['reading']}"
        )
    echo(f"wrote {html} and {md}")
