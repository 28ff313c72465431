"""The report of a sweep: every metric against every knob, paired steps, the points on target.

A sweep's points played the same seed, so two points differ only by their rules: the
difference of a mean metric between neighbouring points is paired game by game
(:func:`reports.measure.differences`), with an interval far narrower than the two points'
own. Run metrics (a fitted model's) are compared with independent intervals, and say so.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import polars as pl

from reports import study_plots
from reports.aggregate import Mapper
from reports.measure import differences
from reports.metrics import Estimate, Ref
from reports.section import Section
from reports.source import RunData
from reports.targets import BoundTarget

HEADLINE = ("balance", "seat_gap", "first_share", "length", "capped", "shared")
"""Metrics shown first, and compared between neighbouring points when there is no target."""
MAX_FIGURES = 16
"""Most metric plots in one report (the others are in the points table and results.csv)."""


@dataclasses.dataclass(frozen=True)
class SweepPoint:
    """One finished point: its folder name, knob values, run and measured metrics."""

    name: str
    values: dict[str, str]
    run: RunData
    metrics: dict[str, Estimate]


def ci(e: Estimate) -> str:
    """``value [lo, hi]`` in a precision that suits the interval."""
    width = abs(e.hi - e.lo)
    digits = 4 if width < 0.01 else 3 if width < 1 else 2
    return f"{e.value:.{digits}f} [{e.lo:.{digits}f}, {e.hi:.{digits}f}]"


def ordered(names: Sequence[str], target: BoundTarget | None) -> list[str]:
    """The metrics in report order: the target's, the headline ones, the rest."""
    first = target.names if target is not None else []
    head = [n for n in HEADLINE if n in names]
    return list(dict.fromkeys([*first, *head, *names]))


def frame(points: Sequence[SweepPoint], knobs: Sequence[str], metric: str) -> pl.DataFrame:
    """One row per point: its knob values (text) and the metric's value, lo and hi."""
    rows = []
    for p in points:
        e = p.metrics[metric]
        rows.append({**{k: p.values[k] for k in knobs}, "value": e.value, "lo": e.lo, "hi": e.hi})
    return pl.DataFrame(
        rows,
        schema={
            **dict.fromkeys(knobs, pl.String),
            "value": pl.Float64,
            "lo": pl.Float64,
            "hi": pl.Float64,
        },
    )


def neighbours(
    points: Sequence[SweepPoint], knobs: Sequence[str], steps: dict[str, list[str]]
) -> list[tuple[str, SweepPoint, SweepPoint]]:
    """Pairs of points that differ in one knob only, by one step of its values."""
    index = {tuple(p.values[k] for k in knobs): p for p in points}
    out = []
    for p in points:
        for j, k in enumerate(knobs):
            values = steps[k]
            i = values.index(p.values[k])
            if i + 1 < len(values):
                key = [p.values[x] for x in knobs]
                key[j] = values[i + 1]
                q = index.get(tuple(key))
                if q is not None:
                    out.append((k, p, q))
    return out


def _target_value(target: BoundTarget | None, metric: str) -> float | None:
    if target is None:
        return None
    for t, r in zip(target.target.terms, target.refs, strict=True):
        if r.name == metric and t.op == "=":
            return t.value
    return None


def sweep_sections(
    record: dict[str, Any],
    points: Sequence[SweepPoint],
    refs: Sequence[Ref],
    target: BoundTarget | None = None,
    mapper: Mapper | None = None,
) -> list[Section]:
    """Every section of a sweep's report."""
    settings = record["settings"]
    knobs = [k["key"] for k in settings["knobs"]]
    names = ordered([r.name for r in refs], target)
    first = points[0].run
    lineup = ", ".join(settings["strategies"]) + (" (rotated)" if settings["rotate"] else "")
    steps = {k: knob_values([p.values[k] for p in points]) for k in knobs}
    overview = pl.DataFrame(
        [
            ("game", f"{first.title}, {settings['players']} players"),
            ("bots", lineup),
            ("points", f"{len(points)} ({settings['design']})"),
            ("games per point", f"{settings['games']:,}"),
            (
                "seed",
                f"{settings['seed']}: every point plays the same games, so differences "
                "between points are paired",
            ),
            *(
                (f"knob {k}", f"{', '.join(steps[k])} (current rules: {record['current'][k]})")
                for k in knobs
            ),
            ("metrics", ", ".join(names)),
        ],
        schema=["setting", "value"],
        orient="row",
    )
    sections = [
        Section(
            "Sweep at a glance",
            "A sweep plays the same games at every point, changing only the knobs below. Each "
            "point is a run folder under points/ (dinolab report, verify and replay work on "
            "it); results.csv holds every point's metrics with their 95% intervals.",
            overview,
            {"setting": "str", "value": "str"},
            key="sweep",
        )
    ]
    shown = names[:6]
    table = pl.DataFrame(
        [
            {
                "point": p.name,
                **{k: p.values[k] for k in knobs},
                **{m: ci(p.metrics[m]) for m in shown},
            }
            for p in points
        ]
    )
    sections.append(
        Section(
            "Points",
            "Each point's knob values and its first metrics, value [95% interval].",
            table,
            {c: "str" for c in table.columns},
            key="points",
        )
    )
    for m in names[:MAX_FIGURES]:
        df = frame(points, knobs, m)
        ref = next(r for r in refs if r.name == m)
        best = max(points, key=lambda p: p.metrics[m].value)
        worst = min(points, key=lambda p: p.metrics[m].value)
        sections.append(
            Section(
                f"{m} against the knobs",
                f"{ref.metric.meaning} ({ref.metric.unit}). Highest at {best.name}: "
                f"{ci(best.metrics[m])}; lowest at {worst.name}: {ci(worst.metrics[m])}.",
                figure=study_plots.metric_by_knobs(
                    df, knobs, m, reference=_target_value(target, m)
                ),
                key=f"metric-{m}",
            )
        )
    if len(knobs) == 2 and settings["design"] == "grid":
        for m in names[:4]:
            sections.append(
                Section(
                    f"{m} over {knobs[0]} and {knobs[1]}",
                    "One cell per point"
                    + (
                        " (colour: distance from the target)"
                        if _target_value(target, m) is not None
                        else ""
                    )
                    + ".",
                    figure=study_plots.heatmap(
                        frame(points, knobs, m),
                        knobs[0],
                        knobs[1],
                        m,
                        reference=_target_value(target, m),
                    ),
                    key=f"heatmap-{m}",
                )
            )
    sections.append(steps_section(points, knobs, steps, refs, names, target, mapper))
    if target is not None:
        sections.append(target_section(points, knobs, target))
    return sections


def knob_values(values: Sequence[str]) -> list[str]:
    """A knob's values in order: numerically if they are numbers, else as first met (the
    order the sweep gave them)."""
    unique = list(dict.fromkeys(values))
    try:
        return sorted(unique, key=float)
    except ValueError:
        return unique


def steps_section(
    points: Sequence[SweepPoint],
    knobs: Sequence[str],
    steps: dict[str, list[str]],
    refs: Sequence[Ref],
    names: Sequence[str],
    target: BoundTarget | None,
    mapper: Mapper | None,
) -> Section:
    """Paired differences between neighbouring points, for the target's (or the headline)
    metrics."""
    compared = target.names if target is not None else [n for n in HEADLINE if n in names]
    compared = compared or list(names[:3])
    chosen = [r for r in refs if r.name in compared]
    rows = []
    for knob, a, b in neighbours(points, knobs, steps):
        known = (
            {r.name: a.metrics[r.name] for r in chosen},
            {r.name: b.metrics[r.name] for r in chosen},
        )
        diffs = differences(a.run, b.run, chosen, mapper, known)
        others = ", ".join(f"{k}={a.values[k]}" for k in knobs if k != knob)
        for name, d in diffs.items():
            rows.append(
                {
                    "knob": knob,
                    "step": f"{a.values[knob]} -> {b.values[knob]}",
                    "others": others,
                    "metric": name,
                    "change": f"{d.diff:+.4f} [{d.lo:+.4f}, {d.hi:+.4f}]",
                    "clear": "yes" if d.lo > 0 or d.hi < 0 else "no",
                    "test": "paired" if d.paired else "independent",
                }
            )
    table = pl.DataFrame(rows) if rows else None
    return Section(
        "Paired steps between neighbouring points",
        "Each row moves one knob by one step with the others held, on the same games: the "
        "change of the metric with its 95% interval ('clear': the interval excludes 0). Paired "
        "intervals use the covariance of the two points' games; a model-based metric's use the "
        "two points' own intervals (independent).",
        table,
        {c: "str" for c in (table.columns if table is not None else [])},
        key="steps",
    )


def target_section(
    points: Sequence[SweepPoint], knobs: Sequence[str], target: BoundTarget
) -> Section:
    """Every point's distance from the target, nearest first, and which meet it."""
    lowest = {n: min(p.metrics[n].value for p in points) for n in target.names}
    rows = []
    for p in points:
        values = {n: p.metrics[n].value for n in target.names}
        rows.append(
            {
                "point": p.name,
                **{k: p.values[k] for k in knobs},
                "distance": target.distance(values),
                "violation": max(target.violations(values), default=0.0),
                "meets": "yes"
                if target.meets({n: p.metrics[n] for n in target.names}, lowest)
                else "no",
                **{n: ci(p.metrics[n]) for n in target.names},
            }
        )
    df = (
        pl.DataFrame(rows)
        .with_columns(_miss=pl.col("meets") != "yes")
        .sort("_miss", "distance", "violation")
        .drop("_miss", "violation")
    )
    meeting = df.filter(pl.col("meets") == "yes")
    text = (
        f"Target: {target.target.describe()}. {target.describe_scale()}. A point meets the "
        "target when each value term's 95% interval holds its value, a minimised metric's reaches "
        "down to the lowest of the points, and each constraint holds. "
        + (
            f"{meeting.height} of {df.height} points meet it; nearest: {df['point'][0]}."
            if meeting.height
            else f"No point meets it; nearest: {df['point'][0]} (distance {df['distance'][0]:.3f})."
        )
    )
    cols = {c: "str" for c in df.columns}
    cols["distance"] = "float"
    return Section("Points against the target", text, df, cols, key="target")
