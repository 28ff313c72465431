"""``dinolab restrict``: restricted play, what each option of a game is worth to a bot.

One baseline run (strategy ``S`` in every seat) and one run per option ``X`` with lineup
``S[forbid=X],S,...,S``, all with the same seed, games and rules and with seats rotated, so the
runs are paired game by game (the analysis: ``reports.restrict``). The runs are ordinary run
directories under ``DIR/runs/`` (``baseline`` and ``forbid-<option>``), streamed through one
executor (:func:`simulate.study.play.play_runs`: warm workers, Dask as for sweeps): each can be
resumed, verified, replayed and reported on its own, and running the same study again reuses
the finished ones and finishes the others. ``DIR/restrict.json`` records the study.

Everything (game, strategy, options, rules, numbers, the folders already there) is validated
by :func:`plan_restrict` before anything is written.
"""

from __future__ import annotations

import dataclasses
import json
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path

from rules.core.errors import DinolabError
from simulate.config import RunConfig
from simulate.executors import Executor
from simulate.kit.spec import GameSpec, Setup
from simulate.storage import RunStore
from simulate.study.play import Progress
from strategies.core.registry import Strategy

STUDY = "restrict.json"
RUNS = "runs"
BASELINE = "baseline"


@dataclasses.dataclass(frozen=True)
class RestrictRequest:
    """What ``dinolab restrict`` asks for (the same arguments from Python)."""

    game: str
    options: str | None = None
    """Options to measure, separated by commas (default: every option of the game)."""
    games: int = 10_000
    """Games per run (the baseline and each option)."""
    players: int | None = None
    strategy: str | None = None
    """The one bot every seat plays (default: heuristic, or the game's default bot)."""
    seed: int = 0
    assignments: tuple[str, ...] = ()
    """Rule changes (``key=value``) for every run."""
    rules_file: str | None = None
    out: str | None = None
    """The study folder (default ``runs/restrict-<game>-seed<seed>-<games>``)."""
    chunk_size: int | None = None


@dataclasses.dataclass
class PlannedRun:
    """One run of a study: its option (``None`` for the baseline), folder and configuration."""

    option: str | None
    folder: str
    config: RunConfig
    setup: Setup
    store: RunStore
    state: str
    """'new', 'resume' (a started run of the same configuration) or 'done'."""
    games_done: int = 0


@dataclasses.dataclass
class RestrictPlan:
    """A validated study, nothing written yet."""

    request: RestrictRequest
    game: GameSpec
    base: Strategy
    """The strategy every seat plays."""
    runs: list[PlannedRun]
    store: RunStore

    @property
    def to_play(self) -> list[PlannedRun]:
        return [p for p in self.runs if p.state != "done"]

    @property
    def record(self) -> dict:
        """What ``restrict.json`` holds: the study's settings and its runs."""
        c = self.runs[0].config
        return {
            "tool": "dinolab restrict",
            "game": self.game.name,
            "strategy": self.base.spec,
            "label": self.base.label,
            "n_players": c.n_players,
            "games": c.games,
            "seed": c.seed,
            "rotate": c.rotate,
            "params": c.params,
            "baseline": f"{RUNS}/{BASELINE}",
            "options": [
                {"option": p.option, "run": f"{RUNS}/{p.folder}"} for p in self.runs if p.option
            ],
        }


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


def default_strategy(game: GameSpec) -> str:
    """``heuristic`` where the game has it, else the game's default bot."""
    return "heuristic" if "heuristic" in game.registry.by_name else game.default_strategy


def plan_restrict(request: RestrictRequest) -> RestrictPlan:
    """Validate the whole study and decide each run's fate; nothing is written."""
    from simulate.config import build_config
    from simulate.games import get_game
    from simulate.manifest import read_manifest
    from simulate.runner import check_out_dir
    from simulate.storage import open_store
    from strategies.core.registry import StrategyError, split_lineup

    r = request
    g = get_game(r.game)
    registry = g.registry
    if not registry.options:
        raise DinolabError(f"{g.name} declares no restrictable options; restricted play needs some")
    text = r.strategy if r.strategy is not None else default_strategy(g)
    parts = split_lineup(text)
    if len(parts) != 1:
        raise StrategyError(f"--strategy takes one strategy (every seat plays it), got {text!r}")
    base = registry.parse(parts[0])
    if r.options is None:
        chosen = registry.options
    else:
        names = [o for o in r.options.split(",") if o.strip()]
        if not names:
            raise DinolabError("--options needs option names separated by commas")
        chosen = registry.forbid_options(names)
    if already := [o for o in chosen if o in base.forbid]:
        raise StrategyError(f"--strategy {base.label} already forbids {', '.join(already)}")
    n_players = g.default_players if r.players is None else r.players
    out = r.out or str(Path("runs") / f"restrict-{g.name}-seed{r.seed}-{r.games}")
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
            seed=r.seed,
            games=r.games,
            chunk_size=r.chunk_size,
            assignments=list(r.assignments),
            rules_file=r.rules_file,
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
    return RestrictPlan(request, g, base, planned, store)


def write_record(plan: RestrictPlan) -> None:
    """Write ``restrict.json`` (the study's settings and runs) into the study folder."""
    text = json.dumps(plan.record, indent=1, ensure_ascii=False) + "\n"
    plan.store.write_bytes(STUDY, text.encode())


def play_restrict(plan: RestrictPlan, executor: Executor, progress: Progress | None = None) -> None:
    """Play every run not done through ``executor`` (left open), the runs' chunks streamed
    through its workers in order."""
    from simulate.runner import open_run
    from simulate.study.play import play_runs

    plans = [
        open_run(p.config, p.setup, p.store, resume=p.state == "resume", tag=p.folder)
        for p in plan.to_play
    ]
    if plans:
        play_runs(plans, executor, lambda run_plan, measured: None, progress)


def restrict(
    request: RestrictRequest,
    executor: Executor | None = None,
    *,
    workers: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    progress: bool | None = False,
    echo: Callable[[str], None] = lambda line: None,
    warn: Callable[[str], None] = lambda line: None,
) -> RestrictPlan:
    """Plan and play a restricted-play study (from Python as from ``dinolab restrict``):
    write ``restrict.json`` and play the runs not done, through ``executor`` (left open) or,
    by default, one of ``workers`` on ``backend`` made for the study; returns the plan (its
    runs are complete; ``reports.restrict`` reads them)."""
    from simulate.backends import make_executor
    from simulate.kit.compiled import compiling_notice
    from simulate.progress import progress_bar, want_progress

    plan = plan_restrict(request)
    own = executor is None
    if executor is None:
        chunks = sum(p.config.n_chunks for p in plan.to_play)
        executor = make_executor(workers, backend, scheduler, tasks=max(1, chunks))
    try:
        write_record(plan)
        c, n_new = plan.runs[0].config, len(plan.to_play)
        echo(
            f"{plan.game.title}: {plan.base.label} x{c.n_players}, {len(plan.runs) - 1} "
            f"options, {c.games:,} games per run; {n_new} of {len(plan.runs)} runs to play"
        )
        if n_new and (notice := compiling_notice(plan.game, plan.base.info.searches)):
            warn(notice)
        if n_new:
            label = f"restricted play: {n_new} runs"
            with progress_bar(label, want_progress(progress)) as update:
                play_restrict(plan, executor, update)
    finally:
        if own:
            executor.close()
    return plan
