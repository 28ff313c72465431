"""What the study commands share: the metrics' view of a configuration, targets, and the
reports of study folders (``dinolab report DIR`` on a sweep, a search or a strength curve)."""

from __future__ import annotations

import json
from typing import Any

from rules.core.errors import DinolabError
from simulate.cli.common import game_report

HEADLINE = ("balance", "seat_gap", "first_share", "length", "capped", "shared")
"""Metrics a search's report shows beside its target's, and a strength curve follows when none
are named."""


def metric_context(setup, tables: tuple[str, ...] | None):
    """The metrics' view of a configuration before it is played (its lineup's labels, the
    columns of the tables it will log, the game's report)."""
    from reports.metrics import Context

    game = setup.game
    logged = [t for t in game.logged_tables if tables is None or t.name in tables]
    columns = {t.name: tuple(c.name for c in t.columns) for t in logged}
    labels = tuple(dict.fromkeys(setup.labels))
    return Context(game.name, setup.n_players, labels, columns, game_report(game))


def choose_metrics(ctx, metrics: str | None):
    """``--metrics`` resolved (families by their bare name), or every metric the configuration
    can measure; one line for an unknown one."""
    from reports.metrics import MetricError, expand, split_names

    try:
        return expand(ctx, split_names(metrics) if metrics else None)
    except MetricError as exc:
        raise DinolabError(str(exc)) from None


def tier_metrics(setup, tables: tuple[str, ...] | None) -> str:
    """The metrics a study at several tiers measures by default: every one the tables allow
    that names no bot (each tier's bot plays every seat, so ``strategy_share[NAME]`` would
    differ from tier to tier and say nothing)."""
    import dataclasses

    ctx = dataclasses.replace(metric_context(setup, tables), labels=())
    return ",".join(r.name for r in choose_metrics(ctx, None))


def parse_target(text: str, ctx):
    """``--target`` parsed and its metrics resolved; one line when it cannot be."""
    from reports.metrics import MetricError
    from reports.targets import Target

    try:
        return Target.parse(text).bind(ctx)
    except MetricError as exc:
        raise DinolabError(str(exc)) from None


def write_study_report(
    where: str, target: str | None, mapper=None, echo=lambda line: None, draw=None
) -> tuple[str, str]:
    """The report of a study folder (a sweep or a search), written into it; returns where.
    With a ``target``, ``echo`` gets the points meeting it; ``draw``: the study's warm worker
    pool's map, to draw a sweep's figures on (:meth:`simulate.executors.Executor.map`)."""
    from reports.metrics import Context, Estimate, MetricError, expand
    from reports.sweep import SweepPoint, sweep_sections
    from simulate.games import get_game
    from simulate.storage import open_store
    from simulate.study import folder
    from simulate.study.sweep import read_sweep

    store = open_store(where)
    record = folder.read_record(store)
    if record["tool"] == "dinolab strength":
        _, files = write_strength_outputs(where, mapper)
        return files[1], files[2]
    if record["tool"] != "dinolab sweep":
        return write_search_report(where, mapper)
    record, found = read_sweep(store)
    first = found[0][2]
    ctx = Context.of(first, game_report(get_game(record["settings"]["game"])))
    try:
        refs = expand(ctx, record["settings"]["metrics"])
        bound = parse_target(target, ctx) if target else None
    except MetricError as exc:
        raise DinolabError(str(exc)) from None
    points = [
        SweepPoint(p["name"], p["set"], run, {k: Estimate.from_dict(v) for k, v in m.items()}, t)
        for t, p, run, m in found
    ]
    sections = sweep_sections(record, points, refs, bound, mapper, draw)
    for section in sections:
        if section.key == "target" and section.table is not None:
            echo(section.text)
            for row in (
                section.table.filter(section.table["meets"] == "yes").head(10).iter_rows(named=True)
            ):
                echo(f"  meets: {row['point']} (distance {row['distance']:.3f})")
    knobs = ", ".join(k["key"] for k in record["settings"]["knobs"])
    tiers = record.get("tiers")
    at = f" at {len(tiers)} tiers" if tiers else ""
    title = f"Sweep of {first.title} over {knobs}: {len(record['points'])} points{at}"
    return _write(store, first, sections, title, record)


def _write(store, run, sections, title: str, record: dict) -> tuple[str, str]:
    """A study's report.html and report.md in its folder (the header describes the study)."""
    from reports.build import render_html, render_markdown

    line = study_config_line(record)
    store.write_bytes("report.html", render_html(run, sections, title, line).encode())
    store.write_bytes("report.md", render_markdown(run, sections, title, line).encode())
    root = str(store.local or store.url).rstrip("/")
    return f"{root}/report.html", f"{root}/report.md"


def study_config_line(record: dict) -> str:
    """The configuration line of a study's report: its seed and the rules it fixed (those
    differing from the game's defaults)."""
    from simulate.games import get_game

    s = record["settings"]
    defaults = get_game(s["game"]).parameters().to_dict()
    fixed = [
        f"{k}={v}"
        for k, v in s["rules"].items()
        if defaults.get(k) != v and k not in record["current"]
    ]
    knobs = ", ".join(f"{k} (now {v})" for k, v in record["current"].items())
    return f"seed {s['seed']}; knobs: {knobs}; other rules: " + (
        ", ".join(fixed) if fixed else "the game's defaults"
    )


def write_search_report(where: str, mapper=None) -> tuple[str, str]:
    """The report of a search folder, written into it; returns where."""
    from reports.metrics import Context, MetricError, expand
    from reports.search import search_sections
    from reports.targets import Target
    from simulate.games import get_game
    from simulate.rundir import Run
    from simulate.storage import open_store
    from simulate.study import folder
    from simulate.study.search import RECOMMENDATION, SUMMARY

    store = open_store(where)
    record = folder.read_record(store)
    if not store.exists(SUMMARY) or not store.exists(RECOMMENDATION):
        raise DinolabError(
            f"{store} holds an unfinished search; run the same dinolab search with --resume"
        )
    summary = json.loads(store.read_bytes(SUMMARY))
    recommendation = json.loads(store.read_bytes(RECOMMENDATION))
    finals = {f["name"]: f for f in summary["finals"]}
    base, rec = summary["finals"][0], finals[summary["recommendation"]]
    pairs = [  # the current rules and the recommendation at each tier
        (a.get("tier"), Run(store.child(a["folder"])), Run(store.child(b["folder"])))
        for a, b in zip(base.get("tiers", [base]), rec.get("tiers", [rec]), strict=True)
    ]
    current_run = pairs[0][1]
    ctx = Context.of(current_run, game_report(get_game(record["settings"]["game"])))
    try:
        bound = Target.parse(record["settings"]["target"]).bind(ctx)
        names = list(dict.fromkeys([*bound.names, *(n for n in HEADLINE)]))
        refs = expand(ctx, [n for n in names if _measurable(n, ctx)])
    except MetricError as exc:
        raise DinolabError(str(exc)) from None
    refs = sorted(refs, key=lambda r: names.index(r.name) if r.name in names else len(names))
    sections = search_sections(
        record,
        summary,
        recommendation,
        pairs,
        refs,
        bound.names,
        bound.describe_scale(),
        mapper,
    )
    knobs = ", ".join(k["key"] for k in record["settings"]["knobs"])
    title = f"Search of {current_run.title} over {knobs} for {record['settings']['target']}"
    return _write(store, current_run, sections, title, record)


def _measurable(name: str, ctx) -> bool:
    from reports.metrics import MetricError, resolve

    try:
        resolve(name, ctx)
    except MetricError:
        return False
    return True


def _strength_config_line(settings: dict) -> str:
    from simulate.games import get_game

    defaults = get_game(settings["game"]).parameters().to_dict()
    changed = [f"{k}={v}" for k, v in settings["rules"].items() if defaults.get(k) != v]
    return (
        f"seed {settings['seed']}, {settings['players']} players, the same deals at every tier; "
        f"rules: {', '.join(changed) if changed else 'the game defaults'}"
    )


def write_strength_outputs(where: str, mapper=None) -> tuple[Any, tuple[str, ...]]:
    """Measure a finished strength folder's steps and verdicts and write ``strength.json``
    (atomically), ``strength.html`` and ``strength.md`` into it."""
    from reports.metrics import Context, Estimate, MetricError, resolve
    from reports.strength import TierMeasured, measure_curve, rate_tiers, render, to_json
    from simulate.games import get_game
    from simulate.storage import open_store
    from simulate.study.strength import RESULT, rating_runs, read_strength

    store = open_store(where)
    record, found = read_strength(store)
    settings = record["settings"]
    top = found[-1][1]
    ctx = Context.of(top, game_report(get_game(settings["game"])))
    try:
        refs = [resolve(name, ctx) for name in settings["metrics"]]
    except MetricError as exc:
        raise DinolabError(str(exc)) from None
    tiers = [
        TierMeasured(name, run, {k: Estimate.from_dict(v) for k, v in metrics.items()})
        for name, run, metrics in found
    ]
    game = get_game(settings["game"])
    labels = {
        name: game.registry.lineup(spec, settings["players"])[0].label
        for name, spec in zip([t.name for t in tiers], settings["tiers"], strict=True)
    }
    ratings = rate_tiers(rating_runs(store), labels, mapper)
    curve = measure_curve(tiers, refs, mapper, ratings)
    shown = {k: settings[k] for k in ("players", "seed", "games", "precision", "rules")}
    body = to_json(curve, settings["game"], shown)
    store.write_bytes(RESULT, (json.dumps(body, indent=1) + "\n").encode())
    html, md = render(curve, settings, _strength_config_line(settings))
    store.write_bytes("strength.html", html.encode())
    store.write_bytes("strength.md", md.encode())
    root = str(store.local or store.url).rstrip("/")
    return curve, tuple(f"{root}/{n}" for n in (RESULT, "strength.html", "strength.md"))


def write_restrict_report(store, record: dict, mapper=None) -> tuple[str, str, object]:
    """Analyse a restricted-play study's runs (``restrict.json``'s ``record``); write
    report.html and report.md into the study folder; returns where, and the table."""
    from reports import restrict
    from reports.build import render_html, render_markdown
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
