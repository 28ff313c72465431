"""The shared statistical models (``reports.models``) against direct computations: numpy's
least squares and logistic fits with an explicit sandwich on small data held in memory, the
same data fitted in one chunk and in many (clusters split by chunk boundaries), and the one
small-sample factor with its one behaviour for a single cluster."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.special import expit

from reports.aggregate import Chunk, cluster_sums, combine_outer, outer_part
from reports.game import FirstMover, GameReport
from reports.metrics import Claim
from reports.models import least_squares, logistic
from reports.models.clustered import (
    clustered_mean,
    fold,
    gram,
    means_covariance,
    moments_to_mean,
    sandwich,
    small_sample,
)
from reports.section import Section
from reports.stats import Z95


def rows(n: int = 3000, seed: int = 1) -> dict[str, np.ndarray]:
    """Rows of two groups (``g``), clusters of 1 to 5 rows in cluster order, two regressors
    and two outcomes with noise shared within a cluster (so clustering matters)."""
    rng = np.random.default_rng(seed)
    size = rng.integers(1, 6, n)
    cluster = np.repeat(np.arange(n), size)[:n]
    m = len(cluster)
    x1, x2 = rng.normal(size=m), rng.integers(0, 4, m).astype(float)
    shared = rng.normal(size=n)[cluster]
    y1 = 1.0 + 0.5 * x1 - 0.2 * x2 + shared + rng.normal(size=m)
    y2 = -0.3 * x1 + 0.7 * shared + rng.normal(size=m)
    return {"cluster": cluster, "g": cluster % 2, "x1": x1, "x2": x2, "y1": y1, "y2": y2}


class MemoryRun:
    """``rows`` as a run's chunks of ``chunk`` clusters (a cluster is a 'game'), with seat
    rotation off: every cluster is its own game, so a chunk boundary never splits one unless
    ``deal`` > 1 makes ``deal`` consecutive games one cluster."""

    def __init__(self, data: dict[str, np.ndarray], chunk: int, deal: int = 1):
        self.frame = pl.DataFrame({"game_id": data["cluster"], **data})
        games = int(data["cluster"].max()) + 1
        spans = enumerate(range(0, games, chunk))
        self.manifest = {"chunks": {str(i): {"start": a, "stop": a + chunk} for i, a in spans}}
        self.n_players, self.config = deal, {"rotate": deal > 1, "n_players": deal}

    def read(self, table, chunk, columns=None):
        c = self.manifest["chunks"][str(chunk)]
        return self.frame.filter(pl.col("game_id").is_between(c["start"], c["stop"] - 1))


def design(chunk: Chunk) -> least_squares.Design:
    df = chunk.run.read("rows", chunk.index)
    x = np.column_stack([np.ones(df.height), df["x1"].to_numpy(), df["x2"].to_numpy()])
    y = np.column_stack([df["y1"].to_numpy(), df["y2"].to_numpy()])
    gid = df["game_id"].to_numpy()
    g = df["g"].to_numpy()
    groups = {"g=0": np.flatnonzero(g == 0), "g=1": np.flatnonzero(g == 1), "all": slice(None)}
    return least_squares.Design(x, y, gid // chunk.n_players if chunk.rotate else gid, groups)


def direct_ols(data, keep: np.ndarray, outcome: str, deal: int = 1):
    """numpy's least squares and the cluster-robust sandwich written out."""
    x = np.column_stack([np.ones(keep.sum()), data["x1"][keep], data["x2"][keep]])
    y = data[outcome][keep]
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    ids = data["cluster"][keep] // deal
    _, inverse = np.unique(ids, return_inverse=True)
    scores = np.zeros((inverse.max() + 1, 3))
    np.add.at(scores, inverse, x * (y - x @ beta)[:, None])
    c = len(scores)
    bread = np.linalg.inv(x.T @ x)
    return beta, c / (c - 1) * bread @ scores.T @ scores @ bread


@pytest.mark.parametrize(("chunk", "deal"), [(10**6, 1), (97, 1), (97, 4)])
def test_chunked_least_squares_is_numpys_fit_with_the_sandwich(chunk, deal):
    """One chunk or chunks of 97 games (with deals of four games split at the boundaries):
    every group's and outcome's coefficients and covariance are the direct computation's,
    and the joint meat's diagonal blocks are the groups' own."""
    data = rows()
    model = least_squares.fit(MemoryRun(data, chunk, deal), design, joint=True)
    assert list(model.fits) == ["all", "g=0", "g=1"]  # groups sorted
    for group, keep in (("g=0", data["g"] == 0), ("g=1", data["g"] == 1), ("all", data["g"] >= 0)):
        assert model.fits[group].sums.rows == keep.sum()
        for k, outcome in enumerate(("y1", "y2")):
            beta, cov = direct_ols(data, keep, outcome, deal)
            np.testing.assert_allclose(model.fits[group].coef[:, k], beta, rtol=1e-10)
            np.testing.assert_allclose(model.covariance(group, k), cov, rtol=1e-8)
    joint = model.meats.joint[1]
    assert joint.clusters == len(np.unique(data["cluster"] // deal))
    for i, group in enumerate(model.fits):
        block = joint.outer[3 * i : 3 * i + 3, 3 * i : 3 * i + 3]
        np.testing.assert_allclose(block, model.meats.groups[group][1].outer, rtol=1e-10)
    assert model.joint_covariance(1).shape == (9, 9)


def test_a_regressor_left_out_gets_no_coefficient_and_no_variance():
    data = rows(500)
    keep = data["g"] >= 0
    x = np.column_stack([np.ones(keep.sum()), data["x1"], data["x2"]])
    y = np.column_stack([data["y1"], data["y2"]])
    fit = least_squares.solve(least_squares.Sums(len(y), x.T @ x, x.T @ y), used=(0, 1))
    assert np.all(fit.coef[2] == 0) and np.all(fit.bread[2] == 0) and np.all(fit.bread[:, 2] == 0)
    np.testing.assert_allclose(fit.coef[:2, 0], np.linalg.lstsq(x[:, :2], y[:, 0], rcond=None)[0])


def test_chunked_logistic_newton_is_the_penalised_maximum_with_its_sandwich():
    """Newton's method on chunks (deals of two games split by chunks of 301) reaches the
    penalised maximum (gradient 0) and its covariance is the sandwich written out."""
    rng = np.random.default_rng(3)
    n = 4000
    x = np.column_stack([np.ones(n), rng.normal(size=n), rng.normal(size=n)])
    y = (rng.random(n) < expit(x @ np.array([0.3, 1.0, -0.5]))).astype(float)
    clusters = np.arange(n) // 2
    penalty = np.array([0.0, 1.0, 1.0])

    def evaluate(models, betas, parts=(slice(0, 301), slice(301, 2000), slice(2000, n))):
        out = []
        for beta in betas:
            terms = []
            for at in parts:
                chunk = Chunk(0, at.start, at.stop, 2, True, None)
                terms.append(logistic.chunk_terms(chunk, x[at], y[at], clusters[at], beta))
            out.append(logistic.combine(terms, 3))
        return out

    (fit,) = logistic.newton(evaluate, [penalty])
    p = expit(x @ fit.coef)
    np.testing.assert_allclose(x.T @ (y - p) - penalty * fit.coef, 0, atol=1e-7)
    info = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty)
    scores = np.zeros((n // 2, 3))
    np.add.at(scores, clusters, x * (y - p)[:, None])
    bread = np.linalg.inv(info)
    c = n // 2
    np.testing.assert_allclose(fit.covariance(), c / (c - 1) * bread @ scores.T @ scores @ bread)
    meat = scores.T @ scores
    np.testing.assert_allclose(fit.covariance(small_sample=False), bread @ meat @ bread)

    def in_memory(models, betas):
        return [logistic.frame_sums(x, y, clusters, beta) for beta in betas]

    whole = logistic.newton(in_memory, [penalty])
    np.testing.assert_allclose(whole[0].coef, fit.coef, rtol=1e-10)
    np.testing.assert_allclose(whole[0].covariance(), fit.covariance(), rtol=1e-8)


def test_the_small_sample_factor_has_one_behaviour_for_one_cluster():
    assert small_sample(5) == pytest.approx(1.25) and np.isnan(small_sample(1))
    np.testing.assert_array_equal(np.isnan(small_sample([0, 1, 2])), [True, True, False])
    bread, meat = np.eye(2), np.ones((2, 2))
    assert np.isnan(sandwich(bread, meat, 1)).all()
    np.testing.assert_allclose(sandwich(bread, meat, 3), 1.5 * meat)
    np.testing.assert_allclose(sandwich(bread, meat, None), meat)


def test_the_cluster_robust_mean_of_groups_alone_and_together():
    """Per group, :func:`moments_to_mean` is the diagonal of :func:`means_covariance`, and
    both are the usual formula ``C/(C-1) sum_c (S_c - n_c m)^2 / N^2``; a group seen in one
    cluster has no interval. Groups 0 and 1 alternate within every cluster of two rows or
    more (so both count every cluster); group 2 is the first cluster's only."""
    data = rows(600)
    cl = data["cluster"]
    first = np.searchsorted(cl, cl)  # each row's cluster starts here
    size = np.bincount(cl)[cl]
    g = np.where(cl == 0, 2, (np.arange(len(cl)) - first) % 2)
    df = pl.DataFrame({"g": g, "y": data["y1"], "_cluster": cl}).filter(pl.Series(size > 1))
    per = df.group_by("g", "_cluster").agg(s=pl.col("y").sum(), n=pl.len().cast(pl.Float64))
    means = moments_to_mean(fold(per, ["g"]), ["g"])
    lazy = clustered_mean(df.lazy(), ["g"], "y", pl.col("_cluster"))
    assert means.drop("mean", "lo", "hi", "se").equals(lazy.drop("mean", "lo", "hi", "se"))
    for c in ("mean", "lo", "hi", "se"):
        np.testing.assert_allclose(means[c].to_numpy(), lazy[c].to_numpy(), rtol=1e-12)
    alone = means.filter(pl.col("g") == 2)  # the one-cluster group: no interval
    assert alone.height == 1 and alone["clusters"][0] == 1 and alone["se"].is_null().all()
    for g in (0, 1):
        sub = df.filter(pl.col("g") == g)
        ids, inv = np.unique(sub["_cluster"].to_numpy(), return_inverse=True)
        s, n = np.bincount(inv, sub["y"].to_numpy()), np.bincount(inv)
        m, c = s.sum() / n.sum(), len(ids)
        se = np.sqrt(c / (c - 1) * ((s - n * m) ** 2).sum()) / n.sum()
        row = means.filter(pl.col("g") == g).row(0, named=True)
        assert row["mean"] == pytest.approx(m, rel=1e-12)
        assert row["se"] == pytest.approx(se, rel=1e-10)
        assert row["hi"] - row["lo"] == pytest.approx(2 * Z95 * se, rel=1e-10)
    # the same two groups together: one Cross of per-cluster (S_0, S_1, n_0, n_1)
    two = df.filter(pl.col("g") < 2)
    ids, inv = np.unique(two["_cluster"].to_numpy(), return_inverse=True)
    g = two["g"].to_numpy()
    v = np.zeros((len(ids), 4))
    np.add.at(v, (inv, g), two["y"].to_numpy())
    np.add.at(v, (inv, 2 + g), 1.0)
    chunk = Chunk(0, 0, 10**9, 1, False, None)
    cross = combine_outer([outer_part(chunk, ids, v)], 4)
    np.testing.assert_allclose(cross.outer, gram(v))
    m, n, cov = means_covariance(cross)
    for k in (0, 1):
        row = means.filter(pl.col("g") == k).row(0, named=True)
        assert m[k] == pytest.approx(row["mean"], rel=1e-12)
        assert np.sqrt(cov[k, k]) == pytest.approx(row["se"], rel=1e-9)


def test_cluster_sums_and_gram_are_the_plain_sums():
    rng = np.random.default_rng(0)
    ids = np.sort(rng.integers(0, 50, 400))
    values = rng.normal(size=(400, 3))
    got_ids, sums = cluster_sums(ids, values)
    want = np.zeros((ids.max() + 1, 3))
    np.add.at(want, ids, values)
    np.testing.assert_allclose(sums, want[got_ids])
    np.testing.assert_allclose(gram(values), values.T @ values)


def _sections(run) -> list[Section]:
    return []


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"sections": "not a function"}, "sections"),
        ({"claims": (Claim("no_such_metric", 0.0, "a", "b", "c"),)}, "claim"),
        ({"first_mover": FirstMover("rows", ())}, "first_mover"),
        ({"progress": 3}, "progress"),
    ],
)
def test_a_malformed_report_fails_when_it_is_made(bad, message):
    with pytest.raises(TypeError, match=message):
        GameReport(**{"sections": _sections, **bad})
    assert GameReport(_sections, claims=(Claim("balance", 0.9, "a", "b", "c"),)).claims
