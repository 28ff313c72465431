"""Strength tiers, read once for every study (``strength``, ``sweep``, ``search``, ``tune``).

A *tier* is one strategy spec (``random``, ``heuristic``, ``strong[playouts=16]``): in a
strength curve, a sweep or a search its bot plays every seat; in a tuning it plays every seat
but the tuned bot's (the field). Each tier's runs live in their own folder,
``tiers/<i>-<name>/``, so a study resumes tier by tier. A tier whose runs cannot measure what
the study asks (``strategy_share[random]`` at the ``heuristic`` tier) is refused, naming the
tier, before anything is written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, Generic, Protocol, TypeVar

from rules.core.errors import DinolabError
from simulate.config import RunConfig, build_config
from simulate.kit.spec import GameSpec, Setup
from simulate.study import folder
from strategies.core.registry import split_lineup

TIERS = "tiers"
"""The sub-folder of a study holding one folder per tier."""


class Named(Protocol):
    names: Any
    """The metrics measured (every tier of a study must measure the same)."""


M = TypeVar("M", bound=Named)


@dataclasses.dataclass(frozen=True)
class Tier(Generic[M]):
    """One tier: its name as asked for, its folder (under :data:`TIERS`), its configuration
    (without a study's knobs) and what measures its runs (a study's ``Measurer``, a search's
    ``Judge``)."""

    index: int
    name: str
    spec: str
    """The tier's bot with every parameter (what a study records)."""
    folder: str
    config: RunConfig
    setup: Setup
    measurer: M


def tier_folder(index: int, name: str) -> str:
    """``3-search_rollouts=2`` (folder-safe)."""
    return f"{index}-{folder.folder_name(name, 80) or 'tier'}"


def every_seat(name: str) -> str:
    """The lineup of a tier whose bot plays every seat (build_config fills the seats)."""
    return name


def plan_tiers(
    game: GameSpec,
    names: Sequence[str],
    measurer_for: Callable[[Setup], M],
    *,
    lineup: Callable[[str], str] = every_seat,
    **common: Any,
) -> list[Tier[M]]:
    """Validate the tiers ``names`` (weakest first) and what each measures; nothing is
    written. ``lineup``: a tier's spec -> the lineup its runs play; ``common``: the other
    :func:`simulate.config.build_config` arguments. One line, naming the tier, for a tier that
    is not one strategy, does not parse, repeats another, or cannot measure what
    ``measurer_for`` asks (every tier must measure the same metrics)."""
    tiers: list[Tier[M]] = []
    seen: dict[str, str] = {}
    for i, name in enumerate(n.strip() for n in names):
        try:
            if len(split_lineup(name)) != 1:
                raise DinolabError("a tier is one strategy, played in every seat")
            cfg, setup = build_config(game.name, strategies=lineup(name), **common)
            spec = game.registry.parse(name, cfg.n_players).spec
        except DinolabError as exc:
            raise DinolabError(f"tier '{name}': {exc}") from None
        if spec in seen:
            raise DinolabError(f"tiers '{seen[spec]}' and '{name}' are the same bot ({spec})")
        seen[spec] = name
        try:
            measurer = measurer_for(setup)
        except DinolabError as exc:
            if not tiers:  # the weakest tier refuses it: not a matter of the tier
                raise
            raise DinolabError(f"tier '{name}' cannot measure it: {exc}") from None
        tiers.append(Tier(i, name, spec, tier_folder(i, name), cfg, setup, measurer))
    metrics = list(tiers[0].measurer.names) if tiers else []
    for t in tiers[1:]:
        if list(t.measurer.names) != metrics:
            only = sorted(set(t.measurer.names) ^ set(metrics))
            raise DinolabError(
                f"tiers '{tiers[0].name}' and '{t.name}' measure different metrics "
                f"({', '.join(only)}): name metrics every tier has (a strategy_share names a bot)"
            )
    return tiers


def refuse_other_lineups(strategy: str | None, rotate: bool) -> None:
    """With tiers each tier's bot plays every seat: ``--strategy`` would name other bots and
    ``--rotate`` only replay each deal (one line each)."""
    if strategy:
        raise DinolabError(
            "--strategy and --tier contradict each other: a tier's bot plays every seat"
        )
    if rotate:
        raise DinolabError(
            "--rotate and --tier contradict each other: with one bot in every seat a rotation "
            "only replays the deal"
        )
