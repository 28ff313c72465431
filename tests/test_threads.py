"""Several threads in one process play the same rows as one: a real Dask worker with two
threads, started by the test on 127.0.0.1, chunks on a thread pool in this process, and the
``threads`` backend."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from simulate.games import all_games
from simulate.kit.play import play
from simulate.parquet import encode
from tests.faults import parquet_files

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_chunks_on_two_threads_of_one_process_equal_one_thread(game):
    setup = game.setup(game.parameters(), game.demo.players, game.demo.strategy)
    n = 40 if game.name == "evo" else 2000
    chunks = [(a, a + n) for a in range(0, 8 * n, n)]

    def chunk(ab):  # as a worker does: encode before the next chunk reuses the buffers
        return {k: encode(t) for k, t in play(setup, 5, True, *ab, reuse=True).items()}

    alone = [chunk(ab) for ab in chunks]
    with ThreadPoolExecutor(2) as pool:
        together = list(pool.map(chunk, chunks))
    assert together == alone


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def threaded_worker():
    """A real ``dask scheduler`` and one ``dask worker --nthreads 2`` on 127.0.0.1."""
    pytest.importorskip("distributed")
    dask = Path(sys.executable).with_name("dask")
    if not dask.exists():
        dask = shutil.which("dask")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    common = ["--no-dashboard"]
    scheduler = subprocess.Popen(
        [str(dask), "scheduler", "--host", "127.0.0.1", "--port", str(port), *common],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    worker = subprocess.Popen(
        [str(dask), "worker", address, "--nthreads", "2", "--nworkers", "1", *common],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    try:
        from distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(1, timeout=60)
            assert list(client.nthreads().values()) == [2]
        yield address
    finally:
        for proc in (worker, scheduler):
            proc.terminate()
        for proc in (worker, scheduler):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.mark.slow
def test_a_dask_worker_with_two_threads_writes_the_bytes_of_a_local_run(
    tmp_path, threaded_worker, cli
):
    args = [
        "simulate",
        "dkd",
        "--games",
        "60000",
        "--chunk-size",
        "3000",
        "--seed",
        "8",
        "--strategy",
        "greedy,cautious,blind,random",
        "--rotate",
        "--no-progress",
    ]
    t0 = time.time()
    r = cli(*args, "--backend", "dask", "--scheduler", threaded_worker, "--out", tmp_path / "d")
    assert r.code == 0, r.err
    assert "2 workers" in r.out, "the executor counts the worker's threads"
    local = cli(*args, "--workers", "1", "--out", tmp_path / "local")
    assert local.code == 0, local.err
    assert parquet_files(tmp_path / "d") == parquet_files(tmp_path / "local")
    assert time.time() - t0 < 300


@pytest.mark.slow
def test_a_chunk_that_fails_on_the_cluster_ends_in_one_line(tmp_path, threaded_worker):
    from rules.core.errors import DinolabError
    from simulate.config import build_config
    from simulate.dask_backend import DaskExecutor
    from simulate.executors import ChunkJob

    _, setup = build_config(
        "dkd", n_players=4, strategies=None, rotate=False, seed=1, games=100, chunk_size=100
    )
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    executor = DaskExecutor(threaded_worker)
    try:
        job = ChunkJob(str(blocker / "run"), 1, False, 0, 0, 100)
        with pytest.raises(DinolabError) as caught:
            list(executor.run(setup, [job]))
    finally:
        executor.close()
    message = str(caught.value)
    assert "chunk 0" in message and "\n" not in message, message


def test_the_threads_backend_writes_the_bytes_of_a_local_run(tmp_path, cli):
    args = ["simulate", "dkd", "-n", "24000", "--chunk-size", "3000", "--seed", "8"]
    args += ["--strategy", "greedy,cautious,blind,random", "--rotate", "--no-progress"]
    r = cli(*args, "--backend", "threads", "--workers", "2", "--out", tmp_path / "t")
    assert r.code == 0, r.err
    assert "2 workers" in r.out
    local = cli(*args, "--workers", "2", "--out", tmp_path / "local")
    assert local.code == 0, local.err
    assert parquet_files(tmp_path / "t") == parquet_files(tmp_path / "local")


def test_a_chunk_that_fails_on_a_thread_ends_in_one_line_and_stops_the_rest(tmp_path):
    from rules.core.errors import DinolabError
    from simulate.config import build_config
    from simulate.executors import ChunkJob, ThreadExecutor

    _, setup = build_config(
        "dkd", n_players=4, strategies=None, rotate=False, seed=1, games=100, chunk_size=100
    )
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    jobs = [ChunkJob(str(blocker / "run"), 1, False, i, 100 * i, 100 * i + 100) for i in range(9)]
    executor = ThreadExecutor(2)
    try:
        with pytest.raises(DinolabError) as caught:
            list(executor.run(setup, jobs))
        # the pool outlives a failed stream: the next run on it plays
        good = ChunkJob(str(tmp_path / "run"), 1, False, 0, 0, 100)
        assert [r.rows["games"] for r in executor.run(setup, [good])] == [100]
    finally:
        executor.close()
    message = str(caught.value)
    assert "chunk " in message and "\n" not in message, message
