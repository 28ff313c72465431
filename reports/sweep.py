"""The report of a sweep: every metric against every knob, paired steps, the points on target.

A sweep's points played the same seed, so two points differ only by their rules: the
difference of a mean metric between neighbouring points is paired game by game
(:func:`reports.measure.step_differences`), with an interval far narrower than the two points'
own. Run metrics (a fitted model's) are compared with independent intervals, and say so.

A sweep at several strength tiers played every point at each tier on the same games: each
point's metrics are shown per tier, the step from one tier to the next is paired like a knob's
step, and a point meets a target only when it meets it at every tier.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import polars as pl

from reports import study_plots
from reports.aggregate import Mapper
from reports.measure import step_differences
from reports.metrics import Estimate, Ref
from reports.section import Plot, Section, draw_figures
from reports.source import RunData
from reports.targets import BoundTarget

HEADLINE = ("balance", "seat_gap", "first_share", "length", "capped", "shared")
"""Metrics shown first, and compared between neighbouring points when there is no target."""
MAX_FIGURES = 16
"""Most metric plots in one report (the others are in the points table and results.csv)."""
POINT_METRICS = 6
"""Metrics shown in the points table (every one is in results.csv)."""
HEATMAP_METRICS = 4
"""Most metrics drawn as heatmaps, for a grid over two knobs."""
STEP_METRICS = 3
"""Metrics compared between neighbouring points when there is no target nor headline one."""


@dataclasses.dataclass(frozen=True)
class SweepPoint:
    """One finished point: its folder name, knob values, run and measured metrics."""

    name: str
    values: dict[str, str]
    run: RunData
    metrics: dict[str, Estimate]
    tier: str | None = None
    """The tier it was played at (``None``: a sweep without tiers)."""

    @property
    def label(self) -> str:
        return self.name if self.tier is None else f"{self.name} at {self.tier}"


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


def _tier(p: SweepPoint) -> dict[str, str]:
    """A point's ``tier`` cell, where the sweep has tiers."""
    return {} if p.tier is None else {"tier": p.tier}


def frame(points: Sequence[SweepPoint], knobs: Sequence[str], metric: str) -> pl.DataFrame:
    """One row per point (and tier, in a ``tier`` column): its knob values (text) and the
    metric's value, lo and hi."""
    rows = []
    for p in points:
        e = p.metrics[metric]
        rows.append(
            {
                **{k: p.values[k] for k in knobs},
                **_tier(p),
                "value": e.value,
                "lo": e.lo,
                "hi": e.hi,
            }
        )
    tiered = {"tier": pl.String} if points and points[0].tier is not None else {}
    return pl.DataFrame(
        rows,
        schema={
            **dict.fromkeys(knobs, pl.String),
            **tiered,
            "value": pl.Float64,
            "lo": pl.Float64,
            "hi": pl.Float64,
        },
    )


def neighbours(
    points: Sequence[SweepPoint], knobs: Sequence[str], steps: dict[str, list[str]]
) -> list[tuple[str, SweepPoint, SweepPoint]]:
    """Pairs of points that differ in one knob only, by one step of its values (at the same
    tier), then each point's step from one tier to the next (knob ``tier``)."""
    index = {(p.tier, *(p.values[k] for k in knobs)): p for p in points}
    out = []
    for p in points:
        for j, k in enumerate(knobs):
            values = steps[k]
            i = values.index(p.values[k])
            if i + 1 < len(values):
                key = [p.values[x] for x in knobs]
                key[j] = values[i + 1]
                q = index.get((p.tier, *key))
                if q is not None:
                    out.append((k, p, q))
    tiers = list(dict.fromkeys(p.tier for p in points))
    for weaker, stronger in itertools.pairwise(tiers):
        for p in points:
            q = index.get((stronger, *(p.values[k] for k in knobs)))
            if p.tier == weaker and q is not None:
                out.append(("tier", p, q))
    return out


def tier_names(record: Mapping[str, Any]) -> list[str]:
    """A study's strength tiers, cheapest first (none for a study without tiers)."""
    return [t["name"] for t in record.get("tiers") or []]


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
    draw: Mapper | None = None,
) -> list[Section]:
    """Every section of a sweep's report. ``draw``: a worker pool's map to draw the figures on,
    while this process measures the paired steps (else both here, one after the other)."""
    settings = record["settings"]
    knobs = [k["key"] for k in settings["knobs"]]
    names = ordered([r.name for r in refs], target)
    tiers = tier_names(record)
    steps = {k: knob_values([p.values[k] for p in points]) for k in knobs}
    sections = [
        overview_section(record, points, knobs, steps, names),
        points_section(points, knobs, names, bool(tiers)),
        *metric_sections(points, knobs, refs, names, target, bool(tiers)),
    ]
    if len(knobs) == 2 and settings["design"] == "grid":
        sections += heatmap_sections(points, knobs, names, target, tiers)

    def later() -> list[Section]:
        out = [steps_section(points, knobs, steps, refs, names, target, mapper)]
        return out + ([target_section(points, knobs, target)] if target is not None else [])

    if draw is None:
        return draw_figures(sections) + later()
    with ThreadPoolExecutor(1) as waiter:  # the workers draw while this process measures
        drawn = waiter.submit(draw_figures, sections, draw)
        rest = later()
        return drawn.result() + rest


def overview_section(
    record: dict[str, Any],
    points: Sequence[SweepPoint],
    knobs: Sequence[str],
    steps: dict[str, list[str]],
    names: Sequence[str],
) -> Section:
    """What the sweep played: the game, bots or tiers, points, games, seed, knobs, metrics."""
    settings = record["settings"]
    tiers = tier_names(record)
    lineup = ", ".join(settings["strategies"]) + (" (rotated)" if settings["rotate"] else "")
    bots = (
        ("tiers", f"{', '.join(tiers)}: each tier's bot in every seat, the same games at each")
        if tiers
        else ("bots", lineup)
    )
    overview = pl.DataFrame(
        [
            ("game", f"{points[0].run.title}, {settings['players']} players"),
            bots,
            ("points", f"{len(record['points'])} ({settings['design']})"),
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
    return Section(
        "Sweep at a glance",
        "A sweep plays the same games at every point, changing only the knobs below. Each "
        "point is a run folder under "
        + ("tiers/<i>-<tier>/points/ at each tier" if tiers else "points/")
        + " (dinolab report, verify and replay work on it); results.csv holds every "
        "point's metrics with their 95% intervals.",
        overview,
        {"setting": "str", "value": "str"},
        key="sweep",
    )


def points_section(
    points: Sequence[SweepPoint], knobs: Sequence[str], names: Sequence[str], tiered: bool
) -> Section:
    """Each point's knob values and its first :data:`POINT_METRICS` metrics."""
    table = pl.DataFrame(
        [
            {
                "point": p.name,
                **_tier(p),
                **{k: p.values[k] for k in knobs},
                **{m: ci(p.metrics[m]) for m in names[:POINT_METRICS]},
            }
            for p in points
        ]
    )
    return Section(
        "Points",
        "Each point's knob values and its first metrics, value [95% interval]"
        + (", at each tier." if tiered else "."),
        table,
        {c: "str" for c in table.columns},
        key="points",
    )


def metric_sections(
    points: Sequence[SweepPoint],
    knobs: Sequence[str],
    refs: Sequence[Ref],
    names: Sequence[str],
    target: BoundTarget | None,
    tiered: bool,
) -> list[Section]:
    """One plot per metric (the first :data:`MAX_FIGURES`) against the knobs, with the
    points where it is highest and lowest."""
    sections = []
    for m in names[:MAX_FIGURES]:
        ref = next(r for r in refs if r.name == m)
        best = max(points, key=lambda p: p.metrics[m].value)
        worst = min(points, key=lambda p: p.metrics[m].value)
        sections.append(
            Section(
                f"{m} against the knobs",
                f"{ref.metric.meaning} ({ref.metric.unit}). Highest at {best.label}: "
                f"{ci(best.metrics[m])}; lowest at {worst.label}: {ci(worst.metrics[m])}.",
                figure=Plot(
                    study_plots.metric_by_knobs,
                    (frame(points, knobs, m), knobs, m),
                    {
                        "reference": _target_value(target, m),
                        "series": ("tier",) if tiered else (),
                    },
                ),
                key=f"metric-{m}",
            )
        )
    return sections


def heatmap_sections(
    points: Sequence[SweepPoint],
    knobs: Sequence[str],
    names: Sequence[str],
    target: BoundTarget | None,
    tiers: Sequence[str],
) -> list[Section]:
    """A heatmap over two knobs for each of the first :data:`HEATMAP_METRICS` metrics (at
    each tier)."""
    sections = []
    for m, tier in ((m, t) for m in names[:HEATMAP_METRICS] for t in tiers or [None]):
        at = [p for p in points if p.tier == tier]
        reference = _target_value(target, m)
        sections.append(
            Section(
                f"{m} over {knobs[0]} and {knobs[1]}" + (f" at {tier}" if tier else ""),
                "One cell per point"
                + (" (colour: distance from the target)" if reference is not None else "")
                + ".",
                figure=Plot(
                    study_plots.heatmap,
                    (frame(at, knobs, m), knobs[0], knobs[1], m),
                    {"reference": reference},
                ),
                key=f"heatmap-{m}" + (f"-{tiers.index(tier)}" if tier else ""),
            )
        )
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
    compared = compared or list(names[:STEP_METRICS])
    chosen = [r for r in refs if r.name in compared]
    rows = []
    pairs = list(neighbours(points, knobs, steps))
    known = [
        ({r.name: a.metrics[r.name] for r in chosen}, {r.name: b.metrics[r.name] for r in chosen})
        for _, a, b in pairs
    ]
    measured = step_differences([(a.run, b.run) for _, a, b in pairs], chosen, mapper, known)
    for (knob, a, b), diffs in zip(pairs, measured, strict=True):
        held = [f"{k}={a.values[k]}" for k in knobs if k != knob]
        if knob == "tier":
            step = f"{a.tier} -> {b.tier}"
        else:
            step = f"{a.values[knob]} -> {b.values[knob]}"
            held += [f"tier={a.tier}"] if a.tier is not None else []
        others = ", ".join(held)
        for name, d in diffs.items():
            rows.append(
                {
                    "knob": knob,
                    "step": step,
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
        "two points' own intervals (independent)."
        + (
            " Rows of knob 'tier' hold a point's rules and raise its bots to the next tier, "
            "on the same games."
            if any(p.tier is not None for p in points)
            else ""
        ),
        table,
        {c: "str" for c in (table.columns if table is not None else [])},
        key="steps",
    )


def target_section(
    points: Sequence[SweepPoint], knobs: Sequence[str], target: BoundTarget
) -> Section:
    """Every point's distance from the target, nearest first, and which meet it (at every
    tier, when the sweep has tiers: its distance is then its largest over the tiers)."""
    tiers = list(dict.fromkeys(p.tier for p in points))
    lowest = {
        t: {n: min(p.metrics[n].value for p in points if p.tier == t) for n in target.names}
        for t in tiers
    }
    by_name: dict[str, list[SweepPoint]] = {}
    for p in points:
        by_name.setdefault(p.name, []).append(p)
    rows = []
    for name, at in by_name.items():
        meets, distance, violation, shown = {}, 0.0, -math.inf, {}
        for p in at:
            values = {n: p.metrics[n].value for n in target.names}
            distance = max(distance, target.distance(values))
            violation = max(violation, max(target.violations(values), default=0.0))
            est = {n: p.metrics[n] for n in target.names}
            meets[p.tier] = "yes" if target.meets(est, lowest[p.tier]) else "no"
            suffix = "" if p.tier is None else f" at {p.tier}"
            shown.update({f"{n}{suffix}": ci(p.metrics[n]) for n in target.names})
        each = {} if tiers == [None] else {f"meets at {t}": meets[t] for t in tiers}
        rows.append(
            {
                "point": name,
                **{k: at[0].values[k] for k in knobs},
                "distance": distance,
                "violation": violation,
                "meets": "yes" if all(m == "yes" for m in meets.values()) else "no",
                **each,
                **shown,
            }
        )
    df = (
        pl.DataFrame(rows)
        .with_columns(_miss=pl.col("meets") != "yes")
        .sort("_miss", "distance", "violation")
        .drop("_miss", "violation")
    )
    meeting = df.filter(pl.col("meets") == "yes")
    every = " at every tier" if tiers != [None] else ""
    text = (
        f"Target: {target.target.describe()}. {target.describe_scale()}. A point meets the "
        "target when each value term's 95% interval holds its value, a minimised metric's reaches "
        "down to the lowest of the points, and each constraint holds"
        + (
            f", at every tier ({', '.join(map(str, tiers))}); its distance is its largest over "
            "the tiers. "
            if every
            else ". "
        )
        + (
            f"{meeting.height} of {df.height} points meet it{every}; nearest: {df['point'][0]}."
            if meeting.height
            else f"No point meets it{every}; nearest: {df['point'][0]} "
            f"(distance {df['distance'][0]:.3f})."
        )
    )
    if every:
        cheap_only = df.filter(
            (pl.col(f"meets at {tiers[0]}") == "yes") & (pl.col("meets") != "yes")
        )
        if cheap_only.height:
            text += (
                f" Meeting it at {tiers[0]} but not at every tier (so not meeting it): "
                f"{', '.join(cheap_only['point'].head(5))}."
            )
    cols = {c: "str" for c in df.columns}
    cols["distance"] = "float"
    return Section("Points against the target", text, df, cols, key="target")
