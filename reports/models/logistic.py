"""Penalised logistic regression by Newton's method, with a cluster-robust sandwich.

The model ``logit P(y = 1) = x b`` is fitted by maximising the penalised log-likelihood
``l(b) - 1/2 sum_j pen_j b_j^2`` (an L2 penalty per coefficient: a normal prior of variance
``1 / pen_j``, none where ``pen_j`` is 0). Each Newton step needs, at the current ``b``, the
gradient ``X'(y - p)`` and the information ``X' diag(p (1 - p)) X``: sums over the rows, so
a step is one pass over the data, however it is stored (:func:`terms` on each part of the
rows, added up: :func:`chunk_terms` and :func:`combine` for a run's chunks, :func:`frame_sums`
for rows in memory); several models step side by side in the same passes (:func:`newton`).
The same pass sums each cluster's scores ``x (y - p)``: the sandwich's meat, so a converged
fit's covariance needs no further pass.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence

import numpy as np
from scipy.special import expit

from reports.aggregate import Chunk, cluster_sums, combine_outer, outer_part
from reports.models.clustered import Cross, gram, sandwich

NEWTON_STEP = 1e-8
"""A fit has converged when no coefficient's Newton step is larger than this."""
MAX_PASSES = 30
"""Newton steps (passes over the data) before a fit gives up."""


@dataclasses.dataclass(frozen=True)
class Sums:
    """A model's sums over the rows at one ``b``: the log-likelihood's gradient and
    information, the log-likelihood, ``sum p (1 - p)``, the rows, and the meat (a
    :class:`~reports.models.clustered.Cross` of the clusters' score sums)."""

    grad: np.ndarray
    info: np.ndarray
    loglik: float
    pq: float
    rows: int
    meat: Cross


Terms = tuple[np.ndarray, np.ndarray, float, float, np.ndarray]
"""Gradient, information, log-likelihood, ``sum p (1 - p)`` and each row's score."""


def terms(x: np.ndarray, y: np.ndarray, beta: np.ndarray) -> Terms:
    """Gradient, information, log-likelihood, ``sum p (1 - p)`` and each row's score of rows
    ``x``, ``y`` at ``beta``. Products are numpy loops (``einsum``), not BLAS (see
    :func:`~reports.models.clustered.gram`)."""
    eta = np.einsum("nk,k->n", x, beta)
    p = expit(eta)
    r = y - p
    loglik = float(np.sum(y * eta - np.logaddexp(0.0, eta)))
    w = p * (1 - p)
    grad = np.einsum("nk,n->k", x, r)
    info = np.einsum("nk,nl->kl", x * w[:, None], x)
    return grad, info, loglik, float(w.sum()), x * r[:, None]


def chunk_terms(
    chunk: Chunk, x: np.ndarray, y: np.ndarray, clusters: np.ndarray, beta: Sequence[float]
) -> tuple:
    """One chunk's part of a model's :class:`Sums` (a partial's map): the sums, and the
    scores per cluster as :func:`~reports.aggregate.outer_part` (rows in cluster order)."""
    grad, info, loglik, pq, scores = terms(x, y, np.asarray(beta))
    return grad, info, loglik, pq, len(y), outer_part(chunk, *cluster_sums(clusters, scores))


def combine(parts: Sequence[tuple], width: int) -> Sums:
    """A model's :class:`Sums` over the run from every chunk's :func:`chunk_terms`."""
    return Sums(
        sum(p[0] for p in parts),
        sum(p[1] for p in parts),
        float(sum(p[2] for p in parts)),
        float(sum(p[3] for p in parts)),
        int(sum(p[4] for p in parts)),
        combine_outer([p[5] for p in parts], width),
    )


def frame_sums(x: np.ndarray, y: np.ndarray, clusters: np.ndarray, beta: np.ndarray) -> Sums:
    """A model's :class:`Sums` over rows held in memory (any cluster order)."""
    grad, info, loglik, pq, scores = terms(x, y, beta)
    _, ids = np.unique(clusters, return_inverse=True)
    _, per = cluster_sums(ids, scores)
    return Sums(grad, info, loglik, pq, len(y), Cross(per.sum(axis=0), gram(per), len(per)))


@dataclasses.dataclass(frozen=True)
class Fit:
    """A converged model: its coefficients, the sums of its last pass and the bread there
    (the inverse of the penalised information)."""

    coef: np.ndarray
    sums: Sums
    bread: np.ndarray

    def covariance(self, small_sample: bool = True) -> np.ndarray:
        """The coefficients' cluster-robust covariance (``small_sample``: with the factor
        ``C / (C - 1)``, :func:`~reports.models.clustered.sandwich`)."""
        clusters = self.sums.meat.clusters if small_sample else None
        return sandwich(self.bread, self.sums.meat.outer, clusters)


Evaluate = Callable[[Sequence[int], Sequence[np.ndarray]], Iterable[Sums]]
"""``evaluate(models, betas)``: the :class:`Sums` of those models at those coefficients (one
pass over the data for all of them)."""


def newton(evaluate: Evaluate, penalties: Sequence[np.ndarray]) -> list[Fit]:
    """Newton's method on the penalised log-likelihood of several models at once, from 0
    (model ``i`` has ``len(penalties[i])`` coefficients). A step that lowers the penalised
    likelihood is halved; a model is done when no coefficient's step exceeds
    :data:`NEWTON_STEP`."""
    betas = [np.zeros(len(p)) for p in penalties]
    sums = dict(zip(range(len(penalties)), evaluate(range(len(penalties)), betas), strict=True))
    best: dict[int, tuple[float, np.ndarray]] = {}
    done: dict[int, Fit] = {}
    for _ in range(MAX_PASSES):
        todo = []
        for i, s in sums.items():
            pen, b = penalties[i], betas[i]
            f = s.loglik - 0.5 * float(np.sum(pen * b**2))
            if i in best and f < best[i][0] - 1e-12 * abs(best[i][0]):
                betas[i] = (best[i][1] + b) / 2  # overshot: back half way
                todo.append(i)
                continue
            best[i] = (f, b)
            info = s.info + np.diag(pen)
            step = np.linalg.lstsq(info, s.grad - pen * b, rcond=None)[0]
            if np.max(np.abs(step), initial=0.0) <= NEWTON_STEP:
                done[i] = Fit(b + step, s, np.linalg.pinv(info))
            else:
                betas[i] = b + step
                todo.append(i)
        if not todo:
            return [done[i] for i in range(len(penalties))]
        sums = dict(zip(todo, evaluate(todo, [betas[i] for i in todo]), strict=True))
    raise RuntimeError(f"a logistic model did not converge in {MAX_PASSES} Newton steps")
