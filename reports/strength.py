"""A strength curve: each metric at each tier of bot strength, on the same deals, and whether it
has stopped moving.

The tiers of a strength study (``dinolab strength``) played the same games (same seed, rules
and players; one bot in every seat), so the change of a mean metric from one tier to the next
is paired game by game (:func:`reports.measure.step_differences`) and its interval is far narrower
than the two tiers' own. Run metrics (a fitted model's) are compared with independent
intervals, and say so.

The verdict of a metric reads the step between the two strongest tiers against the metric's
tolerance (:attr:`reports.metrics.Metric.within`):

* **settled**: the step's 95% interval lies within plus or minus the tolerance: a stronger bot
  changed the answer by less than a designer would notice, so the strongest tier's value is
  the answer (for bots of about this strength);
* **moving**: otherwise, with its direction when the interval excludes 0 (up, down), and in
  words "not settled: needs more games" when the interval holds 0 but is wider than the
  tolerance (with the games per tier below which no interval fits the tolerance, from the
  step's standard error).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from reports import robustness
from reports.aggregate import Mapper
from reports.measure import Difference, step_differences
from reports.metrics import Estimate, Ref
from reports.plots import ACCENT, COLOR, png, subplots
from reports.section import Section
from reports.source import RunData

MAX_FIGURES = 16
"""Most metric plots in one report (the others are in the tables and strength.json)."""


@dataclasses.dataclass(frozen=True)
class TierMeasured:
    """One finished tier: its name (a strategy spec), run and measured metrics."""

    name: str
    run: RunData
    estimates: Mapping[str, Estimate]


@dataclasses.dataclass(frozen=True)
class Verdict:
    """What the two strongest tiers say about a metric (see the module docstring)."""

    state: str
    """``settled`` or ``moving``."""
    direction: str | None
    """``up`` or ``down`` when the step's interval excludes 0; ``None`` otherwise."""
    words: str
    games_needed: int | None = None
    """About how many games per tier would decide, when more games would."""


@dataclasses.dataclass(frozen=True)
class MetricCurve:
    """One metric along the tiers: its estimate at each, the step from the tier below (``None``
    for the weakest) and the verdict."""

    ref: Ref
    estimates: list[Estimate]
    steps: list[Difference | None]
    verdict: Verdict

    @property
    def answer(self) -> Estimate:
        """The strongest tier's value."""
        return self.estimates[-1]

    @property
    def tolerance(self) -> float:
        return self.ref.metric.within


@dataclasses.dataclass(frozen=True)
class Rating:
    """A tier's strength on the Elo scale (:func:`reports.ratings.rate`), with its 95% interval."""

    elo: float
    lo: float
    hi: float
    games: int


@dataclasses.dataclass(frozen=True)
class Curve:
    """A strength study measured: the tiers (weakest first), every metric's curve and, when
    the study played its rating games, each tier's rating."""

    tiers: list[TierMeasured]
    metrics: dict[str, MetricCurve]
    ratings: dict[str, Rating] | None = None

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tiers]


# ------------------------------------------------------------------ numbers in words


def _digits(width: float) -> int:
    return 4 if not width >= 0.01 else 3 if width < 1 else 2


def ci(e: Estimate) -> str:
    """``value [lo, hi]`` in a precision that suits the interval."""
    d = _digits(abs(e.hi - e.lo))
    return f"{e.value:.{d}f} [{e.lo:.{d}f}, {e.hi:.{d}f}]"


def change(d: Difference) -> str:
    """``+diff [lo, hi]`` in a precision that suits the interval."""
    n = _digits(abs(d.hi - d.lo))
    return f"{d.diff:+.{n}f} [{d.lo:+.{n}f}, {d.hi:+.{n}f}]"


def _round_up(n: float) -> int:
    """``n`` rounded up to two significant digits."""
    scale = 10 ** max(0, int(math.log10(max(n, 1))) - 1)
    return int(math.ceil(n / scale) * scale)


def games_to_decide(step: Difference, tolerance: float, games: int) -> int | None:
    """About how many games per tier would settle or move a step measured on ``games`` games
    with 80% power, were the step where it is now: the robustness check's power calculation
    (:func:`reports.robustness.games_to_decide`, the step's sides not compared). ``None``
    when no practical number would (a step on the tolerance itself) or it has no standard
    error."""
    need = robustness.games_to_decide(step.diff, step.se, games, tolerance, sides_differ=False)
    return _round_up(need) if need else None


def judge(step: Difference, tolerance: float, lower: str, upper: str, answer: Estimate) -> Verdict:
    """The verdict from the step between the two strongest tiers ``lower`` -> ``upper``."""
    games = min(step.a.games, step.b.games)
    tol = f"±{tolerance:g}"
    value = f"{upper} gives {ci(answer)}"
    if -tolerance <= step.lo and step.hi <= tolerance:
        return Verdict(
            "settled",
            None,
            f"settled: {lower} -> {upper} changes it by {change(step)}, within {tol}; {value}",
        )
    need = games_to_decide(step, tolerance, games)
    if step.lo > 0 or step.hi < 0:
        way = "up" if step.lo > 0 else "down"
        if step.lo > tolerance or step.hi < -tolerance:
            text = (
                f"moving {way}: {lower} -> {upper} changes it by {change(step)}, beyond {tol}; "
                f"{value}, and a stronger tier may move it further"
            )
        else:
            more = f" (about {need:,} games per tier would tell)" if need else ""
            text = (
                f"moving {way}: {lower} -> {upper} changes it by {change(step)}, which may "
                f"exceed {tol}: not settled: needs more games{more}; {value}"
            )
        return Verdict("moving", way, text, need)
    more = f" (about {need:,} games per tier would tell)" if need else ""
    text = (
        f"moving? not settled: needs more games{more}: {lower} -> {upper} changes it by "
        f"{change(step)}, an interval wider than {tol}; {value}"
    )
    return Verdict("moving", None, text, need)


# ------------------------------------------------------------------ the curve


def rate_tiers(
    runs: Sequence[RunData], labels: Mapping[str, str], mapper: Mapper | None = None
) -> dict[str, Rating] | None:
    """Each tier's rating from the games of neighbouring tiers against each other (``labels``:
    tier name -> its bot's label in those runs); ``None`` without such games."""
    from reports.ratings import rate

    if not runs:
        return None
    table = {row["strategy"]: row for row in rate(runs, mapper).iter_rows(named=True)}
    missing = [name for name, label in labels.items() if label not in table]
    if missing:
        raise ValueError(f"the rating games do not rate tier(s) {', '.join(missing)}")
    return {
        name: Rating(table[label]["elo"], table[label]["elo_lo"], table[label]["elo_hi"],
                     table[label]["games"])
        for name, label in labels.items()
    }  # fmt: skip


def measure_curve(
    tiers: Sequence[TierMeasured],
    refs: Sequence[Ref],
    mapper: Mapper | None = None,
    ratings: dict[str, Rating] | None = None,
) -> Curve:
    """Every metric of ``refs`` along the tiers (weakest first): each step paired game by
    game with the tier below (:func:`~reports.measure.step_differences`, over the games
    both played), and the verdict from the top step."""
    if len(tiers) < 2:
        raise ValueError("a strength curve needs at least two tiers")
    pairs = list(itertools.pairwise(tiers))
    known = [
        ({r.name: a.estimates[r.name] for r in refs}, {r.name: b.estimates[r.name] for r in refs})
        for a, b in pairs
    ]
    steps = step_differences([(a.run, b.run) for a, b in pairs], refs, mapper, known)
    out = {}
    for r in refs:
        estimates = [t.estimates[r.name] for t in tiers]
        mine: list[Difference | None] = [None, *(s[r.name] for s in steps)]
        top = mine[-1]
        assert top is not None
        verdict = judge(top, r.metric.within, tiers[-2].name, tiers[-1].name, estimates[-1])
        out[r.name] = MetricCurve(r, estimates, mine, verdict)
    return Curve(list(tiers), out, ratings)


def _num(x: float) -> float | None:
    return float(x) if x == x and math.isfinite(x) else None


def to_json(curve: Curve, game: str, settings: Mapping[str, Any] | None = None) -> dict:
    """``strength.json``: the game, the tiers (weakest first) and per metric each tier's
    value, 95% interval, games and step from the tier below, the verdict and the answer (the
    strongest tier's value)."""
    metrics = {}
    for name, mc in curve.metrics.items():
        tiers = {}
        for t, e, step in zip(curve.tiers, mc.estimates, mc.steps, strict=True):
            entry: dict[str, Any] = {
                "value": _num(e.value),
                "low": _num(e.lo),
                "high": _num(e.hi),
                "games": e.games,
            }
            if step is not None:
                entry["change"] = {
                    "value": _num(step.diff),
                    "low": _num(step.lo),
                    "high": _num(step.hi),
                    "paired": step.paired,
                }
            tiers[t.name] = entry
        metrics[name] = {
            "tiers": tiers,
            "verdict": mc.verdict.state,
            "direction": mc.verdict.direction,
            "tolerance": mc.tolerance,
            "answer": _num(mc.answer.value),
            "words": mc.verdict.words,
        }
    body: dict[str, Any] = {"game": game, "tiers": curve.names, "metrics": metrics}
    if curve.ratings is not None:
        body["ratings"] = {
            name: {"elo": _num(r.elo), "low": _num(r.lo), "high": _num(r.hi), "games": r.games}
            for name, r in curve.ratings.items()
        }
    if settings is not None:
        body["settings"] = dict(settings)
    return body


def summary_lines(curve: Curve) -> list[str]:
    """The curve as the command prints it: per metric each tier with its value and step from
    the tier below, then the verdict."""
    width = max(12, *(len(n) for n in curve.names))
    out = []
    for name, mc in curve.metrics.items():
        out.append(f"{name} ({mc.ref.metric.unit}; tolerance ±{mc.tolerance:g}):")
        for t, e, step in zip(curve.tiers, mc.estimates, mc.steps, strict=True):
            line = f"  {t.name:<{width}} {e.games:>9,}  {ci(e):<28}"
            if step is not None:
                kind = "paired" if step.paired else "independent"
                line += f"  {change(step)} from the tier below ({kind})"
            out.append(line.rstrip())
        out.append(f"  => {mc.verdict.words}")
    if curve.ratings is not None:
        out.append("tier ratings (Elo, 95% interval, from neighbouring tiers' games):")
        for name, r in curve.ratings.items():
            out.append(f"  {name:<{width}} {r.elo:+7.0f}  [{r.lo:+.0f}, {r.hi:+.0f}]")
    return out


# ------------------------------------------------------------------ plot and report


def rating_words(ratings: Mapping[str, Rating], settings: Mapping[str, Any]) -> str:
    """``'heuristic +0 [-12, +12], strong +140 [...]; 2,000 games of each pair'``."""
    each = ", ".join(f"{n} {r.elo:+.0f} [{r.lo:+.0f}, {r.hi:+.0f}]" for n, r in ratings.items())
    return f"{each}; {settings.get('rating_games', 0):,} games of each neighbouring pair"


def tier_plot(curve: Curve, metric: str) -> bytes:
    """The metric at each tier with 95% bars, and the band of the strongest tier's value plus
    or minus the tolerance; the tiers at their ratings (Elo) when the study has them, else in
    order, weakest on the left."""
    mc = curve.metrics[metric]
    names = curve.names
    rated = curve.ratings
    x = np.array([rated[n].elo for n in names]) if rated else np.arange(len(names))
    y = np.array([e.value for e in mc.estimates], dtype=float)
    lo = np.array([e.lo for e in mc.estimates], dtype=float)
    hi = np.array([e.hi for e in mc.estimates], dtype=float)
    fig, ax = subplots(figsize=(6, 3.4))
    tol = mc.tolerance
    if math.isfinite(y[-1]):
        ax.axhspan(y[-1] - tol, y[-1] + tol, color=ACCENT, alpha=0.12, label=f"strongest ± {tol:g}")
    ax.errorbar(x, y, yerr=[y - lo, hi - y], fmt="o-", color=COLOR, ecolor="black", capsize=3, ms=4)
    if rated:
        for xi, yi, name in zip(x, y, names, strict=True):
            ax.annotate(name, (xi, yi), textcoords="offset points", xytext=(4, 6), fontsize=7)
        ax.set_xlabel("tier strength (Elo from the neighbouring tiers' games)")
        ax.margins(x=0.1)
    else:
        ax.set_xticks(x, names, rotation=20 if len(names) > 3 else 0, fontsize=8)
        ax.set_xlabel("tier (weakest first)")
    ax.set_ylabel(f"{metric} ({mc.ref.metric.unit})")
    way = f" ({mc.verdict.direction})" if mc.verdict.direction else ""
    ax.set_title(f"{metric}: {mc.verdict.state}{way}", fontsize=10)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    return png(fig)


def sections(curve: Curve, settings: Mapping[str, Any]) -> list[Section]:
    """Every section of a strength curve's report."""
    first = curve.tiers[0].run
    games = ", ".join(f"{t.name} {t.run.games_logged:,}" for t in curve.tiers)
    sizing = (
        f"{settings['games']:,} per tier"
        if settings.get("games")
        else f"until every 95% interval is at most ±{settings['precision']:g} ({games})"
    )
    overview = pl.DataFrame(
        [
            ("game", f"{first.title}, {settings['players']} players"),
            ("tiers (weakest first)", ", ".join(curve.names)),
            ("games", sizing),
            (
                "seed",
                f"{settings['seed']}: every tier plays the same deals, one bot in every seat, "
                "so the steps between tiers are paired game by game",
            ),
            ("metrics", ", ".join(curve.metrics)),
            *(
                [("tier ratings (Elo, 95%)", rating_words(curve.ratings, settings))]
                if curve.ratings
                else []
            ),
        ],
        schema=["setting", "value"],
        orient="row",
    )
    out = [
        Section(
            "Strength curve at a glance",
            "A balance figure describes the game as its bots play it. Each tier below plays the "
            "same games with a stronger bot in every seat; a metric is settled when the step "
            "between the two strongest tiers lies within the metric's tolerance (95% interval), "
            "and moving otherwise. Each tier is a run folder under tiers/ (dinolab report, "
            "verify and replay work on it); strength.json holds every number.",
            overview,
            {"setting": "str", "value": "str"},
            key="strength",
        )
    ]
    rows = []
    for name, mc in curve.metrics.items():
        top = mc.steps[-1]
        assert top is not None
        rows.append(
            {
                "metric": name,
                "verdict": mc.verdict.state
                + (f" ({mc.verdict.direction})" if mc.verdict.direction else ""),
                "answer (strongest tier)": ci(mc.answer),
                "top step": change(top),
                "tolerance": f"±{mc.tolerance:g}",
            }
        )
    table = pl.DataFrame(rows)
    out.append(
        Section(
            "Verdicts",
            "Each metric's answer at the strongest tier and the step to it from the tier below "
            "(95% intervals). Settled: the step lies within the tolerance; moving: it does not "
            "(up or down when the step excludes 0; else more games would decide, as each "
            "metric's section says).",
            table,
            {c: "str" for c in table.columns},
            key="verdicts",
        )
    )
    for i, (name, mc) in enumerate(curve.metrics.items()):
        rows = []
        for t, e, step in zip(curve.tiers, mc.estimates, mc.steps, strict=True):
            rows.append(
                {
                    "tier": t.name,
                    "games": f"{e.games:,}",
                    "value [95%]": ci(e),
                    "change from the tier below": change(step) if step is not None else "",
                    "test": ("paired" if step.paired else "independent") if step else "",
                }
            )
        table = pl.DataFrame(rows)
        out.append(
            Section(
                f"{name} along the tiers",
                f"{mc.ref.metric.meaning} ({mc.ref.metric.unit}; tolerance ±{mc.tolerance:g}). "
                f"{mc.verdict.words[0].upper()}{mc.verdict.words[1:]}.",
                table,
                {c: "str" for c in table.columns},
                figure=tier_plot(curve, name) if i < MAX_FIGURES else None,
                key=f"metric-{name}",
            )
        )
    return out


class _Header:
    """The strongest tier's run as the report's header sees it, its bots named as the tiers."""

    def __init__(self, run: RunData, tiers: Sequence[str]):
        self._run = run
        self.manifest = run.manifest
        self.config = {
            **run.config,
            "strategies": [f"one per tier in every seat, weakest first: {', '.join(tiers)}"],
            "rotate": False,
        }

    def __getattr__(self, name: str) -> Any:
        return getattr(self._run, name)


def render(curve: Curve, settings: Mapping[str, Any], config: str) -> tuple[str, str]:
    """The report's HTML page and Markdown (``config``: the configuration line)."""
    from reports.build import render_html, render_markdown

    found = sections(curve, settings)
    run = _Header(curve.tiers[-1].run, curve.names)
    title = f"Strength curve of {run.title}: {len(curve.tiers)} tiers"
    html = render_html(run, found, title, config)
    md = render_markdown(run, found, title, config).replace(
        "Plots are in report.html.", "Plots are in strength.html."
    )
    return html, md
