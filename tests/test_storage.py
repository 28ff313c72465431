"""Run directories behind fsspec URLs: the object-store code path, on fsspec's memory://.

memory:// has an object store's semantics for us (no rename, no append; whole objects) and
lives in this process, so these tests run with one in-process worker.
"""

from __future__ import annotations

import uuid

import pytest

fsspec = pytest.importorskip("fsspec")

from simulate.config import build_config  # noqa: E402
from simulate.executors import InlineExecutor  # noqa: E402
from simulate.manifest import read_manifest  # noqa: E402
from simulate.rundir import Run  # noqa: E402
from simulate.runner import run  # noqa: E402
from simulate.storage import FsspecStore, open_store  # noqa: E402
from simulate.verify import verify_run  # noqa: E402
from tests.test_runner import CrashAfter, files  # noqa: E402


def config():
    return build_config(
        "dkd",
        n_players=4,
        strategies="greedy,cautious,blind,random",
        rotate=True,
        seed=8,
        games=2000,
        chunk_size=500,
    )


@pytest.mark.slow
def test_a_run_on_an_object_store_is_byte_identical_to_a_local_one(tmp_path, cli):
    url = f"memory://dinolab-{uuid.uuid4().hex}/run"
    cfg, setup = config()
    with pytest.raises(KeyboardInterrupt):
        run(cfg, setup, url, CrashAfter(2))
    store = open_store(url)
    assert isinstance(store, FsspecStore)
    assert sorted(store.listdir("journal")) == ["00000000.json", "00000001.json"]
    assert read_manifest(url)["status"] == "running"
    run(cfg, setup, url, InlineExecutor(), resume=True)
    assert store.listdir("journal") == []
    run(cfg, setup, tmp_path / "local", InlineExecutor())
    local = files(tmp_path / "local")
    for name, data in local.items():
        assert store.read_bytes(name) == data, name
    assert verify_run(url).ok
    r = cli("replay", url, "--game", "1234")
    assert r.code == 0 and "replay matches the logged rows" in r.out
    r = cli("report", url, "--workers", 1)  # memory:// is per process: no worker pool
    assert r.code == 0, r.err
    assert "Seat advantage" in store.read_bytes("report.md").decode()
    assert "Robustness: with stronger bots" in store.read_bytes("report.md").decode()
    assert Run(url).scan("turns").collect().height == 2000 * 44


def test_cli_refusals_on_urls(cli):
    url = f"memory://dinolab-{uuid.uuid4().hex}/run"
    r = cli("simulate", "dkd", "-n", "20", "--workers", "1", "--out", url, "--no-progress")
    assert r.code == 0, r.err
    r = cli("simulate", "dkd", "-n", "20", "--workers", "1", "--out", url)
    assert r.code == 2 and "not empty; use --resume" in r.err
    r = cli("verify", url + "-missing")
    assert r.code == 2 and "is not a dinolab run" in r.err
    r = cli("simulate", "dkd", "-n", "20", "--out", "nosuchprotocol://bucket/x")
    assert r.code == 2 and r.err.startswith("error: cannot open nosuchprotocol://")
