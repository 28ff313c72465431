"""``dinolab sweep``: play a game at many settings of some knobs, paired, and measure each.

Every point is an ordinary run directory, ``DIR/points/NNN-knob=value,.../`` (its manifest
holds the point's rules, so ``verify``, ``report`` and ``replay`` work on it), and every point
plays the same seed, so their differences are paired game by game. The points are played
through one executor (:func:`simulate.study.play.play_runs`); the metrics' per-game sums are
taken by the workers from the rows they have just played, and each finished point gets
``metrics.json`` (every metric with its 95% interval). ``DIR/results.csv`` holds one row per
point. The same command with ``--resume`` finishes the missing points; a chunk played before
a kill is measured from its files, giving the same numbers.

With strength tiers (:mod:`simulate.study.tiers`) every point is played at each tier on the
same seed (one bot in every seat), each tier's points under ``DIR/tiers/<i>-<name>/points/``,
so a point's tiers differ only by the bots, game by game; ``results.csv`` then has a row per
point and tier.

Which metrics, and how they are computed, is the business of ``reports`` (a
:class:`Measurer`, handed over by the CLI): this module only composes runs.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

from simulate.config import RunConfig, build_config
from simulate.executors import Executor, Measure
from simulate.kit.spec import GameSpec, Setup
from simulate.rundir import Run
from simulate.runner import RunPlan, check_out_dir, open_run
from simulate.storage import RunStore, open_store
from simulate.study import folder
from simulate.study.design import design_points
from simulate.study.knobs import Axis, check_point, parse_axes
from simulate.study.play import Progress, play_runs
from simulate.study.tiers import TIERS, Tier

POINTS = "points"
METRICS = folder.METRICS
RESULTS = "results.csv"


@dataclasses.dataclass(frozen=True)
class SweepRequest:
    """What ``dinolab sweep`` asks for (the same arguments from Python)."""

    game: str
    params: tuple[str, ...]
    """Knobs and their values: ``KEY=V1,V2``, ``KEY=LO..HI`` or ``KEY=LO..HI:STEPS``."""
    games: int = 10_000
    """Games per point."""
    design: str = "grid"
    """``grid`` (every combination) or ``lhs`` (a Latin hypercube of ``samples`` points)."""
    samples: int | None = None
    metrics: str | None = None
    """Metrics separated by commas (default: every metric the tables allow)."""
    players: int | None = None
    strategy: str | None = None
    tiers: tuple[str, ...] = ()
    """Strength tiers, cheapest first: every point is played at each (not with strategy)."""
    rotate: bool = False
    seed: int = 0
    assignments: tuple[str, ...] = ()
    """Fixed rule changes (``key=value``) for every point."""
    rules_file: str | None = None
    tables: str | None = None
    """Tables each point logs (default: what the metrics read)."""
    out: str | None = None
    """The study folder (default ``runs/sweep-<game>-seed<seed>``)."""
    chunk_size: int | None = None
    target: str | None = None
    """Also list the points meeting this target in the report."""
    resume: bool = False
    force: bool = False


class Measurer(Protocol):
    """What a study asks of its metrics (implemented in ``reports``)."""

    names: list[str]
    """The metrics measured, as ``--target`` names them."""
    tables: tuple[str, ...]
    """The tables they read."""
    chunk: Measure | None
    """Run by the workers on each chunk's tables (``None``: nothing to take there)."""

    def point(self, run: Run, measured: dict[int, Any]) -> dict[str, dict]:
        """Every metric of a finished run as ``{"value", "ci", "se", "games"}``;
        ``measured``: what :attr:`chunk` returned for the chunks played now (the others are
        read from the run's files)."""
        ...


@dataclasses.dataclass(frozen=True)
class Point:
    """One point of a sweep (at one tier): its name, knob values and configuration."""

    name: str
    values: dict[str, str]
    config: RunConfig
    setup: Setup
    tier: Tier | None = None

    @property
    def folder(self) -> str:
        """Its run folder in the sweep's (one per tier with tiers)."""
        inner = f"{POINTS}/{self.name}"
        return inner if self.tier is None else f"{TIERS}/{self.tier.folder}/{inner}"

    def label(self) -> str:
        return self.name if self.tier is None else f"{self.name} at {self.tier.name}"


@dataclasses.dataclass
class Sweep:
    """A validated sweep, nothing written yet."""

    game: GameSpec
    axes: list[Axis]
    points: list[Point]
    record: dict[str, Any]
    store: RunStore
    mode: str


def point_name(index: int, values: dict[str, str]) -> str:
    """``007-dice=5,markers_per_dino=3`` (folder-safe, at most 100 characters)."""
    text = folder.folder_name(",".join(f"{k}={v}" for k, v in values.items()), 95)
    return f"{index:03d}-{text}" if text else f"{index:03d}"


def plan_sweep(
    base: tuple[RunConfig, Setup],
    *,
    params: Sequence[str],
    design: str,
    samples: int | None,
    assignments: Sequence[str],
    rules_file: str | None,
    tables: tuple[str, ...] | None,
    metrics: Sequence[str],
    out: str,
    resume: bool,
    force: bool,
    tiers: Sequence[Tier] = (),
) -> Sweep:
    """Validate the whole sweep (every point's rules included) and decide what to do with
    ``out``; nothing is written. ``base``: the configuration without the knobs (from
    :func:`simulate.config.build_config` with the same ``assignments`` and ``rules_file``);
    ``tiers`` (from :func:`simulate.study.tiers.plan_tiers`): play every point at each."""
    config, setup = base
    game = setup.game
    axes = parse_axes(setup, params)
    values = design_points(axes, design, samples, config.seed)
    points = []
    for i, v in enumerate(values):
        check_point(game, setup, v)
        changes = [*assignments, *(f"{k}={x}" for k, x in v.items())]
        for tier in tiers or [None]:
            lineup = (tier.config if tier is not None else config).strategies
            cfg, s = build_config(
                game.name,
                n_players=config.n_players,
                strategies=",".join(lineup),
                rotate=config.rotate,
                seed=config.seed,
                games=config.games,
                chunk_size=config.chunk_size,
                assignments=changes,
                rules_file=rules_file,
                tables=tables,
            )
            points.append(Point(point_name(i, v), v, cfg, s, tier))
    settings = {
        "game": game.name,
        "players": config.n_players,
        "strategies": list(config.strategies),
        "rotate": config.rotate,
        "seed": config.seed,
        "games": config.games,
        "chunk_size": config.chunk_size,
        "rules": config.params,
        "tables": list(tables) if tables is not None else None,
        "knobs": [a.to_dict() for a in axes],
        "design": design,
        "samples": samples,
        "metrics": list(metrics),
    }
    record = {
        "tool": "dinolab sweep",
        "settings": settings,
        "current": {a.knob.key: a.knob.current_text for a in axes},
        "points": [{"name": point_name(i, v), "set": v} for i, v in enumerate(values)],
    }
    if tiers:  # only then: a sweep without tiers keeps its record (and resumes as before)
        settings["tiers"] = [t.spec for t in tiers]
        record["tiers"] = [{"name": t.name, "folder": t.folder} for t in tiers]
    mode = folder.check_folder(out, record, resume=resume, force=force)
    store = open_store(out)
    if mode == "resume":
        for p in points:  # a point folder of other settings is refused before anything runs
            child = store.child(p.folder)
            if child.exists("manifest.json"):
                check_out_dir(child, p.config, resume=True, force=False)
    return Sweep(game, axes, points, record, store, mode)


def _metrics_json(point: Point, estimates: dict[str, dict]) -> bytes:
    body: dict[str, Any] = {"point": point.values}
    if point.tier is not None:
        body["tier"] = point.tier.name
    body.update(games=point.config.games, metrics=estimates)
    return (json.dumps(body, indent=1) + "\n").encode()


def run_sweep(
    sweep: Sweep,
    executor: Executor,
    measurer: Measurer,
    progress: Progress | None = None,
    echo: Callable[[str], None] = lambda line: None,
) -> list[dict[str, Any]]:
    """Play and measure every point not done; write ``results.csv``; return the results
    (one dict per point and tier: name, tier, knob values, metrics). ``measurer``: the
    metrics of a sweep without tiers (a tier brings its own). The caller closes
    ``executor``."""
    store = sweep.store
    if sweep.mode == "replace":
        folder.clear(store, [POINTS, TIERS, RESULTS, "report.html", "report.md"])
    folder.write_record(store, sweep.record)
    by_folder = {p.folder: p for p in sweep.points}

    def measurer_of(point: Point) -> Measurer:
        return point.tier.measurer if point.tier is not None else measurer

    plans: list[RunPlan] = []
    for p in sweep.points:
        child = store.child(p.folder)
        started = child.exists("manifest.json")
        chunk = measurer_of(p).chunk
        plans.append(
            open_run(p.config, p.setup, child, resume=started, measure=chunk, tag=p.folder)
        )
    results: dict[str, dict[str, dict]] = {}
    pending: list[Future] = []

    def measure(plan: RunPlan, measured: dict[int, Any]) -> None:
        point = by_folder[plan.tag]
        if not measured and plan.store.exists(METRICS):
            results[point.folder] = json.loads(plan.store.read_bytes(METRICS))["metrics"]
            return
        estimates = measurer_of(point).point(Run(plan.store), measured)
        plan.store.write_bytes(METRICS, _metrics_json(point, estimates))
        results[point.folder] = estimates
        echo(
            f"  {point.label()}: "
            + ", ".join(f"{k} {e['value']:.4g}" for k, e in list(estimates.items())[:3])
        )

    with ThreadPoolExecutor(1, thread_name_prefix="measure") as pool:
        # measuring a point (a model fit, for some metrics) overlaps the next points' games
        def on_complete(plan: RunPlan, measured: dict[int, Any]) -> None:
            pending.append(pool.submit(measure, plan, measured))

        play_runs(plans, executor, on_complete, progress)
        for f in pending:
            f.result()
    rows = [
        {
            "point": p.name,
            **({"tier": p.tier.name} if p.tier is not None else {}),
            **p.values,
            "metrics": results[p.folder],
        }
        for p in sweep.points
    ]
    store.write_bytes(RESULTS, results_csv(sweep.axes, rows).encode())
    return rows


def results_csv(axes: Sequence[Axis], rows: Sequence[dict[str, Any]]) -> str:
    """One row per point (and tier, in a ``tier`` column after the point's name, when the
    rows have one): its knob values, then each metric's value, lower and upper bound."""
    keys = [a.knob.key for a in axes]
    names = list(rows[0]["metrics"]) if rows else []
    tier = ["tier"] if rows and "tier" in rows[0] else []
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["point", *tier, *keys, *(f"{n}{s}" for n in names for s in ("", "_lo", "_hi"))])
    for r in rows:
        cells = [r["point"], *(r[k] for k in tier), *(r[k] for k in keys)]
        for n in names:
            e = r["metrics"][n]
            cells += [repr(e["value"]), repr(e["ci"][0]), repr(e["ci"][1])]
        w.writerow(cells)
    return buf.getvalue()


def read_sweep(
    where: str | RunStore,
) -> tuple[dict[str, Any], list[tuple[str | None, dict, Run, dict]]]:
    """A sweep folder's record and, per point (at each tier, tier by tier), its tier's name
    (``None`` without tiers), its entry in the record, its run and metrics (for reports)."""
    record = folder.read_record(open_store(where))
    tiers = record.get("tiers") or [None]
    out = []
    for t in tiers:
        sub = POINTS if t is None else f"{TIERS}/{t['folder']}/{POINTS}"
        record, found = folder.read_study(where, "dinolab sweep", "a sweep", "points", sub, "name")
        out += [(None if t is None else t["name"], *item) for item in found]
    return record, out
