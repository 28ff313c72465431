"""Every notebook runs top to bottom on a small run (real execution with a Jupyter kernel):
each registered game's own notebook on a run of that game; the design-search notebook plays
its own small run, sweep and search in a temporary folder."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from simulate.games import all_games

ROOT = Path(__file__).resolve().parents[1]
WITH_NOTEBOOKS = [g for g in all_games() if g.notebook]


def execute(path: Path, env: dict[str, str]) -> str:
    """Run a notebook; return the text it printed (fails on any error cell)."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute(env={**os.environ, **env})
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    return "".join(o.get("text", "") for o in outputs)


TOUR = ROOT / "notebooks" / "analysis_tour.ipynb"
DESIGN = ROOT / "notebooks" / "design_search.ipynb"


def test_every_notebook_in_the_folder_is_a_game_s_the_tour_or_the_design_search():
    declared = {ROOT / g.notebook for g in WITH_NOTEBOOKS} | {TOUR, DESIGN}
    assert set(ROOT.glob("notebooks/*.ipynb")) <= declared


@pytest.mark.slow
def test_the_analysis_tour_executes(dkd_run):
    text = execute(TOUR, {"DINOLAB_RUN": str(dkd_run)})
    assert "replay matches the logged rows" in text
    assert "widest seat interval" in text


@pytest.mark.slow
@pytest.mark.parametrize("game", WITH_NOTEBOOKS, ids=lambda g: g.name)
def test_the_game_notebook_executes(game, demo_run):
    text = execute(ROOT / game.notebook, {"DINOLAB_RUN": str(demo_run(game))})
    assert "replay matches the logged rows" in text


@pytest.mark.slow
def test_the_design_search_notebook_executes(tmp_path):
    study = tmp_path / "study"
    text = execute(DESIGN, {"DINOLAB_STUDY_DIR": str(study)})
    assert "today the first player wins" in text
    assert "seeds of the 9 points: {0}" in text
    assert "paired interval" in text
    assert "recommendation:" in text
    assert "fresh games" in text
    assert "minimal changes:" in text and "one-step deviations" in text
    for made in (
        "sweep/results.csv",
        "sweep/report.html",
        "search/recommendation.json",
        "search/search.db",
        "search/report.html",
    ):
        assert (study / made).exists(), made
