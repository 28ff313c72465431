"""Robustness: do the report's headline conclusions hold with stronger bots?

A report describes the game as its bots play it. The CLI plays a *companion* of the run
(``simulate.robustness``): the run's first N games again, same seed, rules, rotation and
chunking (game ``i`` starts from the same deal and dice), with the game's robust bot in every
lineup position (its ``Strength.robust``: ``tuned``, or search at a small budget). This module
only reads both runs and says, per headline conclusion, "holds with stronger bots" or "changes
with stronger bots: ..." with the figures, naming the bot by the companion's strategy label
(:func:`bot_label`).

The conclusions
---------------
- *Seats*: the first mover's win share (``first_share``; ``seat_share[0]`` when the game does
  not name a first mover) against the fair ``1/P``, and the test of equal seats (the report's
  Wald test, p < 0.05), with the largest gap between seats (``seat_gap``) as its figure.
- *The game's own claims* (its report's ``claims``, :class:`reports.metrics.Claim`): a
  metric's side of a reference (Table Battles' ``rating_spearman`` against 0, Origin of Species'
  ``carnivore_points`` against one half, EVO's ``surplus[GENE]`` and ``max_surplus`` against 0).
- *The strongest and the weakest three* items by the game's own strength measure (its
  ``ranking``, :class:`reports.metrics.Ranking`: DKD's cards by round win rate, EVO's genes by
  surplus, Table Battles' dinos by simulated value, Origin of Species' traits by card value).

Verdict rules
-------------
Every figure is a declared metric (:mod:`reports.metrics`) measured by
:mod:`reports.measure`: the run's as its report states it (all its games), the companion's on
its N games, and their difference ``companion - run`` with a 95% interval by
:func:`reports.measure.differences`: paired game by game over the N games both played for mean
metrics (common random numbers), from the two standard errors for run metrics (fitted models).

*Side of a reference* (the first mover's share, the game's claims): each estimate is *above*
the reference when its 95% interval lies above it, *below* when below, *neither* otherwise.
The conclusion *holds* when the companion's side is the run's. It *changes* when the sides
differ **and** the difference's interval excludes 0: the qualitative statement is another and
the stronger bots detectably moved the figure. Sides that differ while the difference holds 0
are read as noise and the conclusion holds (the row says so): the companion has fewer games, so
an effect the run resolves can lose its significance on them, and a dozen conclusions at 95%
would otherwise "change" by chance about every other report.

*Equal seats* (Wald test at 5%): the same rule with "seats differ" and "no detectable seat
effect" for the sides and ``seat_gap``'s difference as the figure.

*Strongest / weakest three*: an item of the run's top (bottom) three *stays* when it is in the
companion's top (bottom) three, or when its companion interval reaches the companion's third
value (the companion's games cannot place it outside). The conclusion holds when at least two
of the three stay; the items that left are named with their companion rank and figures.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from reports import common, plots
from reports.aggregate import Mapper, Partial
from reports.game import GameReport
from reports.measure import Difference, differences, features_partial, measure_run
from reports.metrics import Claim, Context, Estimate, MetricError, Ranking, Ref, expand, resolve
from reports.section import Section
from reports.source import RunData
from reports.stats import p_text

HOLDS = "holds with stronger bots"
CHANGES = "changes with stronger bots"
LEVEL = 0.05
"""The seats' Wald test's level (as the report reads it)."""
TOP = 3
"""The strongest and weakest three."""
FAILED = (MetricError, ValueError, RuntimeError, ArithmeticError, np.linalg.LinAlgError)
"""What a model fitted on the companion's fewer games may raise (the row says so)."""


@dataclasses.dataclass(frozen=True)
class Verdict:
    """One conclusion: as the run reports it, with the stronger bots (``stronger``), and
    whether it holds (``None``: not measurable); ``why`` says what changed, with the figures;
    ``plot``: the two estimates and the reference for the figure, when the conclusion is one
    number."""

    conclusion: str
    reported: str
    stronger: str
    holds: bool | None
    why: str = ""
    plot: tuple[str, Estimate, Estimate, float | None, str] | None = None
    """A panel of the figure: its title, the run's and the companion's estimates, the
    reference line and the unit."""

    @property
    def verdict(self) -> str:
        if self.holds is None:
            return f"not measurable with stronger bots: {self.why}"
        return HOLDS if self.holds else f"{CHANGES}: {self.why}"


# ------------------------------------------------------------------ formatting


def fmt(value: float, unit: str) -> str:
    """A value in its unit: a share in per cent, ``pp`` as signed win-share points."""
    if value != value:
        return "n/a"
    if "share" in unit:
        return f"{value:.2%}"
    if unit == "pp":
        return f"{value * 100:+.2f} pp"
    return f"{value:+.3f}" if unit in ("points", "rank correlation") else f"{value:.3f}"


def fmt_ci(e: Estimate, unit: str) -> str:
    return f"{fmt(e.value, unit)} [{fmt(e.lo, unit)}, {fmt(e.hi, unit)}]"


def fmt_diff(d: Difference, unit: str) -> str:
    """``companion - run`` with its interval and how it was measured."""
    scale, suffix = (100, " pp") if "share" in unit else (1, "")
    how = "paired, same games" if d.paired else "independent runs"
    return (
        f"change {d.diff * scale:+.2f}{suffix} [{d.lo * scale:+.2f}, {d.hi * scale:+.2f}] ({how})"
    )


# ------------------------------------------------------------------ the verdict rules


def side(e: Estimate, reference: float) -> int | None:
    """+1 when the 95% interval lies above ``reference``, -1 below, 0 when it holds it;
    ``None`` when not measured."""
    if not (e.lo == e.lo and e.hi == e.hi):
        return None
    return 1 if e.lo > reference else -1 if e.hi < reference else 0


def side_verdict(
    conclusion: str,
    run_side: int | None,
    stronger_side: int | None,
    words: dict[int, str],
    diff: Difference | None,
    reported: str,
    stronger: str,
    unit: str,
    plot: tuple[str, Estimate, Estimate, float | None, str] | None = None,
) -> Verdict:
    """The side rule (module docstring): ``words[s]`` says what side ``s`` means."""
    if run_side is None or stronger_side is None:
        what = "the run" if run_side is None else "the companion"
        return Verdict(conclusion, reported, stronger, None, f"{what} does not measure it", plot)
    reported = f"{words[run_side]}: {reported}"
    stronger = f"{words[stronger_side]}: {stronger}"
    if stronger_side == run_side:
        return Verdict(conclusion, reported, stronger, True, "", plot)
    if diff is not None and diff.lo <= 0 <= diff.hi:  # another side, but within noise
        held = stronger + " (the difference holds 0)"
        return Verdict(conclusion, reported, held, True, "", plot)
    why = f"{words[run_side]} becomes {words[stronger_side]} ({stronger.split(': ', 1)[1]})"
    return Verdict(conclusion, reported, stronger, False, why, plot)


def estimate_verdict(
    conclusion: str,
    a: Estimate,
    b: Estimate,
    diff: Difference | None,
    reference: float,
    words: dict[int, str],
    unit: str,
) -> Verdict:
    """The side rule on two estimates of one metric (the run's ``a``, the companion's ``b``)."""
    stronger = fmt_ci(b, unit) + (f"; {fmt_diff(diff, unit)}" if diff is not None else "")
    return side_verdict(
        conclusion,
        side(a, reference),
        side(b, reference),
        words,
        diff,
        fmt_ci(a, unit),
        stronger,
        unit,
        (conclusion.split(":")[0], a, b, reference, unit),
    )


def ranking_verdict(
    conclusion: str, a: pl.DataFrame, b: pl.DataFrame, strongest: bool, unit: str, k: int = TOP
) -> Verdict:
    """The top-three rule (module docstring) on two :class:`~reports.metrics.Ranking` tables
    (``name``, ``value``, ``lo``, ``hi``): the run's ``a`` and the companion's ``b``."""
    order = {"descending": strongest, "nulls_last": True}
    a = a.filter(pl.col("value").is_not_nan()).sort("value", **order)
    b = b.filter(pl.col("value").is_not_nan()).sort("value", **order).with_row_index("rank", 1)
    named = a.head(k)
    reported = _listing(named, unit)
    if named.height < 2 or b.height < min(k, named.height):
        why = f"{b.height} measured with stronger bots" if named.height >= 2 else "too few items"
        return Verdict(conclusion, reported, "", None, why)
    top = b.head(k)
    edge = float(top["value"][-1])
    stronger = _listing(top, unit)
    stay, left = 0, []
    for name in named["name"]:
        row = b.filter(pl.col("name") == name)
        if row.is_empty():
            left.append(f"{name} is not measured with stronger bots")
            continue
        r = row.row(0, named=True)
        reaches = r["hi"] >= edge if strongest else r["lo"] <= edge
        if r["rank"] <= k or reaches:
            stay += 1
        else:
            left.append(f"{name} is {_ordinal(r['rank'])} ({fmt_ci(_row_estimate(r), unit)})")
    need = min(k, named.height) - 1
    if stay >= need:
        return Verdict(conclusion, reported, stronger, True)
    why = f"{stay} of {named.height} stay; " + "; ".join(left)
    return Verdict(conclusion, reported, stronger, False, why)


def _listing(df: pl.DataFrame, unit: str) -> str:
    return ", ".join(f"{r['name']} {fmt(r['value'], unit)}" for r in df.iter_rows(named=True))


def _row_estimate(r: dict) -> Estimate:
    return Estimate(r["value"], float("nan"), r["lo"], r["hi"], 0)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# ------------------------------------------------------------------ the conclusions of a run


def seat_metric(run: RunData, report: GameReport | None) -> str:
    """The first mover's share if the game names one, else seat 0's (as the headline)."""
    ctx = Context.of(run, report)
    names = [r.name for r in expand(ctx, ["first_share"], strict=False)]
    return "first_share" if names else "seat_share[0]"


def refs(run: RunData, report: GameReport | None) -> list[Ref]:
    """The metrics the check measures on both runs: the seat figures, then the claims."""
    ctx = Context.of(run, report)
    out = [resolve(seat_metric(run, report), ctx), resolve("seat_gap", ctx)]
    for claim in report.claims if report is not None else ():
        out += expand(ctx, [claim.metric], strict=False)
    return out


def partial(run: RunData, report: GameReport | None) -> Partial:
    """The run's side of :func:`refs`' mean metrics, for the report's one pass."""
    return features_partial([f for r in refs(run, report) if r.metric.is_mean for f in r.features])


def conclusions(
    run: RunData, companion: RunData, report: GameReport | None, mapper: Mapper | None = None
) -> list[Verdict]:
    """Every headline conclusion of ``run`` re-measured on ``companion`` (see the module)."""
    rs = refs(run, report)
    ea = measure_run(run, rs, mapper)
    eb = _measure(companion, rs, mapper)
    diffs = differences(run, companion, rs, mapper, known=(ea, eb))
    fair = 1 / run.n_players
    first = rs[0]
    who = "the first mover" if first.name == "first_share" else "seat 0"
    out = [
        estimate_verdict(
            f"{first.name}: {who}'s win share against the fair {fair:.2%}",
            ea[first.name],
            eb[first.name],
            diffs[first.name],
            fair,
            {1: f"{who} is favoured", -1: f"{who} is at a disadvantage", 0: "fair within noise"},
            first.metric.unit,
        ),
        _seats(run, companion, ea["seat_gap"], eb["seat_gap"], diffs["seat_gap"], mapper),
    ]
    for claim in report.claims if report is not None else ():
        for r in rs:
            if r.metric.name == claim.metric:
                out.append(_claim(claim, r, ea[r.name], eb[r.name], diffs[r.name]))
    ranking = report.ranking if report is not None else None
    if ranking is not None and run.config.get("tables") is None:  # it reads every table
        out += _rankings(ranking, run, companion, mapper)
    return out


def _measure(run: RunData, rs: Sequence[Ref], mapper: Mapper | None) -> dict[str, Estimate]:
    """Every metric of ``rs`` on ``run``; a run metric whose fit fails on it is NaN."""
    mean = [r for r in rs if r.metric.is_mean]
    out = measure_run(run, mean, mapper) if mean else {}
    nan = float("nan")
    for r in rs:
        if r.metric.is_mean:
            continue
        try:
            out[r.name] = measure_run(run, [r], mapper)[r.name]
        except FAILED:
            out[r.name] = Estimate(nan, nan, nan, nan, run.games_logged)
    return {r.name: out[r.name] for r in rs}


def _claim(claim: Claim, r: Ref, a: Estimate, b: Estimate, d: Difference) -> Verdict:
    words = {
        1: claim.above.format(arg=r.arg),
        -1: claim.below.format(arg=r.arg),
        0: claim.neither.format(arg=r.arg),
    }
    return estimate_verdict(r.name, a, b, d, claim.reference, words, r.metric.unit)


def _seats(
    run: RunData,
    companion: RunData,
    gap_a: Estimate,
    gap_b: Estimate,
    d: Difference,
    mapper: Mapper | None,
) -> Verdict:
    """The test of equal seats, with the seat gap's paired difference as its figure."""
    ba, bb = common.seat_balance(run, mapper), common.seat_balance(companion, mapper)

    def state(b: dict) -> int | None:
        p = b["p_value"]
        return None if p != p else int(p < LEVEL)

    def text(b: dict, gap: Estimate) -> str:
        return (
            f"chi2 {b['chi2']:.1f}, {p_text(b['p_value'])}; largest gap "
            f"{fmt_ci(gap, 'share')} (seats {b['best_seat']} and {b['worst_seat']})"
        )

    words = {1: "seats differ", 0: "no detectable seat effect"}
    return side_verdict(
        "equal seats? (Wald test at 5%; the figure is seat_gap)",
        state(ba),
        state(bb),
        words,
        d,
        text(ba, gap_a),
        text(bb, gap_b) + f"; {fmt_diff(d, 'share')}",
        "share",
        ("seat_gap (equal seats?)", gap_a, gap_b, None, "share"),
    )


def _rankings(
    ranking: Ranking, run: RunData, companion: RunData, mapper: Mapper | None
) -> list[Verdict]:
    a = ranking.table(run, mapper)
    what = f"{ranking.items} by {ranking.measure}"
    try:
        b = ranking.table(companion, mapper)
    except FAILED as e:
        why = f"the companion's {ranking.items} could not be measured ({e})"
        return [Verdict(f"{w} three {what}", "", "", None, why) for w in ("strongest", "weakest")]
    return [
        ranking_verdict(f"strongest three {what}", a, b, True, ranking.unit),
        ranking_verdict(f"weakest three {what}", a, b, False, ranking.unit),
    ]


# ------------------------------------------------------------------ the section


def bot_label(companion: RunData) -> str:
    """The companion's bot as its manifest labels it (``tuned``, ``search[rollouts=2]``);
    several labels joined by ``/`` (a lineup of several bots), the recorded names when the
    manifest has no labels."""
    labels = list(companion.manifest.get("strategies") or {})
    if not labels:
        labels = list(dict.fromkeys(s.split("[", 1)[0] for s in companion.config["strategies"]))
    return " / ".join(labels)


def section(
    run: RunData,
    report: GameReport | None,
    companion: RunData | None,
    why_not: str = "",
    mapper: Mapper | None = None,
) -> Section:
    """The report's section "Robustness: with stronger bots": a table of the conclusions
    and their verdicts and a plot of the one-number conclusions (or why there is none)."""
    title = "Robustness: with stronger bots"
    if companion is None:
        return Section(title, f"Not measured: {why_not}.", key="robustness")
    verdicts = conclusions(run, companion, report, mapper)
    held = sum(v.holds is True for v in verdicts)
    changed = [v.conclusion.split(":")[0] for v in verdicts if v.holds is False]
    bot = bot_label(companion)
    text = (
        f"The report's headline conclusions re-measured with stronger bots ({bot} in every "
        f"seat) on the run's first {companion.games_logged:,} games (the same deals and dice; "
        f"stored in the run's robustness/ folder). A conclusion holds when its qualitative "
        f"statement is the same with the stronger bots: the same side of its reference (fair "
        f"share, 0, one half) by 95% intervals; it changes when the side differs and the "
        f"change (stronger bots minus run, 95% interval; paired game by game where the runs "
        f"share games) excludes 0. At least two of the strongest and of the weakest three must "
        f"stay among the stronger bots' three (or not distinguishable from the third). "
        f"{held} of {len(verdicts)} hold"
        + (f"; changed: {', '.join(changed)}." if changed else ".")
        + " Conclusions that change describe the bots more than the game."
    )
    table = pl.DataFrame(
        [(v.conclusion, v.reported, v.stronger, v.verdict) for v in verdicts],
        schema=["conclusion", "as reported", f"with {bot} in every seat", "verdict"],
        orient="row",
    )
    return Section(
        title,
        text,
        table,
        {c: "str" for c in table.columns},
        plot([v for v in verdicts if v.plot is not None], bot),
        key="robustness",
    )


def plot(verdicts: Sequence[Verdict], bot: str = "stronger bots") -> bytes | None:
    """Each one-number conclusion as a small panel: the run's estimate and the stronger bots'
    (``bot``, the companion's label), with 95% intervals and the reference line."""
    if not verdicts:
        return None
    cols = min(3, len(verdicts))
    rows = math.ceil(len(verdicts) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.3 * cols, 1.9 * rows), squeeze=False)
    for ax in axes.ravel()[len(verdicts) :]:
        ax.axis("off")
    for ax, v in zip(axes.ravel(), verdicts, strict=False):
        assert v.plot is not None
        label, a, b, reference, unit = v.plot
        scale = 100 if "share" in unit or unit == "pp" else 1
        for y, e, color in ((1, a, "#2b6f77"), (0, b, "#c8553d")):
            if e.value == e.value:
                lo = e.lo if e.lo == e.lo else e.value
                hi = e.hi if e.hi == e.hi else e.value
                err = [[(e.value - lo) * scale], [(hi - e.value) * scale]]
                ax.errorbar(e.value * scale, y, xerr=err, fmt="o", color=color, capsize=4)
        if reference is not None:
            ax.axvline(reference * scale, color="grey", linestyle="--", linewidth=0.8)
        ax.set_yticks([1, 0], ["as reported", bot], fontsize=8)
        ax.set_ylim(-0.6, 1.6)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_title(label, fontsize=8)
        ax.set_facecolor("#eef6ee" if v.holds else "#fbeeee" if v.holds is False else "white")
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(
        f"As reported and with stronger bots ({bot} in every seat; 95% intervals; % for shares)",
        fontsize=9,
    )
    return plots.png(fig)
