"""``dinolab search``: find the knob settings that bring a game to a designer's target.

The optimiser is Optuna's TPE sampler (mixed integer, real and listed knobs; constraints
through ``Trial.set_constraint``), its trials kept in ``DIR/search.db`` (SQLite: viewable
with optuna-dashboard while the search runs). What this module adds is how a trial is played
and judged:

* **Common random numbers.** Every configuration plays the same *seed blocks* (block ``b`` is
  games ``b*B .. (b+1)*B-1`` of the study's seed), so two configurations are compared game by
  game: the difference of their distances from the target has a far smaller interval than
  either distance (:class:`reports.targets.TargetJudge`).
* **Racing.** A trial plays block after block; after each, it is compared with the incumbent
  (the best fully played configuration) on the blocks both played, and stops as soon as it is
  worse with 95% confidence (or breaks a constraint the incumbent meets). Only a trial that
  plays every block (``--blocks``) can become the incumbent.
* **Fresh seeds.** The finalists (the best ``--finalists`` configurations) and the current
  rules are played again on a seed the search never saw, as ordinary run folders under
  ``DIR/final/``; the recommendation is the best of them there, so its figures carry no
  winner's curse.
* **Polish.** From the sampler's best, one-step moves (each knob one step, paired on the same
  blocks) while one is better: the best found is a neighbour of the optimum more often than
  the optimum itself.
* **Answers.** From the recommendation: the minimal changes (the best configuration changing
  1, 2, ... knobs from the current rules, among everything evaluated, with the subsets of the
  recommendation's changes evaluated to be sure) and the one-step deviations of each knob
  (is the recommendation on a plateau?), each paired with the recommendation on the search's
  blocks.

**Strength tiers (multi-fidelity).** With tiers (:mod:`simulate.study.tiers`, cheapest
first) the optimiser, the racing, the polish and the answers play the cheapest tier only: it
discards settings at its price. The finalists and the current rules are then played on the
fresh seed at *every* tier (``DIR/final/<i>-<tier>/``), and the target must hold at each: the
recommendation is the finalist that meets the constraints at every tier and, among those, has
the smallest distance at its worst tier. With two tiers this is successive halving's last
rung: many settings on the cheap tier's blocks, a few confirmed at the strong tier. A finalist
nearer the target at the cheap tier that the strong tier sets back is named as passed over.

**Resuming.** Every block a configuration played is kept (``DIR/blocks/``, the workers'
per-cluster sums). ``--resume`` replays the search from the start: the sampler is reseeded
for every trial from (seed, trial number), so it proposes the same configurations, whose blocks
are read back instead of played; the SQLite study is rebuilt the same way. A resumed search
therefore ends exactly as an uninterrupted one would.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from rules.core.errors import DinolabError
from simulate.config import RunConfig, build_config
from simulate.executors import Executor, Measure
from simulate.kit.spec import Setup
from simulate.rundir import Run
from simulate.runner import RunPlan, check_out_dir, open_run
from simulate.storage import RunStore, open_store
from simulate.study import blocks as kept
from simulate.study import folder
from simulate.study.folder import folder_name
from simulate.study.knobs import Axis, Knob, check_point, parse_axes
from simulate.study.play import Block, Progress, play_blocks, play_runs
from simulate.study.seeds import fresh_seed, shares_games
from simulate.study.space import distribution, in_space, neighbours, space_size, subsets
from simulate.study.tiers import Tier

Z_RACE = 1.959963984540054
"""A trial stops when its distance exceeds the incumbent's by this many standard errors."""
MAX_REPEATS = 12
"""The search stops after this many proposals in a row of configurations already played."""
STARTUP_TRIALS = 6
"""Random proposals before TPE models the results (Optuna's ``n_startup_trials``)."""
ANALYSIS_SHARE = 0.2
"""Share of the budget kept for the minimal changes and the one-step deviations."""
MIN_BLOCK = 500
"""Fewest games of a default seed block (a smaller ``--block`` is the user's choice)."""
FINAL = "final"
BLOCKS = "blocks"
DATABASE = "search.db"
SUMMARY = "search.json"
RECOMMENDATION = "recommendation.json"


@dataclasses.dataclass(frozen=True)
class SearchRequest:
    """What ``dinolab search`` asks for (the same arguments from Python)."""

    game: str
    target: str
    """Terms joined by commas: ``M``, ``M=V``, ``M<V``, ``M>V`` (``M=V~S``: the scale)."""
    params: tuple[str, ...]
    """Knobs and their ranges: ``KEY=LO..HI``, ``KEY=LO..HI:STEPS`` or ``KEY=V1,V2``."""
    budget: int = 400_000
    block: int | None = None
    """Games per seed block (default: the budget / 80)."""
    blocks: int = 4
    finalists: int = 2
    final_games: int | None = None
    players: int | None = None
    strategy: str | None = None
    tiers: tuple[str, ...] = ()
    """Strength tiers, cheapest first: the search plays the first, the finalists are
    confirmed at every one (not with strategy)."""
    rotate: bool = False
    seed: int = 0
    assignments: tuple[str, ...] = ()
    rules_file: str | None = None
    out: str | None = None
    """The search folder (default ``runs/search-<game>-seed<seed>``)."""
    resume: bool = False
    force: bool = False


class Judge(Protocol):
    """How configurations are measured against the target (``reports.targets``)."""

    chunk: Measure
    tables: tuple[str, ...]
    names: list[str]

    def score(self, blocks: Sequence[Any]) -> Any: ...

    def versus(self, a: Sequence[Any], b: Sequence[Any]) -> tuple[float, float, list]: ...

    def run_features(self, run: Run, measured: dict[int, Any]) -> list[Any]: ...


Values = dict[str, str]
"""A configuration: knob -> value as ``--set`` takes it."""


def key_of(values: Values) -> str:
    return ",".join(f"{k}={v}" for k, v in values.items())


@dataclasses.dataclass
class Evaluation:
    """A configuration played on the search's blocks."""

    values: Values
    blocks: list[Any]
    score: Any
    raced_out: bool
    full: bool
    """Played every block of an evaluation (only then may it become the incumbent)."""

    @property
    def games(self) -> int:
        return int(self.score.games)


def better(a: Evaluation, b: Evaluation | None) -> bool:
    """``a`` beats ``b``: it meets the constraints where ``b`` does not, else it is nearer."""
    if b is None:
        return True
    if a.score.feasible != b.score.feasible:
        return a.score.feasible
    if not a.score.feasible:
        return a.score.violation < b.score.violation
    return a.score.distance < b.score.distance


@dataclasses.dataclass
class SearchPlan:
    """A validated search, nothing written yet."""

    config: RunConfig
    setup: Setup
    axes: list[Axis]
    target: str
    record: dict[str, Any]
    store: RunStore
    mode: str
    assignments: list[str]
    rules_file: str | None
    bot: str | None = None
    """Tuning: the strategy whose parameters are the knobs (lineup position 0)."""
    field: tuple[str, ...] = ()
    """Tuning: the other lineup positions' bots."""
    tiers: tuple[Tier, ...] = ()
    """Strength tiers, cheapest first (the search plays the first; the finalists every one),
    each with its ``Judge`` as its measurer."""

    @property
    def settings(self) -> dict[str, Any]:
        return self.record["settings"]

    def configuration(self, values: Values, tier: Tier | None = None) -> tuple[list[str], str]:
        """The rule changes and the lineup of a setting of the knobs (at a tier: its lineup,
        the tuned bot's position kept)."""
        lineup = tuple(self.config.strategies if tier is None else tier.config.strategies)
        if self.bot is None:
            knobs = [f"{k}={v}" for k, v in values.items()]
            return [*self.assignments, *knobs], ",".join(lineup)
        inner = ",".join(f"{k}={v}" for k, v in values.items())
        field = self.field if tier is None else lineup[1:]
        return list(self.assignments), ",".join([f"{self.bot}[{inner}]", *field])


def _multiple(n: float, step: int) -> int:
    return max(step, round(n / step) * step)


def plan_search(
    base: tuple[RunConfig, Setup],
    *,
    params: Sequence[str],
    target: str,
    budget: int,
    block: int | None,
    blocks: int,
    finalists: int,
    final_games: int | None,
    assignments: Sequence[str],
    rules_file: str | None,
    tables: tuple[str, ...] | None,
    out: str,
    resume: bool,
    force: bool,
    axes: list[Axis] | None = None,
    bot: str | None = None,
    field: Sequence[str] = (),
    tool: str = "dinolab search",
    tiers: Sequence[Tier] = (),
) -> SearchPlan:
    """Validate the whole search and split its budget; nothing is written. The knobs are rule
    keys (``params``), or with ``bot`` given, that strategy's parameters (``axes``) in
    lineup position 0 against ``field`` (tuning). ``tiers`` (from
    :func:`simulate.study.tiers.plan_tiers`, the first one ``base``'s lineup): the finalists
    are confirmed at each (see the module docstring)."""
    config, setup = base
    if "://" in out and not out.startswith("file://"):
        raise DinolabError("--out of a search must be a local folder (its SQLite study)")
    store = open_store(out)
    if axes is None:
        axes = parse_axes(setup, params)
    split = split_budget(
        budget,
        block,
        blocks,
        finalists,
        final_games,
        config.n_players if config.rotate else 1,
        len(tiers),
    )
    for a in axes if bot is None else ():
        check_point(setup.game, setup, {a.knob.key: a.knob.current_text})
    if shares_games(config.seed, fresh_seed(config.seed), 10**15):  # 1 in 10^4 of all seeds
        raise DinolabError(f"--seed {config.seed} re-measures on games of its own; choose another")
    settings = {
        "game": setup.game.name,
        "players": config.n_players,
        "strategies": list(config.strategies),
        "rotate": config.rotate,
        "seed": config.seed,
        "rules": config.params,
        "tables": list(tables) if tables is not None else None,
        "knobs": [a.to_dict() for a in axes],
        "target": target,
        "budget": budget,
        "block": split.block,
        "blocks": blocks,
        "finalists": finalists,
        "final_games": split.final_games,
        "chunk_size": config.chunk_size,
    }
    if bot is not None:
        settings.update(bot=bot, field=list(field))
    if tiers:  # only then: a search without tiers keeps its record (and resumes as before)
        settings["tiers"] = [t.spec for t in tiers]
    record = {
        "tool": tool,
        "settings": settings,
        "current": {a.knob.key: a.knob.current_text for a in axes},
        "split": {"search": split.search, "analysis": split.analysis, "final": split.final},
    }
    if tiers:
        record["tiers"] = [{"name": t.name, "folder": t.folder} for t in tiers]
    mode = folder.check_folder(out, record, resume=resume, force=force)
    return SearchPlan(
        config,
        setup,
        axes,
        target,
        record,
        store,
        mode,
        list(assignments),
        rules_file,
        bot,
        tuple(field),
        tuple(tiers),
    )


@dataclasses.dataclass(frozen=True)
class BudgetSplit:
    """A search's games: its block, each finalist's re-measurement, and the three shares."""

    block: int
    final_games: int
    search: int
    analysis: int
    final: int


def split_budget(
    budget: int,
    block: int | None,
    blocks: int,
    finalists: int,
    final_games: int | None,
    step: int,
    n_tiers: int,
) -> BudgetSplit:
    """Split ``budget`` games between the search, the answer's analysis and the finalists'
    re-measurement (at each of ``n_tiers``); block sizes are multiples of ``step`` (a rotation).
    Raises :class:`DinolabError` for sizes out of range or a budget below one evaluation."""
    if not 1 <= blocks <= 100:
        raise DinolabError(f"--blocks must be in 1..100, got {blocks}")
    if not 1 <= finalists <= 10:
        raise DinolabError(f"--finalists must be in 1..10, got {finalists}")
    if budget < 1:
        raise DinolabError(f"--budget must be a positive number of games, got {budget}")
    b = _multiple(max(MIN_BLOCK, budget / 80) if block is None else block, step)
    if block is not None and block < 1:
        raise DinolabError(f"--block must be a positive number of games, got {block}")
    f = _multiple(blocks * b if final_games is None else final_games, step)
    finals = (finalists + 1) * f * max(1, n_tiers)
    analysis = int(ANALYSIS_SHARE * budget)
    search = budget - finals - analysis
    if search < blocks * b:
        at = f" at each of {n_tiers} tiers" if n_tiers else ""
        raise DinolabError(
            f"--budget {budget:,} is below one evaluation: a trial plays {blocks} blocks of "
            f"{b:,} games and the re-measurement {finalists + 1} x {f:,} games on fresh seeds"
            f"{at}, with {ANSWER_TEXT}; give at least {blocks * b + finals + analysis:,} (or a "
            "smaller --block)"
        )
    return BudgetSplit(b, f, search, analysis, finals)


ANSWER_TEXT = f"{int(ANALYSIS_SHARE * 100)}% kept for the minimal changes and deviations"


# ------------------------------------------------------------------ the search


class Searcher:
    """Plays and judges configurations for one search (see the module docstring)."""

    def __init__(
        self,
        plan: SearchPlan,
        executor: Executor,
        judge: Judge,
        echo: Callable[[str], None] = lambda line: None,
        progress: Progress | None = None,
    ):
        self.plan = plan
        self.executor = executor
        self.judge = judge
        self.echo = echo
        self.progress = progress
        s = plan.settings
        self.block_games = s["block"]
        self.n_blocks = s["blocks"]
        self.spent = 0
        self.evaluated: dict[str, Evaluation] = {}
        self._setups: dict[str, Setup] = {}
        self.knobs: dict[str, Knob] = {a.knob.key: a.knob for a in plan.axes}
        self.constrained = any(t in plan.target for t in "<>")
        step = plan.config.n_players if plan.config.rotate else 1
        per = -(-self.block_games // (2 * max(1, executor.workers)))
        self.chunk = max(step, -(-per // step) * step)

    # -- configurations
    def setup_for(self, values: Values) -> Setup:
        key = key_of(values)
        if key not in self._setups:
            c = self.plan.config
            changes, lineup = self.plan.configuration(values)
            _, setup = build_config(
                c.game,
                n_players=c.n_players,
                strategies=lineup,
                rotate=c.rotate,
                seed=c.seed,
                games=1,
                chunk_size=None,
                assignments=changes,
                rules_file=self.plan.rules_file,
            )
            self._setups[key] = setup
        return self._setups[key]

    # -- blocks
    def _block_file(self, values: Values, b: int) -> str:
        digest = hashlib.sha256(self.setup_for(values).key.encode()).hexdigest()[:20]
        return f"{BLOCKS}/{digest}-{b:03d}.npz"

    def block(self, values: Values, b: int) -> Any:
        """Block ``b`` of a configuration: read back if kept, else played and kept."""
        name = self._block_file(values, b)
        store = self.plan.store
        if store.exists(name):
            features = kept.load(store.read_bytes(name))
        else:
            c = self.plan.config
            start, stop = b * self.block_games, (b + 1) * self.block_games
            blk = Block(self.setup_for(values), c.seed, c.rotate, start, stop, self.chunk, "b")
            results = play_blocks([blk], self.executor, self.judge.chunk, self.judge.tables)["b"]
            features = kept.join([r.measured for r in results])
            store.write_bytes(name, kept.save(features))
        self.spent += self.block_games
        if self.progress:
            self.progress(self.spent, self.plan.settings["budget"])
        return features

    def evaluate(
        self, values: Values, against: Evaluation | None, budget: int, max_blocks: int | None = None
    ) -> Evaluation | None:
        """Play a configuration block by block, racing ``against``; ``None`` when the budget
        has no room for its first block. A configuration played before is not played again."""
        key = key_of(values)
        if key in self.evaluated:
            return self.evaluated[key]
        blocks: list[Any] = []
        raced = False
        n = max_blocks or self.n_blocks
        for b in range(n):
            if self.spent + self.block_games > budget:
                break
            blocks.append(self.block(values, b))
            if against is not None and len(against.blocks) >= len(blocks):
                d, se, violations = self.judge.versus(against.blocks[: len(blocks)], blocks)
                clearly_worse = d - Z_RACE * se > 0
                breaks = against.score.feasible and any(v - Z_RACE * s > 0 for v, s in violations)
                if (clearly_worse or breaks) and b + 1 < n:
                    raced = True
                    break
        if not blocks:
            return None
        ev = Evaluation(
            values, blocks, self.judge.score(blocks), raced, len(blocks) == self.n_blocks
        )
        self.evaluated[key] = ev
        return ev

    # -- the optimiser
    def search(self) -> tuple[Evaluation | None, list[dict]]:
        """The TPE search within the search budget; the incumbent and every trial's record."""
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        s = self.plan.settings
        path = self.plan.store.local / DATABASE
        storage = optuna.storages.RDBStorage(f"sqlite:///{path}")
        for summary in optuna.study.get_all_study_summaries(storage):
            optuna.delete_study(study_name=summary.study_name, storage=storage)
        study = optuna.create_study(storage=storage, study_name="search", direction="minimize")
        study.set_user_attr("target", self.plan.target)
        dists = {a.knob.key: distribution(a) for a in self.plan.axes}
        current = {a.knob.key: a.knob.current_text for a in self.plan.axes}
        if all(in_space(a, current[a.knob.key]) for a in self.plan.axes):
            study.enqueue_trial({k: self._param(k, v) for k, v in current.items()})
        budget = self.plan.record["split"]["search"]
        size = space_size(self.plan.axes)
        incumbent: Evaluation | None = None
        trials: list[dict] = []
        repeats = 0
        number = 0
        self.stopped = "the search's share of the budget was spent"
        while self.spent + self.block_games <= budget:
            study.sampler = optuna.samplers.TPESampler(
                seed=(s["seed"] * 1_000_003 + number) % 2**32,
                n_startup_trials=STARTUP_TRIALS,
                multivariate=True,
            )
            trial = study.ask(dists)
            number += 1
            values = {k: self.knobs[k].text(trial.params[k]) for k in dists}
            seen = key_of(values) in self.evaluated
            ev = self.evaluate(values, incumbent, budget)
            if ev is None:
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
                break
            if self.constrained:
                trial.set_constraint("worst violation", ev.score.violation)
            trial.set_user_attr("games", ev.games)
            trial.set_user_attr("raced_out", ev.raced_out)
            study.tell(trial, ev.score.distance)
            if ev.full and not ev.raced_out and better(ev, incumbent):
                incumbent = ev
            trials.append(self._trial_record(trial.number, ev, incumbent, seen))
            repeats = repeats + 1 if seen else 0
            if len(self.evaluated) >= size:
                self.stopped = f"every one of the {int(size)} settings was played"
                break
            if repeats >= MAX_REPEATS:
                self.stopped = (
                    f"the sampler proposed settings already played {MAX_REPEATS} "
                    "times in a row (it had settled)"
                )
                break
        return incumbent, trials

    def _param(self, key: str, text: str) -> Any:
        axis = next(a for a in self.plan.axes if a.knob.key == key)
        return text if axis.values is not None else self.knobs[key].value(text)

    def _trial_record(self, number: int, ev: Evaluation, inc: Evaluation | None, seen: bool):
        sc, best = ev.score, inc.score if inc is not None else None
        return {
            "trial": number,
            "values": ev.values,
            "distance": sc.distance,
            "lo": sc.lo,
            "hi": sc.hi,
            "feasible": sc.feasible,
            "blocks": len(ev.blocks),
            "raced_out": ev.raced_out,
            "repeat": seen,
            "games_spent": self.spent,
            "best": None if inc is None else key_of(inc.values),
            "best_distance": None if best is None else best.distance,
            "best_lo": None if best is None else best.lo,
            "best_hi": None if best is None else best.hi,
        }

    def polish(self, incumbent: Evaluation | None, budget: int) -> tuple[Evaluation | None, list]:
        """One-step moves from the incumbent while one is better (on the same blocks): the
        sampler's best is a neighbour of the optimum more often than the optimum itself."""
        moves = []
        improved = incumbent is not None
        while improved and incumbent is not None:
            improved = False
            for axis in self.plan.axes:
                k = axis.knob.key
                for v in neighbours(axis, incumbent.values[k]):
                    if self.spent + self.block_games > budget:
                        return incumbent, moves
                    ev = self.evaluate({**incumbent.values, k: v}, incumbent, budget)
                    if ev is not None and ev.full and not ev.raced_out and better(ev, incumbent):
                        moves.append(f"{k} {incumbent.values[k]} -> {v}")
                        incumbent, improved = ev, True
                        break
                if improved:
                    break
        return incumbent, moves

    # -- what the recommendation is made of
    def changes_of(self, values: Values) -> list[str]:
        current = self.plan.record["current"]
        return [k for k, v in values.items() if v != current[k]]

    def analyse(self, rec: Evaluation, budget: int) -> dict[str, Any]:
        """Minimal changes and one-step deviations around ``rec`` on the search's blocks."""
        current = dict(self.plan.record["current"])
        changed = self.changes_of(rec.values)
        candidates: list[Values] = [current]
        for sub in subsets(changed):  # the fewest changes first: the recommendation's, some
            candidates.append({k: rec.values[k] if k in sub else current[k] for k in rec.values})
        for axis in self.plan.axes:  # then the one-step deviations
            k = axis.knob.key
            for v in neighbours(axis, rec.values[k]):
                candidates.append({**rec.values, k: v})
        for values in candidates:
            self.evaluate(values, rec, budget)
        deviations = []
        for axis in self.plan.axes:
            k = axis.knob.key
            for v in neighbours(axis, rec.values[k]):
                values = {**rec.values, k: v}
                ev = self.evaluated.get(key_of(values))
                deviations.append(self._paired(rec, ev, f"{k} {rec.values[k]} -> {v}", values))
        levels = []
        for n in range(0, len(self.plan.axes) + 1):
            pool = [e for e in self.evaluated.values() if len(self.changes_of(e.values)) == n]
            if not pool:
                continue
            # by the upper end of the distance's interval: a short evaluation's lucky estimate
            # does not win, a clearly better one does
            best = min(pool, key=lambda e: (not e.score.feasible, e.score.hi, e.score.distance))
            levels.append({"changes": n, **self._paired(rec, best, "", best.values)})
        return {"deviations": deviations, "minimal_changes": levels}

    def _paired(self, rec: Evaluation, ev: Evaluation | None, label: str, values: Values):
        out: dict[str, Any] = {"label": label, "values": values, "changed": self.changes_of(values)}
        if ev is None:
            out["measured"] = False
            return out
        n = min(len(ev.blocks), len(rec.blocks))
        d, se, _ = self.judge.versus(rec.blocks[:n], ev.blocks[:n])
        out.update(
            measured=True,
            score=ev.score.to_dict(),
            blocks=len(ev.blocks),
            raced_out=ev.raced_out,
            vs_recommendation={"value": d, "ci": [d - Z_RACE * se, d + Z_RACE * se], "se": se},
        )
        return out

    # -- fresh seeds
    def judge_at(self, tier: Tier | None) -> Judge:
        """What measures a configuration at ``tier`` (``None``: the search's own lineup)."""
        return self.judge if tier is None else tier.measurer

    def finals(self, configs: Sequence[Values]) -> list[dict[str, Any]]:
        """Play the configurations (the current rules first) on fresh seeds as run folders
        under ``DIR/final/`` (``final/<i>-<tier>/`` at each tier, with tiers); each one's
        name, folder and features, and with tiers ``tiers``: each tier's folder and
        features (the first tier's also at the top)."""
        s = self.plan.settings
        c = self.plan.config
        tiers: list[Tier | None] = list(self.plan.tiers) or [None]
        names = [
            f"{i:02d}-"
            + (
                "current"
                if not self.changes_of(values)
                else folder_name(",".join(f"{k}={values[k]}" for k in self.changes_of(values)))
            )
            for i, values in enumerate(configs)
        ]
        plans: list[RunPlan] = []
        tier_of: dict[str, Tier | None] = {}
        for tier in tiers:
            for name, values in zip(names, configs, strict=True):
                changes, lineup = self.plan.configuration(values, tier)
                cfg, setup = build_config(
                    c.game,
                    n_players=c.n_players,
                    strategies=lineup,
                    rotate=c.rotate,
                    seed=fresh_seed(c.seed),
                    games=s["final_games"],
                    chunk_size=self.chunk * 2 * max(1, self.executor.workers),
                    assignments=changes,
                    rules_file=self.plan.rules_file,
                    tables=tuple(s["tables"]) if s["tables"] is not None else None,
                )
                where = f"{FINAL}/{name}" if tier is None else f"{FINAL}/{tier.folder}/{name}"
                child = self.plan.store.child(where)
                started = child.exists("manifest.json")
                if started:
                    check_out_dir(child, cfg, resume=True, force=False)
                measure = self.judge_at(tier).chunk
                plans.append(
                    open_run(cfg, setup, child, resume=started, measure=measure, tag=where)
                )
                tier_of[where] = tier
        features: dict[str, list[Any]] = {}

        def done(plan: RunPlan, measured: dict[int, Any]) -> None:
            judge = self.judge_at(tier_of[plan.tag])
            features[plan.tag] = judge.run_features(Run(plan.store), measured)

        play_runs(plans, self.executor, done)
        out = []
        for i, (name, values) in enumerate(zip(names, configs, strict=True)):
            at = plans[i :: len(configs)]  # this configuration at each tier
            entry = {"name": name, "folder": at[0].tag, "values": values}
            entry["features"] = features[at[0].tag]
            if self.plan.tiers:
                entry["tiers"] = [
                    {"tier": t.name, "folder": p.tag, "features": features[p.tag]}
                    for t, p in zip(self.plan.tiers, at, strict=True)
                ]
            out.append(entry)
        return out


def run_search(plan: SearchPlan, searcher: Searcher) -> dict[str, Any]:
    """The whole search: optimiser, finalists on fresh seeds, the answers. Writes
    ``search.json`` and ``recommendation.json``; returns the summary. The caller closes the
    searcher's executor."""
    store = plan.store
    if plan.mode == "replace":
        folder.clear(
            store, [FINAL, BLOCKS, DATABASE, SUMMARY, RECOMMENDATION, "report.html", "report.md"]
        )
    folder.write_record(store, plan.record)
    split = plan.record["split"]
    incumbent, trials = searcher.search()
    # the answers' share of the budget: first one-step moves from the best, then the answers
    incumbent, moves = searcher.polish(incumbent, split["search"] + split["analysis"])
    full = [e for e in searcher.evaluated.values() if e.full and not e.raced_out]
    if not full:
        raise DinolabError("no configuration was played in full; give a larger --budget")
    ranked = sorted(full, key=lambda e: (not e.score.feasible, e.score.distance))
    chosen = [e.values for e in ranked[: plan.settings["finalists"]]]
    current = dict(plan.record["current"])
    configs = [current, *[v for v in chosen if v != current]]
    finals = searcher.finals(configs)
    tiers: list[Tier | None] = list(plan.tiers) or [None]
    views = [f.get("tiers", [f]) for f in finals]  # each finalist at each tier
    scores = [
        [searcher.judge_at(t).score(v["features"]) for t, v in zip(tiers, vs, strict=True)]
        for vs in views
    ]
    for vs, scs in zip(views, scores, strict=True):
        for j, (t, v, sc) in enumerate(zip(tiers, vs, scs, strict=True)):
            d, se, _ = searcher.judge_at(t).versus(views[0][j]["features"], v["features"])
            v["score"] = sc.to_dict()
            v["vs_current"] = {"value": d, "ci": [d - Z_RACE * se, d + Z_RACE * se], "se": se}
    for f, vs in zip(finals, views, strict=True):  # with tiers the first tier's at the top
        f.update(score=vs[0]["score"], vs_current=vs[0]["vs_current"])

    def at_every_tier(i: int) -> tuple[bool, float]:
        """The target at every tier: every constraint met at each, then the worst distance."""
        return (not all(sc.feasible for sc in scores[i]), max(sc.distance for sc in scores[i]))

    best = min(range(len(finals)), key=at_every_tier)
    rec_values = finals[best]["values"]
    rec_eval = searcher.evaluated.get(key_of(rec_values)) or searcher.evaluate(
        rec_values, None, 1 << 62
    )
    # the analysis may spend what the search left of its share, and its own
    analysis = searcher.analyse(rec_eval, split["search"] + split["analysis"])
    games = searcher.spent + sum(v["score"]["games"] for vs in views for v in vs)
    rec = finals[best]
    recommendation = {
        "params": {k: rec_values[k] for k in searcher.changes_of(rec_values)},
        "metrics": {
            k: {"value": e["value"], "ci": e["ci"]} for k, e in rec["score"]["metrics"].items()
        },
        "games": games,
        "target": plan.target,
        "distance": rec["score"]["distance"],
        "meets_constraints": all(sc.feasible for sc in scores[best]),
        "measured_on": rec["score"]["games"],
        "current": current,
        "run": rec["folder"],
    }
    if plan.tiers:
        recommendation["tiers"] = [
            {
                "tier": v["tier"],
                "metrics": {
                    k: {"value": e["value"], "ci": e["ci"]}
                    for k, e in v["score"]["metrics"].items()
                },
                "distance": v["score"]["distance"],
                "meets_constraints": v["score"]["feasible"],
                "measured_on": v["score"]["games"],
                "run": v["folder"],
            }
            for v in views[best]
        ]
        recommendation["passed_over"] = passed_over(finals, scores, best, searcher.changes_of)
    summary = {
        "trials": trials,
        "incumbent": None if incumbent is None else key_of(incumbent.values),
        "polish": moves,
        "finals": [_without_features(f) for f in finals],
        "recommendation": rec["name"],
        "analysis": analysis,
        "games": {"search": searcher.spent, "final": games - searcher.spent, "total": games},
        "stopped": searcher.stopped,
    }
    store.write_bytes(SUMMARY, (json.dumps(summary, indent=1) + "\n").encode())
    store.write_bytes(RECOMMENDATION, (json.dumps(recommendation, indent=1) + "\n").encode())
    return summary


def _without_features(entry: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in entry.items() if k not in ("features", "tiers")}
    if "tiers" in entry:
        out["tiers"] = [_without_features(v) for v in entry["tiers"]]
    return out


def passed_over(
    finals: Sequence[dict[str, Any]],
    scores: Sequence[Sequence[Any]],
    best: int,
    changes_of: Callable[[Values], list[str]],
) -> list[dict[str, Any]]:
    """The finalists the cheapest tier ranks above the recommendation, each with the stronger
    tier that sets it back (``scores[i][j]``: finalist ``i`` at tier ``j``)."""
    names = [v["tier"] for v in finals[0]["tiers"]]

    def cheap(i: int) -> tuple[bool, float]:
        return (not scores[i][0].feasible, scores[i][0].distance)

    worst = max(sc.distance for sc in scores[best])
    out = []
    for i, f in enumerate(finals):
        if i == best or not cheap(i) < cheap(best):
            continue
        broken = [j for j, sc in enumerate(scores[i]) if not sc.feasible]
        if broken and scores[i][0].feasible:
            j = broken[0]
            why = (
                f"it meets every constraint at {names[0]} but not at {names[j]} (off by "
                f"{scores[i][j].violation:.2f} scale units there)"
            )
        else:
            j = max(range(len(names)), key=lambda k: scores[i][k].distance)
            why = (
                f"it is nearer the target at {names[0]} (distance {scores[i][0].distance:.3f}, "
                f"the recommendation {scores[best][0].distance:.3f}) but not at {names[j]} "
                f"(distance {scores[i][j].distance:.3f}; the recommendation's worst tier "
                f"{worst:.3f})"
            )
        params = {k: f["values"][k] for k in changes_of(f["values"])}
        out.append({"name": f["name"], "params": params, "tier": names[j], "why": why})
    return out
