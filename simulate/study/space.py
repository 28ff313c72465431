"""A search's space: each knob's Optuna distribution, the settings one step away, the subsets
of a recommendation's changes."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from simulate.study.knobs import Axis


def distribution(axis: Axis):
    """The Optuna distribution of a knob's values."""
    import optuna.distributions as d

    k = axis.knob
    if axis.values is not None:
        return d.CategoricalDistribution(list(axis.values))
    if k.kind == "int":
        return d.IntDistribution(int(axis.lo), int(axis.hi))
    step = (axis.hi - axis.lo) / (axis.steps - 1) if axis.steps else None
    return d.FloatDistribution(float(axis.lo), float(axis.hi), step=step)


def space_size(axes: Sequence[Axis]) -> float:
    total = 1.0
    for a in axes:
        if a.values is not None:
            total *= len(a.values)
        elif a.knob.kind == "int":
            total *= a.hi - a.lo + 1
        elif a.steps:
            total *= a.steps
        else:
            return math.inf
    return total


def in_space(axis: Axis, text: str) -> bool:
    if axis.values is not None:
        return text in axis.values
    v = axis.knob.value(text)
    if not axis.lo <= v <= axis.hi:
        return False
    if axis.knob.kind == "float" and axis.steps:
        step = (axis.hi - axis.lo) / (axis.steps - 1)
        return abs((v - axis.lo) / step - round((v - axis.lo) / step)) < 1e-9
    return True


def neighbours(axis: Axis, text: str) -> list[str]:
    """A knob's values one step from ``text`` (the one-step deviations)."""
    k = axis.knob
    if axis.values is not None:
        i = axis.values.index(text) if text in axis.values else -1
        return [axis.values[j] for j in (i - 1, i + 1) if i >= 0 and 0 <= j < len(axis.values)]
    v = k.value(text)
    if k.kind == "int":
        step = 1
    elif axis.steps:
        step = (axis.hi - axis.lo) / (axis.steps - 1)
    else:
        step = (axis.hi - axis.lo) / 10
    out = []
    for w in (v - step, v + step):
        if axis.lo - 1e-12 <= w <= axis.hi + 1e-12:
            out.append(k.text(int(w) if k.kind == "int" else float(w)))
    return out


def subsets(keys: Sequence[str]) -> list[set[str]]:
    """Non-empty proper subsets of ``keys``, smallest first (at most 14; beyond that the
    single changes and the recommendation less one change)."""
    n = len(keys)
    if 2**n - 2 <= 14:
        return [set(c) for r in range(1, n) for c in itertools.combinations(keys, r)]
    singles = [{k} for k in keys]
    less_one = [set(keys) - {k} for k in keys]
    return singles + less_one
