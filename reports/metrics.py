"""Metrics, declared once: what the report's headline, ``compare``, sweeps and searches measure.

A :class:`Metric` has a name (``balance``; a family takes an argument, ``seat_share[K]``), a
meaning, a unit and a *scale* (the difference a designer would call one unit of distance when
several targets are combined: one percentage point of win share, one round ...). Two kinds:

*Mean metrics* are a smooth function ``g`` of the means over games of per-game *features*
(``features(chunk)``: one row per game, in game order, with named columns). Their interval is
the delta method's with the features' cluster-robust covariance (a deal's rotated games are one
cluster), and two runs that played the same games (same seed) are compared game by game: the
features of both are summed per cluster together, so the difference's interval uses their
covariance (common random numbers). Every shared metric is of this kind, computed chunk by
chunk from the per-cluster sums (:class:`Features`), so memory does not grow with the run, and
a study's workers compute the sums where the rows are (:func:`measure_tables`).

*Run metrics* come from a whole-run analysis of the game's report (a fitted model: EVO's gene
surplus, Table Battles' rating correlation) with that analysis's own interval; runs are
compared with independent intervals.

The shared metrics are :data:`SHARED`; each game's report module adds its own in ``METRICS``
(and names the player who moved first in ``first_mover(chunk)`` for ``first_share``).
:func:`catalogue` lists what a game offers; :func:`resolve` turns ``seat_share[2]`` into a
:class:`Ref` for a configuration, refusing unknown names in one line.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

import numpy as np
import polars as pl

from reports.aggregate import (
    Chunk,
    Cross,
    Mapper,
    Partial,
    chunks,
    cluster_sums,
    combine_outer,
    outer_part,
    read_range,
    run_all,
)
from reports.source import RunData
from reports.stats import Z95


class MetricError(ValueError):
    """An unknown metric, or one this game or configuration cannot measure."""


@dataclasses.dataclass(frozen=True)
class Estimate:
    """A metric's value with its standard error and 95% interval, from ``games`` games."""

    value: float
    se: float
    lo: float
    hi: float
    games: int

    def to_dict(self) -> dict[str, Any]:
        """The JSON form studies write: ``{"value", "ci", "se", "games"}``."""
        return {"value": self.value, "ci": [self.lo, self.hi], "se": self.se, "games": self.games}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Estimate:
        return cls(d["value"], d["se"], d["ci"][0], d["ci"][1], d["games"])

    @classmethod
    def normal(
        cls,
        value: float,
        se: float,
        games: int,
        bounds: tuple[float | None, float | None] = (None, None),
    ) -> Estimate:
        """A normal 95% interval, cut to the quantity's ``bounds`` (a share is within 0..1)."""
        lo, hi = value - Z95 * se, value + Z95 * se
        if bounds[0] is not None:
            lo = max(lo, bounds[0])
        if bounds[1] is not None:
            hi = min(hi, bounds[1])
        return cls(value, se, lo, hi, games)


@dataclasses.dataclass(frozen=True)
class Feature:
    """Per-game columns: ``fn(chunk, *args)`` returns ``game_id`` and float columns, one row
    per game of the chunk in game order (module-level ``fn``: workers import it by name)."""

    fn: Callable[..., pl.DataFrame]
    args: tuple = ()

    def frame(self, chunk: Chunk) -> pl.DataFrame:
        key = f"feature:{self.fn.__module__}.{self.fn.__qualname__}{self.args!r}"
        return chunk.cached(key, lambda: self.fn(chunk, *self.args))


@dataclasses.dataclass(frozen=True)
class Context:
    """What a metric needs to know of a configuration (known before a run is played)."""

    game: str
    n_players: int
    labels: tuple[str, ...]
    """The lineup's strategy labels (as the players table writes them), each once."""
    columns: Mapping[str, tuple[str, ...]]
    """The columns of every table the run logs."""
    module: ModuleType | None = None
    """The game's report module (its ``METRICS`` and ``first_mover``)."""

    @classmethod
    def of(cls, run: RunData, module: ModuleType | None = None) -> Context:
        tables = run.manifest["tables"]
        return cls(
            run.game,
            run.n_players,
            tuple(run.manifest["strategies"]),
            {t: tuple(c["name"] for c in d["columns"]) for t, d in tables.items()},
            module,
        )


Formula = Callable[[Mapping[str, float], "str | None"], float]


@dataclasses.dataclass(frozen=True)
class Metric:
    """A metric's declaration (see the module docstring)."""

    name: str
    meaning: str
    unit: str
    scale: float
    """One unit of distance for targets on this metric (a difference a designer notices)."""
    tables: tuple[str, ...] = ("games", "players")
    """The tables it reads (a study logs these)."""
    arg: str | None = None
    """The argument of a family (``K`` in ``seat_share[K]``)."""
    args: Callable[[Context], Sequence[str]] | None = None
    """The family's arguments for a configuration."""
    features: Callable[[Context, str | None], Sequence[Feature]] | None = None
    """A mean metric's per-game features for a configuration and argument."""
    formula: Formula | None = None
    """A mean metric's value from its features' means."""
    measure: Callable[[RunData, str | None, Mapper | None], Estimate] | None = None
    """A run metric's estimate from a whole run."""
    unavailable: Callable[[Context], str | None] | None = None
    """Why the metric cannot be measured for a configuration (``None``: it can)."""
    more_tables: Callable[[Context], tuple[str, ...]] | None = None
    """Tables it reads besides :attr:`tables` that depend on the game."""
    bounds: tuple[float | None, float | None] = (0.0, 1.0)
    """The values it can take (intervals are cut to them); a share by default."""

    def tables_for(self, ctx: Context) -> tuple[str, ...]:
        extra = self.more_tables(ctx) if self.more_tables is not None else ()
        return tuple(dict.fromkeys([*self.tables, *extra]))

    @property
    def is_mean(self) -> bool:
        return self.formula is not None

    @property
    def usage(self) -> str:
        return f"{self.name}[{self.arg}]" if self.arg else self.name

    def why_not(self, ctx: Context) -> str | None:
        if self.unavailable is not None and (why := self.unavailable(ctx)) is not None:
            return why
        missing = [t for t in self.tables_for(ctx) if t not in ctx.columns]
        if missing:
            return f"it reads the {', '.join(missing)} table(s), which this run does not log"
        return None


@dataclasses.dataclass(frozen=True)
class Ref:
    """A metric made concrete for a configuration: ``seat_share[2]``."""

    metric: Metric
    arg: str | None
    features: tuple[Feature, ...] = ()
    tables: tuple[str, ...] = ()
    """The tables it reads."""

    @property
    def name(self) -> str:
        return f"{self.metric.name}[{self.arg}]" if self.arg is not None else self.metric.name

    def value(self, means: Mapping[str, float]) -> float:
        """The metric from its features' means (NaN where it is undefined, e.g. 0/0)."""
        assert self.metric.formula is not None
        try:
            return float(self.metric.formula(means, self.arg))
        except ZeroDivisionError:
            return float("nan")


# ------------------------------------------------------------------ shared features


@dataclasses.dataclass(frozen=True)
class SeatGrid:
    """A chunk's outcomes as game x seat arrays (games in order, seats in order)."""

    game_id: np.ndarray
    share: np.ndarray
    """Win share: 1 for an outright win, 1/k for a k-way shared one, 0 otherwise."""
    strategy: pl.Series
    """The strategy label of every players row, game by game and seat by seat."""


def seat_grid(chunk: Chunk) -> SeatGrid:
    """The chunk's players rows as game x seat arrays (computed once per chunk)."""
    return chunk.cached("metrics.seat_grid", lambda: _seat_grid(chunk))


def _seat_grid(chunk: Chunk) -> SeatGrid:
    """Rows come game by game and seat by seat as the kernels write them; others are sorted
    first."""
    p = chunk.n_players
    players = chunk.table("players", ["game_id", "seat", "strategy", "winner"])
    games = chunk.table("games", ["game_id", "n_winners"])
    gid, seat = players["game_id"].to_numpy(), players["seat"].to_numpy()
    ordered = (
        len(gid) == p * games.height
        and np.array_equal(seat, np.tile(np.arange(p, dtype=seat.dtype), games.height))
        and np.array_equal(gid[::p], games["game_id"].to_numpy())
        and bool(np.all(np.diff(gid[::p]) > 0))
    )
    if not ordered:
        players = players.sort("game_id", "seat")
        games = games.sort("game_id")
        gid = players["game_id"].to_numpy()
    n = games["n_winners"].to_numpy().astype(np.float64)
    won = players["winner"].to_numpy().reshape(-1, p).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n[:, None] > 0, won / n[:, None], 0.0)
    return SeatGrid(gid[::p], share, players["strategy"].cast(pl.String))


def seat_features(chunk: Chunk) -> pl.DataFrame:
    """Each seat's win share in each game: ``share_0 .. share_{P-1}``."""
    g = seat_grid(chunk)
    out = {"game_id": g.game_id}
    out.update({f"share_{s}": g.share[:, s] for s in range(chunk.n_players)})
    return pl.DataFrame(out)


def outcome_features(chunk: Chunk) -> pl.DataFrame:
    """Per game: ``rounds``, ``shared`` (a shared victory) and ``capped`` (stopped by a cap;
    0 for a game that has no cap)."""
    cols = chunk.run.manifest["tables"]["games"]["columns"]
    names = {c["name"] for c in cols}
    wanted = ["game_id", "n_winners", "rounds"]
    wanted += [c for c in ("capped", "end_reason") if c in names]
    g = chunk.table("games", wanted)
    if "capped" in names:
        capped = pl.col("capped").cast(pl.Float64)
    elif "end_reason" in names:
        capped = (pl.col("end_reason").cast(pl.String) == "turn cap").cast(pl.Float64)
    else:
        capped = pl.lit(0.0)
    return g.select(
        "game_id",
        rounds=pl.col("rounds").cast(pl.Float64),
        shared=(pl.col("n_winners") > 1).cast(pl.Float64),
        capped=capped,
    )


def can_cap(ctx: Context) -> str | None:
    games = ctx.columns.get("games", ())
    if "capped" in games or "end_reason" in games:
        return None
    return f"{ctx.game} games cannot be capped (no turn cap in its rules)"


def first_features(chunk: Chunk, first_mover: Callable[[Chunk], pl.DataFrame]) -> pl.DataFrame:
    """Per game: ``first``, the win share of the seat that moved first (``first_mover``: the
    game's ``game_id, first_seat`` per game)."""
    seats = Feature(seat_features).frame(chunk)
    first = first_mover(chunk)
    if first.height != seats.height or not first["game_id"].equals(seats["game_id"]):
        first = seats.select("game_id").join(first, on="game_id", how="left")
    who = first["first_seat"].to_numpy().astype(np.int64)
    share = seats.select(f"share_{s}" for s in range(chunk.n_players)).to_numpy()
    return pl.DataFrame({"game_id": seats["game_id"], "first": share[np.arange(len(who)), who]})


def strategy_features(chunk: Chunk) -> pl.DataFrame:
    """Per game and strategy label L: ``won:L``, the summed win share of its seats, and
    ``seats:L``, how many seats it played."""
    g = seat_grid(chunk)
    p = chunk.n_players
    labels = sorted(g.strategy.unique().to_list())
    code = g.strategy.replace_strict(labels, range(len(labels)), return_dtype=pl.Int64)
    code = code.to_numpy().reshape(-1, p)
    out: dict[str, Any] = {"game_id": g.game_id}
    for k, label in enumerate(labels):
        mine = code == k
        out[f"won:{label}"] = (g.share * mine).sum(axis=1)
        out[f"seats:{label}"] = mine.sum(axis=1).astype(np.float64)
    return pl.DataFrame(out)


def _seats(ctx: Context) -> list[str]:
    return [str(s) for s in range(ctx.n_players)]


def _gap(m: Mapping[str, float], _arg: str | None) -> float:
    shares = [v for k, v in m.items() if k.startswith("share_")]
    return max(shares) - min(shares)


def _no_first(ctx: Context) -> str | None:
    if ctx.module is None or not hasattr(ctx.module, "first_mover"):
        return f"{ctx.game}'s logs do not name the player who moved first"
    return None


def _first_features(ctx: Context, _arg: str | None) -> list[Feature]:
    assert ctx.module is not None
    return [Feature(first_features, (ctx.module.first_mover,))]


def _mean_of(column: str) -> Formula:
    return lambda m, _arg: m[column]


SEATS = (Feature(seat_features),)
OUTCOMES = (Feature(outcome_features),)

SHARED: tuple[Metric, ...] = (
    Metric(
        "balance",
        "1 minus the largest gap between two seats' win shares (Ludii's balance; 1 = equal "
        "seats); biased low by sampling noise on few games",
        "share",
        0.01,
        features=lambda ctx, arg: SEATS,
        formula=lambda m, arg: 1.0 - _gap(m, arg),
    ),
    Metric(
        "seat_gap",
        "the largest gap between two seats' win shares (0 = equal seats)",
        "share",
        0.01,
        features=lambda ctx, arg: SEATS,
        formula=_gap,
    ),
    Metric(
        "seat_share",
        "seat K's win share (1 for an outright win, 1/k for a k-way shared win); fair: 1/P",
        "share",
        0.01,
        arg="K",
        args=_seats,
        features=lambda ctx, arg: SEATS,
        formula=lambda m, arg: m[f"share_{arg}"],
    ),
    Metric(
        "first_share",
        "win share of the player who moved first (the game names who: first player, figure "
        "holder, first initiative); fair: 1/P",
        "share",
        0.01,
        features=_first_features,
        formula=_mean_of("first"),
        unavailable=_no_first,
        more_tables=lambda ctx: tuple(getattr(ctx.module, "FIRST_MOVER_TABLES", ())),
    ),
    Metric(
        "length",
        "mean game length in rounds",
        "rounds",
        1.0,
        bounds=(0.0, None),
        tables=("games",),
        features=lambda ctx, arg: OUTCOMES,
        formula=_mean_of("rounds"),
    ),
    Metric(
        "capped",
        "share of games stopped by a turn cap (no winner)",
        "share of games",
        0.001,
        tables=("games",),
        features=lambda ctx, arg: OUTCOMES,
        formula=_mean_of("capped"),
        unavailable=can_cap,
    ),
    Metric(
        "shared",
        "share of games ending in a shared victory",
        "share of games",
        0.01,
        tables=("games",),
        features=lambda ctx, arg: OUTCOMES,
        formula=_mean_of("shared"),
    ),
    Metric(
        "strategy_share",
        "win share of strategy NAME per seat it played (fair: 1/P)",
        "share",
        0.01,
        arg="NAME",
        args=lambda ctx: list(ctx.labels),
        features=lambda ctx, arg: (Feature(strategy_features),),
        formula=lambda m, arg: m[f"won:{arg}"] / m[f"seats:{arg}"],
    ),
)


# ------------------------------------------------------------------ the catalogue


def catalogue(module: ModuleType | None = None) -> list[Metric]:
    """Every metric of a game: the shared ones, then its report module's ``METRICS``."""
    own = list(getattr(module, "METRICS", ())) if module is not None else []
    names = [m.name for m in SHARED] + [m.name for m in own]
    if len(set(names)) != len(names):
        raise TypeError(f"metric names must be unique, got {names}")
    return [*SHARED, *own]


_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[(.*)\])?\s*$")


def resolve(name: str, ctx: Context) -> Ref:
    """The metric ``name`` (``balance``, ``seat_share[2]``) for a configuration; one-line
    :class:`MetricError` for an unknown name or argument, or one it cannot measure."""
    found = _NAME.match(name)
    metrics = {m.name: m for m in catalogue(ctx.module)}
    if not found or found.group(1) not in metrics:
        known = ", ".join(m.usage for m in metrics.values())
        raise MetricError(f"unknown metric '{name.strip()}' for {ctx.game} (known: {known})")
    metric, arg = metrics[found.group(1)], found.group(2)
    if metric.arg is None and arg is not None:
        raise MetricError(f"metric '{metric.name}' takes no argument, got '{name.strip()}'")
    if metric.arg is not None:
        choices = [str(a) for a in metric.args(ctx)] if metric.args else []
        if arg is None or arg.strip() not in choices:
            raise MetricError(
                f"metric '{metric.usage}' needs {metric.arg} in {', '.join(choices) or 'nothing'}"
                f", got '{name.strip()}'"
            )
        arg = arg.strip()
    if (why := metric.why_not(ctx)) is not None:
        raise MetricError(f"metric '{metric.name}' cannot be measured here: {why}")
    features = tuple(metric.features(ctx, arg)) if metric.features is not None else ()
    return Ref(metric, arg, features, metric.tables_for(ctx))


def expand(ctx: Context, names: Sequence[str] | None = None, strict: bool = True) -> list[Ref]:
    """``names`` resolved (a family's bare name stands for every argument); by default every
    metric this configuration can measure. A named metric it cannot measure is refused, or
    left out when not ``strict``."""
    out: list[Ref] = []
    for metric in catalogue(ctx.module):
        if names is not None and metric.name not in names:
            continue
        if (why := metric.why_not(ctx)) is not None:
            if names is not None and strict:  # asked for by name: say why not
                raise MetricError(f"metric '{metric.name}' cannot be measured here: {why}")
            continue
        args = [str(a) for a in metric.args(ctx)] if metric.arg and metric.args else [None]
        out += [resolve(metric.name if a is None else f"{metric.name}[{a}]", ctx) for a in args]
    for name in names or ():
        if _NAME.match(name) and "[" in name:
            out.append(resolve(name, ctx))
        elif name not in {m.name for m in catalogue(ctx.module)}:
            resolve(name, ctx)  # raises, naming the known metrics
    return list({r.name: r for r in out}.values())


def split_names(text: str) -> list[str]:
    """``balance,seat_share[0],strategy_share[a,b]`` split on commas outside brackets."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "[") - (ch == "]")
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return [n for n in out if n]


def tables_for(refs: Sequence[Ref]) -> tuple[str, ...]:
    """The tables these metrics read."""
    return tuple(dict.fromkeys(t for r in refs for t in r.tables))


# ------------------------------------------------------------------ per-cluster feature sums


@dataclasses.dataclass(frozen=True)
class Features:
    """A chunk's features summed per cluster: ``clusters`` ascending, ``sums[c, f]`` for the
    feature ``names[f]``, and ``games[c]``, the games of cluster ``c``."""

    names: tuple[str, ...]
    clusters: np.ndarray
    sums: np.ndarray
    games: np.ndarray


def feature_frame(chunk: Chunk, features: Sequence[Feature]) -> pl.DataFrame:
    """Every feature's columns for a chunk's games, side by side (one row per game)."""
    frames = [f.frame(chunk) for f in dict.fromkeys(features)]
    out = frames[0]
    for f in frames[1:]:
        if f.height != out.height or not f["game_id"].equals(out["game_id"]):
            raise ValueError("feature frames must have one row per game, in game order")
        out = out.hstack(f.drop("game_id"))
    return out


def chunk_features(chunk: Chunk, features: Sequence[Feature]) -> Features:
    """A chunk's per-cluster feature sums."""
    df = feature_frame(chunk, features)
    names = tuple(c for c in df.columns if c != "game_id")
    gid = df["game_id"].to_numpy()
    ids = gid // chunk.n_players if chunk.rotate else gid
    values = np.column_stack(
        [df[c].cast(pl.Float64).to_numpy() for c in names] + [np.ones(len(gid))]
    )
    clusters, sums = cluster_sums(ids, values)
    return Features(names, clusters, sums[:, :-1], sums[:, -1])


def _features_map(chunk: Chunk, features: tuple[Feature, ...]):
    f = chunk_features(chunk, features)
    return f.names, outer_part(chunk, f.clusters, np.column_stack([f.sums, f.games]))


def _features_reduce(parts, features: tuple[Feature, ...]):
    names = next((n for n, _ in parts), ())
    if any(n != names for n, _ in parts):
        raise ValueError("chunks gave different feature columns (a strategy missing?)")
    return names, combine_outer([p for _, p in parts], len(names) + 1)


def features_partial(features: Sequence[Feature]) -> Partial:
    return Partial("features", _features_map, _features_reduce, (tuple(dict.fromkeys(features)),))


def means_covariance(
    cross: Cross, blocks: Sequence[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Feature means and their cluster-robust covariance from a :class:`Cross` of vectors
    ``(S_1 .. S_k, n_1 .. n_b)``: feature ``f``'s mean is ``S_f / n_{blocks[f]}`` (``b``
    counts: one per run compared). Returns the means, the count of each feature's block and
    ``C/(C-1) * sum_c r_cf r_cg / (N_f N_g)`` with ``r_cf = S_cf - n_{c,b(f)} m_f``."""
    k = len(blocks)
    b = np.asarray(blocks)
    t, o = cross.total, cross.outer
    n = t[k + b]
    with np.errstate(invalid="ignore", divide="ignore"):
        m = t[:k] / n
        ss = o[:k, :k]
        sn = o[:k, k + b]  # sum_c S_cf n_{c,b(g)}
        nn = o[np.ix_(k + b, k + b)]
        inner = ss - sn * m[None, :] - sn.T * m[:, None] + nn * np.outer(m, m)
        c = cross.clusters
        scale = c / (c - 1) if c > 1 else np.nan
        cov = scale * inner / np.outer(n, n)
    return m, n, cov


def gradient(fn: Callable[[np.ndarray], float], m: np.ndarray) -> np.ndarray:
    """Central differences of ``fn`` at ``m``."""
    g = np.zeros(len(m))
    for i in range(len(m)):
        h = 1e-6 * max(1.0, abs(m[i]))
        up, down = m.copy(), m.copy()
        up[i] += h
        down[i] -= h
        g[i] = (fn(up) - fn(down)) / (2 * h)
    return g


def delta(fn: Callable[[np.ndarray], float], m: np.ndarray, cov: np.ndarray) -> tuple[float, float]:
    """``fn(m)`` and its delta-method standard error."""
    value = fn(m)
    g = gradient(fn, m)
    used = g != 0
    var = float(g[used] @ cov[np.ix_(used, used)] @ g[used]) if used.any() else 0.0
    return float(value), math.sqrt(max(var, 0.0)) if var == var else float("nan")


def _as_means(names: Sequence[str], m: np.ndarray) -> dict[str, float]:
    return dict(zip(names, m.tolist(), strict=True))


def estimates(refs: Sequence[Ref], names: Sequence[str], cross: Cross) -> dict[str, Estimate]:
    """Every mean metric's estimate from one run's features (``names``, ``cross``)."""
    k = len(names)
    m, n, cov = means_covariance(cross, [0] * k)
    games = round(float(n[0])) if k else 0
    out = {}
    for r in refs:
        value, se = delta(lambda x, r=r: r.value(_as_means(names, x)), m, cov)
        out[r.name] = Estimate.normal(value, se, games, r.metric.bounds)
    return out


# ------------------------------------------------------------------ whole runs


def measure_run(
    run: RunData, refs: Sequence[Ref], mapper: Mapper | None = None
) -> dict[str, Estimate]:
    """Every metric of ``refs`` on a run: mean metrics in one pass over its chunks, run
    metrics by their analyses."""
    out: dict[str, Estimate] = {}
    mean = [r for r in refs if r.metric.is_mean]
    if mean:
        partial = features_partial([f for r in mean for f in r.features])
        names, cross = run_all(run, [partial], mapper)[partial]
        out.update(estimates(mean, names, cross))
    for r in refs:
        if not r.metric.is_mean:
            assert r.metric.measure is not None
            out[r.name] = r.metric.measure(run, r.arg, mapper)
    return {r.name: out[r.name] for r in refs}


@dataclasses.dataclass(frozen=True)
class Difference:
    """``b - a`` of one metric with its 95% interval; ``paired`` when both runs played the
    same games and the interval uses their covariance."""

    a: Estimate
    b: Estimate
    diff: float
    se: float
    lo: float
    hi: float
    paired: bool


class _Slice:
    """Games ``start .. stop-1`` of a run, read as chunk ``index`` (whatever its chunking):
    to pair a chunk of one run with the same games of another."""

    def __init__(self, run: RunData, start: int, stop: int):
        self.run, self.start, self.stop = run, start, stop
        self.manifest = run.manifest

    def read(self, table: str, chunk: int, columns: Sequence[str] | None = None) -> pl.DataFrame:
        if columns is None:
            return read_range(self.run, table, self.start, self.stop)
        wanted = list(dict.fromkeys(["game_id", *columns]))
        return read_range(self.run, table, self.start, self.stop, wanted).select(columns)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.run, name)


def _pair_map(chunk: Chunk, other: RunData, features: tuple[Feature, ...], swap: bool):
    mine = chunk_features(chunk, features)
    twin = Chunk(
        chunk.index,
        chunk.start,
        chunk.stop,
        chunk.n_players,
        chunk.rotate,
        _Slice(other, chunk.start, chunk.stop),
    )
    theirs = chunk_features(twin, features)
    if mine.names != theirs.names or not np.array_equal(mine.clusters, theirs.clusters):
        raise ValueError("the runs did not play the same games")
    a, b = (theirs, mine) if swap else (mine, theirs)
    v = np.column_stack([a.sums, b.sums, a.games, b.games])
    return mine.names, outer_part(chunk, mine.clusters, v)


def _pair_reduce(parts, other: RunData, features: tuple[Feature, ...], swap: bool):
    names = next((n for n, _ in parts), ())
    return names, combine_outer([p for _, p in parts], 2 * len(names) + 2)


def pairable(a: RunData, b: RunData) -> bool:
    """The runs played the same games from the same deals and dice as far as both go: same
    seed, players and rotation (game ``i`` of one is game ``i`` of the other)."""
    ca, cb = a.config, b.config
    return all(ca.get(k) == cb.get(k) for k in ("seed", "n_players", "rotate"))


def differences(
    a: RunData,
    b: RunData,
    refs: Sequence[Ref],
    mapper: Mapper | None = None,
    known: tuple[Mapping[str, Estimate], Mapping[str, Estimate]] | None = None,
) -> dict[str, Difference]:
    """``b - a`` for every metric: paired game by game for mean metrics when the runs played
    the same games (:func:`pairable`; over the games both played when one played more), else
    from the two runs' standard errors. ``known``: estimates of both runs measured already
    (run metrics are not measured again)."""
    ea, eb = (
        known if known is not None else (measure_run(a, refs, mapper), measure_run(b, refs, mapper))
    )
    out = {}
    mean = [r for r in refs if r.metric.is_mean]
    if mean and pairable(a, b):
        feats = tuple(dict.fromkeys(f for r in mean for f in r.features))
        swap = b.games_logged < a.games_logged  # the chunks of the run with fewer games
        driver, other = (b, a) if swap else (a, b)
        partial = Partial("paired_features", _pair_map, _pair_reduce, (other, feats, swap))
        names, cross = run_all(driver, [partial], mapper)[partial]
        k = len(names)
        m, _, cov = means_covariance(cross, [0] * k + [1] * k)
        for r in mean:

            def diff(x: np.ndarray, r: Ref = r) -> float:
                return r.value(_as_means(names, x[k:])) - r.value(_as_means(names, x[:k]))

            d, se = delta(diff, m, cov)
            out[r.name] = Difference(
                ea[r.name], eb[r.name], d, se, d - Z95 * se, d + Z95 * se, True
            )
    for r in refs:
        if r.name not in out:
            x, y = ea[r.name], eb[r.name]
            d, se = y.value - x.value, math.hypot(x.se, y.se)
            out[r.name] = Difference(x, y, d, se, d - Z95 * se, d + Z95 * se, False)
    return {r.name: out[r.name] for r in refs}


# ------------------------------------------------------------------ tables in memory


class MemoryRun:
    """One chunk's tables held in memory, read like a run (a study's worker measures the rows
    it has just played without reading them back)."""

    def __init__(self, tables: Mapping[str, pl.DataFrame], config: Mapping[str, Any]):
        self.tables = tables
        self.config = config
        self.manifest = {
            "config": config,
            "tables": {n: {"columns": [{"name": c} for c in t.columns]} for n, t in tables.items()},
        }

    def read(self, table: str, chunk: int, columns: Sequence[str] | None = None) -> pl.DataFrame:
        t = self.tables[table]
        return t.select(columns) if columns is not None else t


def measure_tables(
    tables: Mapping[str, Any],
    index: int,
    start: int,
    stop: int,
    n_players: int,
    rotate: bool,
    features: tuple[Feature, ...],
) -> Features:
    """The per-cluster feature sums of one chunk's tables (Arrow or polars), in memory."""
    frames = {n: t if isinstance(t, pl.DataFrame) else pl.from_arrow(t) for n, t in tables.items()}
    run = MemoryRun(frames, {"n_players": n_players, "rotate": rotate})
    return chunk_features(Chunk(index, start, stop, n_players, rotate, run), features)


def chunk_of(run: RunData, index: int) -> Chunk:
    """Chunk ``index`` of a run (read from its files)."""
    for i, a, b in chunks(run):
        if i == index:
            return Chunk(i, a, b, run.n_players, bool(run.config.get("rotate")), run)
    raise KeyError(index)


def fold(parts: Sequence[tuple[Chunk, Features]]) -> tuple[tuple[str, ...], Cross]:
    """Per-chunk :class:`Features` (with each chunk, whose coordinates tell its clusters that
    may be split) folded into the whole run's ``(names, Cross)``, split clusters joined."""
    names: tuple[str, ...] = ()
    outer = []
    for where, f in parts:
        names = f.names
        outer.append(outer_part(where, f.clusters, np.column_stack([f.sums, f.games])))
    return names, combine_outer(outer, len(names) + 1)


@dataclasses.dataclass(frozen=True)
class TableMeasure:
    """What a study's worker computes from a chunk it has just played (``setup`` and ``job``
    as the simulation hands them over): the per-cluster sums of ``features``."""

    features: tuple[Feature, ...]

    def __call__(self, setup: Any, job: Any, tables: Mapping[str, Any]) -> Features:
        return measure_tables(
            tables, job.index, job.start, job.stop, setup.n_players, job.rotate, self.features
        )


@dataclasses.dataclass
class StudyMeasurer:
    """The metrics ``refs`` of a study: what its workers take from each chunk and how a
    finished run's estimates follow (the ``Measurer`` a study asks for)."""

    refs: list[Ref]
    mapper: Mapper | None = None

    @property
    def names(self) -> list[str]:
        return [r.name for r in self.refs]

    @property
    def tables(self) -> tuple[str, ...]:
        return tables_for(self.refs)

    @property
    def features(self) -> tuple[Feature, ...]:
        return tuple(dict.fromkeys(f for r in self.refs if r.metric.is_mean for f in r.features))

    @property
    def chunk(self) -> TableMeasure | None:
        return TableMeasure(self.features) if self.features else None

    def point(self, run: RunData, measured: Mapping[int, Any]) -> dict[str, dict]:
        """Every metric of a finished run (``measured``: chunk index -> :class:`Features`
        the workers took; other chunks are read from the files)."""
        out: dict[str, Estimate] = {}
        mean = [r for r in self.refs if r.metric.is_mean]
        if mean:
            parts = []
            for i, a, b in chunks(run):
                chunk = Chunk(i, a, b, run.n_players, bool(run.config.get("rotate")), run)
                f = measured.get(i)
                parts.append((chunk, f if f is not None else chunk_features(chunk, self.features)))
            names, cross = fold(parts)
            out.update(estimates(mean, names, cross))
        for r in self.refs:
            if not r.metric.is_mean:
                assert r.metric.measure is not None
                out[r.name] = r.metric.measure(run, r.arg, self.mapper)
        return {r.name: out[r.name].to_dict() for r in self.refs}
