"""``dinolab tune``: a bot's declared parameters tuned by self-play against a field.

Tuning is a search (:mod:`simulate.study.search`) whose knobs are one strategy's parameters
(their names and ranges from the game's registry) in lineup position 0, the other positions
playing the field, seats rotated; its target is that position's win share, as high as it
goes (``lineup_share[0]``, followed through the rotation whatever the bot's label). So tuning
has everything a search has: Optuna's TPE sampler, common seed blocks, racing the incumbent,
one-step moves from the best, the finalists and the default parameters re-measured on fresh
seeds, and ``--resume``. The answer is a parameter file a lineup plays with
``NAME[params=FILE]``: the parameters, and what was tuned against, on which rules and seeds,
with the measured strength.

With strength tiers (:mod:`simulate.study.tiers`) each tier is a field: its bot plays every
seat but the tuned one. The tuning plays against the first (cheapest) field, and the finalists
and the defaults are confirmed against every field on fresh seeds; the parameters chosen are
those whose win share at their worst tier is highest, and the parameter file gives the win
share against each.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rules.core.errors import DinolabError
from simulate.config import build_config
from simulate.games import get_game
from simulate.study.knobs import Axis, Knob
from simulate.study.search import RECOMMENDATION, SUMMARY, Judge, SearchPlan, plan_search
from simulate.study.tiers import plan_tiers
from strategies.core.registry import StrategyError, split_lineup

TARGET = "lineup_share[0]=1"
"""The tuned bot's win share, as near 1 as it gets: distance = (1 - share) / 0.01."""


@dataclasses.dataclass(frozen=True)
class TuneRequest:
    """What ``dinolab tune`` asks for (the same arguments from Python)."""

    game: str
    strategy: str
    """The bot whose declared parameters are tuned."""
    against: str = ""
    """The field: one bot for every other seat, or one per other seat (default: the game's
    default bot; none with tiers)."""
    tiers: tuple[str, ...] = ()
    """Fields at strength tiers, cheapest first (not with ``against``)."""
    budget: int = 200_000
    out: str = "tuned.json"
    """The parameter file to write; its working folder is ``FILE.tune/``."""
    params: tuple[str, ...] = ()
    """Tune only these parameters, or over a narrower range (default: every one)."""
    players: int | None = None
    seed: int = 0
    block: int | None = None
    assignments: tuple[str, ...] = ()
    rules_file: str | None = None
    resume: bool = False
    force: bool = False

    def field(self, game) -> str:
        """The field played against: ``against``, else the game's default bot (none with
        tiers)."""
        return self.against or ("" if self.tiers else game.default_strategy)

    def command(self, game, players: int, field: str) -> list[str]:
        """The ``dinolab tune`` command line that replays this tuning (recorded in FILE)."""
        return [
            *("dinolab", "tune", game.name, "--strategy", self.strategy),
            *(x for t in self.tiers for x in ("--tier", t)),
            *(["--against", field] if field else []),
            *("--players", str(players), "--budget", str(self.budget), "--seed", str(self.seed)),
            *(["--block", str(self.block)] if self.block else []),
            *(x for p in self.params for x in ("--param", p)),
            *(x for a in self.assignments for x in ("--set", a)),
            *(["--rules", self.rules_file] if self.rules_file else []),
            *("--out", self.out),
        ]


def study_folder(out: str) -> str:
    """The working folder beside the parameter file (``tuned.json`` -> ``tuned.tune/``)."""
    path = Path(out)
    return str(path.with_name(path.stem + ".tune"))


def bot_axes(game, name: str, specs: Sequence[str]) -> list[Axis]:
    """The knobs of strategy ``name``: every declared parameter over its whole range, or
    those ``--param KEY=LO..HI`` names (a narrower range, or ``KEY=V1,V2`` values)."""
    info = game.registry.by_name.get(name)
    if info is None:
        known = ", ".join(game.registry.names())
        raise StrategyError(f"unknown strategy '{name}' for {game.name} (known: {known})")
    if not info.params:
        raise DinolabError(f"strategy '{name}' has no parameters to tune")
    knobs = {p.name: Knob(p.name, "float", p.default, p.doc, p.lo, p.hi) for p in info.params}
    if not specs:
        return [Axis(k, None, k.lo, k.hi) for k in knobs.values()]
    axes = []
    for spec in specs:
        key, sep, rest = spec.partition("=")
        k = knobs.get(key.strip())
        if k is None or not sep:
            raise DinolabError(
                f"--param {spec!r}: '{name}' has the parameters {', '.join(knobs)} "
                "(write KEY=LO..HI or KEY=V1,V2)"
            )
        if ".." in rest:
            lo_text, _, hi_text = rest.partition("..")
            lo, hi = k.value(lo_text.strip()), k.value(hi_text.strip())
            if lo >= hi:
                raise DinolabError(f"--param {k.key}: the range {rest} is empty")
            axes.append(Axis(k, None, lo, hi))
        else:
            values = tuple(dict.fromkeys(k.text(k.value(v)) for v in rest.split(",") if v))
            axes.append(Axis(k, values))
    if len({a.knob.key for a in axes}) != len(axes):
        raise DinolabError("--param names a parameter twice")
    return axes


def plan_tune(
    game_name: str,
    *,
    strategy: str,
    against: str,
    players: int | None,
    params: Sequence[str],
    budget: int,
    block: int | None,
    seed: int,
    assignments: Sequence[str],
    rules_file: str | None,
    tables: tuple[str, ...],
    out: str,
    resume: bool,
    force: bool,
    judge_for: Callable[[Any], Judge],
    tiers: Sequence[str] = (),
) -> SearchPlan:
    """Validate a tuning (strategy, field, rules, budget, the parameter file's folder) and
    its ``judge_for`` each configuration (a :class:`~simulate.study.search.Judge` of the
    tuned bot's win share); nothing is written. ``tiers``: fields at strength tiers,
    cheapest first (each one bot in every other seat), instead of ``against``."""
    game = get_game(game_name)
    n = game.default_players if players is None else players
    if "[" in strategy or "," in strategy:
        raise DinolabError(
            f"--strategy takes a bot's name (its parameters are tuned), got {strategy!r}"
        )
    common = dict(
        n_players=n,
        rotate=True,
        seed=seed,
        games=1,
        chunk_size=None,
        assignments=list(assignments),
        rules_file=rules_file,
    )
    planned = []
    if tiers:
        if against:
            raise DinolabError("--against and --tier contradict each other: each tier is a field")
        bot_axes(game, strategy, ())  # an unknown bot is refused before its field
        lineup = lambda tier: ",".join([strategy, *[tier] * (n - 1)])  # noqa: E731
        planned = plan_tiers(game, tiers, judge_for, lineup=lineup, **common)
        against = planned[0].name
    field = split_lineup(against)
    if len(field) == 1:
        field = field * (n - 1)
    if len(field) != n - 1:
        raise DinolabError(
            f"--against names {len(field)} bots for the {n - 1} other seats; "
            "give one, or one per other seat"
        )
    axes = bot_axes(game, strategy, params)
    base = build_config(game.name, strategies=",".join([strategy, *field]), **common)
    folder = Path(out).expanduser().resolve().parent
    if not folder.is_dir():
        raise DinolabError(f"--out {out}: no folder {folder}")
    if not out.endswith(".json"):
        raise DinolabError(f"--out {out}: a parameter file ends in .json")
    return plan_search(
        base,
        params=(),
        target=TARGET,
        budget=budget,
        block=block,
        blocks=4,
        finalists=2,
        final_games=None,
        assignments=assignments,
        rules_file=rules_file,
        tables=tables,
        out=study_folder(out),
        resume=resume,
        force=force,
        axes=axes,
        bot=strategy,
        field=field,
        tool="dinolab tune",
        tiers=planned,
    )


def write_params(plan: SearchPlan, out: str, command: str) -> dict[str, Any]:
    """The parameter file of a finished tuning: the tuned parameters (every one, the untuned
    at their defaults), what they were tuned against, their measured strength (with tiers:
    against the first field, and ``tiers``: against each) and the ``command`` that
    reproduces it."""
    store = plan.store
    summary = json.loads(store.read_bytes(SUMMARY))
    rec = json.loads(store.read_bytes(RECOMMENDATION))
    finals = {f["name"]: f for f in summary["finals"]}
    best = finals[summary["recommendation"]]
    default = summary["finals"][0]
    info = plan.setup.game.registry.by_name[plan.bot]
    values = {p.name: p.default for p in info.params}
    values.update({k: float(v) for k, v in best["values"].items()})
    s = plan.settings
    body = {
        "strategy": plan.bot,
        "params": values,
        "game": s["game"],
        "players": s["players"],
        "field": s["field"],
        "rules": {
            k: v
            for k, v in s["rules"].items()
            if plan.setup.game.parameters().to_dict().get(k) != v
        },
        "seed": s["seed"],
        "games": rec["games"],
        "strength": _strength(best, default, s["players"]),
    }
    if "tiers" in best:
        body["tiers"] = [
            {"tier": b["tier"], **_strength(b, d, s["players"])}
            for b, d in zip(best["tiers"], default["tiers"], strict=True)
        ]
    body.update(
        command=command,
        made=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC") + " by dinolab tune",
        folder=str(store.local or store.url),
    )
    Path(out).write_text(json.dumps(body, indent=1) + "\n")
    return body


def _strength(best: dict[str, Any], default: dict[str, Any], players: int) -> dict[str, Any]:
    """The tuned and the default parameters' win shares on one fresh-seed run each (a
    finalist's entry in ``search.json``, or its entry at one tier)."""
    share = best["score"]["metrics"]["lineup_share[0]"]
    base_share = default["score"]["metrics"]["lineup_share[0]"]
    return {
        "win_share": {"value": share["value"], "ci": share["ci"]},
        "fair_share": 1 / players,
        "defaults_win_share": {"value": base_share["value"], "ci": base_share["ci"]},
        "measured_on": best["score"]["games"],
        "note": "lineup position 0 against the field, seats rotated, on a seed the search "
        "never played; the change from the defaults is paired game by game "
        "(search.json in the tuning folder)",
        "change_from_defaults": {  # the distance's change, in win share (+0.0: no -0)
            "value": -best["vs_current"]["value"] / 100 + 0.0,
            "ci": [
                -best["vs_current"]["ci"][1] / 100 + 0.0,
                -best["vs_current"]["ci"][0] / 100 + 0.0,
            ],
        },
    }
