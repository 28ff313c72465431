"""Measuring the declared metrics (:mod:`reports.metrics`) on runs, on chunks held in memory,
and on two runs that played the same games.

A mean metric is computed from its features summed per cluster (:class:`Features`): one pass
over a run's chunks gives their means and cluster-robust covariance, and the delta method the
metric's interval. Two runs of the same seed are summed per cluster side by side, so their
difference's interval includes the covariance of the same games (common random numbers).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from reports.aggregate import (
    Chunk,
    Mapper,
    Partial,
    chunks,
    cluster_sums,
    combine_outer,
    local_mapper,
    map_chunk,
    outer_part,
    read_range,
    run_all,
    second_pass,
)
from reports.metrics import Estimate, Feature, Ref, tables_for
from reports.models.clustered import Cross, means_covariance
from reports.source import RunData
from reports.stats import Z95

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
    ids = chunk.clusters_of(df["game_id"].to_numpy())
    values = np.column_stack(
        [df[c].cast(pl.Float64).to_numpy() for c in names] + [np.ones(len(ids))]
    )
    clusters, sums = cluster_sums(ids, values)
    return Features(names, clusters, sums[:, :-1], sums[:, -1])


def folded(chunk: Chunk, features: Sequence[Feature]) -> tuple[tuple[str, ...], tuple]:
    """A chunk's features folded for a run's estimates: their names and the chunk's
    :func:`~reports.aggregate.outer_part` (small whatever the chunk's games)."""
    f = chunk_features(chunk, features)
    return f.names, outer_part(chunk, f.clusters, np.column_stack([f.sums, f.games]))


def combine(parts: Sequence[tuple[tuple[str, ...], tuple]]) -> tuple[tuple[str, ...], Cross]:
    """The whole run's ``(names, Cross)`` from every chunk's :func:`folded`, in chunk order."""
    names = parts[0][0] if parts else ()
    if any(n != names for n, _ in parts):
        raise ValueError("chunks gave different feature columns (a strategy missing?)")
    return names, combine_outer([p for _, p in parts], len(names) + 1)


def _features_reduce(parts, features: tuple[Feature, ...]):
    return combine(parts)


def features_partial(features: Sequence[Feature]) -> Partial:
    """The one-pass step of :func:`measure_run` (also in a report's prefetch)."""
    return Partial("features", folded, _features_reduce, (tuple(dict.fromkeys(features)),))


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


class FirstGames:
    """The first ``n`` games of a run, read as a run of their own: the games a shorter run of
    the same seed also played (a robustness companion), so that both are measured on the same
    games. Its chunks are the run's cut at game ``n`` and its tables hold ``game_id < n``; a
    report's prefetched whole-run results are not carried over."""

    def __init__(self, run: RunData, n: int):
        base, _ = second_pass(run)
        self.run, self.n = base, int(n)
        chunks_ = {
            i: {**c, "stop": min(c["stop"], self.n)}
            for i, c in base.manifest["chunks"].items()
            if c["start"] < self.n
        }
        config = {**base.manifest["config"], "games": self.n}
        self.manifest = {**base.manifest, "config": config, "chunks": chunks_}

    @property
    def config(self) -> dict[str, Any]:
        return self.manifest["config"]

    @property
    def games_logged(self) -> int:
        return sum(c["stop"] - c["start"] for c in self.manifest["chunks"].values())

    def scan(self, table: str) -> pl.LazyFrame:
        return self.run.scan(table).filter(pl.col("game_id") < self.n)

    def read(self, table: str, chunk: int, columns: Sequence[str] | None = None) -> pl.DataFrame:
        listed = {int(i): c for i, c in self.run.manifest["chunks"].items()}
        if listed[int(chunk)]["stop"] <= self.n:
            return self.run.read(table, chunk, columns)
        wanted = None if columns is None else list(dict.fromkeys(["game_id", *columns]))
        out = self.run.read(table, chunk, wanted).filter(pl.col("game_id") < self.n)
        return out if columns is None else out.select(columns)

    def __getattr__(self, name: str) -> Any:  # game, title, n_players, data ...
        if name in ("prefetched", "run", "n"):
            raise AttributeError(name)
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
    mean = [r for r in refs if r.metric.is_mean]
    paired: dict[str, Difference] = {}
    if mean and pairable(a, b):
        feats = _mean_features(mean)
        swap = b.games_logged < a.games_logged  # the chunks of the run with fewer games
        driver, other = (b, a) if swap else (a, b)
        partial = Partial("paired_features", _pair_map, _pair_reduce, (other, feats, swap))
        names, cross = run_all(driver, [partial], mapper)[partial]
        paired = _paired(mean, names, cross, ea, eb)
    return _with_unpaired(paired, refs, ea, eb)


def step_differences(
    pairs: Sequence[tuple[RunData, RunData]],
    refs: Sequence[Ref],
    mapper: Mapper | None = None,
    known: Sequence[tuple[Mapping[str, Estimate], Mapping[str, Estimate]]] | None = None,
) -> list[dict[str, Difference]]:
    """:func:`differences` of every pair ``(a, b)``, each run's chunks read once however many
    pairs it is in (a sweep's neighbouring points, a strength curve's tiers): pairs of runs
    chunked alike are measured chunk by chunk, every run's features of a chunk side by side
    (memory: one chunk of each run); other pairs one by one."""
    if known is None:
        known = [(measure_run(a, refs, mapper), measure_run(b, refs, mapper)) for a, b in pairs]
    mean = [r for r in refs if r.metric.is_mean]
    layout = chunks(pairs[0][0]) if pairs else []
    together = [
        i
        for i, (a, b) in enumerate(pairs)
        if mean and pairable(a, b) and chunks(a) == layout and chunks(b) == layout
    ]
    measured = _crosses_side_by_side([pairs[i] for i in together], _mean_features(mean), mapper)
    crosses = dict(zip(together, measured, strict=True))
    out = []
    for i, (a, b) in enumerate(pairs):
        if i in crosses:
            names, cross = crosses[i]
            paired = _paired(mean, names, cross, *known[i])
            out.append(_with_unpaired(paired, refs, *known[i]))
        else:
            out.append(differences(a, b, refs, mapper, known[i]))
    return out


def _crosses_side_by_side(
    pairs: Sequence[tuple[RunData, RunData]], feats: tuple[Feature, ...], mapper: Mapper | None
) -> list[tuple[tuple[str, ...], Cross]]:
    """Each pair's paired :class:`Cross` (as :func:`_pair_map` and :func:`_pair_reduce` give it),
    for pairs of runs with the same chunks: one chunk of every run at a time."""
    if not pairs:
        return []
    runs = list({id(r): r for pair in pairs for r in pair}.values())
    where = {id(r): k for k, r in enumerate(runs)}
    partial = Partial("chunk_features", chunk_features, _no_reduce, (feats,))
    parts: list[list] = [[] for _ in pairs]
    names: tuple[str, ...] = ()
    for index, start, stop in chunks(runs[0]):
        tasks = [(r, index, start, stop, (partial,)) for r in runs]
        found = [f for (f,) in (mapper or local_mapper())(map_chunk, tasks)]
        for k, (a, b) in enumerate(pairs):
            fa, fb = found[where[id(a)]], found[where[id(b)]]
            if fa.names != fb.names or not np.array_equal(fa.clusters, fb.clusters):
                raise ValueError("the runs did not play the same games")
            chunk = Chunk(index, start, stop, a.n_players, bool(a.config.get("rotate")), a)
            v = np.column_stack([fa.sums, fb.sums, fa.games, fb.games])
            parts[k].append(outer_part(chunk, fa.clusters, v))
            names = fa.names
    return [(names, combine_outer(p, 2 * len(names) + 2)) for p in parts]


def _no_reduce(parts, features: tuple[Feature, ...]):
    """The reduce of a :class:`Partial` whose map results are used chunk by chunk (only
    :func:`~reports.aggregate.map_chunk` calls its map)."""
    return parts


def _mean_features(mean: Sequence[Ref]) -> tuple[Feature, ...]:
    return tuple(dict.fromkeys(f for r in mean for f in r.features))


def _paired(
    mean: Sequence[Ref],
    names: Sequence[str],
    cross: Cross,
    ea: Mapping[str, Estimate],
    eb: Mapping[str, Estimate],
) -> dict[str, Difference]:
    """Every mean metric's paired difference from the two runs' features summed side by side
    per cluster (``cross``: the first run's ``names``, then the second's)."""
    k = len(names)
    m, _, cov = means_covariance(cross, [0] * k + [1] * k)
    out = {}
    for r in mean:

        def diff(x: np.ndarray, r: Ref = r) -> float:
            return r.value(_as_means(names, x[k:])) - r.value(_as_means(names, x[:k]))

        d, se = delta(diff, m, cov)
        out[r.name] = Difference(ea[r.name], eb[r.name], d, se, d - Z95 * se, d + Z95 * se, True)
    return out


def _with_unpaired(
    paired: Mapping[str, Difference],
    refs: Sequence[Ref],
    ea: Mapping[str, Estimate],
    eb: Mapping[str, Estimate],
) -> dict[str, Difference]:
    """``paired``, and every other metric's difference from the two runs' standard errors."""
    out = {}
    for r in refs:
        if r.name in paired:
            out[r.name] = paired[r.name]
            continue
        x, y = ea[r.name], eb[r.name]
        d, se = y.value - x.value, math.hypot(x.se, y.se)
        out[r.name] = Difference(x, y, d, se, d - Z95 * se, d + Z95 * se, False)
    return out


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


def memory_chunk(
    tables: Mapping[str, Any], index: int, start: int, stop: int, n_players: int, rotate: bool
) -> Chunk:
    """One chunk's tables (Arrow or polars) as a :class:`Chunk`, in memory."""
    frames = {n: t if isinstance(t, pl.DataFrame) else pl.from_arrow(t) for n, t in tables.items()}
    run = MemoryRun(frames, {"n_players": n_players, "rotate": rotate})
    return Chunk(index, start, stop, n_players, rotate, run)


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
    return chunk_features(memory_chunk(tables, index, start, stop, n_players, rotate), features)


def chunk_of(run: RunData, index: int) -> Chunk:
    """Chunk ``index`` of a run (read from its files)."""
    for i, a, b in chunks(run):
        if i == index:
            return Chunk(i, a, b, run.n_players, bool(run.config.get("rotate")), run)
    raise KeyError(index)


@dataclasses.dataclass(frozen=True)
class TableMeasure:
    """What a study's worker computes from a chunk it has just played (``setup`` and ``job``
    as the simulation hands them over): the per-cluster sums of ``features`` (a search pairs
    them cluster by cluster), or with ``fold`` only their :func:`folded` sums (a sweep's
    estimates: a few numbers travel back instead of one row per game)."""

    features: tuple[Feature, ...]
    fold: bool = False

    def __call__(self, setup: Any, job: Any, tables: Mapping[str, Any]) -> Any:
        chunk = memory_chunk(tables, job.index, job.start, job.stop, setup.n_players, job.rotate)
        if self.fold:
            return folded(chunk, self.features)
        return chunk_features(chunk, self.features)


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
        return TableMeasure(self.features, fold=True) if self.features else None

    def point(self, run: RunData, measured: Mapping[int, Any]) -> dict[str, dict]:
        """Every metric of a finished run (``measured``: chunk index -> what :attr:`chunk`
        returned on the workers; other chunks are read from the files, with the same
        result)."""
        out: dict[str, Estimate] = {}
        mean = [r for r in self.refs if r.metric.is_mean]
        if mean:
            parts = []
            for i, a, b in chunks(run):
                chunk = Chunk(i, a, b, run.n_players, bool(run.config.get("rotate")), run)
                f = measured.get(i)
                parts.append(f if f is not None else folded(chunk, self.features))
            names, cross = combine(parts)
            out.update(estimates(mean, names, cross))
        for r in self.refs:
            if not r.metric.is_mean:
                assert r.metric.measure is not None
                out[r.name] = r.metric.measure(run, r.arg, self.mapper)
        return {r.name: out[r.name].to_dict() for r in self.refs}
