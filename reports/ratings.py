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
covariance (games that share a deal under seat rotation are one cluster), computed in a second
pass over the runs' chunks. The model assumes a strategy's strength does not depend on its
seat or its opponents; the seat advantage is averaged in, which is why rotated runs rate best.
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


def _compositions_map(chunk: Chunk) -> pl.DataFrame:
    """Per lineup composition (which strategies, how many seats each) of the chunk's games:
    the games and the win share summed per strategy."""
    labels = sorted(chunk.derived(share_frame)["strategy"].unique().to_list())
    _, counts, wins = _per_game(chunk, labels)
    base = chunk.n_players + 1
    code = counts.astype(np.int64) @ (base ** np.arange(len(labels), dtype=np.int64))
    uniq, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    comps = counts[first]
    games = np.bincount(inverse, minlength=len(uniq))
    totals = np.stack(
        [np.bincount(inverse, weights=wins[:, i], minlength=len(uniq)) for i in range(len(labels))],
        axis=1,
    )
    rows = []
    for c, comp in enumerate(comps):
        key = "\t".join("\t".join([labels[i]] * int(n)) for i, n in enumerate(comp) if n > 0)
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


def _scores_map(chunk: Chunk, labels: tuple[str, ...], theta: tuple[float, ...]):
    """Per cluster, the sum over its games of the score vector ``w_g - p_g`` (win shares minus
    the model's win probabilities of the strategies at the table)."""
    gid, counts, wins = _per_game(chunk, labels)
    z = counts * np.exp(np.asarray(theta))[None, :]
    score = wins - z / z.sum(axis=1, keepdims=True)
    cluster = gid // chunk.n_players if chunk.rotate else gid
    split = np.isin(cluster, np.array(chunk.split_clusters(), dtype=cluster.dtype))
    uniq, inv = np.unique(cluster[~split], return_inverse=True)
    sums = np.zeros((len(uniq), len(labels)))
    np.add.at(sums, inv, score[~split])
    edge = {int(c): score[cluster == c].sum(axis=0) for c in np.unique(cluster[split])}
    return sums.T @ sums, len(uniq), edge


def _scores_reduce(parts, labels: tuple[str, ...], theta: tuple[float, ...]):
    k = len(labels)
    meat, clusters = np.zeros((k, k)), 0
    edges: dict[int, np.ndarray] = {}
    for outer, c, edge in parts:
        meat += outer
        clusters += c
        for key, v in edge.items():
            edges[key] = edges.get(key, np.zeros(k)) + v
    for v in edges.values():
        meat += np.outer(v, v)
        clusters += 1
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
    args = (tuple(labels), tuple(float(x) for x in theta))
    meat, clusters = np.zeros((len(labels), len(labels))), 0
    for r in runs:
        part_meat, part_clusters = run_one(
            r, Partial("scores", _scores_map, _scores_reduce, args), mapper
        )
        meat += part_meat
        clusters += part_clusters
    # Fix the last strength (the model is identified up to a constant), then centre.
    k = len(labels)
    bread = _bread(theta, m, games)[:-1, :-1]
    inv = np.linalg.inv(bread)
    scale = clusters / (clusters - 1) if clusters > 1 else np.nan
    cov_free = scale * inv @ meat[:-1, :-1] @ inv
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
