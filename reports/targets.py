"""A designer's target, ``first_share=0.5,length=12,capped<0.001``: parsed, measured, combined.

Terms, joined by ``,``:

* ``M`` minimise metric ``M`` (``seat_gap``);
* ``M=V`` bring ``M`` to ``V`` (``first_share=0.5``);
* ``M<V``, ``M>V`` (or ``<=``, ``>=``): a constraint, met when the estimate is on its side.

Every metric has a *scale* (:attr:`reports.metrics.Metric.scale`: one percentage point of win
share, one round ...); ``M=V~S`` sets another for one term. The *distance* of a configuration
from the target is the sum over its terms of ``|M - V| / S`` (``M / S`` for a minimised
metric): 1.0 is one scale unit off on one term. Constraints do not enter the distance; a
configuration that violates one is infeasible whatever its distance.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence

import numpy as np

from reports.aggregate import Chunk, chunks
from reports.measure import Features, TableMeasure, chunk_features, delta
from reports.metrics import Context, Estimate, MetricError, Ref, resolve, split_names, tables_for
from reports.models.clustered import Cross, gram, means_covariance
from reports.source import RunData
from reports.stats import Z95

_TERM = re.compile(
    r"^\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?)\s*"
    r"(?:(?P<op><=|>=|=|<|>)\s*(?P<value>[^~\s]+)\s*(?:~\s*(?P<scale>\S+))?)?\s*$"
)


@dataclasses.dataclass(frozen=True)
class Term:
    """One term of a target."""

    metric: str
    op: str
    """``min``, ``=``, ``<`` or ``>``."""
    value: float | None = None
    scale: float | None = None
    """Overrides the metric's scale (``~S``)."""

    @property
    def is_constraint(self) -> bool:
        return self.op in ("<", ">")

    def text(self) -> str:
        if self.op == "min":
            return f"minimise {self.metric}"
        tail = f" (scale {self.scale:g})" if self.scale is not None else ""
        return f"{self.metric} {self.op} {self.value:g}{tail}"


@dataclasses.dataclass(frozen=True)
class Target:
    """A parsed target; :meth:`bind` resolves its metrics for a configuration."""

    terms: tuple[Term, ...]
    text: str

    @classmethod
    def parse(cls, text: str) -> Target:
        """Parse ``EXPR``; one-line :class:`MetricError` naming a malformed term."""
        terms = []
        for part in split_names(text):
            found = _TERM.match(part)
            if not found:
                raise MetricError(
                    f"cannot read the target term '{part.strip()}' (write M, M=V, M<V or M>V, "
                    "e.g. first_share=0.5,capped<0.001)"
                )
            op = found.group("op") or "min"
            op = {"<=": "<", ">=": ">"}.get(op, op)
            value = _number(found.group("value"), part) if found.group("value") else None
            scale = _number(found.group("scale"), part) if found.group("scale") else None
            if scale is not None and not scale > 0:
                raise MetricError(f"the scale of '{part.strip()}' must be positive")
            terms.append(Term(found.group("name"), op, value, scale))
        if not terms:
            raise MetricError("the target is empty (e.g. --target first_share=0.5)")
        return cls(tuple(terms), text.strip())

    def require_objective(self) -> None:
        """A search needs something to minimise, not only constraints."""
        if all(t.is_constraint for t in self.terms):
            raise MetricError(
                f"the target '{self.text}' has only constraints; add a metric to minimise or "
                "bring to a value (e.g. seat_gap, or first_share=0.5)"
            )

    def bind(self, ctx: Context) -> BoundTarget:
        """The target's metrics resolved for a configuration (unknown ones refused)."""
        refs = tuple(resolve(t.metric, ctx) for t in self.terms)
        return BoundTarget(self, refs)

    def describe(self) -> str:
        return "; ".join(t.text() for t in self.terms)


def _number(text: str, term: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise MetricError(f"'{text}' in the target term '{term.strip()}' is not a number") from None
    if value != value or abs(value) == float("inf"):
        raise MetricError(f"'{text}' in the target term '{term.strip()}' is not a finite number")
    return value


@dataclasses.dataclass(frozen=True)
class BoundTarget:
    """A target with its metrics resolved."""

    target: Target
    refs: tuple[Ref, ...]

    @property
    def names(self) -> list[str]:
        return list(dict.fromkeys(r.name for r in self.refs))

    def scale(self, i: int) -> float:
        t = self.target.terms[i]
        return t.scale if t.scale is not None else self.refs[i].metric.scale

    def distance(self, values: Mapping[str, float]) -> float:
        """The combined distance (see the module docstring) of metric values."""
        total = 0.0
        for i, (t, r) in enumerate(zip(self.target.terms, self.refs, strict=True)):
            v = values[r.name]
            if t.op == "min":
                total += v / self.scale(i)
            elif t.op == "=":
                assert t.value is not None
                total += abs(v - t.value) / self.scale(i)
        return total

    def violations(self, values: Mapping[str, float]) -> list[float]:
        """Each constraint's violation in its scale units (<= 0: met)."""
        out = []
        for i, (t, r) in enumerate(zip(self.target.terms, self.refs, strict=True)):
            if t.is_constraint:
                assert t.value is not None
                gap = values[r.name] - t.value if t.op == "<" else t.value - values[r.name]
                out.append(gap / self.scale(i))
        return out

    def feasible(self, values: Mapping[str, float]) -> bool:
        return all(v <= 0 for v in self.violations(values))

    def meets(self, est: Mapping[str, Estimate], lowest: Mapping[str, float] | None = None) -> bool:
        """Within noise of every value term (its 95% interval holds the value), of the lowest
        value of every minimised metric among the compared configurations (``lowest``; its
        interval reaches down to it) and on the right side of every constraint (by the
        estimate)."""
        for t, r in zip(self.target.terms, self.refs, strict=True):
            e = est[r.name]
            if t.op == "=" and not e.lo <= (t.value or 0.0) <= e.hi:
                return False
            if t.op == "min" and lowest is not None and e.lo > lowest[r.name]:
                return False
        return self.feasible({k: e.value for k, e in est.items()})

    def describe_scale(self) -> str:
        """How the terms are combined, for reports."""
        parts = []
        for i, (t, r) in enumerate(zip(self.target.terms, self.refs, strict=True)):
            if not t.is_constraint:
                parts.append(f"{r.name}: 1 unit = {self.scale(i):g} {r.metric.unit}")
        if not parts:
            return "constraints only: a configuration meets them or not"
        return (
            "distance = sum over the terms of |metric - target| / scale (metric / scale for a "
            "minimised metric); " + "; ".join(parts)
        )


@dataclasses.dataclass(frozen=True)
class Score:
    """A configuration's distance from the target (with its 95% interval), whether it meets
    every constraint (by the estimates), and every target metric's estimate."""

    distance: float
    se: float
    lo: float
    hi: float
    feasible: bool
    violation: float
    """The largest constraint violation in scale units (<= 0: every constraint met)."""
    metrics: dict[str, Estimate]
    games: int

    def to_dict(self) -> dict:
        return {
            "distance": {"value": self.distance, "ci": [self.lo, self.hi], "se": self.se},
            "feasible": self.feasible,
            "violation": self.violation,
            "metrics": {k: e.to_dict() for k, e in self.metrics.items()},
            "games": self.games,
        }


def pool(blocks: Sequence[Features]) -> Features:
    """Several blocks' per-cluster sums as one (blocks hold different games)."""
    if len(blocks) == 1:
        return blocks[0]
    names = blocks[0].names
    if any(b.names != names for b in blocks):
        raise ValueError("blocks measured different features")
    return Features(
        names,
        np.concatenate([b.clusters for b in blocks]),
        np.vstack([b.sums for b in blocks]),
        np.concatenate([b.games for b in blocks]),
    )


def _cross(*parts: Features) -> Cross:
    """The :class:`Cross` of per-cluster vectors ``(S of each part ..., n of each part ...)``
    (the parts hold the same clusters, in the same order)."""
    for p in parts[1:]:
        if not np.array_equal(p.clusters, parts[0].clusters):
            raise ValueError("paired blocks must hold the same games")
    v = np.column_stack([*(p.sums for p in parts), *(p.games for p in parts)])
    return Cross(v.sum(axis=0), gram(v), len(v))


class TargetJudge:
    """Scores configurations against a target from the per-cluster feature sums of the seed
    blocks they played (every target metric must be a mean metric), and compares two
    configurations on the same blocks game by game (common random numbers)."""

    def __init__(self, bound: BoundTarget):
        run_metrics = [r.name for r in bound.refs if not r.metric.is_mean]
        if run_metrics:
            raise MetricError(
                f"a search measures its target game by game; {', '.join(run_metrics)} comes "
                "from a whole-run model fit: use dinolab sweep for it"
            )
        self.bound = bound
        self.features = tuple(dict.fromkeys(f for r in bound.refs for f in r.features))
        self.can_be_negative = any(  # a minimised metric that may be negative
            t.op == "min" and (r.metric.bounds[0] is None or r.metric.bounds[0] < 0)
            for t, r in zip(bound.target.terms, bound.refs, strict=True)
        )
        self.chunk = TableMeasure(self.features)
        self.tables = tables_for(bound.refs)
        self.names = bound.names

    def _values(self, names: Sequence[str], x: np.ndarray) -> dict[str, float]:
        means = dict(zip(names, x.tolist(), strict=True))
        return {r.name: r.value(means) for r in self.bound.refs}

    def run_features(self, run: RunData, measured: Mapping[int, Features]) -> list[Features]:
        """A finished run's per-cluster sums, chunk by chunk (``measured``: what the workers
        took; other chunks are read from the files)."""
        out = []
        for i, a, b in chunks(run):
            chunk = Chunk(i, a, b, run.n_players, bool(run.config.get("rotate")), run)
            f = measured.get(i)
            out.append(f if f is not None else chunk_features(chunk, self.features))
        return out

    def score(self, blocks: Sequence[Features]) -> Score:
        """The distance and metrics of one configuration from its blocks."""
        f = pool(blocks)
        m, n, cov = means_covariance(_cross(f), [0] * len(f.names))
        dist, se = delta(lambda x: self.bound.distance(self._values(f.names, x)), m, cov)
        metrics = {}
        for r in self.bound.refs:
            v, s = delta(
                lambda x, r=r: r.value(dict(zip(f.names, x.tolist(), strict=True))), m, cov
            )
            metrics[r.name] = Estimate.normal(v, s, int(n[0]) if len(n) else 0, r.metric.bounds)
        violations = self.bound.violations({k: e.value for k, e in metrics.items()})
        worst = max(violations) if violations else 0.0
        lo = dist - Z95 * se if self.can_be_negative else max(0.0, dist - Z95 * se)
        return Score(
            dist,
            se,
            lo,
            dist + Z95 * se,
            worst <= 0,
            worst,
            metrics,
            int(f.games.sum()),
        )

    def versus(
        self, a: Sequence[Features], b: Sequence[Features]
    ) -> tuple[float, float, list[tuple[float, float]]]:
        """``distance(b) - distance(a)`` on the same blocks, its standard error, and each
        constraint's violation in ``b`` with its standard error (scale units)."""
        fa, fb = pool(a), pool(b)
        k = len(fa.names)
        m, _, cov = means_covariance(_cross(fa, fb), [0] * k + [1] * k)

        def diff(x: np.ndarray) -> float:
            return self.bound.distance(self._values(fa.names, x[k:])) - self.bound.distance(
                self._values(fa.names, x[:k])
            )

        d, se = delta(diff, m, cov)
        out = []
        for i in range(len(self.bound.violations(self._values(fa.names, m[k:])))):
            v, s = delta(
                lambda x, i=i: self.bound.violations(self._values(fa.names, x[k:]))[i], m, cov
            )
            out.append((v, s))
        return d, se, out
