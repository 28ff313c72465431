"""The shared analysis layer: chunked statistics equal the whole-run ones, and the estimators
recover what is planted in synthetic runs (ratings, balance, decisiveness)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reports import common, ratings
from reports import dino_kontra_dino as dkd
from reports.aggregate import Chunk, per_cluster
from reports.models.clustered import clustered_mean
from reports.stats import Z95
from simulate.config import build_config
from simulate.executors import InlineExecutor
from simulate.rundir import Run
from simulate.runner import run


class FrameRun:
    """A run held in memory (tables as polars frames, split into chunks): enough RunData for
    the analyses, so estimators can be tried on data with a planted truth."""

    def __init__(self, tables: dict[str, pl.DataFrame], n_players: int, rotate: bool, chunk: int):
        self.tables = tables
        games = tables["games"].height
        bounds = list(range(0, games, chunk))
        self.manifest = {
            "chunks": {
                str(i): {"start": a, "stop": min(a + chunk, games)} for i, a in enumerate(bounds)
            },
            "config": {
                "game": "synthetic",
                "n_players": n_players,
                "rotate": rotate,
                "strategies": ["x", "y"],
                "params": {},
                "seed": 0,
            },
            "tables": {k: {"columns": [{"name": c} for c in v.columns]} for k, v in tables.items()},
        }

    config = property(lambda self: self.manifest["config"])
    game = property(lambda self: "synthetic")
    title = property(lambda self: "synthetic")
    n_players = property(lambda self: self.config["n_players"])
    complete = property(lambda self: True)
    games_logged = property(lambda self: self.tables["games"].height)

    def read(self, table, chunk, columns=None):
        c = self.manifest["chunks"][str(chunk)]
        df = self.tables[table].filter(pl.col("game_id").is_between(c["start"], c["stop"] - 1))
        return df.select(columns) if columns else df

    def scan(self, table):
        return self.tables[table].lazy()


@pytest.fixture(scope="module")
def split_run(tmp_path_factory):
    """Three players, rotated, chunks of 1,000 games: deals of 3 games straddle chunks."""
    cfg, setup = build_config(
        "dkd",
        n_players=3,
        strategies="greedy,cautious,random",
        rotate=True,
        seed=4,
        games=6000,
        chunk_size=1000,
    )
    out = tmp_path_factory.mktemp("analysis") / "run"
    run(cfg, setup, out, InlineExecutor())
    return Run(out)


def test_chunked_clustered_means_equal_the_whole_run_computation(split_run):
    whole = clustered_mean(
        common.with_win_share(split_run), ["seat"], "share", common.cluster(split_run)
    )
    chunked = common.seat_win_share(split_run)
    for col in ("n", "clusters", "mean", "lo", "hi"):
        assert np.allclose(chunked[col].to_numpy(), whole[col].to_numpy(), rtol=1e-12), col
    assert whole["clusters"][0] == 2000, "a deal split by a chunk boundary counts once"


def test_balance_interval_and_equal_seat_test_from_the_covariance(split_run):
    df = common.with_win_share(split_run).collect()
    cl = (df["game_id"] // 3).to_numpy()
    seat = df["seat"].to_numpy()
    share = df["share"].to_numpy()
    c = cl.max() + 1
    sums = np.zeros((c, 3))
    np.add.at(sums, (cl, seat), share)
    n = np.bincount(seat).astype(float)
    m = sums.sum(axis=0) / n
    counts = np.zeros((c, 3))
    np.add.at(counts, (cl, seat), 1.0)
    resid = sums - counts * m
    cov = c / (c - 1) * resid.T @ resid / np.outer(n, n)
    bal = common.seat_balance(split_run)
    hi, lo = int(np.argmax(m)), int(np.argmin(m))
    se = math.sqrt(cov[hi, hi] + cov[lo, lo] - 2 * cov[hi, lo])
    assert bal["balance"] == pytest.approx(1 - (m[hi] - m[lo]), abs=1e-12)
    assert bal["lo"] == pytest.approx(1 - (m[hi] - m[lo]) - Z95 * se, abs=1e-12)
    d = m[1:] - m[0]
    k = np.array([[-1, 1, 0], [-1, 0, 1]])
    assert bal["chi2"] == pytest.approx(d @ np.linalg.solve(k @ cov @ k.T, d), rel=1e-9)


def planted(n_games: int, players: int, theta: dict[str, float], seed: int, rotate: bool):
    """Games whose winner is drawn from the Plackett-Luce first-choice model with ``theta``,
    lineups drawn at random; seats are exchangeable."""
    rng = np.random.default_rng(seed)
    names = list(theta)
    rows, games = [], []
    for g in range(n_games):
        lineup = rng.choice(names, size=players)
        w = np.exp([theta[s] for s in lineup])
        winner = rng.choice(players, p=w / w.sum())
        games.append((g, 1, 10))
        rows += [(g, s, lineup[s], s == winner) for s in range(players)]
    players_df = pl.DataFrame(rows, schema=["game_id", "seat", "strategy", "winner"], orient="row")
    games_df = pl.DataFrame(games, schema=["game_id", "n_winners", "rounds"], orient="row")
    return FrameRun({"players": players_df, "games": games_df}, players, rotate, 2500)


def test_ratings_recover_planted_strengths_within_their_intervals():
    theta = {"strong": 0.8, "middle": 0.1, "weak": -0.9}
    table = ratings.rate([planted(20_000, 4, theta, seed=3, rotate=False)])
    centred = {k: v - np.mean(list(theta.values())) for k, v in theta.items()}
    for row in table.iter_rows(named=True):
        se = (row["hi"] - row["lo"]) / (2 * Z95)
        assert abs(row["theta"] - centred[row["strategy"]]) < 4 * se, row
        assert se < 0.05
    assert table["strategy"].to_list() == ["strong", "middle", "weak"]


def test_ratings_pool_runs_of_different_player_counts():
    theta = {"strong": 0.5, "weak": -0.5}
    three = planted(6000, 3, theta, seed=1, rotate=False)
    five = planted(6000, 5, theta, seed=2, rotate=False)
    both = ratings.rate([three, five])
    alone = ratings.rate([three])
    width = lambda t: float((t["hi"] - t["lo"]).mean())  # noqa: E731
    assert width(both) < width(alone), "more games from another player count narrow it"
    assert both["strategy"].to_list() == ["strong", "weak"]


def test_decisiveness_matches_a_plain_recount(split_run):
    df = common.decisiveness(split_run, dkd.progress)
    turns = split_run.scan("turns").filter(pl.col("game_id") < 300).collect()
    players = split_run.scan("players").filter(pl.col("game_id") < 300).collect()
    games = split_run.scan("games").filter(pl.col("game_id") < 300).collect()
    expected: dict[int, int] = {}
    for g in range(300):
        if games["n_winners"][g] != 1:
            continue
        w = int(players.filter((pl.col("game_id") == g) & pl.col("winner"))["seat"][0])
        t = turns.filter(pl.col("game_id") == g).sort("round", "seat")
        score = np.zeros(3)
        led_from = None
        for r in sorted(set(t["round"].to_list())):
            won = t.filter(pl.col("round") == r)["won"].to_numpy()
            score += won
            leads = score[w] > np.delete(score, w).max()
            led_from = (r if led_from is None else led_from) if leads else None
        led_from = games["rounds"][g] if led_from is None else led_from  # won on a tie-break
        expected[led_from] = expected.get(led_from, 0) + 1
    small = common.decisiveness(_first(split_run, 300), dkd.progress)
    got = dict(zip(small["led_from"].to_list(), small["games"].to_list(), strict=True))
    assert got == expected
    assert int(df["games"].sum()) == int(
        split_run.scan("games").filter(pl.col("n_winners") == 1).collect().height
    )


def _first(run: Run, n: int) -> FrameRun:
    tables = {
        t: run.scan(t).filter(pl.col("game_id") < n).collect()
        for t in ("games", "players", "turns")
    }
    return FrameRun(tables, run.n_players, True, 100)


def test_games_needed_follows_one_over_square_root():
    assert common.games_needed(0.01, 10_000, 0.005) == 40_000
    assert common.games_needed(0.004, 10_000, 0.005) == 6_400


def test_capped_games_are_none_where_a_game_cannot_be_capped(split_run):
    assert common.capped_games(split_run) is None
    games = pl.DataFrame(
        {
            "game_id": range(10),
            "n_winners": [1] * 10,
            "rounds": [5] * 10,
            "capped": [True, False] * 5,
        }
    )
    out = common.capped_games(FrameRun({"games": games}, 2, False, 4))
    assert out["capped"] == 5 and out["share"] == 0.5 and out["lo"] < 0.5 < out["hi"]


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 400),
    rotate=st.booleans(),
    players=st.integers(2, 5),
    first_game=st.integers(0, 50),
    kinds=st.lists(st.sampled_from(["int", "bool", "str", "wide"]), max_size=2),
    seed=st.integers(0, 2**32 - 1),
)
def test_packed_per_cluster_sums_equal_a_group_by(rows, rotate, players, first_game, kinds, seed):
    """The bincount path of ``per_cluster`` gives the group-by's rows, types and sums, for
    integer, boolean and string groups, whether or not games form deals; a group too sparse to
    pack falls back to the group-by."""
    rng = np.random.default_rng(seed)
    columns = {"game_id": np.sort(rng.integers(first_game, first_game + 60, rows))}
    for i, kind in enumerate(kinds):
        name = f"g{i}"
        if kind == "int":
            columns[name] = pl.Series(name, rng.integers(-3, 4, rows), dtype=pl.Int8)
        elif kind == "bool":
            columns[name] = rng.random(rows) < 0.5
        elif kind == "str":
            columns[name] = rng.choice(["greedy", "cautious[aim=0.9,figure=1]", "b"], rows)
        else:
            columns[name] = rng.integers(0, 10**9, rows)
    columns["share"] = rng.random(rows)
    df = pl.DataFrame(columns)
    chunk = Chunk(0, 0, 10**6, players, rotate, None)
    by = [f"g{i}" for i in range(len(kinds))]
    got = per_cluster(chunk, df, by, "share")
    want = (
        df.with_columns(_cluster=chunk.cluster())
        .group_by([*by, "_cluster"])
        .agg(s=pl.col("share").sum(), n=pl.len().cast(pl.Float64))
        .sort([*by, "_cluster"])
    )
    assert got.schema == want.schema
    assert got.drop("s").equals(want.drop("s"))
    assert np.allclose(got["s"].to_numpy(), want["s"].to_numpy(), rtol=1e-12, atol=0)


def _sandwich_se(frames: list[tuple[pl.DataFrame, int, bool]], labels, theta) -> np.ndarray:
    """Standard errors of the centred strengths from every game's score summed per cluster,
    computed on whole runs (the one-pass meat of ``ratings`` must equal this)."""
    k = len(labels)
    strength = np.exp(theta)
    meat, bread, clusters = np.zeros((k, k)), np.zeros((k, k)), 0
    for players, p, rotate in frames:
        share = players["share"].to_numpy()
        code = players["strategy"].replace_strict(labels, range(k)).to_numpy()
        game = players["game_id"].to_numpy()
        counts, wins = np.zeros((game.max() + 1, k)), np.zeros((game.max() + 1, k))
        np.add.at(counts, (game, code), 1.0)
        np.add.at(wins, (game, code), share)
        prob = counts * strength / (counts * strength).sum(axis=1, keepdims=True)
        cl = np.arange(len(counts)) // p if rotate else np.arange(len(counts))
        s = np.zeros((cl.max() + 1, k))
        np.add.at(s, cl, wins - prob)
        meat += s.T @ s
        clusters += cl.max() + 1
        bread += sum(np.diag(q) - np.outer(q, q) for q in prob)
    inv = np.linalg.inv(bread[:-1, :-1])
    cov_free = clusters / (clusters - 1) * inv @ meat[:-1, :-1] @ inv
    lift = np.vstack([np.eye(k - 1), np.zeros((1, k - 1))])
    centre = np.eye(k) - 1 / k
    return np.sqrt(np.diag(centre @ lift @ cov_free @ lift.T @ centre.T))


def test_rating_intervals_from_one_pass_equal_the_whole_run_sandwich(split_run):
    """The meat is summed per cluster signature in the fit's own pass; the intervals must be
    those of summing every game's score per cluster on the whole run: deals split by chunk
    boundaries, deals whose games differ in composition (random lineups rotated), plain runs
    and several runs pooled."""
    theta = {"a": 0.6, "b": 0.0, "c": -0.4}
    mixed = planted(7000, 3, theta, seed=5, rotate=True)  # 2,500-game chunks split deals
    plain = planted(5000, 4, theta, seed=6, rotate=False)

    def shares(run):
        return common.with_win_share(run).collect().with_columns(pl.col("strategy").cast(str))

    for runs, frames in (
        ([split_run], [(shares(split_run), 3, True)]),
        ([mixed], [(shares(mixed), 3, True)]),
        ([mixed, plain], [(shares(mixed), 3, True), (shares(plain), 4, False)]),
    ):
        table = ratings.rate(runs)
        labels = table["strategy"].to_list()
        se = _sandwich_se(frames, labels, table["theta"].to_numpy())
        got = (table["hi"] - table["lo"]).to_numpy() / (2 * Z95)
        assert np.allclose(got, se, rtol=1e-9), (got, se)
