"""``dinolab strength``: the same deals at each strength tier, so a balance figure carries the
strength of the bots that produced it.

A *tier* is one strategy spec (``random``, ``heuristic``, ``search[rollouts=2]``) played in
every seat. Every tier is an ordinary run folder, ``OUT/tiers/<i>-<name>/``, on the same seed,
rules and players, so game ``g`` of every tier starts from the same deal and dice: differences
between tiers are paired game by game. The tiers are played through one executor
(:func:`simulate.study.play.play_runs`: warm workers, Dask as for sweeps), the workers measure
the metrics from the rows they have just played, and each finished tier gets ``metrics.json``.

Two ways to size the tiers: a fixed number of games per tier, or a *precision*: every tier is
played in rounds (its first round a few chunks, then doubled) until each metric's 95% interval
at that tier is at most the half-width asked for, or the cap is reached (a one-line error; the
tiers played stay on disk). A tier that grows keeps its games (:func:`extend_run`: same seed,
more game ids), so it equals one run of its final size.

What the metrics are and how they are computed is ``reports``' business (a :class:`Measurer`
per tier, handed over by the caller); this module only composes runs. ``--resume`` finishes a
study of the same settings (``study.json``), replaying nothing finished.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from rules.core.errors import DinolabError
from simulate.config import MAX_GAMES, RunConfig, build_config, parse_tables
from simulate.executors import Executor
from simulate.games import get_game
from simulate.kit.spec import GameSpec, Setup
from simulate.manifest import read_manifest, run_config, write_manifest
from simulate.rundir import Run
from simulate.runner import RunPlan, open_run
from simulate.storage import RunStore, open_store
from simulate.study import folder
from simulate.study.play import Progress, play_runs
from simulate.study.sweep import Measurer
from simulate.study.tiers import TIERS, Tier, plan_tiers

RATINGS = "ratings"
"""The folder of the rating games: one run per pair of neighbouring tiers."""
METRICS = folder.METRICS
RESULT = "strength.json"
REPORTS = ("strength.html", "strength.md")
DEFAULT_GAMES = 10_000
"""Games per tier when neither ``games`` nor ``precision`` is asked for."""
FIRST_ROUND = 1_000
"""Games of a tier's first round with a precision (rounded up to whole chunks)."""
CAP = 200_000
"""Most games per tier with a precision, unless asked otherwise (``--max-games``)."""
CHUNKS_PER_TIER = 16
"""A tier of a fixed size is cut into about this many chunks (a slow bot's few games use every
worker), each at least :data:`FIRST_ROUND` games and at most the game's chunk."""

MeasurerFor = Callable[[Setup], Measurer]
"""The metrics of one tier's configuration (a :class:`~simulate.study.sweep.Measurer`); raises
:class:`DinolabError` when that tier's runs cannot measure one."""


@dataclasses.dataclass(frozen=True)
class StrengthRequest:
    """What ``dinolab strength`` asks for (the same arguments from Python)."""

    game: str
    metrics: tuple[str, ...] = ()
    """Metric names (``first_share``, ``seat_share[0]``); empty: the caller's default."""
    tiers: tuple[str, ...] = ()
    """Strategy specs, weakest first; empty: the game's declared tiers."""
    games: int | None = None
    """Games per tier (default :data:`DEFAULT_GAMES`); not with ``precision``."""
    precision: float | None = None
    """Play each tier until every metric's 95% interval half-width is at most this."""
    max_games: int = CAP
    """With ``precision``: the most games a tier may reach."""
    players: int | None = None
    seed: int = 0
    assignments: tuple[str, ...] = ()
    """Rule changes (``key=value``) for every tier."""
    rules_file: str | None = None
    chunk_size: int | None = None
    out: str | None = None
    """The study folder (default ``runs/strength-<game>-seed<seed>``)."""
    resume: bool = False
    force: bool = False
    rating_games: int = 0
    """Games of each pair of neighbouring tiers against each other (seats alternating and
    rotated), which put the tiers on one rating scale; 0: none (the plot orders the tiers)."""


@dataclasses.dataclass(frozen=True)
class Pair:
    """Two neighbouring tiers against each other: the run that rates them."""

    folder: str
    config: RunConfig
    setup: Setup


@dataclasses.dataclass
class StrengthPlan:
    """A validated strength study, nothing written yet."""

    request: StrengthRequest
    game: GameSpec
    tiers: list[Tier]
    metrics: list[str]
    record: dict[str, Any]
    store: RunStore
    mode: str
    pairs: list[Pair] = dataclasses.field(default_factory=list)

    @property
    def out(self) -> str:
        return str(self.store.local or self.store.url)


@dataclasses.dataclass(frozen=True)
class TierResult:
    """A finished tier: its run and every metric as ``{"value", "ci", "se", "games"}``."""

    tier: Tier
    run: Run
    metrics: dict[str, dict]


class PrecisionNotReached(DinolabError):
    """A tier reached the cap on games without the precision asked for."""


def chunk_for(game: GameSpec, games: int | None, precision: float | None) -> int:
    """Games per chunk of a tier when none is asked for."""
    if precision is not None:
        return min(game.default_chunk, FIRST_ROUND)
    assert games is not None
    return min(game.default_chunk, max(FIRST_ROUND, -(-games // CHUNKS_PER_TIER)))


def first_round(chunk: int) -> int:
    """Games of a tier's first round with a precision (at most the cap): whole chunks, at
    least :data:`FIRST_ROUND`."""
    return chunk * -(-FIRST_ROUND // chunk)


def next_size(games: int, first: int, cap: int) -> int:
    """The next round's size: the first ``first * 2**k`` above ``games``, at most ``cap`` (so a
    study resumed with a larger cap goes on as if it had had that cap from the start)."""
    size = first
    while size <= games:
        size *= 2
    return min(size, cap)


def half_width(estimate: dict) -> float:
    """The larger side of a metric's 95% interval (NaN when it has none)."""
    value, (lo, hi) = estimate["value"], estimate["ci"]
    width = max(hi - value, value - lo)
    return width if width == width else math.inf


def plan_strength(request: StrengthRequest, measurer_for: MeasurerFor) -> StrengthPlan:
    """Validate the whole study (every tier, every metric at every tier) and decide what to do
    with the folder; nothing is written."""
    r = request
    game = get_game(r.game)
    names = list(r.tiers)
    if not names:
        if game.strength is None:
            raise DinolabError(f"{game.name} declares no strength tiers; name them with --tier")
        names = list(game.strength.curve_tiers)
    names = [n.strip() for n in names]
    if len(names) < 2:
        raise DinolabError("a strength curve needs at least two tiers (--tier, weakest first)")
    if r.games is not None and r.precision is not None:
        raise DinolabError("--games and --precision contradict each other; choose one")
    if r.precision is not None and not (r.precision > 0 and math.isfinite(r.precision)):
        raise DinolabError(f"--precision must be a positive half-width, got {r.precision}")
    if not 1 <= r.max_games <= MAX_GAMES:
        raise DinolabError(f"--max-games must be in 1..10**15, got {r.max_games}")
    games = None if r.precision is not None else (r.games or DEFAULT_GAMES)
    if r.games is not None and not 1 <= r.games <= MAX_GAMES:
        raise DinolabError(f"--games must be in 1..10**15, got {r.games}")
    chunk = r.chunk_size if r.chunk_size is not None else chunk_for(game, games, r.precision)
    first = first_round(max(chunk, 1)) if games is None else None
    size = games if games is not None else min(first, r.max_games)
    common = dict(
        n_players=r.players,
        rotate=False,  # one bot in every seat: a rotation would only replay the deal
        seed=r.seed,
        chunk_size=chunk,
        assignments=list(r.assignments),
        rules_file=r.rules_file,
    )
    base, _ = build_config(game.name, strategies=None, games=size, **common)  # rules, players
    tiers = plan_tiers(game, names, measurer_for, games=size, **common)
    metrics = list(tiers[0].measurer.names)
    tables = parse_tables(game, [x for t in tiers for x in t.measurer.tables])
    tiers = [
        dataclasses.replace(t, config=dataclasses.replace(t.config, tables=tables)) for t in tiers
    ]
    pairs = rating_pairs(game, tiers, r)
    settings = {
        "game": game.name,
        "players": base.n_players,
        "seed": r.seed,
        "rules": base.params,
        "tiers": [t.spec for t in tiers],
        "metrics": metrics,
        "games": games,
        "precision": r.precision,
        "first_round": first,
        "chunk_size": chunk,
        "tables": list(tables) if tables is not None else None,
    }
    if pairs:  # absent otherwise: studies without ratings keep the record they had
        settings["rating_games"] = r.rating_games
    record = {
        "tool": "dinolab strength",
        "settings": settings,  # --max-games is not in it: a larger cap goes on with --resume
        "tiers": [{"name": t.name, "folder": t.folder} for t in tiers],
    }
    out = r.out or str(Path("runs") / f"strength-{game.name}-seed{r.seed}")
    mode = folder.check_folder(out, record, resume=r.resume, force=r.force)
    store = open_store(out)
    if mode == "resume":  # a tier folder of other settings is refused before anything runs
        for t in tiers:
            child = store.child(f"{TIERS}/{t.folder}")
            if child.exists("manifest.json"):
                _check_same(child, t.config, games is None)
    return StrengthPlan(r, game, tiers, metrics, record, store, mode, pairs)


def rating_pairs(game: GameSpec, tiers: list[Tier], r: StrengthRequest) -> list[Pair]:
    """The runs that rate the tiers: each tier against the next, their bots alternating round
    the table and the seats rotated, ``r.rating_games`` games each (none for 0)."""
    if r.rating_games == 0:
        return []
    if not 1 <= r.rating_games <= MAX_GAMES:
        raise DinolabError(f"--rating-games must be in 1..10**15 (or 0), got {r.rating_games}")
    pairs = []
    for a, b in itertools.pairwise(tiers):
        specs = (a.spec, b.spec)
        lineup = ",".join(specs[seat % 2] for seat in range(a.config.n_players))
        config, setup = build_config(
            game.name,
            n_players=a.config.n_players,
            strategies=lineup,
            rotate=True,
            seed=r.seed,
            games=r.rating_games,
            chunk_size=None,
            assignments=list(r.assignments),
            rules_file=r.rules_file,
            tables="games,players",
        )
        pairs.append(Pair(f"{a.index}-{b.index}", config, setup))
    return pairs


def play_ratings(plan: StrengthPlan, executor: Executor, progress: Progress | None = None) -> None:
    """Play the rating runs (:func:`rating_pairs`), finishing those a study left unfinished."""
    runs = []
    for pair in plan.pairs:
        child = plan.store.child(f"{RATINGS}/{pair.folder}")
        started = child.exists("manifest.json")
        runs.append(open_run(pair.config, pair.setup, child, resume=started, tag=pair.folder))
    play_runs(runs, executor, lambda run_plan, measured: None, progress)


def rating_runs(where: str | RunStore) -> list[Run]:
    """The finished rating runs of a strength folder (none when it was played without)."""
    store = open_store(where)
    found = []
    for name in store.listdir(RATINGS):
        child = store.child(f"{RATINGS}/{name}")
        if child.exists("manifest.json") and read_manifest(child).get("status") == "complete":
            found.append(Run(child))
    return found


def _check_same(store: RunStore, config: RunConfig, any_size: bool) -> RunConfig:
    """The configuration of the run in ``store``, refused unless it is ``config`` (but for its
    number of games when ``any_size``)."""
    previous = run_config(read_manifest(store))
    mine = dataclasses.replace(config, games=previous.games) if any_size else config
    if previous.fingerprint() != mine.fingerprint():
        diff = "; ".join(mine.differences(previous))
        raise DinolabError(f"{store} was made with a different configuration ({diff})")
    return previous


def extend_run(store: RunStore, config: RunConfig) -> list[int]:
    """Let a finished run grow to ``config.games`` (its configuration otherwise unchanged): its
    chunks stay (a last, partial chunk is dropped and replayed whole), and playing the run with
    ``resume`` adds the missing games: the same rows as one run of the final size. Returns the
    chunks dropped."""
    manifest = read_manifest(store)
    previous = _check_same(store, config, any_size=True)
    if previous.games == config.games:
        return []
    if previous.games > config.games:
        raise DinolabError(f"{store} holds {previous.games:,} games, more than {config.games:,}")
    if manifest.get("status") != "complete":
        raise ValueError("only a finished run is extended")
    kept, dropped = {}, []
    for key, entry in manifest["chunks"].items():
        start = int(key) * config.chunk_size
        if (entry["start"], entry["stop"]) == (start, min(start + config.chunk_size, config.games)):
            kept[key] = entry
        else:
            dropped.append(int(key))
    manifest.update(
        config=config.to_dict(), fingerprint=config.fingerprint(), status="running", chunks=kept
    )
    write_manifest(store, manifest)  # one atomic write: the old run or the grown one
    return dropped


def _metrics_json(tier: Tier, games: int, estimates: dict[str, dict]) -> bytes:
    body = {"tier": tier.name, "games": games, "metrics": estimates}
    return (json.dumps(body, indent=1) + "\n").encode()


def play_strength(
    plan: StrengthPlan,
    executor: Executor,
    progress: Progress | None = None,
    echo: Callable[[str], None] = lambda line: None,
) -> list[TierResult]:
    """Play and measure every tier (in rounds with a precision); each tier's result, weakest
    first. The caller closes ``executor``. A precision not reached under the cap raises
    :class:`PrecisionNotReached` with every tier played so far on disk."""
    store, r = plan.store, plan.request
    if plan.mode == "replace":
        folder.clear(store, [TIERS, RATINGS, RESULT, *REPORTS])
    folder.write_record(store, plan.record)
    first = plan.record["settings"]["first_round"]
    sizes: dict[str, int] = {}
    for t in plan.tiers:
        child = store.child(f"{TIERS}/{t.folder}")
        on_disk = run_config(read_manifest(child)).games if child.exists("manifest.json") else 0
        sizes[t.folder] = max(t.config.games, on_disk)  # a resumed tier first finishes its round
    folds: dict[str, dict[int, Any]] = {t.folder: {} for t in plan.tiers}
    results: dict[str, TierResult] = {}
    pending = list(plan.tiers)
    while pending:
        _play_round(plan, pending, sizes, folds, results, executor, progress)
        if r.precision is None:
            for t in pending:
                echo(_line(results[t.folder], None))
            break
        still = []
        for t in pending:
            res = results[t.folder]
            worst, width = max(
                ((name, half_width(e)) for name, e in res.metrics.items()), key=lambda x: x[1]
            )
            reached = width <= r.precision
            echo(_line(res, r.precision))
            if reached:
                continue
            if sizes[t.folder] >= r.max_games:
                shown = f"±{width:.4g}" if math.isfinite(width) else "no interval"
                raise PrecisionNotReached(
                    f"--precision {r.precision:g} not reached: {worst} at tier '{t.name}' has "
                    f"{shown} after {sizes[t.folder]:,} games (--max-games {r.max_games:,}); "
                    f"the tiers played are kept in {plan.out}: the same command with --resume "
                    "and a larger --max-games goes on"
                )
            sizes[t.folder] = next_size(sizes[t.folder], first, r.max_games)
            still.append(t)
        pending = still
    return [results[t.folder] for t in plan.tiers]


def _play_round(
    plan: StrengthPlan,
    pending: list[Tier],
    sizes: dict[str, int],
    folds: dict[str, dict[int, Any]],
    results: dict[str, TierResult],
    executor: Executor,
    progress: Progress | None,
) -> None:
    """Play the ``pending`` tiers to their ``sizes`` (growing finished ones) and measure each:
    ``results`` and the workers' per-chunk ``folds`` are updated."""
    store = plan.store
    by_folder = {t.folder: t for t in pending}
    plans: list[RunPlan] = []
    for t in pending:
        child = store.child(f"{TIERS}/{t.folder}")
        config = dataclasses.replace(t.config, games=sizes[t.folder])
        started = child.exists("manifest.json")
        if started:
            for index in extend_run(child, config):
                folds[t.folder].pop(index, None)
        plans.append(
            open_run(config, t.setup, child, resume=started, measure=t.measurer.chunk, tag=t.folder)
        )

    def measure(run_plan: RunPlan, measured: dict[int, Any]) -> None:
        tier = by_folder[run_plan.tag]
        games = run_plan.config.games
        if not measured and run_plan.store.exists(METRICS):  # a tier finished before
            kept = json.loads(run_plan.store.read_bytes(METRICS))
            if kept.get("games") == games and list(kept["metrics"]) == plan.metrics:
                results[tier.folder] = TierResult(tier, Run(run_plan.store), kept["metrics"])
                return
        folds[tier.folder].update(measured)
        run = Run(run_plan.store)
        estimates = tier.measurer.point(run, folds[tier.folder])
        run_plan.store.write_bytes(METRICS, _metrics_json(tier, games, estimates))
        results[tier.folder] = TierResult(tier, run, estimates)

    measuring: list[Future] = []
    with ThreadPoolExecutor(1, thread_name_prefix="measure") as pool:
        # measuring a tier (a model fit, for some metrics) overlaps the next tiers' games
        def on_complete(run_plan: RunPlan, measured: dict[int, Any]) -> None:
            measuring.append(pool.submit(measure, run_plan, measured))

        play_runs(plans, executor, on_complete, progress)
        for f in measuring:
            f.result()


def _line(result: TierResult, precision: float | None) -> str:
    """One progress line of a finished tier (or round)."""
    head = f"  {result.tier.name}: {result.run.games_logged:,} games"
    if precision is None:
        shown = list(result.metrics.items())[:3]
        return head + ", " + ", ".join(f"{k} {e['value']:.4g}" for k, e in shown)
    name, width = max(((k, half_width(e)) for k, e in result.metrics.items()), key=lambda x: x[1])
    verdict = "reached" if width <= precision else "more games"
    return head + f", widest interval ±{width:.3g} ({name}): {verdict}"


def strength(
    request: StrengthRequest,
    measurer_for: MeasurerFor,
    executor: Executor | None = None,
    progress: Progress | None = None,
    echo: Callable[[str], None] = lambda line: None,
) -> tuple[StrengthPlan, list[TierResult]]:
    """Plan and play a strength study (from Python: :func:`plan_strength` then
    :func:`play_strength`, with a local executor unless one is given)."""
    from simulate.backends import make_executor

    plan = plan_strength(request, measurer_for)
    own = executor is None
    executor = executor if executor is not None else make_executor(None)
    try:
        return plan, play_strength(plan, executor, progress, echo)
    finally:
        if own:
            executor.close()


def read_strength(where: str | RunStore) -> tuple[dict[str, Any], list[tuple[str, Run, dict]]]:
    """A strength folder's record and, per tier (weakest first), its name, run and metrics."""
    record, tiers = folder.read_study(
        where, "dinolab strength", "a strength curve", "tiers", TIERS, "folder"
    )
    return record, [(t["name"], run, metrics) for t, run, metrics in tiers]
