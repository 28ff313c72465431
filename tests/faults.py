"""Helpers for the fault tests: reference runs, process trees, waiting on a run's progress."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# montecarlo bots make chunks slow enough (~0.1 s each) to be killed in the middle of a run
LINEUP = "montecarlo[rollouts=16],greedy,cautious"
ARGS = [
    "dkd",
    "--games",
    "1800",
    "--players",
    "3",
    "--seed",
    "5",
    "--chunk-size",
    "60",
    "--strategy",
    LINEUP,
    "--rotate",
    "--no-progress",
]


def start(out: Path, *extra: str, workers: int = 2) -> subprocess.Popen:
    cmd = [
        sys.executable,
        "-m",
        "simulate.cli",
        "simulate",
        *ARGS,
        "--workers",
        str(workers),
        "--out",
        str(out),
        *extra,
    ]
    return subprocess.Popen(
        cmd, cwd=ROOT, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def chunks_done(out: Path) -> int:
    from rules.core.errors import DinolabError
    from simulate.manifest import read_manifest

    try:
        return len(read_manifest(out)["chunks"])
    except (OSError, ValueError, KeyError, DinolabError):
        return -1


def wait_for(out: Path, at_least: int, proc: subprocess.Popen, timeout: float = 120) -> None:
    t0 = time.time()
    while chunks_done(out) < at_least:
        if proc.poll() is not None:
            raise AssertionError(f"run ended before {at_least} chunks: {proc.stderr.read()}")
        if time.time() - t0 > timeout:
            raise AssertionError("timed out waiting for the run")
        time.sleep(0.02)


def children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return out


def kill_tree(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def parquet_files(run: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*.parquet"))}
