"""Least squares over a run's chunks, with a cluster-robust sandwich variance.

A linear model ``y = X b`` is fitted per *group* of rows (EVO's gene value model: one per
auction round) and per *outcome* (Origin of Species' card value: win share and final score, on
the same regressors). A game's report gives the rows as a *design*: a module-level function
``design(chunk, *args) -> Design`` (the regressors, outcomes, cluster and groups of a chunk's
rows; a row may belong to several groups). Two passes over the chunks, memory flat in the
number of games:

1. :func:`sums_partial`: per group the rows, ``X'X`` and ``X'Y``, summed over the chunks
   (in a report's one pass); :func:`solve` fits a group from them on the regressors the
   report keeps (the others' coefficients are 0);
2. :func:`scores_partial`: with the fitted coefficients, per group and outcome the scores
   ``x (y - x b)`` summed per cluster and folded into a :class:`~reports.models.clustered.Cross`
   (a cluster split by a chunk boundary joined in the reduce): its outer sum is the meat of
   the sandwich ``C/(C-1) (X'X)^-1 meat (X'X)^-1``. With ``joint``, also every group's scores
   side by side per cluster: the covariance of several groups' coefficients at once (the
   rounds of one game are not independent).

:func:`fit` runs both passes on a run and returns a :class:`Model`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Mapping, Sequence

import numpy as np

from reports.aggregate import (
    Chunk,
    Mapper,
    Partial,
    cluster_sums,
    combine_outer,
    outer_part,
    run_one,
    second_pass,
)
from reports.models.clustered import Cross, sandwich
from reports.source import RunData

Group = Hashable
Rows = slice | np.ndarray
"""A group's rows of a design: a slice or their indices."""


@dataclasses.dataclass(frozen=True)
class Design:
    """A chunk's rows as a model sees them."""

    x: np.ndarray
    """Regressors, rows x k."""
    y: np.ndarray
    """Outcomes, rows x m (one model per outcome on the same regressors)."""
    clusters: np.ndarray
    """Each row's cluster (its game, or its deal with seat rotation)."""
    groups: Mapping[Group, Rows]
    """The rows of each group (one model per group)."""


DesignFn = Callable[..., Design]
"""``design(chunk, *args)``: a module-level function (workers import it by name)."""


@dataclasses.dataclass(frozen=True)
class Sums:
    """A group's sufficient statistics: its rows, ``X'X`` and ``X'Y``."""

    rows: int
    xtx: np.ndarray
    xty: np.ndarray

    def __add__(self, other: Sums) -> Sums:
        return Sums(self.rows + other.rows, self.xtx + other.xtx, self.xty + other.xty)


def _sums_map(chunk: Chunk, design: DesignFn, args: tuple) -> dict[Group, Sums]:
    d = design(chunk, *args)
    out = {}
    for g, at in d.groups.items():
        x = d.x[at]
        out[g] = Sums(x.shape[0], x.T @ x, x.T @ d.y[at])
    return out


def _sums_reduce(parts: list[dict[Group, Sums]], design: DesignFn, args: tuple):
    out: dict[Group, Sums] = {}
    for part in parts:
        for g, s in part.items():
            out[g] = out[g] + s if g in out else s
    return dict(sorted(out.items()))


def sums_partial(design: DesignFn, args: tuple = ()) -> Partial:
    """The first pass: group -> :class:`Sums` over the run, groups sorted."""
    return Partial(f"sums:{design.__qualname__}", _sums_map, _sums_reduce, (design, args))


@dataclasses.dataclass(frozen=True)
class Fit:
    """A group's fitted model."""

    used: tuple[int, ...]
    """The regressors fitted (the others' coefficients are 0)."""
    coef: np.ndarray
    """Coefficients, k x m."""
    bread: np.ndarray
    """The (pseudo-)inverse of ``X'X`` over the regressors used, 0 elsewhere (k x k)."""
    sums: Sums
    """What it was fitted from."""


def solve(sums: Sums, used: Sequence[int] | None = None) -> Fit:
    """The least-squares fit of a group on the regressors ``used`` (default: all), by the
    pseudo-inverse of their ``X'X`` (the minimum-norm fit when they are collinear)."""
    k = sums.xtx.shape[0]
    keep = tuple(range(k)) if used is None else tuple(used)
    at = np.ix_(keep, keep)
    bread = np.zeros((k, k))
    bread[at] = np.linalg.pinv(sums.xtx[at])
    coef = np.zeros((k, sums.xty.shape[1]))
    coef[list(keep)] = bread[at] @ sums.xty[list(keep)]
    return Fit(keep, coef, bread, sums)


Frozen = tuple[tuple[Group, tuple[tuple[float, ...], ...]], ...]
"""Coefficients per group as nested tuples (hashable: a :class:`Partial`'s argument)."""


def frozen(fits: Mapping[Group, Fit]) -> Frozen:
    return tuple(
        (g, tuple(tuple(float(v) for v in row) for row in f.coef)) for g, f in fits.items()
    )


_BATCH = 4096
"""Clusters whose joint score vectors a chunk holds at once."""


def _scores_map(chunk: Chunk, design: DesignFn, args: tuple, coefs: Frozen, joint: bool):
    """Per group and outcome the chunk's scores summed per cluster, as
    :func:`~reports.aggregate.outer_part` (whole clusters folded, split ones raw); with
    ``joint`` per outcome the groups' score sums side by side (group after group in
    ``coefs`` order, k columns each), :data:`_BATCH` clusters at a time."""
    d = design(chunk, *args)
    k = d.x.shape[1]
    scores: dict[Group, list[tuple[np.ndarray, np.ndarray]]] = {}
    for g, coef in coefs:
        if g in d.groups:
            at = d.groups[g]
            x = d.x[at]
            e = d.y[at] - x @ np.asarray(coef)
            scores[g] = [cluster_sums(d.clusters[at], x * e[:, j, None]) for j in range(e.shape[1])]
    per_group = {g: [outer_part(chunk, *s) for s in outcomes] for g, outcomes in scores.items()}
    if not joint:
        return per_group, None
    block = {g: i for i, (g, _) in enumerate(coefs)}
    width = k * len(coefs)
    ids = np.unique(np.concatenate([np.zeros(0, np.int64), *(s[0][0] for s in scores.values())]))
    together = []
    for j in range(d.y.shape[1]):
        total = Cross.zeros(width)
        split_ids, split_sums = [np.zeros(0, np.int64)], [np.zeros((0, width))]
        for a in range(0, len(ids), _BATCH):
            part = ids[a : a + _BATCH]
            v = np.zeros((len(part), width))
            for g, outcomes in scores.items():
                cid, sums = outcomes[j]
                lo, hi = np.searchsorted(cid, [part[0], part[-1] + 1])
                at = block[g] * k
                v[np.searchsorted(part, cid[lo:hi]), at : at + k] = sums[lo:hi]
            cross, (sid, ssum) = outer_part(chunk, part, v)
            total = total + cross
            split_ids.append(sid)
            split_sums.append(ssum)
        together.append((total, (np.concatenate(split_ids), np.concatenate(split_sums))))
    return per_group, together


@dataclasses.dataclass(frozen=True)
class Meats:
    """The scores' :class:`Cross` per group and outcome, and with ``joint`` per outcome over
    every group side by side."""

    groups: dict[Group, list[Cross]]
    joint: list[Cross] | None


def _scores_reduce(parts: list, design: DesignFn, args: tuple, coefs: Frozen, joint: bool):
    groups = {}
    for g, coef in coefs:
        mine = [p[g] for p, _ in parts if g in p]
        width = len(coef)
        groups[g] = [combine_outer([m[j] for m in mine], width) for j in range(len(coef[0]))]
    together = None
    if joint:
        width = len(coefs[0][1]) * len(coefs)
        m = len(coefs[0][1][0])
        together = [combine_outer([t[j] for _, t in parts], width) for j in range(m)]
    return Meats(groups, together)


def scores_partial(
    design: DesignFn, args: tuple, fits: Mapping[Group, Fit], joint: bool = False
) -> Partial:
    """The second pass, at the coefficients of ``fits``: :class:`Meats`."""
    name = f"scores:{design.__qualname__}"
    return Partial(name, _scores_map, _scores_reduce, (design, args, frozen(fits), joint))


@dataclasses.dataclass(frozen=True)
class Model:
    """Fitted groups with their meats: :meth:`covariance` of a group's coefficients,
    :meth:`joint_covariance` of every group's at once."""

    fits: dict[Group, Fit]
    meats: Meats

    def covariance(self, group: Group, outcome: int = 0) -> np.ndarray:
        """The cluster-robust covariance of a group's coefficients (k x k, 0 outside the
        regressors used)."""
        meat = self.meats.groups[group][outcome]
        return sandwich(self.fits[group].bread, meat.outer, meat.clusters)

    def joint_covariance(self, outcome: int = 0) -> np.ndarray:
        """The covariance of every group's coefficients at once (group after group in
        :attr:`fits` order, k each), clustered across groups; needs a model fitted with
        ``joint``."""
        assert self.meats.joint is not None, "fitted without joint"
        k = next(iter(self.fits.values())).bread.shape[0]
        bread = np.zeros((k * len(self.fits), k * len(self.fits)))
        for i, f in enumerate(self.fits.values()):
            bread[i * k : (i + 1) * k, i * k : (i + 1) * k] = f.bread
        meat = self.meats.joint[outcome]
        return sandwich(bread, meat.outer, meat.clusters)


def fit(
    run: RunData,
    design: DesignFn,
    args: tuple = (),
    used: Callable[[Sums], Sequence[int] | None] | None = None,
    mapper: Mapper | None = None,
    joint: bool = False,
) -> Model:
    """The model of every group of ``run``'s rows: the sums (taken from the report's one
    pass when it computed them), then the scores' pass. ``used(sums)`` names the regressors a
    group is fitted on, ``None`` when the group is not estimable (left out); default: all."""
    sums = run_one(run, sums_partial(design, args), mapper)
    fits = {}
    for g, s in sums.items():
        keep = used(s) if used is not None else tuple(range(s.xtx.shape[0]))
        if keep is not None:
            fits[g] = solve(s, keep)
    if not fits:
        return Model({}, Meats({}, [] if joint else None))
    base, first_mapper = second_pass(run)
    meats = run_one(base, scores_partial(design, args, fits, joint), mapper or first_mapper)
    return Model(fits, meats)
