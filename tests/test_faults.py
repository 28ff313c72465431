"""Crashes and faults: killed workers, a killed driver, a full disk, an unwritable folder."""

from __future__ import annotations

import errno
import os
import signal
import time
from pathlib import Path

import pytest

from simulate.manifest import read_manifest
from simulate.storage import LocalStore
from simulate.verify import verify_run
from tests.faults import (
    ARGS,
    children,
    chunks_done,
    kill_tree,
    parquet_files,
    start,
    wait_for,
)


@pytest.fixture(scope="module")
def reference(tmp_path_factory, cli_module):
    out = tmp_path_factory.mktemp("ref") / "run"
    r = cli_module("simulate", *ARGS, "--workers", "1", "--out", out)
    assert r.code == 0, r.err
    return parquet_files(out)


@pytest.mark.slow
def test_a_worker_killed_mid_chunk_is_replaced_and_the_chunk_redone(tmp_path, reference):
    out = tmp_path / "run"
    proc = start(out)
    wait_for(out, 3, proc)
    workers = children(proc.pid)
    assert workers, "the run has worker processes"
    assert chunks_done(out) < 30, "the run is still going when the worker dies"
    os.kill(workers[-1], signal.SIGKILL)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert parquet_files(out) == reference
    assert verify_run(out).ok


@pytest.mark.slow
@pytest.mark.parametrize("after_chunks", [0, 4, 17])
def test_a_killed_run_resumes_to_exactly_the_uninterrupted_tables(
    tmp_path, reference, cli_module, after_chunks
):
    out = tmp_path / "run"
    proc = start(out)
    wait_for(out, after_chunks, proc)
    kill_tree(proc)  # driver and workers, as a power cut would
    assert read_manifest(out)["status"] == "running"
    r = cli_module("simulate", "dkd", "--out", out, "--resume", "--workers", "2")
    assert r.code == 0, r.err
    assert parquet_files(out) == reference
    report = verify_run(out)
    assert report.ok, report.text()


@pytest.mark.slow
def test_only_the_driver_killed(tmp_path, reference, cli_module):
    out = tmp_path / "run"
    proc = start(out)
    wait_for(out, 2, proc)
    workers = children(proc.pid)
    assert workers
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 10
    while any(Path(f"/proc/{w}").exists() for w in workers) and time.time() < deadline:
        time.sleep(0.1)
    alive = [
        w
        for w in workers
        if Path(f"/proc/{w}/stat").exists()
        and Path(f"/proc/{w}/stat").read_text().split()[2] != "Z"
    ]
    assert not alive, "workers exit when their driver dies"
    r = cli_module("simulate", "dkd", "--out", out, "--resume", "--workers", "2")
    assert r.code == 0, r.err
    assert parquet_files(out) == reference


def test_disk_full_is_a_clear_error_and_the_run_stays_resumable(
    tmp_path, reference, cli_module, monkeypatch
):
    out = tmp_path / "run"
    real = LocalStore.write_bytes
    calls = {"n": 0}

    def flaky(self, rel, data):
        calls["n"] += 1
        if rel.startswith("turns/") and calls["n"] > 12:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, rel, data)

    monkeypatch.setattr(LocalStore, "write_bytes", flaky)
    r = cli_module("simulate", *ARGS, "--workers", "1", "--out", out)
    assert r.code == 2
    assert r.err.startswith("error: cannot write chunk") and "No space left on device" in r.err
    assert r.err.count("\n") == 1
    done = chunks_done(out)
    assert 0 < done < 30
    assert not list(out.rglob(".tmp-*"))
    monkeypatch.setattr(LocalStore, "write_bytes", real)
    r = cli_module("simulate", "dkd", "--out", out, "--resume", "--workers", "1")
    assert r.code == 0, r.err
    assert parquet_files(out) == reference


def test_an_unwritable_output_path_is_refused(tmp_path, cli_module):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    r = cli_module("simulate", "dkd", "-n", "10", "--workers", "1", "--out", blocker / "run")
    assert r.code == 2 and r.err.startswith("error: ") and r.err.count("\n") == 1
    assert blocker.read_text() == "not a folder"
