"""Paired rule variants: the same games with one rule changed.

A variant of a run plays the same seed, lineup, rotation and chunking with some rule keys
changed, so game ``i`` of the variant starts from the same deal and dice streams as game ``i`` of
the run: differences between the two are the rule's, not the luck's (common random numbers).
Variants live inside the run: ``RUN/variants/<key>=<value>[,...]/``, each a full run directory.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path

from rules.core.errors import DinolabError
from rules.core.params import parse_assignments
from simulate.config import RunConfig
from simulate.executors import Executor
from simulate.kit.spec import GameSpec
from simulate.manifest import read_manifest, run_config
from simulate.runner import RunSummary, run
from simulate.storage import RunStore, open_store

VARIANTS = "variants"


def variant_name(changes: dict[str, str]) -> str:
    """Folder name of a variant: its changes, sorted, as key=value joined by commas."""
    text = ",".join(f"{k}={v}" for k, v in sorted(changes.items()))
    return re.sub(r"[^A-Za-z0-9_.,=+-]", "_", text)


def variant_config(base: RunConfig, assignments: list[str], games: int | None) -> RunConfig:
    """The base configuration with rule changes; at most ``games`` games (all by default)."""
    from simulate.games import get_game

    changes = parse_assignments(assignments)
    if not changes:
        raise DinolabError("a variant needs at least one --set key=value")
    game = get_game(base.game)
    params = game.parameters.from_dict(base.params).with_values(changes)
    if params.to_dict() == base.params:
        raise DinolabError("the variant changes no rule: every value is the run's own")
    n = base.games if games is None else games
    if not 1 <= n <= base.games:
        raise DinolabError(f"--games must be in 1..{base.games} (the run's games), got {n}")
    setup = game.setup(params, base.n_players, ",".join(base.strategies))
    return dataclasses.replace(
        base, games=n, params=params.to_dict(), data_digest=setup.data.sha256
    )


def run_variant(
    run_dir: str | Path | RunStore,
    assignments: list[str],
    executor: Executor,
    games: int | None = None,
    on_chunk=None,
    close: bool = True,
) -> tuple[RunStore, RunSummary | None]:
    """Play (or finish) the paired variant of a run; returns its store. ``close``: as for
    :func:`simulate.runner.run`."""
    store = open_store(run_dir)
    base = run_config(read_manifest(store))
    config = variant_config(base, assignments, games)
    out = store.child(f"{VARIANTS}/{variant_name(parse_assignments(assignments))}")
    resume = not out.is_empty()
    summary = run(
        config, config.setup(), out, executor, resume=resume, on_chunk=on_chunk, close=close
    )
    return out, summary


def list_variants(run_dir: str | Path | RunStore) -> list[RunStore]:
    """Variant runs inside a run (folders of ``variants/`` that hold a manifest)."""
    store = open_store(run_dir)
    children = [store.child(f"{VARIANTS}/{name}") for name in store.listdir(VARIANTS)]
    return [c for c in children if c.exists("manifest.json")]


def ensure_report_variants(
    run_dir: str | Path | RunStore, spec: GameSpec, games: int, executor: Callable[[], Executor]
) -> list[RunStore]:
    """Play the paired variants ``spec`` declares for its report where they are missing or
    unfinished (at most ``games`` games each) through ``executor()``, called only when one is
    missing and left open (its owner closes it); return the ones played."""
    store = open_store(run_dir)
    logged = sum(c["stop"] - c["start"] for c in read_manifest(store)["chunks"].values())
    played = []
    for variant in spec.report_variants:
        changes = parse_assignments(list(variant.assignments))
        folder = store.child(f"{VARIANTS}/{variant_name(changes)}")
        if folder.exists("manifest.json") and read_manifest(folder).get("status") == "complete":
            continue
        n = min(games, logged)
        print(f"playing the paired variant {', '.join(variant.assignments)} on {n:,} games ...")
        out, _ = run_variant(store, list(variant.assignments), executor(), n, close=False)
        played.append(out)
    return played


def variant_note(spec: GameSpec, changed: set[str]) -> str:
    """What a variant that changes the rule keys ``changed`` measures, if the spec says."""
    for variant in spec.report_variants:
        if set(parse_assignments(list(variant.assignments))) == changed:
            return variant.note
    return ""
