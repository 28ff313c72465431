"""Open a notebook in JupyterLab on a run: each game's own notebook, the analysis tour or the
design search (``dinolab notebook``).

The notebooks read their run from ``$DINOLAB_RUN`` (the design search: its folder from
``$DINOLAB_STUDY_DIR``) and make a small run of their own when it is unset. JupyterLab starts
each notebook's kernel in ``notebooks/``, so the launch sets those variables to absolute paths:
by default the demo run ``make run`` wrote for the game (``runs/demo-<game>``).
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rules.core.errors import DinolabError
from simulate.games import all_games, get_game
from simulate.manifest import read_manifest
from simulate.storage import open_store

ROOT = Path(__file__).resolve().parents[1]
"""The project root: the notebooks are in ``ROOT/notebooks``."""
TOUR = "tour"
"""The analysis tour (``notebooks/analysis_tour.ipynb``), on a Dino Kontra Dino run."""
TOUR_GAME = "dino-kontra-dino"
DESIGN = "design-search"
"""The design search (``notebooks/design_search.ipynb``): plays its own run, sweep and search."""
RUN_ENV = "DINOLAB_RUN"
STUDY_ENV = "DINOLAB_STUDY_DIR"


@dataclass(frozen=True)
class Launch:
    """How to open one notebook: the command, where to run it, and what it sets."""

    notebook: Path
    env: dict[str, str]
    command: list[str]
    cwd: Path

    def shell(self) -> str:
        """The launch as one line a user could type."""
        sets = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items())
        return f"cd {shlex.quote(str(self.cwd))} && {sets} {shlex.join(self.command)}"


def notebook_names() -> list[str]:
    """What ``dinolab notebook`` opens: every game with a notebook, the tour, the design search."""
    return [g.name for g in all_games() if g.notebook] + [TOUR, DESIGN]


def notebook_launch(
    name: str, run: Path | None = None, runs_dir: Path = Path("runs"), extra: Sequence[str] = ()
) -> Launch:
    """The launch of notebook ``name`` (a game or alias, ``tour`` or ``design-search``) on
    ``run`` (default: ``runs_dir/demo-<game>``); ``extra`` goes to JupyterLab as it is.

    Raises :class:`DinolabError` for an unknown name, a missing run or one of another game,
    and when JupyterLab is not installed."""
    if name == DESIGN:
        if run is not None:
            raise DinolabError("the design search plays its own runs: give it no --run")
        study = (runs_dir / "notebook-design-search").resolve()
        return _launch(ROOT / "notebooks" / "design_search.ipynb", {STUDY_ENV: str(study)}, extra)
    games = {alias: g for g in all_games() if g.notebook for alias in (g.name, *g.aliases)}
    if name not in games and name != TOUR:
        raise DinolabError(f"no notebook '{name}' (known: {', '.join(notebook_names())})")
    game = get_game(TOUR_GAME) if name == TOUR else games[name]
    run = (run or runs_dir / f"demo-{game.name}").resolve()
    _check_run(run, game.name)
    path = "notebooks/analysis_tour.ipynb" if name == TOUR else game.notebook
    return _launch(ROOT / path, {RUN_ENV: str(run)}, extra)


def _check_run(run: Path, game: str) -> None:
    """Refuse a folder that holds no run of ``game``, saying how to make one."""
    if not (run / "manifest.json").is_file():
        raise DinolabError(f"no run at {run} (make run writes runs/demo-<game>; or pass --run DIR)")
    found = read_manifest(open_store(run))["config"]["game"]
    if found != game:
        raise DinolabError(f"{run} is a run of {found}; this notebook reads {game}")


def _launch(notebook: Path, env: dict[str, str], extra: Sequence[str]) -> Launch:
    """JupyterLab from this environment on ``notebook``, served from the project root."""
    if importlib.util.find_spec("jupyterlab") is None:
        raise DinolabError(
            "JupyterLab is not in this environment: make venv installs it "
            "(or pip install -e '.[notebooks]')"
        )
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--ServerApp.root_dir={ROOT}",  # the whole project in the file browser, not notebooks/
        str(notebook.relative_to(ROOT)),
        *extra,
    ]
    return Launch(notebook, env, command, ROOT)


def open_notebook(launch: Launch) -> int:
    """Run JupyterLab until it is stopped; its exit status."""
    import subprocess

    try:
        return subprocess.run(
            launch.command, cwd=launch.cwd, env={**os.environ, **launch.env}
        ).returncode
    except KeyboardInterrupt:
        return 0
