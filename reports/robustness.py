"""Robustness: do the report's headline conclusions hold with stronger bots?

A report describes the game as its bots play it. The CLI plays a *companion* of the run
(``simulate.robustness``): the run's first N games again, same seed, rules and rotation (game
``i`` starts from the same deal and dice), the run's lineup kept and each position's bot
raised to its stronger counterpart (the game's ``Strength``: ``tuned``, or search at a small
budget; the parameters the run's bot sets carried over where the stronger bot has them). This
module only reads both runs and gives each headline conclusion one of three verdicts, *holds*,
*changes* or *undecided* (with the companion games that would decide it), showing the figures
it stands on: the whole run's (as the report states it), the run's on the N games the
companion played, the companion's on them, and their difference.

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
Every figure is a declared metric (:mod:`reports.metrics`) measured by :mod:`reports.measure`
three times: on the whole run (as the report states it), on the run's first N games
(:class:`reports.measure.FirstGames`, the games the companion replayed) and on the companion.
The *change* is ``companion - run`` on those N games with a 95% interval
(:func:`reports.measure.differences`): paired game by game for mean metrics (common random
numbers), from the two fits' standard errors for run metrics (fitted models; the shared deals
correlate the fits positively, so this interval is conservative). ``t`` is the conclusion's
declared tolerance, :attr:`Metric.within <reports.metrics.Metric.within>` (one point of win
share for shares).

*Side of a reference* (the first mover's share, the game's claims): an estimate is *above* the
reference when its 95% interval lies above it, *below* when below, *neither* otherwise; the
sides compared are the whole run's (the conclusion as reported) and the companion's.

- **holds**: the change's interval lies within ``[-t, t]``: on the same games the stronger bots
  give the same figure, within what the metric calls one answer. This comes first: a side
  that differs while the figure moved less than ``t`` is the reference sitting within ``t`` of
  the figure, not another conclusion.
- **changes**: the change's interval excludes 0 and either the side differs (the qualitative
  statement is another, and the stronger bots detectably moved the figure) or the interval
  lies wholly beyond the tolerance (the side is kept but the figure is another one, e.g.
  carnivores' share of the points 70% -> 57%: more games can never make it hold).
- **undecided**: neither. The companion games that would decide it come from a power
  calculation (:func:`games_to_decide`): the standard error of the change scales as
  ``1/sqrt(n)``; with the observed change taken as the true one, the ``n`` at which a 95%
  interval would hold or change by these rules (with the observed sides) with probability
  :data:`POWER` (80%), solved with the normal distribution. It counts all the companion's
  games, not more of them, and may exceed the run's own games (a longer run would then be
  needed).

*Equal seats* (Wald test at 5%): the same rules with "seats differ" and "no detectable seat
effect" for the sides and ``seat_gap``'s change as the figure.

*Strongest / weakest three*: the companion's third value (its third strongest item's; the
third weakest's for the weakest three) is the *edge*. An item of the run's top (bottom) three
*stays* when it is in the companion's top (bottom) three, or when its companion interval lies
above ``edge - t`` (below ``edge + t``): shown to be as strong (weak) as the third within what
the ranking calls one answer. It *leaves* when its interval lies wholly below (above) the
edge, so that the companion's games place it outside, or when the companion does not measure
it while the run does on the same games; otherwise it is *unclear* (an item neither measures
on these games included). The conclusion **holds** when at least two of the three stay,
**changes** when at least two leave, and is **undecided** otherwise; the games that would
decide it are the fewest at which enough unclear items would be decided for two to stay or
two to leave, each item by the power calculation above (:func:`item_decided`, the edge taken
as known) and predicted to end on the side its value lies (stays when within ``t`` of the
edge). ``t`` is the ranking's :attr:`Ranking.within <reports.metrics.Ranking.within>`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

import numpy as np
import polars as pl
from scipy.optimize import brentq
from scipy.special import ndtr  # the normal CDF; scipy.stats takes 0.6 s to import

from reports import common, plots
from reports.aggregate import Mapper, Partial
from reports.game import GameReport
from reports.measure import Difference, FirstGames, differences, features_partial, measure_run
from reports.metrics import Claim, Context, Estimate, MetricError, Ranking, Ref, expand, resolve
from reports.section import Section
from reports.source import RunData
from reports.stats import Z95, p_text

HOLDS = "holds with stronger bots"
CHANGES = "changes with stronger bots"
UNDECIDED = "undecided"
LEVEL = 0.05
"""The seats' Wald test's level (as the report reads it)."""
TOP = 3
"""The strongest and weakest three."""
POWER = 0.8
"""The probability with which the games :func:`games_to_decide` names would decide."""
MOST_GAMES = 10**10
"""Beyond this many companion games a conclusion is called undecidable in practice."""
FAILED = (MetricError, ValueError, RuntimeError, ArithmeticError, np.linalg.LinAlgError)
"""What a model fitted on the companion's fewer games may raise (the row says so)."""

Panel = tuple[str, Estimate, Estimate, Estimate, float | None, str]
"""A panel of the figure: its title, the whole run's, the run's on the companion's games and
the companion's estimates, the reference line and the unit."""


@dataclasses.dataclass(frozen=True)
class Verdict:
    """One conclusion: the whole run's figure (``reported``, as the report states it), the
    run's on the companion's games (``same``), the companion's (``stronger``) and the change
    between the last two (``change``); its ``state`` (:data:`HOLDS`, :data:`CHANGES`,
    :data:`UNDECIDED`, ``None``: not measurable) and ``why`` (what changed, what holds, or
    what would decide); ``games``: the companion games that would decide an undecided one
    (``None``: none practical); ``plot``: its panel when the conclusion is one number."""

    conclusion: str
    reported: str
    same: str
    stronger: str
    change: str
    state: str | None
    why: str = ""
    games: int | None = None
    plot: Panel | None = None

    @property
    def verdict(self) -> str:
        if self.state is None:
            return f"not measurable with stronger bots: {self.why}"
        if self.state == HOLDS:
            return f"{HOLDS} ({self.why})" if self.why else HOLDS
        return f"{self.state}: {self.why}"


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


def _scale(unit: str) -> tuple[float, str]:
    """Differences of shares (and of ``pp``) in win-share points."""
    return (100, " pp") if "share" in unit or unit == "pp" else (1, "")


def fmt_change(d: float, lo: float, hi: float, unit: str) -> str:
    """A difference with its interval (``+0.25 pp [-8.81, +9.31]``)."""
    if d != d:
        return "n/a"
    scale, suffix = _scale(unit)
    return f"{d * scale:+.2f}{suffix} [{lo * scale:+.2f}, {hi * scale:+.2f}]"


def fmt_diff(d: Difference, unit: str) -> str:
    """``companion - run`` on the same games with its interval and how it was measured."""
    how = "paired" if d.paired else "independent fits"
    return f"{fmt_change(d.diff, d.lo, d.hi, unit)} ({how})"


def fmt_tolerance(t: float, unit: str) -> str:
    scale, suffix = _scale(unit)
    return f"±{t * scale:.2f}{suffix}" if suffix else f"±{t:g}"


def about(n: int) -> str:
    """A count to two significant digits (``about 29,000``)."""
    if n < 100:
        return f"{n:,}"
    digits = 10 ** (int(math.log10(n)) - 1)
    return f"{round(n / digits) * digits:,}"


# ------------------------------------------------------------------ the verdict rules


def side(e: Estimate, reference: float) -> int | None:
    """+1 when the 95% interval lies above ``reference``, -1 below, 0 when it holds it;
    ``None`` when not measured."""
    if not (e.lo == e.lo and e.hi == e.hi):
        return None
    return 1 if e.lo > reference else -1 if e.hi < reference else 0


def state(lo: float, hi: float, tolerance: float, sides_differ: bool) -> str | None:
    """The three-state rule (module docstring) on a change's 95% interval ``[lo, hi]``;
    ``None`` when it is not measured."""
    if not (lo == lo and hi == hi):
        return None
    if -tolerance <= lo and hi <= tolerance:
        return HOLDS
    if (lo > 0 or hi < 0) and (sides_differ or lo > tolerance or hi < -tolerance):
        return CHANGES
    return UNDECIDED


def decided(d: float, s: float, tolerance: float, sides_differ: bool) -> float:
    """The probability that a 95% interval ``D +- 1.96 s`` with ``D ~ N(d, s^2)`` is decided
    (holds or changes) by :func:`state`."""
    if s <= 0:
        return 1.0
    z = Z95
    hold = max(tolerance - z * s, 0.0)  # holds: |D| <= hold (when positive)
    cut = z * s if sides_differ else tolerance + z * s  # changes: |D| > cut
    if hold >= cut:
        return 1.0
    inside = ndtr((hold - d) / s) - ndtr((-hold - d) / s) if hold > 0 else 0.0
    beyond = ndtr((d - cut) / s) + ndtr((-cut - d) / s)
    return float(inside + beyond)


def item_decided(x: float, s: float, tolerance: float) -> float:
    """The probability that a ranked item whose distance to the companion's edge is
    ``X ~ N(x, s^2)`` (positive: inside the top three) is decided by :func:`rank_items`:
    it stays when ``X - 1.96 s >= -tolerance``, leaves when ``X + 1.96 s < 0``."""
    if s <= 0:
        return 1.0
    z = Z95
    if -z * s >= -tolerance + z * s:
        return 1.0
    return float(ndtr((x + tolerance - z * s) / s) + ndtr((-z * s - x) / s))


def games_until(probability: Callable[[float], float], se: float, games: int) -> int | None:
    """The fewest companion games ``n`` at which ``probability(s)`` reaches :data:`POWER`,
    the standard error ``se`` observed on ``games`` games scaling as ``s = se sqrt(games /
    n)`` (the root in ``log n``, scipy's brentq); ``None`` beyond :data:`MOST_GAMES`."""
    if not (se == se and se > 0 and games > 0):
        return None

    def short(log_n: float) -> float:
        return probability(se * math.sqrt(games / math.exp(log_n))) - POWER

    lo, hi = math.log(games), math.log(MOST_GAMES)
    if short(lo) >= 0:
        return games
    if short(hi) < 0:
        return None
    return math.ceil(math.exp(brentq(short, lo, hi, xtol=1e-6)))


def games_to_decide(
    d: float, se: float, games: int, tolerance: float, sides_differ: bool
) -> int | None:
    """The companion games at which a one-number conclusion would be decided with
    probability :data:`POWER` if the true change were ``d`` (observed with standard error
    ``se`` on ``games`` games): :func:`games_until` of :func:`decided`. ``None`` beyond
    :data:`MOST_GAMES` (a change that sits on the tolerance)."""
    if d != d:
        return None
    return games_until(lambda s: decided(d, s, tolerance, sides_differ), se, games)


def deciding(games: int | None, played: int, logged: int | None = None) -> str:
    """What an undecided verdict says about the games that would decide it."""
    if games is None:
        return (
            "no practical number of companion games would decide it (the change sits on the "
            "tolerance)"
        )
    rounded = about(games)
    text = f"about {rounded} companion games would decide ({played:,} played"
    if logged is not None and int(rounded.replace(",", "")) > logged:
        text += f"; more than the run's {logged:,}: a longer run"
    return text + ")"


def change_verdict(
    conclusion: str,
    diff: Difference | None,
    tolerance: float,
    sides_differ: bool,
    texts: tuple[str, str, str],
    unit: str,
    logged: int | None = None,
    changed: str = "",
    plot: Panel | None = None,
) -> Verdict:
    """The three-state rule on a change: ``texts`` are the whole run's, the same games' and
    the companion's figures; ``changed`` says what changed when the side differs."""
    if diff is None or not (diff.lo == diff.lo and diff.hi == diff.hi):
        return Verdict(conclusion, *texts, "n/a", None, "the change is not measured", plot=plot)
    change = fmt_diff(diff, unit)
    verdict = state(diff.lo, diff.hi, tolerance, sides_differ)
    tol = fmt_tolerance(tolerance, unit)
    if verdict == HOLDS:
        return Verdict(conclusion, *texts, change, HOLDS, f"change within {tol}", plot=plot)
    if verdict == CHANGES:
        if not changed:
            changed = f"the same side, but moved beyond {tol}"
        return Verdict(conclusion, *texts, change, CHANGES, f"{changed}: {change}", plot=plot)
    played = min(diff.a.games, diff.b.games)
    n = games_to_decide(diff.diff, diff.se, played, tolerance, sides_differ)
    return Verdict(conclusion, *texts, change, UNDECIDED, deciding(n, played, logged), n, plot)


def estimate_verdict(
    conclusion: str,
    whole: Estimate,
    same: Estimate,
    stronger: Estimate,
    diff: Difference | None,
    reference: float,
    words: dict[int, str],
    unit: str,
    tolerance: float,
    logged: int | None = None,
) -> Verdict:
    """The side-of-a-reference conclusion: the whole run's side (as reported) against the
    companion's, the change on the same games against ``tolerance``."""
    panel = (conclusion.split(":")[0], whole, same, stronger, reference, unit)
    sides = [side(e, reference) for e in (whole, same, stronger)]
    texts = tuple(
        (f"{words[s]}: " if s is not None else "") + fmt_ci(e, unit)
        for s, e in zip(sides, (whole, same, stronger), strict=True)
    )
    if sides[0] is None or sides[2] is None:
        what = "the run" if sides[0] is None else "the companion"
        return Verdict(conclusion, *texts, "n/a", None, f"{what} does not measure it", plot=panel)
    differ = sides[0] != sides[2]
    changed = f"{words[sides[0]]} becomes {words[sides[2]]}" if differ else ""
    return change_verdict(conclusion, diff, tolerance, differ, texts, unit, logged, changed, panel)


# ------------------------------------------------------------------ rankings


@dataclasses.dataclass(frozen=True)
class Item:
    """One of the run's named items against the companion's edge: its state (``stays``,
    ``leaves``, ``unclear``), its companion rank and figure, and the companion games that would
    decide it (unclear items)."""

    name: str
    state: str
    rank: int | None = None
    estimate: Estimate | None = None
    games: int | None = None
    stays_if_decided: bool = True


def _ranked(df: pl.DataFrame, strongest: bool) -> pl.DataFrame:
    order = {"descending": strongest, "nulls_last": True}
    return df.filter(pl.col("value").is_not_nan()).sort("value", **order).with_row_index("rank", 1)


def rank_items(
    named: Sequence[str],
    b: pl.DataFrame,
    strongest: bool,
    tolerance: float,
    games: int,
    k: int = TOP,
    same: pl.DataFrame | None = None,
) -> tuple[float, list[Item]]:
    """The companion's edge (its ``k``-th value) and each named item's state (module
    docstring), on the companion's :class:`~reports.metrics.Ranking` table ``b`` of
    ``games`` games. The weakest three are the strongest three of the negated values. An
    item the companion does not measure leaves, unless the run does not measure it on the
    same games either (``same``): then these games cannot tell (unclear)."""
    ranked = _ranked(b, strongest)
    edge = float(ranked["value"][k - 1])
    measured = set() if same is None else set(_ranked(same, strongest)["name"].to_list())
    out = []
    for name in named:
        row = ranked.filter(pl.col("name") == name)
        if row.is_empty():
            out.append(Item(name, "leaves" if name in measured else "unclear"))
            continue
        r = row.row(0, named=True)
        e = _row_estimate(r, games)
        # the distance to the edge, positive inside the top (bottom) three, and its interval
        x, lo, hi = (
            (e.value - edge, e.lo - edge, e.hi - edge)
            if strongest
            else (edge - e.value, edge - e.hi, edge - e.lo)
        )
        if r["rank"] <= k or lo >= -tolerance:
            out.append(Item(name, "stays", r["rank"], e))
        elif hi < 0:
            out.append(Item(name, "leaves", r["rank"], e))
        else:
            n = games_until(lambda s, x=x: item_decided(x, s, tolerance), e.se, games)
            out.append(Item(name, "unclear", r["rank"], e, n, x >= -tolerance))
    return edge, out


def ranking_state(items: Sequence[Item], k: int = TOP) -> tuple[str, int | None]:
    """The conclusion's state from its items' (module docstring) and, when undecided, the
    companion games that would decide it (``None``: none practical)."""
    need = min(k, len(items)) - 1
    stays = sum(i.state == "stays" for i in items)
    leaves = sum(i.state == "leaves" for i in items)
    if stays >= need:
        return HOLDS, None
    if leaves > len(items) - need:
        return CHANGES, None
    for item in sorted((i for i in items if i.state == "unclear"), key=_games_key):
        stays += item.stays_if_decided
        leaves += not item.stays_if_decided
        if stays >= need or leaves > len(items) - need:
            return UNDECIDED, item.games
    return UNDECIDED, None


def _games_key(item: Item) -> float:
    return math.inf if item.games is None else item.games


def ranking_verdict(
    conclusion: str,
    a: pl.DataFrame,
    same: pl.DataFrame | None,
    b: pl.DataFrame,
    strongest: bool,
    unit: str,
    tolerance: float,
    games: int,
    logged: int | None = None,
    k: int = TOP,
) -> Verdict:
    """The top-three rule (module docstring) on three :class:`~reports.metrics.Ranking`
    tables (``name``, ``value``, ``lo``, ``hi``): the whole run's ``a``, the run's on the
    companion's ``games`` games (``same``; ``None``: its fit failed) and the companion's ``b``."""
    named = _ranked(a, strongest).head(k)
    reported = _listing(named, unit)
    names = named["name"].to_list()
    same_text = _placed(names, same, strongest, unit) if same is not None else "n/a"
    ranked = _ranked(b, strongest)
    if len(names) < 2 or ranked.height < min(k, len(names)):
        why = f"{ranked.height} measured with stronger bots" if len(names) >= 2 else "too few items"
        return Verdict(conclusion, reported, same_text, "", "", None, why)
    edge, items = rank_items(names, b, strongest, tolerance, games, k, same)
    stronger = _placed(names, b, strongest, unit) + (
        f"; third: {fmt(edge, unit)}; top three: {', '.join(ranked.head(k)['name'])}"
    )
    change = _changes(names, same, b, unit) if same is not None else "n/a"
    verdict, n = ranking_state(items, k)
    parts = []
    for key, word in (("leaves", "leave"), ("unclear", "unclear"), ("stays", "stay")):
        chosen = [i for i in items if i.state == key]
        if chosen:
            texts = [i.name for i in chosen] if key == "stays" else []
            texts = texts or [_item_text(i, unit) for i in chosen]
            parts.append(f"{word}: {(', ' if key == 'stays' else '; ').join(texts)}")
    detail = "; ".join(parts)
    if any(i.state != "stays" or (i.rank or 0) > k for i in items):
        tol = fmt_tolerance(tolerance, unit)
        detail += f" (an item stays within {tol} of the third, {fmt(edge, unit)})"
    if verdict == UNDECIDED:
        unmeasured = [i.name for i in items if i.state == "unclear" and i.estimate is None]
        if n is None and unmeasured:
            detail = (
                f"more games would decide, how many is unknown ({', '.join(unmeasured)} not "
                f"measured on the run's first {games:,} games); {detail}"
            )
        else:
            detail = f"{deciding(n, games, logged)}; {detail}"
    return Verdict(conclusion, reported, same_text, stronger, change, verdict, detail, n)


def _listing(df: pl.DataFrame, unit: str) -> str:
    return ", ".join(f"{r['name']} {fmt(r['value'], unit)}" for r in df.iter_rows(named=True))


def _placed(names: Sequence[str], df: pl.DataFrame, strongest: bool, unit: str) -> str:
    """The named items' figures and ranks in a ranking table."""
    ranked = _ranked(df, strongest)
    out = []
    for name in names:
        row = ranked.filter(pl.col("name") == name)
        if row.is_empty():
            out.append(f"{name} n/a")
        else:
            r = row.row(0, named=True)
            out.append(f"{name} {fmt(r['value'], unit)} ({_ordinal(r['rank'])})")
    return ", ".join(out)


def _changes(names: Sequence[str], a: pl.DataFrame, b: pl.DataFrame, unit: str) -> str:
    """Each named item's change from ``a`` to ``b`` with its interval (independent fits)."""
    out = []
    for name in names:
        ra, rb = a.filter(pl.col("name") == name), b.filter(pl.col("name") == name)
        if ra.is_empty() or rb.is_empty():
            out.append(f"{name} n/a")
            continue
        x, y = (_row_estimate(r.row(0, named=True), 1) for r in (ra, rb))
        d, se = y.value - x.value, math.hypot(x.se, y.se)
        out.append(f"{name} {fmt_change(d, d - Z95 * se, d + Z95 * se, unit)}")
    return "; ".join(out) + " (independent fits)"


def _item_text(item: Item, unit: str) -> str:
    if item.estimate is None and item.state == "unclear":
        return f"{item.name} is not measured on these games (by either)"
    if item.estimate is None:
        return f"{item.name} is not measured with stronger bots"
    rank = _ordinal(item.rank) if item.rank is not None else "?"
    return f"{item.name} is {rank} ({fmt_ci(item.estimate, unit)})"


def _row_estimate(r: dict, games: int) -> Estimate:
    se = (r["hi"] - r["lo"]) / (2 * Z95)
    return Estimate(r["value"], se, r["lo"], r["hi"], int(r.get("games") or games))


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
    head = FirstGames(run, min(companion.games_logged, run.games_logged))
    ea = measure_run(run, rs, mapper)
    eh = _measure(head, rs, mapper)
    eb = _measure(companion, rs, mapper)
    diffs = differences(head, companion, rs, mapper, known=(eh, eb))
    logged = run.games_logged
    fair = 1 / run.n_players
    first = rs[0]
    who = "the first mover" if first.name == "first_share" else "seat 0"
    out = [
        estimate_verdict(
            f"{first.name}: {who}'s win share against the fair {fair:.2%}",
            ea[first.name],
            eh[first.name],
            eb[first.name],
            diffs[first.name],
            fair,
            {1: f"{who} is favoured", -1: f"{who} is at a disadvantage", 0: "fair within noise"},
            first.metric.unit,
            first.metric.within,
            logged,
        ),
        _seats(run, head, companion, rs[1], (ea, eh, eb), diffs["seat_gap"], mapper),
    ]
    for claim in report.claims if report is not None else ():
        for r in rs:
            if r.metric.name == claim.metric:
                out.append(_claim(claim, r, (ea, eh, eb), diffs[r.name], logged))
    ranking = report.ranking if report is not None else None
    if ranking is not None and run.config.get("tables") is None:  # it reads every table
        out += _rankings(ranking, run, head, companion, mapper)
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


Estimates = tuple[dict[str, Estimate], dict[str, Estimate], dict[str, Estimate]]
"""The whole run's, the run's on the companion's games and the companion's estimates."""


def _claim(claim: Claim, r: Ref, e: Estimates, d: Difference, logged: int) -> Verdict:
    words = {
        1: claim.above.format(arg=r.arg),
        -1: claim.below.format(arg=r.arg),
        0: claim.neither.format(arg=r.arg),
    }
    whole, same, stronger = (x[r.name] for x in e)
    return estimate_verdict(
        r.name,
        whole,
        same,
        stronger,
        d,
        claim.reference,
        words,
        r.metric.unit,
        r.metric.within,
        logged,
    )


def _seats(
    run: RunData,
    head: RunData,
    companion: RunData,
    gap: Ref,
    e: Estimates,
    d: Difference,
    mapper: Mapper | None,
) -> Verdict:
    """The test of equal seats, with the seat gap's paired change as its figure."""
    tests = [common.seat_balance(x, mapper) for x in (run, head, companion)]
    gaps = [x[gap.name] for x in e]

    def effect(b: dict) -> int | None:
        p = b["p_value"]
        return None if p != p else int(p < LEVEL)

    words = {1: "seats differ", 0: "no detectable seat effect"}

    def text(b: dict, g: Estimate) -> str:
        s = effect(b)
        head_ = f"{words[s]}: " if s is not None else ""
        return (
            f"{head_}chi2 {b['chi2']:.1f}, {p_text(b['p_value'])}; largest gap "
            f"{fmt_ci(g, 'share')} (seats {b['best_seat']} and {b['worst_seat']})"
        )

    conclusion = "equal seats? (Wald test at 5%; the figure is seat_gap)"
    texts = tuple(text(b, g) for b, g in zip(tests, gaps, strict=True))
    panel = ("seat_gap (equal seats?)", *gaps, None, "share")
    run_side, stronger_side = effect(tests[0]), effect(tests[2])
    if run_side is None or stronger_side is None:
        what = "the run" if run_side is None else "the companion"
        return Verdict(conclusion, *texts, "n/a", None, f"{what} does not measure it", plot=panel)
    differ = run_side != stronger_side
    changed = f"{words[run_side]} becomes {words[stronger_side]}" if differ else ""
    return change_verdict(
        conclusion, d, gap.metric.within, differ, texts, "share", run.games_logged, changed, panel
    )


def _rankings(
    ranking: Ranking, run: RunData, head: RunData, companion: RunData, mapper: Mapper | None
) -> list[Verdict]:
    a = ranking.table(run, mapper)
    what = f"{ranking.items} by {ranking.measure}"
    try:
        b = ranking.table(companion, mapper)
    except FAILED as e:
        why = f"the companion's {ranking.items} could not be measured ({e})"
        return [
            Verdict(f"{w} three {what}", "", "", "", "", None, why)
            for w in ("strongest", "weakest")
        ]
    try:
        same = ranking.table(head, mapper)
    except FAILED:
        same = None
    n = companion.games_logged
    return [
        ranking_verdict(
            f"{w} three {what}",
            a,
            same,
            b,
            w == "strongest",
            ranking.unit,
            ranking.within,
            n,
            run.games_logged,
        )
        for w in ("strongest", "weakest")
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


def _spec_items(spec: str) -> tuple[str, list[tuple[str, str]]]:
    """A recorded strategy spec's name and ``key=value`` items."""
    name, _, body = spec.partition("[")
    items = [i.partition("=") for i in body.rstrip("]").split(",") if "=" in i]
    return name.strip(), [(k.strip(), v.strip()) for k, _, v in items]


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def position_labels(run: RunData) -> list[str]:
    """Each lineup position's strategy label (as the manifest lists them), in lineup order:
    the listed label of the same bot and parameter values (and restriction, when several);
    the bare name when the manifest lists none."""
    listed = run.manifest.get("strategies") or {}
    out = []
    for spec in run.config["strategies"]:
        name, items = _spec_items(spec)
        values = [v for v in (_number(x) for _, x in items) if v is not None]
        hits = [
            label
            for label, e in listed.items()
            if e.get("name") == name and [float(x) for x in e.get("params", [])] == values
        ]
        forbid = next((f"forbid={v}" for k, v in items if k == "forbid"), None)
        if len(hits) > 1:  # the same values: tell them by their restriction
            hits = [h for h in hits if ((forbid or "forbid=") in h) == (forbid is not None)] or hits
        out.append(hits[0] if hits else name)
    return out


def lineup_words(run: RunData, companion: RunData) -> str:
    """How the companion raised the run's lineup: ``tuned in every seat`` when one bot plays
    every position and nothing of the run's bots was lost, else each distinct position's
    ``run bot -> stronger bot``, naming the parameters the run's bot set that the stronger
    one does not have (not carried)."""
    theirs = position_labels(companion)
    pairs, lost_any = [], False
    for mine, spec, label in zip(
        position_labels(run), companion.config["strategies"], theirs, strict=False
    ):
        keys = {k for k, _ in _spec_items(spec)[1]}
        lost = [f"{k}={v}" for k, v in _spec_items(mine)[1] if k not in keys]
        lost_any = lost_any or bool(lost)
        pairs.append(f"{mine} -> {label}" + (f" ({', '.join(lost)} not carried)" if lost else ""))
    if len(set(theirs)) == 1 and not lost_any:
        return f"{theirs[0]} in every seat"
    return ", ".join(dict.fromkeys(pairs))


def section(
    run: RunData,
    report: GameReport | None,
    companion: RunData | None,
    why_not: str = "",
    mapper: Mapper | None = None,
    verdicts: Sequence[Verdict] | None = None,
) -> Section:
    """The report's section "Robustness: with stronger bots": a table of the conclusions
    with their figures and verdicts, and a plot of the one-number conclusions (or why there
    is none); ``verdicts``: :func:`conclusions`, when the caller has them already."""
    title = "Robustness: with stronger bots"
    if companion is None:
        return Section(title, f"Not measured: {why_not}.", key="robustness")
    if verdicts is None:
        verdicts = conclusions(run, companion, report, mapper)
    counts = {s: sum(v.state == s for v in verdicts) for s in (HOLDS, CHANGES, UNDECIDED)}
    changed = [v.conclusion.split(":")[0] for v in verdicts if v.state == CHANGES]
    n = companion.games_logged
    bot = bot_label(companion)
    text = (
        f"The report's headline conclusions re-measured with stronger bots on the run's first "
        f"{n:,} games (the same deals and dice; stored in the run's robustness/ folder), the "
        f"run's lineup kept and each seat's bot raised to its stronger counterpart "
        f"({lineup_words(run, companion)}). Each row shows the whole run's "
        f"figure (as the report states it), the run's own figure on those {n:,} games, the "
        f"stronger bots' on the same games, and the change (stronger bots minus run on the same "
        f"games, 95% interval; paired game by game for mean metrics). A conclusion holds when "
        f"the change's interval lies within the metric's declared tolerance; it changes when "
        f"the interval excludes 0 and the side of its reference (fair share, 0, one half) "
        f"differs or the interval lies beyond the tolerance; otherwise it is undecided, with "
        f"the companion games that would decide it (80% power, the observed change taken as "
        f"the true one). Of the strongest and of the weakest three, two must stay within the "
        f"tolerance of the stronger bots' third (two leaving: changes). "
        f"{counts[HOLDS]} of {len(verdicts)} hold, {counts[CHANGES]} change, "
        f"{counts[UNDECIDED]} undecided"
        + (f"; changed: {', '.join(changed)}." if changed else ".")
        + " Conclusions that change describe the bots more than the game."
    )
    table = pl.DataFrame(
        [(v.conclusion, v.reported, v.same, v.stronger, v.change, v.verdict) for v in verdicts],
        schema=[
            "conclusion",
            f"whole run ({run.games_logged:,} games)",
            f"run, first {n:,} games",
            f"stronger bots, same {n:,} games",
            "change (stronger bots - run, same games)",
            "verdict",
        ],
        orient="row",
    )
    return Section(
        title,
        text,
        table,
        {c: "str" for c in table.columns},
        plot([v for v in verdicts if v.plot is not None], bot, n),
        key="robustness",
    )


COLORS = {HOLDS: "#eef6ee", CHANGES: "#fbeeee", UNDECIDED: "#fdf6e3"}
SHORT = {HOLDS: "holds", CHANGES: "changes", UNDECIDED: "undecided"}


def plot(verdicts: Sequence[Verdict], bot: str = "stronger bots", games: int = 0) -> bytes | None:
    """Each one-number conclusion as a small panel: the whole run's estimate, the run's on the
    companion's games and the stronger bots' (``bot``, the companion's label) on them, with
    95% intervals and the reference line; the panel's colour is its verdict."""
    if not verdicts:
        return None
    cols = min(3, len(verdicts))
    rows = math.ceil(len(verdicts) / cols)
    fig, axes = plots.subplots(rows, cols, figsize=(3.6 * cols, 2.1 * rows), squeeze=False)
    for ax in axes.ravel()[len(verdicts) :]:
        ax.axis("off")
    same = f"run, first {games:,}" if games else "run, same games"
    for ax, v in zip(axes.ravel(), verdicts, strict=False):
        assert v.plot is not None
        label, whole, first, stronger, reference, unit = v.plot
        scale = 100 if "share" in unit or unit == "pp" else 1
        shown = ((2, whole, "#8a8a8a"), (1, first, "#2b6f77"), (0, stronger, "#c8553d"))
        for y, e, color in shown:
            if e.value == e.value:
                lo = e.lo if e.lo == e.lo else e.value
                hi = e.hi if e.hi == e.hi else e.value
                err = [[(e.value - lo) * scale], [(hi - e.value) * scale]]
                ax.errorbar(e.value * scale, y, xerr=err, fmt="o", color=color, capsize=4)
        if reference is not None:
            ax.axvline(reference * scale, color="grey", linestyle="--", linewidth=0.8)
        ax.set_yticks([2, 1, 0], ["whole run", same, bot], fontsize=7)
        ax.set_ylim(-0.6, 2.6)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_title(f"{label}: {SHORT.get(v.state or '', 'not measurable')}", fontsize=8)
        ax.set_facecolor(COLORS.get(v.state or "", "white"))
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(
        f"With stronger bots ({bot}) on the run's first games (95% intervals; % for shares)",
        fontsize=9,
    )
    return plots.png(fig)
