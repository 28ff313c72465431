"""Analyses as map-reduce over a run's chunks: memory flat in the number of games.

A run's tables are split into the same chunks (part ``i`` of every table holds games
``start_i .. stop_i - 1``), so anything that joins tables on ``game_id`` can be computed one
chunk at a time. Every analysis here is a :class:`Partial`: a ``map`` from one chunk's tables to
a small DataFrame of sums, and a ``reduce`` that combines those in chunk order. :func:`run_all`
reads each chunk's tables once for all the partials that need them, so a report is one pass
over the data (two for the analyses that need a first estimate, such as regression variances)
whatever the run's size; with a Dask ``mapper`` the chunks are mapped as tasks next to the data.

Cluster-robust statistics need sums per cluster (a deal's P rotated games). A cluster lies in
one chunk, except that with seat rotation and a chunk size that is not a multiple of P the
first and last deal of a chunk may be split: :func:`cluster_moments` keeps those (at most two
per chunk) as raw per-cluster sums and folds every other cluster into moments at once, and
:func:`combine_moments` joins the split ones before folding them in (:func:`outer_part` and
:func:`combine_outer` do the same for any per-cluster vectors, such as a model's scores). The
result is exactly the whole-run computation; the statistics themselves are
:mod:`reports.models`'.
"""

from __future__ import annotations

import dataclasses
import os
import weakref
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np
import polars as pl

from reports.models.clustered import MOMENTS, Cross, fold, gram
from reports.source import RunData


@dataclasses.dataclass(frozen=True)
class Chunk:
    """One chunk of a run: which games, how games cluster, and its tables (read on demand)."""

    index: int
    start: int
    stop: int
    n_players: int
    rotate: bool
    run: RunData
    _frames: dict[str, pl.DataFrame] = dataclasses.field(default_factory=dict, repr=False)

    def table(self, name: str, columns: Sequence[str] | None = None) -> pl.DataFrame:
        """This chunk's rows of table ``name`` (only ``columns`` if given). Each column of the
        part is read at most once per chunk, however many analyses use it."""
        have = self._frames.get(name)
        if columns is None:
            if have is None or have.width < len(self.run.manifest["tables"][name]["columns"]):
                self._frames[name] = have = self.run.read(name, self.index)
            return have
        missing = [c for c in columns if have is None or c not in have.columns]
        if missing:
            new = self.run.read(name, self.index, missing)
            self._frames[name] = have = new if have is None else have.hstack(new)
        return have.select(columns)

    def derived(self, make: Callable[[Chunk], pl.DataFrame]) -> pl.DataFrame:
        """``make(self)``, computed once per chunk however many analyses ask (``make`` is a
        module-level function such as :func:`reports.common.share_frame`)."""
        key = f"{make.__module__}.{make.__qualname__}"
        if key not in self._frames:
            self._frames[key] = make(self)
        return self._frames[key]

    def cached(self, key: str, make: Callable[[], Any]) -> Any:
        """``make()``, computed once per chunk under ``key`` (a value several analyses
        derive from the chunk's tables)."""
        if key not in self._frames:
            self._frames[key] = make()
        return self._frames[key]

    def cluster(self) -> pl.Expr:
        """The cluster of a row: its deal with seat rotation, else its game."""
        return pl.col("game_id") // self.n_players if self.rotate else pl.col("game_id")

    def clusters_of(self, game_id: np.ndarray) -> np.ndarray:
        """:meth:`cluster` of rows given their ``game_id`` as an array."""
        g = np.asarray(game_id, dtype=np.int64)
        return g // self.n_players if self.rotate else g

    def split_clusters(self) -> tuple[int, ...]:
        """Clusters this chunk may share with a neighbour (a deal split by a chunk boundary)."""
        if not self.rotate:
            return ()
        p = self.n_players
        out = []
        if self.start % p:
            out.append(self.start // p)
        if self.stop % p:
            out.append((self.stop - 1) // p)
        return tuple(out)


@dataclasses.dataclass(frozen=True)
class Partial:
    """An analysis step: ``map(chunk, *args)`` on every chunk, then ``reduce(parts, *args)``.

    ``map`` and ``reduce`` must be module-level functions (Dask pickles them by name). Two
    partials are the same step when their functions and arguments are (the name only labels).
    """

    name: str
    map: Callable[..., Any]
    reduce: Callable[..., Any]
    args: tuple = ()


Mapper = Callable[[Callable[[Any], Any], Iterable[Any]], Iterable[Any]]
"""Anything shaped like the built-in ``map`` (a Dask client's map-and-gather, ...)."""


def chunks(run: RunData) -> list[tuple[int, int, int]]:
    """``(index, start, stop)`` of every finished chunk, in game order."""
    listed = sorted(run.manifest["chunks"].items(), key=lambda kv: int(kv[0]))
    return [(int(i), c["start"], c["stop"]) for i, c in listed]


def map_chunk(task: tuple[RunData, int, int, int, Sequence[Partial]]) -> list[Any]:
    """Every partial's map on one chunk (the unit of work a mapper runs)."""
    run, index, start, stop, partials = task
    chunk = Chunk(index, start, stop, run.n_players, bool(run.config.get("rotate")), run)
    return [p.map(chunk, *p.args) for p in partials]


def run_all(
    run: RunData, partials: Sequence[Partial], mapper: Mapper | None = None
) -> dict[Partial, Any]:
    """Every partial over every chunk of ``run``, in one pass; results by partial.

    Results already computed by :func:`prefetch` are taken from there.
    """
    known = getattr(run, "prefetched", {})
    todo = list(dict.fromkeys(p for p in partials if p not in known))
    out = {p: known[p] for p in partials if p in known}
    if todo:
        tasks = [(run, i, a, b, tuple(todo)) for i, a, b in chunks(run)]
        per_chunk = list((mapper or local_mapper())(map_chunk, tasks))
        for k, p in enumerate(todo):
            out[p] = p.reduce([chunk_results[k] for chunk_results in per_chunk], *p.args)
    return out


def run_one(run: RunData, partial: Partial, mapper: Mapper | None = None) -> Any:
    """One partial over the whole run."""
    return run_all(run, [partial], mapper)[partial]


def local_mapper(workers: int | None = None) -> Mapper:
    """Map over chunks on a few threads of this process (reading Parquet and polars release the
    GIL), keeping the order; memory: one chunk's tables per thread. By default one thread more
    than the cores, so a chunk's reading overlaps another's work (10M-game DKD report on 2
    cores: 60 s with 2 threads, 49 s with 3)."""
    from concurrent.futures import ThreadPoolExecutor

    n = workers or min(4, (os.cpu_count() or 1) + 1)

    def mapper(fn, items):
        items = list(items)
        if n == 1 or len(items) < 2:
            return list(map(fn, items))
        with ThreadPoolExecutor(n) as pool:
            return list(pool.map(fn, items))

    return mapper


@dataclasses.dataclass(frozen=True, eq=False)
class Prefetched:
    """A run whose analyses' results are already known (one pass computed them all): every
    attribute is the run's; :func:`run_all` takes the known results from ``prefetched``.
    Compared and hashed by identity, so it can be a partial's argument."""

    run: RunData
    prefetched: dict
    mapper: Mapper | None = None
    """The mapper the one pass ran on, for the analyses that need a second pass."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.run, name)


def prefetch(run: RunData, partials: Sequence[Partial], mapper: Mapper | None = None) -> Prefetched:
    """Compute ``partials`` in one pass over ``run`` and return the run with their results, so
    the analyses asking for them later do not read the data again (a run prefetched before
    keeps what it knew, and its first mapper unless ``mapper`` is given)."""
    known = run_all(run, partials, mapper)
    if isinstance(run, Prefetched):
        return Prefetched(run.run, {**run.prefetched, **known}, mapper or run.mapper)
    return Prefetched(run, known, mapper)


def second_pass(run: RunData) -> tuple[RunData, Mapper | None]:
    """The run to map a second pass over (the one under a :class:`Prefetched`, which is not
    sent to workers) and the mapper its first pass ran on (``None``: local threads)."""
    if isinstance(run, Prefetched):
        return run.run, run.mapper
    return run, None


_ONCE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def once_per_run(run: RunData, key: Hashable, compute: Callable[[], Any]) -> Any:
    """``compute()`` once per run object and ``key`` while the run is alive and its chunks
    unchanged (a report's sections and its robustness check read the same whole-run fit);
    computed every time for a run that cannot be weakly referenced."""
    chunks_now = tuple(sorted(run.manifest["chunks"]))
    try:
        known = _ONCE.setdefault(run, {})
    except TypeError:
        return compute()
    hit = known.get(key)
    if hit is not None and hit[0] == chunks_now:
        return hit[1]
    value = compute()
    known[key] = (chunks_now, value)
    return value


# ------------------------------------------------------------------ additive sums


def concat_sum(parts: list[pl.DataFrame], by: Sequence[str]) -> pl.DataFrame:
    """Per-chunk sums joined: the groups ``by`` summed over chunks."""
    parts = [p for p in parts if p.height]
    if not parts:
        return pl.DataFrame()
    return pl.concat(parts, how="vertical_relaxed").group_by(list(by)).sum().sort(list(by))


# ------------------------------------------------------------------ cluster moments


def per_cluster(chunk: Chunk, df: pl.DataFrame, by: list[str], value: str) -> pl.DataFrame:
    """Sum (``s``) and count (``n``) of ``value`` per group ``by`` and cluster (``_cluster``),
    groups and clusters ascending. Integer, boolean and string groups are summed by ``bincount``
    over one packed key (several times faster than polars' group-by on a large chunk); other
    groups by polars."""
    packed = _per_cluster_packed(chunk, df, by, value)
    if packed is not None:
        return packed
    return (
        df.with_columns(_cluster=chunk.cluster())
        .group_by([*by, "_cluster"])
        .agg(s=pl.col(value).cast(pl.Float64).sum(), n=pl.len().cast(pl.Float64))
        .sort([*by, "_cluster"])
    )


def _per_cluster_packed(
    chunk: Chunk, df: pl.DataFrame, by: list[str], value: str
) -> pl.DataFrame | None:
    """:func:`per_cluster` by ``bincount`` when every group column is an integer, boolean or
    string without nulls (strings coded by their rank in the chunk) and the packed key space
    is not much larger than the rows; else ``None``."""
    columns = [*by, value, "game_id"]
    kinds = all(df.schema[c].is_integer() or df.schema[c] in (pl.Boolean, pl.String) for c in by)
    if not kinds or df.height == 0 or any(df[c].null_count() for c in columns):
        return None
    cluster = chunk.clusters_of(df["game_id"].to_numpy())
    low = int(cluster.min())
    span = int(cluster.max()) - low + 1
    key, stride, ranges = cluster - low, span, []
    for c in reversed(by):  # the cluster varies fastest, then the last group column ...
        if df.schema[c] == pl.String:  # strings by their rank among the chunk's values
            labels = pl.Series(df[c].unique().sort().to_list(), dtype=pl.String)  # own copy:
            # a view into the chunk's strings would keep them alive until the reduce
            v = df[c].replace_strict(labels, range(len(labels)), return_dtype=pl.Int64)
            v, lo, width = v.to_numpy(), 0, len(labels)
        else:
            v, labels = df[c].to_numpy().astype(np.int64), None
            lo = int(v.min())
            width = int(v.max()) - lo + 1
        if stride * width > 4 * df.height + 1024:  # too sparse to count (or to fit int64)
            return None
        key = key + (v - lo) * stride
        ranges.append((c, lo, width, stride, labels))
        stride *= width
    s = np.bincount(key, weights=df[value].to_numpy().astype(np.float64), minlength=stride)
    n = np.bincount(key, minlength=stride)
    seen = np.flatnonzero(n)  # ascending: sorted by the group columns, then the cluster
    out = {}
    for c, lo, w, st, labels in reversed(ranges):
        code = (seen // st) % w + lo
        out[c] = labels.gather(code) if labels is not None else pl.Series(c, code)
        out[c] = out[c].alias(c).cast(df.schema[c])
    out["_cluster"] = pl.Series("_cluster", seen % span + low, dtype=pl.Int64)
    out["s"] = pl.Series("s", s[seen])
    out["n"] = pl.Series("n", n[seen].astype(np.float64))
    return pl.DataFrame(out)


def cluster_moments(
    chunk: Chunk,
    df: pl.DataFrame,
    by: list[str],
    value: str,
    per: pl.DataFrame | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A chunk's contribution to clustered means of ``value`` by ``by``: moments of its whole
    clusters, and the raw sums of its split clusters (``_cluster``, ``s``, ``n``). ``per``: the
    chunk's :func:`per_cluster` sums if already made."""
    per_cluster_sums = per_cluster(chunk, df, by, value) if per is None else per
    split = chunk.split_clusters()
    is_split = pl.col("_cluster").is_in(list(split)) if split else pl.lit(False)
    return fold(per_cluster_sums.filter(~is_split), by), per_cluster_sums.filter(is_split)


def combine_moments(parts: list[tuple[pl.DataFrame, pl.DataFrame]], by: list[str]) -> pl.DataFrame:
    """The whole run's moments from every chunk's :func:`cluster_moments`."""
    whole = [m for m, _ in parts if m.height]
    split = [s for _, s in parts if s.height]
    if split:
        joined = pl.concat(split, how="vertical_relaxed").group_by([*by, "_cluster"]).sum()
        whole.append(fold(joined, by))
    if not whole:
        return pl.DataFrame(
            schema={**dict.fromkeys(by, pl.Int64), **dict.fromkeys(MOMENTS, pl.Float64)}
        )
    return pl.concat(whole, how="vertical_relaxed").group_by(by).sum().sort(by)


# ------------------------------------------------------------------ cluster covariance


def _cross(per: pl.DataFrame, group: str, groups: Sequence[Any]) -> Cross:
    k = len(groups)
    if per.height == 0:
        return Cross.zeros(2 * k)
    codes, rows = np.unique(per["_cluster"].to_numpy(), return_inverse=True)
    col = per[group].replace_strict(list(groups), range(k), return_dtype=pl.Int64).to_numpy()
    cell, size = rows * k + col, len(codes) * k
    s = np.bincount(cell, weights=per["s"].to_numpy(), minlength=size)
    n = np.bincount(cell, weights=per["n"].to_numpy(), minlength=size)
    v = np.hstack([s.reshape(-1, k), n.reshape(-1, k)])
    return Cross(v.sum(axis=0), gram(v), len(codes))


def cluster_cross(
    chunk: Chunk,
    df: pl.DataFrame,
    group: str,
    value: str,
    groups: Sequence[Any],
    per: pl.DataFrame | None = None,
) -> tuple[Cross, pl.DataFrame]:
    """A chunk's contribution to the group means of ``value`` over ``groups`` and their
    covariance: :class:`Cross` sums of its whole clusters, raw sums of its split ones."""
    per = per_cluster(chunk, df, [group], value) if per is None else per
    split = chunk.split_clusters()
    is_split = pl.col("_cluster").is_in(list(split)) if split else pl.lit(False)
    return _cross(per.filter(~is_split), group, groups), per.filter(is_split)


def combine_cross(
    parts: list[tuple[Cross, pl.DataFrame]], group: str, groups: Sequence[Any]
) -> Cross:
    """The whole run's :class:`Cross` from every chunk's :func:`cluster_cross`."""
    total = Cross.zeros(2 * len(groups))
    for cross, _ in parts:
        total = total + cross
    split = [s for _, s in parts if s.height]
    if split:
        joined = pl.concat(split, how="vertical_relaxed").group_by(["_cluster", group]).sum()
        total = total + _cross(joined, group, groups)
    return total


# ------------------------------------------------------------------ vectors per cluster


def cluster_sums(ids: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``values`` (rows x k) summed per cluster ``ids``: ``(clusters, sums)``, clusters
    ascending, each sum taken in row order (rows already in cluster order need no sort)."""
    if len(ids) == 0:
        return ids, np.zeros((0, values.shape[1]))
    step = ids[1:] - ids[:-1]
    if np.all(step > 0):  # one row per cluster, in order (games without rotation)
        return ids, values.astype(np.float64, copy=True)
    if np.all(step >= 0):  # rows in cluster order: sum each run of equal ids
        starts = np.flatnonzero(np.r_[True, step != 0])
        return ids[starts], np.add.reduceat(values.astype(np.float64), starts, axis=0)
    clusters, inverse = np.unique(ids, return_inverse=True)
    sums = np.empty((len(clusters), values.shape[1]))
    for j in range(values.shape[1]):
        sums[:, j] = np.bincount(inverse, weights=values[:, j], minlength=len(clusters))
    return clusters, sums


def outer_part(chunk: Chunk, ids: np.ndarray, sums: np.ndarray) -> tuple[Cross, tuple]:
    """A chunk's :class:`Cross` of per-cluster vectors ``sums`` (clusters ``ids``, e.g. a
    regression's scores summed per cluster for its sandwich variance) over its whole clusters,
    and the raw vectors of the clusters it may share with a neighbour."""
    split = np.isin(ids, np.array(chunk.split_clusters(), dtype=ids.dtype))
    whole = sums[~split]
    return Cross(whole.sum(axis=0), gram(whole), len(whole)), (ids[split], sums[split])


def combine_outer(parts: Sequence[tuple[Cross, tuple]], width: int) -> Cross:
    """The whole run's :class:`Cross` from every chunk's :func:`outer_part` (split clusters
    joined first, so the result is the whole-run computation)."""
    total = Cross.zeros(width)
    rest: dict[int, np.ndarray] = {}
    for cross, (ids, sums) in parts:
        total = total + cross
        for i, row in zip(ids.tolist(), sums, strict=True):
            rest[i] = rest.get(i, 0) + row
    if rest:
        v = np.array(list(rest.values()))
        total = total + Cross(v.sum(axis=0), gram(v), len(v))
    return total


def read_range(
    run: RunData, table: str, start: int, stop: int, columns: Sequence[str] | None = None
) -> pl.DataFrame:
    """Rows of ``table`` for games ``start .. stop-1`` of ``run``, whatever its chunking (for
    pairing a chunk of one run with the same games of another)."""
    parts = [
        run.read(table, i, columns).filter(pl.col("game_id").is_between(start, stop - 1))
        for i, a, b in chunks(run)
        if a < stop and start < b
    ]
    return pl.concat(parts) if parts else pl.DataFrame()
