"""Strategy ratings: every strategy of one or more runs on one scale, with intervals.

Model (Plackett-Luce on the first place, i.e. a multinomial logit on who wins)
----------------------------------------------------------------------------
Each strategy ``s`` has a strength ``theta_s``. In a game where strategy ``s`` holds ``m_s``
seats, the probability that the winner is one of them is ``m_s exp(theta_s) / sum_j m_j
exp(theta_j)``; a victory shared by ``k`` players counts ``1/k`` for each. Seats, rounds and
lineups may differ between games and runs: only who sat at the table and who won enter, so
runs with any player count and any lineups of the same game share one scale. Strengths are
centred (mean 0); ``elo`` is ``theta * 400 / ln 10``, the Elo scale on which 400 points are
odds of 10 to 1 in a two-player game, and ``win_share_vs_field`` the expected win share of one
seat of the strategy against ``P - 1`` seats of average strength (``P``: the most common
player count).

The maximum-likelihood fit uses scipy; the 95% intervals come from a cluster-robust sandwich
covariance (games that share a deal under seat rotation are one cluster), from per-cluster sums
taken in the same pass as the fit's counts (:func:`_clusters_map`). The model assumes a
strategy's strength does not depend on its seat or its opponents; the seat advantage is
averaged in, which is why rotated runs rate best.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
import polars as pl
from scipy.optimize import minimize

from reports.aggregate import Chunk, Mapper, Partial, concat_sum, run_one
from reports.common import share_frame
from reports.models.clustered import sandwich
from reports.source import RunData
from reports.stats import Z95

ELO = 400 / math.log(10)


def _per_game(chunk: Chunk, labels: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The chunk's games, and per game the seats (``counts``) and win share (``wins``) of each
    of ``labels`` (players rows come game by game, one per seat)."""
    df = chunk.derived(share_frame).select("game_id", "strategy", "share")
    p = chunk.n_players
    code = df["strategy"].replace_strict(list(labels), list(range(len(labels)))).to_numpy()
    gid = df["game_id"].to_numpy()[::p]
    row = np.arange(df.height) // p
    cell, size, shape = row * len(labels) + code, len(gid) * len(labels), (len(gid), len(labels))
    counts = np.bincount(cell, minlength=size).astype(np.float64).reshape(shape)
    wins = np.bincount(cell, weights=df["share"].to_numpy(), minlength=size).reshape(shape)
    return gid, counts, wins


def _games(chunk: Chunk) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The chunk's strategies (sorted), its games, their seats and win shares per strategy
    (:func:`_per_game`), and each game's composition code (seats per strategy packed in one
    integer); made once per chunk for both rating partials."""
    labels = sorted(chunk.derived(share_frame)["strategy"].unique().to_list())
    gid, counts, wins = _per_game(chunk, labels)
    base = chunk.n_players + 1
    code = counts.astype(np.int64) @ (base ** np.arange(len(labels), dtype=np.int64))
    return labels, gid, counts, wins, code


def _key(labels: Sequence[str], comp: np.ndarray) -> str:
    """A composition as text: its strategies, one per seat, sorted, tab-separated."""
    return "\t".join("\t".join([labels[i]] * int(n)) for i, n in enumerate(comp) if n > 0)


def _compositions_map(chunk: Chunk) -> pl.DataFrame:
    """Per lineup composition (which strategies, how many seats each) of the chunk's games:
    the games and the win share summed per strategy."""
    labels, _, counts, wins, code = chunk.derived(_games)
    uniq, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    comps = counts[first]
    games = np.bincount(inverse, minlength=len(uniq))
    totals = np.stack(
        [np.bincount(inverse, weights=wins[:, i], minlength=len(uniq)) for i in range(len(labels))],
        axis=1,
    )
    rows = []
    for c, comp in enumerate(comps):
        key = _key(labels, comp)
        for i, n in enumerate(comp):
            if n > 0:
                rows.append((key, labels[i], float(totals[c, i]), int(games[c])))
    return pl.DataFrame(rows, schema=["key", "strategy", "w", "games"], orient="row")


def _compositions_reduce(parts: list[pl.DataFrame]) -> pl.DataFrame:
    return concat_sum(parts, ["key", "strategy"])


COMPOSITIONS = Partial("compositions", _compositions_map, _compositions_reduce)


def _design(comps: pl.DataFrame, labels: list[str]):
    """Per composition: games, multiplicity of every strategy, win share of every strategy."""
    index = {s: i for i, s in enumerate(labels)}
    keys = sorted(set(comps["key"].to_list()))
    kidx = {k: i for i, k in enumerate(keys)}
    m = np.zeros((len(keys), len(labels)))
    for k in keys:
        for s, c in Counter(k.split("\t")).items():
            m[kidx[k], index[s]] = c
    w = np.zeros_like(m)
    games = np.zeros(len(keys))
    for key, s, wsum, g in comps.select("key", "strategy", "w", "games").iter_rows():
        w[kidx[key], index[s]] += wsum
        games[kidx[key]] = g  # every strategy of a composition saw all its games
    return keys, m, w, games


def _fit(m: np.ndarray, w: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Maximum-likelihood strengths (the last strategy fixed at 0 during the fit)."""
    k = m.shape[1]

    def nll(free: np.ndarray):
        theta = np.append(free, 0.0)
        z = m * np.exp(theta)[None, :]
        total = z.sum(axis=1)
        p = z / total[:, None]
        ll = (w * theta[None, :]).sum() - (games * np.log(total)).sum()
        grad = w.sum(axis=0) - (games[:, None] * p).sum(axis=0)
        return -ll, -grad[:-1]

    res = minimize(nll, np.zeros(k - 1), jac=True, method="BFGS")
    theta = np.append(res.x, 0.0)
    return theta - theta.mean()


Signature = tuple[tuple[str, int], ...]
"""A cluster's games by composition: ``((key, games), ...)``, keys sorted."""


def _clusters_map(chunk: Chunk) -> tuple[dict, dict]:
    """What the sandwich's meat needs, without a second pass over the run.

    A cluster's score is ``W_c - sum_k n_ck pi_k(theta)``: its games' summed win shares per
    strategy minus, per composition ``k``, its games of that composition times the model's
    win probabilities there. Clusters with the same *signature* ``(k, n_ck)...`` share the
    subtracted vector, so the meat ``sum_c s_c s_c^T`` follows, once theta is fitted, from
    per signature: the clusters, ``sum W_c`` and ``sum W_c W_c^T`` (over the signature's
    strategies). Clusters a chunk boundary may split are returned raw, to be joined.
    """
    labels, gid, counts, wins, code = chunk.derived(_games)
    cluster = chunk.clusters_of(gid)
    if len(cluster) == 0:
        return {}, {}
    starts = np.flatnonzero(np.r_[True, cluster[1:] != cluster[:-1]])
    ids = cluster[starts]
    per_cluster = np.add.reduceat(wins, starts, axis=0)
    uniq, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    keys = [_key(labels, counts[f]) for f in first]
    cid = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(cluster)]))
    pairs, n_pair = np.unique(cid * len(uniq) + inverse, return_counts=True)
    if len(pairs) == len(starts):  # one composition per cluster (any rotated or plain run)
        sig_code = inverse[starts] * (len(cluster) + 1) + n_pair
        signatures = {
            int(c): ((keys[int(c) // (len(cluster) + 1)], int(c) % (len(cluster) + 1)),)
            for c in np.unique(sig_code)
        }
    else:
        parts: dict[int, list] = {}
        for pc, n in zip(pairs.tolist(), n_pair.tolist(), strict=True):
            parts.setdefault(pc // len(uniq), []).append((keys[pc % len(uniq)], n))
        sig_of = [tuple(sorted(parts[c])) for c in range(len(starts))]
        index = {sig: i for i, sig in enumerate(dict.fromkeys(sig_of))}
        sig_code = np.array([index[sig] for sig in sig_of])
        signatures = {i: sig for sig, i in index.items()}
    split = np.isin(ids, np.array(chunk.split_clusters(), dtype=ids.dtype))
    whole: dict[Signature, tuple] = {}
    for c, sig in signatures.items():
        names = sorted({s for key, _ in sig for s in key.split("\t")})
        cols = [labels.index(n) for n in names]
        w = per_cluster[(sig_code == c) & ~split][:, cols]
        if len(w):
            whole[sig] = (tuple(names), len(w), w.sum(axis=0), w.T @ w)
    edge = {}
    for r in np.flatnonzero(split):
        sig = signatures[int(sig_code[r])]
        edge[int(ids[r])] = (Counter(dict(sig)), dict(zip(labels, per_cluster[r], strict=True)))
    return whole, edge


def _clusters_reduce(parts: list[tuple[dict, dict]]) -> dict[Signature, tuple]:
    """Per signature over the run: strategies, clusters, ``sum W_c``, ``sum W_c W_c^T``
    (split clusters joined first)."""
    out: dict[Signature, tuple] = {}

    def add(sig, names, n, total, outer):
        if sig in out:
            _, n0, t0, o0 = out[sig]
            out[sig] = (names, n0 + n, t0 + total, o0 + outer)
        else:
            out[sig] = (names, n, total, outer)

    edges: dict[int, tuple[Counter, Counter]] = {}
    for whole, edge in parts:
        for sig, value in whole.items():
            add(sig, *value)
        for cid, (games, w) in edge.items():
            g0, w0 = edges.get(cid, (Counter(), Counter()))
            edges[cid] = (g0 + games, w0 + Counter(w))
    for games, w in edges.values():
        sig = tuple(sorted(games.items()))
        names = tuple(sorted({s for key in games for s in key.split("\t")}))
        v = np.array([w.get(s, 0.0) for s in names])
        add(sig, names, 1, v, np.outer(v, v))
    return out


CLUSTERS = Partial("rating_clusters", _clusters_map, _clusters_reduce)


def _meat(stats: dict[Signature, tuple], labels: list[str], theta: np.ndarray):
    """``sum_c s_c s_c^T`` over the clusters of :data:`CLUSTERS` and their number."""
    index = {s: i for i, s in enumerate(labels)}
    k = len(labels)
    meat, clusters = np.zeros((k, k)), 0
    strength = np.exp(theta)
    for sig, (names, n, total, outer) in stats.items():
        cols = np.array([index[s] for s in names])
        expected = np.zeros(k)  # sum_k n_ck pi_k(theta)
        for key, games in sig:
            seats = np.zeros(k)
            for s, c in Counter(key.split("\t")).items():
                seats[index[s]] = c
            z = seats * strength
            expected += games * z / z.sum()
        t, o = np.zeros(k), np.zeros((k, k))
        t[cols], o[np.ix_(cols, cols)] = total, outer
        meat += o - np.outer(t, expected) - np.outer(expected, t) + n * np.outer(expected, expected)
        clusters += n
    return meat, clusters


def _bread(theta: np.ndarray, m: np.ndarray, games: np.ndarray) -> np.ndarray:
    """The information matrix sum_k games_k (diag(p_k) - p_k p_k^T)."""
    z = m * np.exp(theta)[None, :]
    p = z / z.sum(axis=1)[:, None]
    info = np.zeros((len(theta), len(theta)))
    for row, n in zip(p, games, strict=True):
        info += n * (np.diag(row) - np.outer(row, row))
    return info


def rate(runs: Sequence[RunData], mapper: Mapper | None = None) -> pl.DataFrame:
    """Every strategy of ``runs`` (one game) on one scale: strength, Elo, win share against an
    average field, each with its 95% interval, strongest first."""
    games_of = {r.game for r in runs}
    if len(games_of) != 1:
        raise ValueError(f"ratings need runs of one game, got {sorted(games_of)}")
    comps = (
        pl.concat([run_one(r, COMPOSITIONS, mapper) for r in runs])
        .group_by("key", "strategy")
        .sum()
    )
    labels = sorted(set(comps["strategy"].to_list()))
    if len(labels) < 2:
        return pl.DataFrame()
    _, m, w, games = _design(comps, labels)
    theta = _fit(m, w, games)
    meat, clusters = np.zeros((len(labels), len(labels))), 0
    for r in runs:
        part_meat, part_clusters = _meat(run_one(r, CLUSTERS, mapper), labels, theta)
        meat += part_meat
        clusters += part_clusters
    # Fix the last strength (the model is identified up to a constant), then centre.
    k = len(labels)
    bread = _bread(theta, m, games)[:-1, :-1]
    cov_free = sandwich(np.linalg.inv(bread), meat[:-1, :-1], clusters)
    lift = np.vstack([np.eye(k - 1), np.zeros((1, k - 1))])
    centre = np.eye(k) - 1 / k
    cov = centre @ lift @ cov_free @ lift.T @ centre.T
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    players = Counter(int(r.n_players) for r in runs).most_common(1)[0][0]

    def vs_field(t: np.ndarray) -> np.ndarray:
        return np.exp(t) / (np.exp(t) + players - 1)

    n_games = dict(zip(labels, (m > 0).T @ games, strict=True))
    return pl.DataFrame(
        {
            "strategy": labels,
            "games": [int(n_games[s]) for s in labels],
            "theta": theta,
            "lo": theta - Z95 * se,
            "hi": theta + Z95 * se,
            "elo": theta * ELO,
            "elo_lo": (theta - Z95 * se) * ELO,
            "elo_hi": (theta + Z95 * se) * ELO,
            "win_share_vs_field": vs_field(theta),
            "share_lo": vs_field(theta - Z95 * se),
            "share_hi": vs_field(theta + Z95 * se),
        }
    ).sort("theta", descending=True)
