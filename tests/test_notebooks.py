"""The notebooks run top to bottom on a small run (real execution with a Jupyter kernel)."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes(path, dkd_run, evo_run, monkeypatch):
    monkeypatch.setenv("DINOLAB_RUN", str(dkd_run))
    monkeypatch.setenv("DINOLAB_RUN_EVO", str(evo_run))
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent.parent)}},
    )
    client.execute(env=dict(os.environ))
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert "replay matches the logged rows" in text
