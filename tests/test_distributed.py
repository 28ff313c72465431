"""The Dask backend on a real LocalCluster: the same bytes as a local run, and a killed worker."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

distributed = pytest.importorskip("distributed")

from simulate.config import build_config  # noqa: E402
from simulate.dask_backend import DaskExecutor  # noqa: E402
from simulate.executors import InlineExecutor, ProcessExecutor  # noqa: E402
from simulate.runner import run  # noqa: E402
from tests.faults import ARGS, LINEUP, chunks_done, parquet_files  # noqa: E402


@pytest.fixture(scope="module")
def dask_executor():
    ex = DaskExecutor(workers=2)
    ex.close = lambda: None  # keep the cluster for the module; closed below
    yield ex
    DaskExecutor.close(ex)


def config(**kw):
    return build_config(
        "dkd",
        n_players=4,
        strategies="greedy,cautious,blind,random",
        rotate=True,
        seed=21,
        games=6000,
        chunk_size=700,
        **kw,
    )


@pytest.mark.slow
def test_local_one_and_two_workers_and_a_dask_cluster_write_the_same_bytes(tmp_path, dask_executor):
    cfg, setup = config()
    run(cfg, setup, tmp_path / "one", InlineExecutor())
    run(cfg, setup, tmp_path / "two", ProcessExecutor(2))
    summary = run(cfg, setup, tmp_path / "dask", dask_executor)
    assert summary.chunks_run == 9
    one = parquet_files(tmp_path / "one")
    assert len(one) == 9 * 4 + 3  # the parts, and the deck, events and strength data files
    assert parquet_files(tmp_path / "two") == one
    assert parquet_files(tmp_path / "dask") == one


@pytest.mark.slow
def test_a_dask_worker_killed_mid_chunk(tmp_path, dask_executor, cli_module):
    reference = tmp_path / "ref"
    assert cli_module("simulate", *ARGS, "--workers", "1", "--out", reference).code == 0
    args = dict(n_players=3, strategies=LINEUP, rotate=True, seed=5, games=1800, chunk_size=60)
    cfg, setup = build_config("dkd", **args)
    out = tmp_path / "run"
    pids = list(dask_executor.client.run(os.getpid).values())
    killed = []

    def killer():
        while chunks_done(out) < 3:
            time.sleep(0.02)
        os.kill(pids[0], signal.SIGKILL)
        killed.append(chunks_done(out))

    t = threading.Thread(target=killer, daemon=True)
    t.start()
    summary = run(cfg, setup, out, dask_executor)
    t.join(timeout=5)
    assert killed and killed[0] < 30, "the worker died while chunks were still running"
    assert summary.chunks_run == 30
    assert parquet_files(out) == parquet_files(reference)


@pytest.mark.slow
def test_a_sweep_on_dask_gives_the_local_results(tmp_path, cli_module):
    """Points, their parquet parts and their metrics, byte for byte (a LocalCluster of two
    workers, started by the command)."""
    args = [
        "sweep",
        "dkd",
        "--param",
        "hand_size=2,4",
        "--param",
        "first_holder=-1,0",
        "-n",
        "3000",
        "--chunk-size",
        "700",
        "--rotate",
        "--seed",
        "9",
        "--no-progress",
    ]
    assert cli_module(*args, "--workers", "1", "--out", tmp_path / "local").code == 0
    r = cli_module(*args, "--backend", "dask", "--workers", "2", "--out", tmp_path / "dask")
    assert r.code == 0, r.err
    local = parquet_files(tmp_path / "local")
    assert len(local) > 4 * 5 and parquet_files(tmp_path / "dask") == local
    for name in (
        "results.csv",
        "report.html",  # its figures drawn on the Dask workers, the local ones in-process
        *(f"points/{p.name}/metrics.json" for p in (tmp_path / "local" / "points").iterdir()),
    ):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()


@pytest.mark.slow
def test_a_search_on_dask_gives_the_local_answer(tmp_path, cli_module):
    args = [
        "search",
        "dtb",
        "--target",
        "first_share=0.5",
        "--param",
        "dice=4..7",
        "--budget",
        "40000",
        "--block",
        "500",
        "--seed",
        "3",
        "--no-progress",
    ]
    assert cli_module(*args, "--workers", "1", "--out", tmp_path / "local").code == 0
    r = cli_module(*args, "--backend", "dask", "--workers", "2", "--out", tmp_path / "dask")
    assert r.code == 0, r.err
    for name in ("search.json", "recommendation.json"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
