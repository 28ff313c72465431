"""The report of a search: the recommendation against the current rules, the minimal changes,
the one-step deviations, the finalists on fresh seeds and how the search converged.

Everything here reads what the search wrote (``search.json``, ``recommendation.json``) and the
final runs it played on fresh seeds; the recommendation's metrics are compared with the current
rules' game by game on those runs (:func:`reports.measure.differences`). A search at several
strength tiers confirmed its finalists at each: the comparison and the finalists are shown per
tier, and the finalists the cheap tier preferred that a stronger tier set back are named.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from reports import study_plots
from reports.aggregate import Mapper
from reports.measure import differences, measure_run
from reports.metrics import Estimate, Ref
from reports.section import Section
from reports.source import RunData
from reports.sweep import ci, tier_names


def _ci(d: Mapping[str, Any]) -> str:
    """``value [lo, hi]`` of a JSON estimate, as :func:`reports.sweep.ci` writes one."""
    return ci(Estimate(d["value"], d.get("se", 0.0), d["ci"][0], d["ci"][1], 0))


def change_words(values: Mapping[str, str], current: Mapping[str, str]) -> str:
    """``dice 6 -> 5 and markers_per_dino 3 -> 4`` (or ``no change``)."""
    parts = [f"{k} {current[k]} -> {v}" for k, v in values.items() if v != current[k]]
    if not parts:
        return "no change"
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


def _metric_move(first: Mapping[str, Any], second: Mapping[str, Any], names: Sequence[str]) -> str:
    return "; ".join(
        f"{n} from {_ci(first['metrics'][n])} to {_ci(second['metrics'][n])}" for n in names
    )


def search_sections(
    record: Mapping[str, Any],
    summary: Mapping[str, Any],
    recommendation: Mapping[str, Any],
    pairs: Sequence[tuple[str | None, RunData, RunData]],
    refs: Sequence[Ref],
    target_names: Sequence[str],
    scale_text: str,
    mapper: Mapper | None = None,
) -> list[Section]:
    """Every section of a search's report. ``pairs``: at each tier (``None``: a search
    without tiers), the current rules' and the recommendation's runs on the fresh seed."""
    constrained = any(op in recommendation["target"] for op in "<>")
    analysis = summary["analysis"]
    return [
        _recommendation(
            record, summary, recommendation, pairs, refs, target_names, scale_text, mapper
        ),
        _minimal(analysis["minimal_changes"], record["current"], target_names, constrained),
        _deviations(analysis["deviations"], constrained),
        _finalists(record, summary),
        _convergence(summary["trials"], record, _stopped(summary)),
    ]


def _chosen(summary: Mapping[str, Any]) -> Mapping[str, Any]:
    """The recommended finalist."""
    return next(f for f in summary["finals"] if f["name"] == summary["recommendation"])


def _answer(
    record: Mapping[str, Any],
    summary: Mapping[str, Any],
    recommendation: Mapping[str, Any],
    target_names: Sequence[str],
) -> str:
    """The recommendation in words: what to change and what that moves, whether it meets
    the constraints, and (with tiers) the finalists a stronger tier set back."""
    current = record["current"]
    tiers = tier_names(record)
    at = f" at {tiers[0]}" if tiers else ""
    rec = _chosen(summary)
    base = summary["finals"][0]
    words = change_words(rec["values"], current)
    if words == "no change":
        text = (
            "Keep the current rules: no configuration found was nearer the target on fresh "
            f"seeds (distance {_ci(base['score']['distance'])})."
        )
    else:
        moves = _metric_move(base["score"], rec["score"], target_names)
        text = (
            f"Change {words}: on fresh seeds{at} this moves {moves} "
            f"(distance from the target {_ci(base['score']['distance'])} -> "
            f"{_ci(rec['score']['distance'])}, paired change {_ci(rec['vs_current'])})."
        )
    if not recommendation["meets_constraints"]:
        text += " It does not meet every constraint" + (" at every tier." if tiers else ".")
    if tiers:
        text += (
            f" The search played {tiers[0]}; the finalists were confirmed at every tier "
            f"({', '.join(tiers)}), and the recommendation meets the constraints at each and "
            "is nearest the target at its worst tier."
        )
        for p in recommendation.get("passed_over", []):
            setting = change_words({**current, **p["params"]}, current)
            text += f" Not recommended: {setting}, as {p['why']}."
    return text


def _recommendation(
    record: Mapping[str, Any],
    summary: Mapping[str, Any],
    recommendation: Mapping[str, Any],
    pairs: Sequence[tuple[str | None, RunData, RunData]],
    refs: Sequence[Ref],
    target_names: Sequence[str],
    scale_text: str,
    mapper: Mapper | None,
) -> Section:
    """The answer in words, the games spent, and every metric under the current rules and
    the recommendation."""
    answer = _answer(record, summary, recommendation, target_names)
    games = summary["games"]
    comparison = _comparison(pairs, refs, mapper)
    return Section(
        "Recommendation",
        f"Target: {recommendation['target']} ({scale_text}). {answer} The search spent "
        f"{games['total']:,} games: {games['search']:,} on the search's seed blocks and "
        f"{games['final']:,} re-measuring the finalists and the current rules on a seed "
        "the search never played.",
        comparison,
        {c: "str" for c in comparison.columns},
        key="recommendation",
    )


def _finalists(record: Mapping[str, Any], summary: Mapping[str, Any]) -> Section:
    """Every finalist (at each tier) against the current rules on the fresh seed."""
    current = record["current"]
    tiers = tier_names(record)
    rec = _chosen(summary)
    rows = [
        {
            "run": v["folder"],
            **({"tier": v["tier"]} if tiers else {}),
            "setting": change_words(f["values"], current),
            "distance": _ci(v["score"]["distance"]),
            "vs current rules": _ci(v["vs_current"]),
            "meets constraints": "yes" if v["score"]["feasible"] else "no",
            "chosen": "yes" if f["name"] == rec["name"] else "",
        }
        for f in summary["finals"]
        for v in f.get("tiers", [f])
    ]
    return Section(
        "Finalists on fresh seeds",
        f"The current rules and the best configurations of the search, each played on the "
        f"same {record['settings']['final_games']:,} games of a seed the search never "
        "played, compared with the current rules game by game. The recommendation is the "
        + (
            "finalist meeting the constraints at every tier that is nearest the target at "
            "its worst tier. "
            if tiers
            else "nearest of them that meets the constraints. "
        )
        + "Each is a run folder (dinolab report, verify and replay work on it).",
        pl.DataFrame(rows),
        {c: "str" for c in rows[0]},
        key="finalists",
    )


def _stopped(summary: Mapping[str, Any]) -> str:
    """Why the search stopped, and the one-step moves it then tried from the best."""
    stopped = summary.get("stopped", "")
    if summary.get("polish"):
        stopped += "; then one-step moves from the best: " + ", ".join(summary["polish"])
    return stopped


def _comparison(
    pairs: Sequence[tuple[str | None, RunData, RunData]],
    refs: Sequence[Ref],
    mapper: Mapper | None,
):
    """Every metric under the current rules and the recommendation, paired (at each tier)."""
    rows = []
    for tier, a, b in pairs:
        known = measure_run(a, refs, mapper), measure_run(b, refs, mapper)
        for name, d in differences(a, b, refs, mapper, known).items():
            rows.append(
                {
                    **({"tier": tier} if tier is not None else {}),
                    "metric": name,
                    "current rules": ci(d.a),
                    "recommended": ci(d.b),
                    "change": f"{d.diff:+.4f} [{d.lo:+.4f}, {d.hi:+.4f}]"
                    + ("" if d.paired else " (independent)"),
                }
            )
    return pl.DataFrame(rows)


def _feasibility(score: Mapping[str, Any], constrained: bool) -> dict[str, str]:
    """A 'meets constraints' cell where the target has constraints."""
    if not constrained:
        return {}
    return {"meets constraints": "yes" if score["feasible"] else "no"}


def _minimal(
    levels: Sequence[Mapping[str, Any]], current, names: Sequence[str], constrained: bool
) -> Section:
    measured = [lv for lv in levels if lv.get("measured")]
    rows, words = [], []
    zero = next((lv for lv in measured if lv["changes"] == 0), None)
    for lv in measured:
        sc = lv["score"]
        rows.append(
            {
                "changes": str(lv["changes"]),
                "setting": change_words(lv["values"], current),
                "distance (search blocks)": _ci(sc["distance"]),
                "vs recommendation": _ci(lv["vs_recommendation"]),
                **{n: _ci(sc["metrics"][n]) for n in names},
                **_feasibility(sc, constrained),
            }
        )
        if zero is not None and lv["changes"] > 0:
            count = {1: "one thing", 2: "two things", 3: "three things"}.get(
                lv["changes"], f"{lv['changes']} things"
            )
            words.append(
                f"change {count}: {change_words(lv['values'], current)} moves "
                f"{_metric_move(zero['score'], sc, names)}"
            )
    text = (
        "The best configuration found changing 1, 2, ... knobs from the current rules (fewest "
        "changes first), among every configuration evaluated on the search's seed blocks (the "
        "recommendation's changes with some reverted among them), meeting the constraints where "
        "one does. These figures are the search's own, not re-measured on fresh seeds (only the "
        "finalists were): a setting nearer the target here than the recommendation is within "
        "the noise that picked it, or was not a finalist. 'vs recommendation' is the paired "
        "change of the distance (negative: nearer the target than the recommendation). "
        + ("; ".join(words) + "." if words else "")
    )
    fig = None
    if measured:
        fig = study_plots.forest(
            [r["changes"] + ": " + r["setting"][:40] for r in rows],
            [lv["score"]["distance"]["value"] for lv in measured],
            [lv["score"]["distance"]["ci"][0] for lv in measured],
            [lv["score"]["distance"]["ci"][1] for lv in measured],
            xlabel="distance from the target (search blocks)",
            title="Target distance against the number of changes",
        )
    return Section(
        "Minimal changes",
        text,
        pl.DataFrame(rows) if rows else None,
        {c: "str" for c in (rows[0] if rows else {})},
        fig,
        key="minimal",
    )


def _deviations(devs: Sequence[Mapping[str, Any]], constrained: bool) -> Section:
    measured = [d for d in devs if d.get("measured")]
    rows = [
        {
            "deviation": d["label"],
            "distance": _ci(d["score"]["distance"]),
            "vs recommendation": _ci(d["vs_recommendation"]),
            "worse": "yes" if d["vs_recommendation"]["ci"][0] > 0 else "no",
            "blocks": str(d["blocks"]) + (" (raced out)" if d["raced_out"] else ""),
            **_feasibility(d["score"], constrained),
        }
        for d in measured
    ]
    flat = [r for r in rows if r["worse"] == "no"]
    text = (
        "Each knob moved one step from the recommendation, the others held, on the search's "
        "seed blocks, paired with the recommendation. A deviation whose interval of the change "
        "includes 0 is as good within the noise: the recommendation sits on a plateau along "
        f"that knob. {len(flat)} of {len(rows)} deviations are not clearly worse."
        + (
            f" {len(devs) - len(measured)} were not measured (budget)."
            if len(measured) < len(devs)
            else ""
        )
    )
    fig = None
    if measured:
        fig = study_plots.forest(
            [d["label"] for d in measured],
            [d["vs_recommendation"]["value"] for d in measured],
            [d["vs_recommendation"]["ci"][0] for d in measured],
            [d["vs_recommendation"]["ci"][1] for d in measured],
            xlabel="change of the distance (positive: further from the target)",
            title="One-step deviations from the recommendation",
        )
    return Section(
        "One-step deviations",
        text,
        pl.DataFrame(rows) if rows else None,
        {c: "str" for c in (rows[0] if rows else {})},
        fig,
        key="deviations",
    )


def _convergence(
    trials: Sequence[Mapping[str, Any]], record: Mapping[str, Any], stopped: str
) -> Section:
    s = record["settings"]
    df = pl.DataFrame(
        [
            {
                "games": t["games_spent"],
                "distance": t["best_distance"],
                "lo": t["best_lo"],
                "hi": t["best_hi"],
                "trial_distance": t["distance"],
            }
            for t in trials
            if t["best_distance"] is not None
        ]
    )
    raced = sum(t["raced_out"] for t in trials)
    text = (
        f"{len(trials)} trials proposed by Optuna's TPE sampler over "
        f"{', '.join(k['key'] for k in s['knobs'])}; each played seed blocks of "
        f"{s['block']:,} games (the same blocks for every trial: common random numbers) up to "
        f"{s['blocks']} blocks, racing the best so far: {raced} stopped early as clearly worse. "
        "The line is the best fully played configuration's distance with its 95% band, "
        "against the games spent; dots are each trial's estimate."
    )
    if stopped:
        text += f" The search stopped: {stopped}."
    repeats = sum(t["repeat"] for t in trials)
    if repeats:
        text += (
            f" The sampler proposed a setting already played {repeats} times (no games spent; "
            "left out of the table)."
        )
    fig = study_plots.best_so_far(df) if df.height else None
    table = pl.DataFrame(
        [
            {
                "trial": str(t["trial"]),
                "setting": ", ".join(f"{k}={v}" for k, v in t["values"].items()),
                "distance": f"{t['distance']:.3f} [{t['lo']:.3f}, {t['hi']:.3f}]",
                "blocks": str(t["blocks"]) + (" raced out" if t["raced_out"] else ""),
                "games spent": f"{t['games_spent']:,}",
            }
            for t in trials
            if not t["repeat"]
        ]
    )
    return Section(
        "Convergence", text, table, {c: "str" for c in table.columns}, fig, key="convergence"
    )
