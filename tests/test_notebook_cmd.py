"""``dinolab notebook`` opens a notebook in the project's JupyterLab on a run (by default the
game's demo run): the launch it prints, its one-line refusals, and a real JupyterLab serving
the notebook with the run's path set."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from simulate.notebooks import RUN_ENV, notebook_launch

ROOT = Path(__file__).resolve().parents[1]


def test_the_launch_sets_the_demo_run_of_the_game_by_default(cli, dkd_run, tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copytree(dkd_run, runs / "demo-dino-kontra-dino")
    r = cli("notebook", "dkd", "--runs-dir", str(runs), "--dry-run")
    assert r.code == 0, r.err
    demo = (runs / "demo-dino-kontra-dino").resolve()
    assert f"{RUN_ENV}={demo} " in r.out
    assert f"-m jupyterlab --ServerApp.root_dir={ROOT} notebooks/dino_kontra_dino.ipynb" in r.out
    tour = cli("notebook", "tour", "--run", str(dkd_run), "--dry-run", "--", "--no-browser")
    assert "notebooks/analysis_tour.ipynb --no-browser" in tour.out
    design = cli("notebook", "design-search", "--runs-dir", str(runs), "--dry-run")
    assert f"DINOLAB_STUDY_DIR={(runs / 'notebook-design-search').resolve()} " in design.out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope"], "no notebook 'nope' (known: dino-kontra-dino, evo, "),
        (["evo", "--runs-dir", "/nonexistent"], "no run at /nonexistent/demo-evo (make run"),
        (["evo", "--run", "{dkd}"], "is a run of dino-kontra-dino; this notebook reads evo"),
        (["design-search", "--run", "{dkd}"], "the design search plays its own runs"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, dkd_run, args, message):
    r = cli("notebook", *[a.replace("{dkd}", str(dkd_run)) for a in args], "--dry-run")
    assert r.code == 2
    assert message in r.err
    assert r.err.count("\n") == 1 and "Traceback" not in r.err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_jupyterlab_serves_the_notebook_on_the_run(dkd_run, tmp_path):
    port, token = _free_port(), "dinolab-test"
    launch = notebook_launch(
        "tour",
        dkd_run,
        extra=[
            "--no-browser",
            f"--ServerApp.port={port}",
            "--ServerApp.ip=127.0.0.1",
            f"--IdentityProvider.token={token}",
            "--ServerApp.port_retries=0",
            *(["--allow-root"] if os.geteuid() == 0 else []),  # CI containers run as root
        ],
    )
    env = {**os.environ, **launch.env, "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt")}
    log = tmp_path / "lab.log"
    with log.open("wb") as sink:  # a pipe nobody reads would fill and stall the server
        server = subprocess.Popen(launch.command, cwd=launch.cwd, env=env, stderr=sink)
    url = f"http://127.0.0.1:{port}/api/contents/notebooks/analysis_tour.ipynb?token={token}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as reply:
                    nb = json.load(reply)
                break
            except OSError:
                assert server.poll() is None, log.read_text()[-2000:]
                assert time.monotonic() < deadline, "JupyterLab did not answer in 120 s"
                time.sleep(0.5)
        assert nb["type"] == "notebook" and nb["content"]["cells"]
        lab = f"http://127.0.0.1:{port}/lab/tree/notebooks/analysis_tour.ipynb?token={token}"
        with urllib.request.urlopen(lab, timeout=10) as page:
            assert page.status == 200
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    assert launch.command[:3] == [sys.executable, "-m", "jupyterlab"]
    assert launch.env[RUN_ENV] == str(Path(dkd_run).resolve())
