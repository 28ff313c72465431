"""``dinolab notebook``: open a notebook in JupyterLab on a run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from simulate.cli.app import app, echo


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def notebook(
    ctx: typer.Context,
    name: Annotated[
        str,
        typer.Argument(
            help="A game (name or alias) for its own notebook, 'tour' for the analysis tour "
            "(on a Dino Kontra Dino run) or 'design-search'."
        ),
    ],
    run: Annotated[
        Path | None,
        typer.Option(help="The run to read (default: RUNS_DIR/demo-<game>, written by make run)."),
    ] = None,
    runs_dir: Annotated[
        Path, typer.Option("--runs-dir", help="Where the demo runs are (make run: runs).")
    ] = Path("runs"),
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print the launch (variables and command); start nothing."),
    ] = False,
) -> None:
    """Open a notebook in JupyterLab on a run: by default the demo run of its game.

    The notebooks read their run from $DINOLAB_RUN; this sets it (to an absolute path: Jupyter
    starts the kernel in notebooks/) and starts JupyterLab from the project's environment on the
    notebook. Arguments after -- go to JupyterLab. Stop it with Ctrl-C.

    Examples:

        make run && dinolab notebook evo
        dinolab notebook tour --run runs/dkd4
        dinolab notebook oos -- --no-browser --port 8899
    """
    from simulate.notebooks import notebook_launch, open_notebook

    launch = notebook_launch(name, run, runs_dir, ctx.args)
    if dry_run:
        echo(launch.shell())
        return
    for key, value in launch.env.items():
        echo(f"{launch.notebook.name}: {key}={value}")
    raise typer.Exit(open_notebook(launch))
