"""Which points a sweep plays: every combination (grid) or a Latin hypercube sample (lhs).

A point is a dict ``knob -> value`` (``--set`` texts) in the order of the ``--param`` options.
The Latin hypercube comes from ``scipy.stats.qmc`` (seeded by the study's seed, so the same
command samples the same points); points that coincide once rounded to an integer knob's
values are played once.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from rules.core.errors import DinolabError
from simulate.study.knobs import Axis

DESIGNS = ("grid", "lhs")
MAX_POINTS = 10_000
"""More points than this is a typo (each point is a run directory)."""


def grid(axes: Sequence[Axis]) -> list[dict[str, str]]:
    """Every combination of the axes' values, the last knob varying fastest."""
    values = [a.grid() for a in axes]
    total = 1
    for v in values:
        total *= len(v)
    if total > MAX_POINTS:
        raise DinolabError(
            f"the grid has {total:,} points, more than {MAX_POINTS:,}; use "
            "fewer values or --design lhs --samples K"
        )
    keys = [a.knob.key for a in axes]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*values)]


def latin_hypercube(axes: Sequence[Axis], samples: int, seed: int) -> list[dict[str, str]]:
    """``samples`` points spread by a Latin hypercube over the axes (duplicates dropped)."""
    from scipy.stats import qmc

    if not 1 <= samples <= MAX_POINTS:
        raise DinolabError(f"--samples must be in 1..{MAX_POINTS:,}, got {samples}")
    u = qmc.LatinHypercube(d=len(axes), seed=seed % 2**32).random(samples)
    keys = [a.knob.key for a in axes]
    points = [{k: a.at(float(x)) for k, a, x in zip(keys, axes, row, strict=True)} for row in u]
    unique = {tuple(p.values()): p for p in points}
    return list(unique.values())


def design_points(
    axes: Sequence[Axis], design: str, samples: int | None, seed: int
) -> list[dict[str, str]]:
    """The points of ``--design``; refused when empty or malformed."""
    if design not in DESIGNS:
        raise DinolabError(f"unknown --design '{design}' (known: {', '.join(DESIGNS)})")
    if design == "grid":
        if samples is not None:
            raise DinolabError("--samples goes with --design lhs (a grid plays every point)")
        points = grid(axes)
    else:
        if samples is None:
            raise DinolabError("--design lhs needs --samples K (how many points to sample)")
        points = latin_hypercube(axes, samples, seed)
    if not points:
        raise DinolabError("the study has no points")
    return points
