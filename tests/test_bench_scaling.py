"""``dinolab bench GAME --scaling``: the same run at 1, 2, 4 ... workers (issue 25, item 3)."""

from __future__ import annotations

import os
import re

import pytest

from simulate.bench_scaling import chunk_plan, worker_counts


def test_worker_counts_double_up_to_the_cores():
    assert worker_counts(1) == [1]
    assert worker_counts(2) == [1, 2]
    assert worker_counts(16) == [1, 2, 4, 8, 16]
    assert worker_counts(12) == [1, 2, 4, 8, 12]


def test_chunk_plan_says_who_waits():
    assert chunk_plan(32, 16) == "32 chunks: 2 per worker"
    assert chunk_plan(10, 16) == "10 chunks: 6 of 16 workers idle"
    assert chunk_plan(20, 16) == "20 chunks: 1 or 2 per worker (2 waves, 4 chunks in the last)"


@pytest.mark.slow
def test_scaling_bench_times_every_worker_count(cli, monkeypatch):
    monkeypatch.setenv("DINOLAB_GAMES", "tests.toygame")  # the subprocesses see it too
    r = cli("bench", "high-card", "--scaling", "-n", "20000")
    assert r.code == 0, r.err
    for w in worker_counts(os.cpu_count() or 1):
        assert f"| {w} worker" in r.out
    assert "| 1 worker | " in r.out and "| 1.00x | 100% | 1.00x |" in r.out
    cores = os.cpu_count() or 1
    at_once = re.search(rf"\| {cores} workers? \|.*\| ([\d.]+)x \|$", r.out, re.M)
    assert at_once and float(at_once[1]) > 0, r.out  # the kernels alone on every core
    assert "on 16 workers: 4 chunks: 12 of 16 workers idle" in r.out  # 5,000-game chunks


def test_backend_without_scaling_is_refused_in_one_line(cli):
    r = cli("bench", "dkd", "--backend", "dask")
    assert r.code == 2 and "--backend is for --scaling" in r.err
    r = cli("bench", "dkd", "--scaling", "--backend", "mpi")
    assert r.code == 2 and "unknown backend 'mpi'" in r.err


@pytest.mark.parametrize("name", ["dkd", "evo", "dtb", "oos"])
def test_every_games_scaling_workload_keeps_16_workers_equally_busy(name):
    """Every one of 16 workers gets the same number of chunks of the declared workload, so
    the 16-worker time measures scaling, not a last wave of a few chunks."""
    from simulate.config import build_config
    from simulate.games import get_game

    bench = get_game(name).bench
    config, _ = build_config(
        name,
        n_players=bench.players,
        strategies=bench.lineup,
        rotate=True,
        seed=1,
        games=bench.scaling_games,
        chunk_size=None,
    )
    assert config.n_chunks >= 2 * 16 and config.n_chunks % 16 == 0, config.n_chunks
